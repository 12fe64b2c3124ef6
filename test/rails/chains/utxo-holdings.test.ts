// What a handed-out BTC/LTC address holds now (the funds-held view, issue 25): through an own node
// (Litecoin Core on regtest: the watch-only wallet's unspent outputs, unconfirmed ones too; an
// address the wallet does not hold is refused, not shown as empty), and through Esplora
// (`/address/:address`, chain and mempool stats), answered by a local server as electrs documents it
// (no Esplora runs here). The coin is its own fee coin.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cryptoBySlug, type CryptoCurrency } from "../../../src/core/money/currencies.ts";
import { GENESIS } from "../../../src/rails/chains/esplora.ts";
import { ChainWatchers } from "../../../src/rails/chains/index.ts";
import { FUNDER, startLitecoind, type Litecoind } from "../../support/litecoind.ts";
import { useRecordingServers } from "../../support/recording-server.ts";

const LTC = cryptoBySlug("LTC") as CryptoCurrency;
const BTC = cryptoBySlug("BTC") as CryptoCurrency;
const SINCE = new Date(0);
const serve = useRecordingServers();

let node: Litecoind;
beforeAll(async () => {
  node = await startLitecoind();
});
afterAll(() => node?.stop());

describe("an own node's watch-only wallet", () => {
  it("sums the address's unspent outputs, unconfirmed ones too, exactly; the fee coin is the coin", async () => {
    const chains = new ChainWatchers({
      timeoutMs: 10_000,
      esplora: { BTC: {}, LTC: {} },
      evm: { ethereum: {}, bsc: {} },
      coreNodes: { LTC: { test: { url: node.url, chain: "regtest" } } },
      nodeWallet: "holdings",
    });
    // The merchant's own wallet holds the key (not the payer's, which would spend the output as change).
    await node.send("createwallet", ["merchant"]);
    const address = await node.newAddress("merchant");
    // The watcher imports the address at its first read, as for a payment it watches.
    chains.beginPass([{ currency: LTC, isLive: false, address, since: SINCE, receipts: [] }]);
    await chains.receiptsTo(LTC, false, address, { since: SINCE, requiredConfirmations: 6 });
    const held = async () => {
      const h = await chains.holdings(LTC, false, address, "litecoin");
      return [h.coin.toFixed(), h.feeCoin.toFixed()];
    };
    expect(await held()).toEqual(["0", "0"]);
    await node.send("sendtoaddress", [address, 1.25], FUNDER);
    await node.mine(1);
    await node.send("sendtoaddress", [address, 0.00012345], FUNDER);
    expect(await held()).toEqual(["1.25012345", "1.25012345"]);

    const stranger = await node.newAddress();
    await expect(chains.holdings(LTC, false, stranger, "litecoin")).rejects.toThrow(`${stranger} is not in the watch-only wallet "holdings"`);
  });
});

describe("Esplora", () => {
  it("is what the address received less what it spent, on the chain and in the mempool", async () => {
    const address = "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx";
    const server = await serve((res, req) => {
      // The network check first: the server is on Bitcoin testnet4, test mode's.
      if (req.url === "/block-height/0") {
        res.writeHead(200).end(GENESIS.bitcoinTestnet4);
        return;
      }
      if (req.url !== `/address/${address}`) {
        res.writeHead(404).end("not found");
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          address,
          chain_stats: { funded_txo_count: 2, funded_txo_sum: 150_000_000, spent_txo_count: 1, spent_txo_sum: 100_000_000, tx_count: 3 },
          mempool_stats: { funded_txo_count: 1, funded_txo_sum: 1, spent_txo_count: 0, spent_txo_sum: 0, tx_count: 1 },
        }),
      );
    });
    const chains = new ChainWatchers({ timeoutMs: 5_000, esplora: { BTC: { test: server.url }, LTC: {} }, evm: { ethereum: {}, bsc: {} } });
    const h = await chains.holdings(BTC, false, address, "bitcoin");
    expect([h.coin.toFixed(), h.feeCoin.toFixed()]).toEqual(["0.50000001", "0.50000001"]);
  });

  it("refuses an answer without the stats, naming what is missing", async () => {
    const server = await serve((res, req) =>
      req.url === "/block-height/0"
        ? void res.writeHead(200).end(GENESIS.bitcoinTestnet4)
        : void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ chain_stats: {} })),
    );
    const chains = new ChainWatchers({ timeoutMs: 5_000, esplora: { BTC: { test: server.url }, LTC: {} }, evm: { ethereum: {}, bsc: {} } });
    await expect(chains.holdings(BTC, false, "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx", "bitcoin")).rejects.toThrow(
      "has no chain_stats.funded_txo_sum",
    );
  });

  it("a network without a node is refused naming the variable to set", async () => {
    const chains = new ChainWatchers({ timeoutMs: 5_000, esplora: { BTC: {}, LTC: {} }, evm: { ethereum: {}, bsc: {} } });
    await expect(chains.holdings(BTC, false, "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx", "bitcoin")).rejects.toThrow(
      "no node configured for BTC test (set PAYGATE_BTC_TEST_ESPLORA_URL)",
    );
  });
});
