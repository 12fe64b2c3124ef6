// The Esplora client against a local server speaking electrs's HTTP API.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ObservedReceipt } from "../../../src/core/ports.ts";
import { ChainNodeError } from "../../../src/rails/chains/errors.ts";
import { EsploraClient, type EsploraOptions } from "../../../src/rails/chains/esplora.ts";
import { startFakeEsplora, txid, type FakeEsplora } from "./fake-esplora.ts";

const ME = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
const OTHER = "bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh";

let node: FakeEsplora;
beforeAll(async () => {
  node = await startFakeEsplora();
});
afterAll(() => node.close());
beforeEach(() => {
  node.tip = 100;
  node.txs = [];
  node.requests.length = 0;
  node.pageSize = 25;
  node.failure = null;
});

/** Addresses in these tests were handed out at the genesis time of the fake chain. */
const SINCE = new Date(1_700_000_000 * 1000);

function client(options: Partial<EsploraOptions> = {}) {
  return new EsploraClient({ baseUrl: node.url, timeoutMs: 1000, name: "BTC live Esplora", tipMaxAgeMs: 0, ...options });
}

const view = (receipts: ObservedReceipt[]) =>
  receipts.map((r) => ({ key: r.key, txHash: r.txHash, amount: r.amount.toFixed(), confirmations: r.confirmations, blockHeight: r.blockHeight }));

describe("Esplora: receipts", () => {
  it("reports a payment still in the mempool with 0 confirmations", async () => {
    node.txs.push({
      txid: txid(1),
      outputs: [
        { address: OTHER, value: 5000 },
        { address: ME, value: 150_000 },
      ],
      height: null,
    });
    expect(view(await client().receiptsTo(ME, { since: SINCE }))).toEqual([
      { key: `${txid(1)}:1`, txHash: txid(1), amount: "0.0015", confirmations: 0, blockHeight: null },
    ]);
    expect(node.requests).toEqual(["/blocks/tip/height", `/address/${ME}/txs`]);
  });

  it("counts confirmations as the tip moves", async () => {
    node.txs.push({ txid: txid(1), outputs: [{ address: ME, value: 100_000_000 }], height: null });
    const c = client();
    expect((await c.receiptsTo(ME, { since: SINCE }))[0]?.confirmations).toBe(0);
    node.txs[0]!.height = 101;
    node.tip = 101;
    expect(view(await c.receiptsTo(ME, { since: SINCE }))).toEqual([
      { key: `${txid(1)}:0`, txHash: txid(1), amount: "1", confirmations: 1, blockHeight: 101 },
    ]);
    node.tip = 106;
    expect((await c.receiptsTo(ME, { since: SINCE }))[0]?.confirmations).toBe(6);
  });

  it("gives one receipt per transaction of a payment split over two, and per output paying the address", async () => {
    node.txs.push({ txid: txid(1), outputs: [{ address: ME, value: 30_000 }], height: 99 });
    node.txs.push({
      txid: txid(2),
      outputs: [
        { address: ME, value: 20_000 },
        { address: null, value: 0 },
        { address: ME, value: 1 },
      ],
      height: null,
    });
    expect(view(await client().receiptsTo(ME, { since: SINCE }))).toEqual([
      { key: `${txid(1)}:0`, txHash: txid(1), amount: "0.0003", confirmations: 2, blockHeight: 99 },
      { key: `${txid(2)}:0`, txHash: txid(2), amount: "0.0002", confirmations: 0, blockHeight: null },
      { key: `${txid(2)}:2`, txHash: txid(2), amount: "0.00000001", confirmations: 0, blockHeight: null },
    ]);
  });

  it("keeps amounts exact: 1 satoshi, all 21 million BTC, the largest litoshi amount", async () => {
    node.txs.push({ txid: txid(1), outputs: [{ address: ME, value: 1 }], height: 90 });
    node.txs.push({ txid: txid(2), outputs: [{ address: ME, value: 2_100_000_000_000_000n }], height: 91 });
    node.txs.push({ txid: txid(3), outputs: [{ address: ME, value: 8_399_999_999_999_999n }], height: 92 });
    node.txs.push({ txid: txid(4), outputs: [{ address: ME, value: 12_345_678_901_234_567_890n }], height: 93 });
    const amounts = (await client().receiptsTo(ME, { since: SINCE })).map((r) => r.amount.toFixed());
    expect(amounts).toEqual(["0.00000001", "21000000", "83999999.99999999", "123456789012.3456789"]);
  });

  it("matches a bech32 address given in upper case", async () => {
    node.txs.push({ txid: txid(1), outputs: [{ address: ME, value: 7 }], height: 100 });
    const receipts = await client().receiptsTo(ME.toUpperCase(), { since: SINCE });
    expect(receipts.map((r) => r.key)).toEqual([`${txid(1)}:0`]);
  });

  it("never overstates confirmations when a block arrives between the tip and the history", async () => {
    node.txs.push({ txid: txid(1), outputs: [{ address: ME, value: 1000 }], height: 101 }); // above the tip of 100
    expect((await client().receiptsTo(ME, { since: SINCE }))[0]?.confirmations).toBe(1);
  });
});

describe("Esplora: reorganisations", () => {
  it("drops a confirmed payment that the new best chain no longer has", async () => {
    node.txs.push({ txid: txid(1), outputs: [{ address: ME, value: 1000 }], height: 98 });
    node.txs.push({ txid: txid(2), outputs: [{ address: ME, value: 2000 }], height: 99 });
    const c = client();
    expect((await c.receiptsTo(ME, { since: SINCE })).map((r) => r.key)).toEqual([`${txid(1)}:0`, `${txid(2)}:0`]);
    node.txs = node.txs.filter((tx) => tx.txid !== txid(2)); // reorganised away, not re-mined
    node.tip = 101;
    expect(view(await c.receiptsTo(ME, { since: SINCE }))).toEqual([
      { key: `${txid(1)}:0`, txHash: txid(1), amount: "0.00001", confirmations: 4, blockHeight: 98 },
    ]);
  });

  it("follows a payment moved to another height, or back to the mempool", async () => {
    node.txs.push({ txid: txid(1), outputs: [{ address: ME, value: 1000 }], height: 97 });
    const c = client();
    expect((await c.receiptsTo(ME, { since: SINCE }))[0]).toMatchObject({ confirmations: 4, blockHeight: 97 });
    node.txs[0]!.height = 100; // re-mined later on the new branch
    expect((await c.receiptsTo(ME, { since: SINCE }))[0]).toMatchObject({ key: `${txid(1)}:0`, confirmations: 1, blockHeight: 100 });
    node.txs[0]!.height = null; // back in the mempool
    expect((await c.receiptsTo(ME, { since: SINCE }))[0]).toMatchObject({ key: `${txid(1)}:0`, confirmations: 0, blockHeight: null });
  });
});

describe("Esplora: history paging", () => {
  const fill = (confirmed: number, mempool: number) => {
    for (let i = 1; i <= confirmed; i++) node.txs.push({ txid: txid(i), outputs: [{ address: ME, value: i }], height: i });
    for (let i = 1; i <= mempool; i++) node.txs.push({ txid: txid(10_000 + i), outputs: [{ address: ME, value: 1 }], height: null });
    node.tip = confirmed;
  };

  it("pages through older confirmed transactions with /txs/chain/{last seen txid}", async () => {
    fill(60, 3);
    const receipts = await client().receiptsTo(ME, { since: SINCE });
    expect(receipts).toHaveLength(63);
    expect(new Set(receipts.map((r) => r.key)).size).toBe(63);
    expect(receipts.filter((r) => r.confirmations === 0)).toHaveLength(3);
    expect(receipts.find((r) => r.key === `${txid(1)}:0`)).toMatchObject({ confirmations: 60, blockHeight: 1 });
    // Newest first: the first answer holds heights 60…36, the pages 35…11 and 10…1 (short: the last).
    expect(node.requests).toEqual([
      "/blocks/tip/height",
      `/address/${ME}/txs`,
      `/address/${ME}/txs/chain/${txid(36)}`,
      `/address/${ME}/txs/chain/${txid(11)}`,
    ]);
  });

  it("asks until a page comes back empty when the history fills whole pages", async () => {
    fill(50, 0);
    expect(await client().receiptsTo(ME, { since: SINCE })).toHaveLength(50);
    expect(node.requests.slice(1)).toEqual([`/address/${ME}/txs`, `/address/${ME}/txs/chain/${txid(26)}`, `/address/${ME}/txs/chain/${txid(1)}`]);
  });

  it("stops paging at transactions mined before `since` minus the margin, and leaves them out", async () => {
    fill(80, 0); // block i mined at genesis + 600 i s
    const since = new Date((1_700_000_000 + 60 * 600) * 1000); // block 60's time
    const receipts = await client({ sinceMarginMs: 3 * 600_000 }).receiptsTo(ME, { since }); // from block 57 on
    expect(receipts.map((r) => r.blockHeight)).toEqual(Array.from({ length: 24 }, (_, i) => 57 + i));
    // The first answer (80…56) already reaches before the cutoff: no further page.
    expect(node.requests).toEqual(["/blocks/tip/height", `/address/${ME}/txs`]);
  });

  it("refuses an address with more history than maxPages rather than reading it in part", async () => {
    fill(60, 0);
    await expect(client({ maxPages: 1 }).receiptsTo(ME, { since: SINCE })).rejects.toThrow(/more than 1 pages of history/);
  });
});

describe("Esplora: failures", () => {
  it("rejects within about the timeout when the node stops answering", async () => {
    node.failure = "hang";
    const started = Date.now();
    await expect(client({ timeoutMs: 300 }).receiptsTo(ME, { since: SINCE })).rejects.toThrow("BTC live Esplora: no complete answer within 300 ms");
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(2000);
  });

  it("rejects on an HTTP error, quoting the body", async () => {
    node.failure = { status: 500, body: "Internal error: database locked" };
    const error = await client()
      .receiptsTo(ME, { since: SINCE })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainNodeError);
    expect((error as Error).message).toBe("BTC live Esplora: HTTP 500 Internal Server Error: Internal error: database locked");
  });

  it("rejects when the history is not JSON, or not a list of transactions", async () => {
    node.failure = (path) => (path.startsWith("/address") ? { raw: '[{"txid":' } : null);
    await expect(client().receiptsTo(ME, { since: SINCE })).rejects.toThrow(/did not answer JSON/);
    node.failure = (path) => (path.startsWith("/address") ? { raw: '{"error":"busy"}' } : null);
    await expect(client().receiptsTo(ME, { since: SINCE })).rejects.toThrow(/did not answer a list of transactions/);
  });

  it("rejects a transaction of the wrong shape rather than guessing", async () => {
    node.txs.push({ txid: txid(1), outputs: [{ address: ME, value: "1.5" }], height: 100 });
    await expect(client().receiptsTo(ME, { since: SINCE })).rejects.toThrow(/vout 0 value is not a whole number of satoshis/);
    node.txs = [];
    node.failure = (path) =>
      path.startsWith("/address")
        ? { raw: `[{"txid":"${txid(1)}","vout":[{"scriptpubkey_address":"${ME}","value":1}],"status":{"confirmed":true}}]` }
        : null;
    await expect(client().receiptsTo(ME, { since: SINCE })).rejects.toThrow(/confirmed without a block_height/);
  });

  it("rejects a tip height that is not a number", async () => {
    node.failure = (path) => (path === "/blocks/tip/height" ? { raw: "<html>maintenance</html>" } : null);
    await expect(client().receiptsTo(ME, { since: SINCE })).rejects.toThrow(/the tip height is not a number/);
  });

  it("rejects when the connection is cut", async () => {
    node.failure = "reset";
    await expect(client().receiptsTo(ME, { since: SINCE })).rejects.toThrow(/BTC live Esplora: request failed/);
  });
});

describe("the tip height", () => {
  it("serves the reads of one pass from one request, then asks again once it is older than tipMaxAgeMs", async () => {
    const c = client({ tipMaxAgeMs: 200 });
    const tipRequests = () => node.requests.filter((p) => p === "/blocks/tip/height").length;
    const before = tipRequests();
    await Promise.all([c.receiptsTo(ME, { since: SINCE }), c.receiptsTo(ME, { since: SINCE }), c.receiptsTo(ME, { since: SINCE })]);
    expect(tipRequests() - before).toBe(1);
    await new Promise((r) => setTimeout(r, 250));
    await c.receiptsTo(ME, { since: SINCE });
    expect(tipRequests() - before).toBe(2);
  });

  it("does not keep a failed read", async () => {
    const c = client({ tipMaxAgeMs: 60_000 });
    node.failure = (path) => (path === "/blocks/tip/height" ? { status: 500 } : null);
    await expect(c.receiptsTo(ME, { since: SINCE })).rejects.toThrow();
    node.failure = null;
    await expect(c.receiptsTo(ME, { since: SINCE })).resolves.toBeInstanceOf(Array);
  });
});

describe("Esplora: replaceability (BIP 125)", () => {
  it("marks an unconfirmed payment replaceable when an input's nSequence is below 0xfffffffe, and no other", async () => {
    node.txs.push(
      { txid: txid(1), outputs: [{ address: ME, value: 1000 }], height: null, sequence: 0xfffffffd },
      { txid: txid(2), outputs: [{ address: ME, value: 2000 }], height: null, sequence: 0xfffffffe },
      { txid: txid(3), outputs: [{ address: ME, value: 3000 }], height: null, sequence: 0xffffffff },
      { txid: txid(4), outputs: [{ address: ME, value: 4000 }], height: 100, sequence: 0 },
    );
    const receipts = await client().receiptsTo(ME, { since: SINCE });
    expect(receipts.map((r) => [r.txHash, r.replaceable === true])).toEqual([
      [txid(4), false],
      [txid(1), true],
      [txid(2), false],
      [txid(3), false],
    ]);
  });

  it("rejects an unconfirmed transaction without its inputs rather than guessing", async () => {
    node.failure = (path) =>
      path.startsWith("/address")
        ? { raw: `[{"txid":"${txid(1)}","vout":[{"scriptpubkey_address":"${ME}","value":1}],"status":{"confirmed":false}}]` }
        : null;
    await expect(client().receiptsTo(ME, { since: SINCE })).rejects.toThrow(/has no vin list/);
    node.failure = (path) =>
      path.startsWith("/address")
        ? { raw: `[{"txid":"${txid(1)}","vin":[{"sequence":"x"}],"vout":[{"scriptpubkey_address":"${ME}","value":1}],"status":{"confirmed":false}}]` }
        : null;
    await expect(client().receiptsTo(ME, { since: SINCE })).rejects.toThrow(/vin 0 has no whole-number sequence/);
  });
});

describe("Esplora: settled payments (watched until final)", () => {
  it("reads a settled address's history again only once a block came since its last read", async () => {
    node.txs.push({ txid: txid(1), outputs: [{ address: ME, value: 1000 }], height: 100 });
    const esplora = client();
    const history = () => node.requests.filter((path) => path.startsWith("/address")).length;
    expect((await esplora.receiptsTo(ME, { since: SINCE, settled: true }))[0]?.confirmations).toBe(1);
    await esplora.receiptsTo(ME, { since: SINCE, settled: true });
    await esplora.receiptsTo(ME, { since: SINCE, settled: true });
    expect(history()).toBe(1);
    // A payment that is not settled is read at every call.
    await esplora.receiptsTo(ME, { since: SINCE });
    expect(history()).toBe(2);
    // A block: read again, and a payment gone from the chain is seen gone.
    node.tip = 101;
    node.txs = [];
    expect(await esplora.receiptsTo(ME, { since: SINCE, settled: true })).toEqual([]);
    expect(history()).toBe(3);
  });
});
