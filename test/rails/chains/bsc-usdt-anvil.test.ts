// USDT on BNB Smart Chain (BEP-20, 18 decimals) against a real node: anvil on BSC testnet's chain id,
// with an 18-decimal token placed by anvil_setCode at the networks table's BSC testnet USDT contract.
// The watcher reads it through the BSC node (not Ethereum's), exact to the last of 18 decimals; the
// wallet rails hand out the same EVM address as on Ethereum and ask for it in an EIP-681 URI of chain 97.
// No database.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Decimal } from "../../../src/core/money/amounts.ts";
import { cryptoBySlug, type CryptoCurrency } from "../../../src/core/money/currencies.ts";
import { CHAINS, coinNetwork, USDT_BSC_TESTNET_CONTRACT } from "../../../src/core/networks.ts";
import { ChainWatchers } from "../../../src/rails/chains/index.ts";
import { chainConfig, ChainEnvSchema } from "../../../src/rails/chains/config.ts";
import { HdWalletRails } from "../../../src/rails/wallets/index.ts";
import { DEV_ACCOUNT, startAnvil, type Anvil } from "../../support/anvil.ts";

const BSC_TESTNET = CHAINS.bsc.test.chainId ?? 0;
const UNIT = 10n ** 18n;
const USDT = cryptoBySlug("USDT") as CryptoCurrency;
const compiled = JSON.parse(readFileSync(new URL("token/TestToken.json", import.meta.url), "utf8")) as {
  contracts: Record<"TestToken18", { deployedBytecode: string }>;
};

let anvil: Anvil;
beforeAll(async () => {
  anvil = await startAnvil({ chainId: BSC_TESTNET });
  await anvil.setCode(USDT_BSC_TESTNET_CONTRACT, compiled.contracts.TestToken18.deployedBytecode);
  await anvil.sendTransaction({ to: USDT_BSC_TESTNET_CONTRACT, data: abiCall("mint(address,uint256)", DEV_ACCOUNT, 1000n * UNIT) });
});
afterAll(() => anvil.stop());

function abiCall(signature: string, ...args: (string | bigint)[]): string {
  const selector = bytesToHex(keccak_256(utf8ToBytes(signature)).slice(0, 4));
  return `0x${selector}${args.map((a) => BigInt(a).toString(16).padStart(64, "0")).join("")}`;
}

const newAddress = () => `0x${randomBytes(20).toString("hex")}`;

/** Test-mode watchers with the BSC node on anvil and no Ethereum node. */
const watchers = () =>
  new ChainWatchers({
    timeoutMs: 5000,
    esplora: { BTC: {}, LTC: {} },
    evm: { ethereum: {}, bsc: { test: anvil.url } },
    evmTuning: { headMaxAgeMs: 0 },
  });

describe("USDT on BNB Smart Chain (BEP-20, 18 decimals) on anvil", () => {
  it("is a row of the networks table with 18 decimals, BSC testnet's chain id and BNB's confirmations", () => {
    expect(coinNetwork("USDT", "bsc")).toMatchObject({ standard: "BEP-20", decimals: 18 });
    expect(BSC_TESTNET).toBe(97);
    const config = chainConfig(ChainEnvSchema.parse({ PAYGATE_CONFIRMATIONS_BNB: "7", PAYGATE_CONFIRMATIONS_ETH: "30" }));
    expect(config.requiredConfirmations(USDT, "bsc")).toBe(7);
    expect(config.requiredConfirmations(USDT)).toBe(30);
    expect(config.requiredConfirmations(USDT, "ethereum")).toBe(30);
  });

  it("finds a transfer through the BSC node, exact to the last of 18 decimals, with growing confirmations", async () => {
    const w = watchers();
    const me = newAddress();
    const since = new Date();
    const tx = await anvil.sendTransaction({ to: USDT_BSC_TESTNET_CONTRACT, data: abiCall("transfer(address,uint256)", me, 12n * UNIT + 1n) });
    const block = await anvil.blockOf(tx);
    const read = () => w.receiptsTo(USDT, false, me, { since, requiredConfirmations: 3, network: "bsc" });
    const first = await read();
    expect(
      first.map((r) => ({ key: r.key, txHash: r.txHash, amount: r.amount.toFixed(), confirmations: r.confirmations, blockHeight: r.blockHeight })),
    ).toEqual([{ key: `${tx}:0`, txHash: tx, amount: "12.000000000000000001", confirmations: 1, blockHeight: block }]);
    await anvil.mine(2);
    expect((await read()).map((r) => r.confirmations)).toEqual([3]);
  });

  it("does not read USDT on Ethereum from the BSC node: no Ethereum node is configured", async () => {
    const w = watchers();
    expect(w.supports(USDT, false, "bsc")).toBe(true);
    expect(w.supports(USDT, false)).toBe(false);
    await expect(w.receiptsTo(USDT, false, newAddress(), { since: new Date(), requiredConfirmations: 1 })).rejects.toThrow(
      "no node configured for USDT test (set PAYGATE_ETH_TEST_RPC_URL)",
    );
  });

  it("hands out the same address as on Ethereum, and asks for the amount in an EIP-681 URI of chain 97 in 18-decimal units", () => {
    const rails = new HdWalletRails();
    const key = rails.createTestWallet(USDT, "bsc");
    const onBsc = rails.deriveAddress(USDT, false, key, 5, "bsc");
    expect(onBsc).toBe(rails.deriveAddress(USDT, false, key, 5));
    expect(rails.paymentUri(USDT, false, onBsc, new Decimal("12.5"), "bsc")).toBe(
      `ethereum:${USDT_BSC_TESTNET_CONTRACT}@97/transfer?address=${onBsc}&uint256=12500000000000000000`,
    );
    expect(rails.paymentUri(USDT, false, onBsc, new Decimal("12.5"))).toMatch(/@11155111\/transfer\?address=0x[0-9a-fA-F]{40}&uint256=12500000$/);
    // The token contract itself is no refund address on its network.
    expect(rails.isValidAddress(USDT, false, USDT_BSC_TESTNET_CONTRACT, "bsc")).toBe(false);
    expect(rails.isValidAddress(USDT, false, USDT_BSC_TESTNET_CONTRACT)).toBe(true);
  });
});
