// The networks table (src/core/networks.ts): one row per coin × network, read by the API, the pages,
// the wallet rails and the chain watchers. These checks hold for every row, so a new network (Polygon,
// say) is a row here plus its own expectations below.
import { describe, expect, it } from "vitest";
import { CRYPTO_CURRENCIES, cryptoBySlug } from "../../src/core/money/currencies.ts";
import {
  CHAINS,
  COIN_NETWORKS,
  coinNetworkLabel,
  defaultNetworkOf,
  explorerLink,
  NETWORK_SLUGS,
  networkName,
  networkOrDefault,
  networksOf,
} from "../../src/core/networks.ts";
import { buildCoinNetworkTable, rowKey } from "../../src/rails/wallets/networks.ts";
import { isWellFormedEvmAddress } from "../../src/rails/wallets/addresses.ts";

describe("the networks table", () => {
  it("pays every coin on at least one network, and today's network is each coin's default", () => {
    expect(Object.fromEntries(CRYPTO_CURRENCIES.map((c) => [c.slug, defaultNetworkOf(c.slug)]))).toEqual({
      USDT: "ethereum",
      BTC: "bitcoin",
      BNB: "bsc",
      ETH: "ethereum",
      LTC: "litecoin",
      USDC: "ethereum",
    });
    expect(networksOf("USDT").map((r) => [r.network, r.standard, r.decimals])).toEqual([
      ["ethereum", "ERC-20", 6],
      ["bsc", "BEP-20", 18],
      ["tron", "TRC-20", 6],
      ["polygon", "ERC-20", 6],
      ["arbitrum", "ERC-20", 6],
    ]);
  });

  it("has one row per coin × network, each at least as precise as the coin's payment amounts, and every network in CHAINS", () => {
    const keys = COIN_NETWORKS.map((r) => `${r.coin}:${r.network}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const row of COIN_NETWORKS) {
      expect(NETWORK_SLUGS).toContain(row.network);
      expect(row.decimals, `${row.coin}:${row.network}`).toBeGreaterThanOrEqual(cryptoBySlug(row.coin)?.decimals ?? Infinity);
      expect(row.confirmations).toBeGreaterThan(0);
      // A token has a standard and a contract in each mode; a chain's own coin neither.
      expect(row.standard === null, `${row.coin}:${row.network}`).toBe(row.contract === null);
      if (row.contract && CHAINS[row.network].family === "evm") {
        expect(isWellFormedEvmAddress(row.contract.live) && isWellFormedEvmAddress(row.contract.test)).toBe(true);
      }
    }
  });

  it("gives each network one display name per mode, all different, and chain ids to EVM networks only", () => {
    const names = NETWORK_SLUGS.flatMap((slug) => [networkName(slug, true), networkName(slug, false)]);
    expect(new Set(names).size).toBe(names.length);
    expect(networkName("ethereum", false)).toBe("Ethereum Sepolia testnet");
    for (const chain of Object.values(CHAINS)) {
      for (const side of [chain.live, chain.test]) {
        expect(side.chainId !== null, chain.slug).toBe(chain.family === "evm");
        expect(side.explorer.transaction).toContain("{tx}");
        expect(side.explorer.address).toContain("{address}");
      }
    }
    expect(CHAINS.bsc.test.chainId).toBe(97);
  });

  it("names a coin on a network for people, and links to the explorer", () => {
    const usdtBsc = COIN_NETWORKS.find((r) => r.coin === "USDT" && r.network === "bsc");
    expect(usdtBsc && coinNetworkLabel(usdtBsc, false)).toBe("USDT on BNB Smart Chain testnet (BEP-20)");
    expect(explorerLink("bsc", true, "transaction", "0xabc")).toBe("https://bscscan.com/tx/0xabc");
    expect(explorerLink("tron", false, "address", "TXYZ")).toBe("https://nile.tronscan.org/#/address/TXYZ");
  });

  it("reads a stored network, and a row from before networks as the coin's default", () => {
    expect(networkOrDefault("USDT", "bsc")).toBe("bsc");
    expect(networkOrDefault("USDT", null)).toBe("ethereum");
    expect(networkOrDefault("USDT", "nonsense")).toBe("ethereum");
  });

  it("is what the wallet rails serve: every EVM and UTXO row, with the table's names, chain ids and decimals", () => {
    const rails = buildCoinNetworkTable();
    for (const row of COIN_NETWORKS) {
      const entry = rails.get(rowKey(row.coin, row.network));
      if (CHAINS[row.network].family === "tron") continue; // TRON's rows have rails of their own
      expect(entry, `${row.coin}:${row.network}`).toBeDefined();
      if (entry?.test.family !== "evm" || entry.live.family !== "evm") continue;
      expect([entry.live.name, entry.test.name]).toEqual([networkName(row.network, true), networkName(row.network, false)]);
      expect([entry.live.chainId, entry.test.chainId]).toEqual([CHAINS[row.network].live.chainId, CHAINS[row.network].test.chainId]);
      expect(entry.test.token?.decimals ?? null).toBe(row.contract ? row.decimals : null);
    }
  });
});
