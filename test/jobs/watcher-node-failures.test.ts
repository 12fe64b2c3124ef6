// The payment watcher when a chain node fails: garbage, no answer in time, a JSON-RPC error. One log
// line per node at once, then at most one a minute while it lasts, and one when it answers again; a
// metric counts the failed reads by coin, mode, backend and reason, a gauge keeps the time of the
// last pass that read the node whole; nothing is recorded for the addresses it could not read, and
// /readyz stays about the database. Fake nodes: a real one does not answer garbage or hang on demand
// (test/rails/chains/node-outages.test.ts has real nodes that go away and come back).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import { PaymentWatcher } from "../../src/jobs/payment-watcher.ts";
import { createLogger, lineLogger } from "../../src/logging.ts";
import { wholeWatchList } from "../../src/jobs/watch-shares.ts";
import { ChainWatchers } from "../../src/rails/chains/index.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { startFakeEsplora, txid, type FakeEsplora } from "../rails/chains/fake-esplora.ts";
import { startFakeEvmNode, type FakeEvmNode } from "../rails/chains/fake-evm-node.ts";
import { initializeBody } from "../support/builders.ts";
import { freePort } from "../support/anvil.ts";

let t: TestGateway;
let esplora: FakeEsplora;
let evm: FakeEvmNode;
let watcher: PaymentWatcher;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
const logs: string[] = [];
const clock = { now: Date.parse("2026-11-26T10:00:00Z") };

beforeAll(async () => {
  t = await startTestGateway();
  esplora = await startFakeEsplora();
  evm = await startFakeEvmNode();
  evm.chainId = 11_155_111; // Sepolia: test mode's chain
  evm.genesisTime = Math.floor(Date.now() / 1000) - evm.head * evm.blockSeconds;
  keys = await t.merchant({ name: "Failing Nodes Ltd" });
  const chains = new ChainWatchers({
    timeoutMs: 300,
    esplora: { BTC: { test: esplora.url }, LTC: {} },
    evm: { ethereum: { test: evm.url }, bsc: {} },
    esploraTuning: { tipMaxAgeMs: 0 },
    evmTuning: { headMaxAgeMs: 0 },
  });
  const settings = { intervalMs: 15_000, concurrency: 2, lateGraceMs: 0, requiredConfirmations: () => 2, now: () => clock.now };
  watcher = new PaymentWatcher(t.gateway.payments, chains, settings, (line) => logs.push(line), wholeWatchList, t.metrics);
});
afterAll(async () => {
  await watcher.stop();
  await t.close();
  await esplora.close();
  await evm.close();
});
beforeEach(() => {
  esplora.failure = null;
  evm.failure = null;
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function pending(currencyId: string) {
  const init = await t.post("/v1/transaction", initializeBody(), bearer(keys.testPublicKey));
  const pay = await t.post(`/v1/transaction/${init.body.data.id}/pay`, { currency_id: currencyId }, bearer(keys.testSecretKey));
  expect(pay.status).toBe(200);
  return {
    id: init.body.data.id as string,
    address: pay.body.data.payment_address as string,
    due: new Decimal(String(pay.body.data.payment_amount)),
  };
}

/** What is recorded of a transaction: its row's state and version, its receipts, its events. */
async function recorded(id: string) {
  const row = await t.db.transaction.findUniqueOrThrow({ where: { id } });
  const receipts = await t.db.paymentReceipt.count({ where: { transactionId: id } });
  const events = (await t.db.webhookEvent.findMany({ where: { transactionId: id }, orderBy: { seq: "asc" } })).map((e) => e.type);
  return { status: row.status, updatedAt: row.updatedAt, amountPaid: row.amountPaid?.toString() ?? null, receipts, events };
}

async function metric(name: string, labels: Record<string, string>): Promise<number> {
  const found = await t.metrics.registry.getSingleMetric(name)?.get();
  const value = found?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  return value?.value ?? 0;
}
const errors = (coin: string, backend: string, reason: string) => metric("paygate_chain_node_errors_total", { coin, mode: "test", backend, reason });

describe("a node that answers garbage", () => {
  it("is said once, then once a minute; counted per failed read; nothing recorded; /readyz 200; then read again from where it was", async () => {
    const { id, address, due } = await pending("4");
    const before = await recorded(id);
    esplora.failure = (path) => (path.startsWith("/address/") ? { raw: "<html><body>Service Unavailable</body></html>" } : null);
    const counted = await errors("BTC", "esplora", "malformed");
    const said = logs.length;

    const report = await watcher.tick();
    expect(report.failed).toBeGreaterThan(0);
    expect(logs.slice(said)).toHaveLength(1);
    expect(logs.at(-1)).toMatch(
      /^payment watcher: BTC test: BTC test Esplora \(127\.0\.0\.1:\d+\): \/address\/\w+\/txs did not answer JSON .*; the addresses are read again every 15 s, and this is said again at most once a minute while it lasts \(set PAYGATE_BTC_TEST_ESPLORA_URL to a node this machine can reach, or to none to stop watching BTC test\)$/,
    );
    // One error per failed request: each address's history is one.
    expect(await errors("BTC", "esplora", "malformed")).toBe(counted + report.failed);
    expect(await recorded(id)).toEqual(before);
    expect((await fetch(`${t.url}/readyz`)).status).toBe(200);

    clock.now += 30_000;
    await watcher.tick();
    expect(logs.slice(said)).toHaveLength(1); // within the minute: quiet
    clock.now += 31_000;
    await watcher.tick();
    expect(logs.slice(said)).toHaveLength(2);
    expect(logs.at(-1)).toMatch(
      /^payment watcher: BTC test: still failing since 2026-11-26T10:00:00\.000Z \(\d+ failed node reads in the last 61 s\): BTC test Esplora .* did not answer JSON/,
    );
    expect(await recorded(id)).toEqual(before);

    esplora.failure = null;
    esplora.txs.push({
      txid: txid(9001),
      outputs: [{ address, value: BigInt(due.times(1e8).toFixed(0)) }],
      height: esplora.tip - 3,
      blockTime: Math.floor(Date.now() / 1000),
    });
    await watcher.tick();
    expect((await recorded(id)).status).toBe("SUCCESSFUL");
    expect(logs.at(-1)).toBe("payment watcher: BTC test: the node answers again (it failed for 61 s)");
    expect(await metric("paygate_chain_node_last_success_timestamp_seconds", { coin: "BTC", mode: "test", backend: "esplora" })).toBe(
      clock.now / 1000,
    );
  });

  it("says an EVM node's nonsense once for the coins it serves (ETH and USDT), counted as malformed under each", async () => {
    const eth = await pending("6");
    const usdt = await pending("3");
    const before = await Promise.all([recorded(eth.id), recorded(usdt.id)]);
    evm.failure = (call) => (call.method === "eth_getBlockByNumber" ? { raw: '{"jsonrpc":"2.0","id":1,"result":"0xnotablock"' } : null);
    const counted = await Promise.all([errors("ETH", "evm", "malformed"), errors("USDT", "evm", "malformed")]);
    const said = logs.length;
    const report = await watcher.tick();
    evm.failure = null;
    expect(report.failed).toBe(2);
    expect(logs.slice(said)).toEqual([
      expect.stringMatching(
        /^payment watcher: (ETH test, USDT test|USDT test, ETH test): Ethereum Sepolia testnet JSON-RPC \(127\.0\.0\.1:\d+\): eth_getBlockByNumber answered nonsense: the answer is not JSON: .* \(set PAYGATE_ETH_TEST_RPC_URL to a node this machine can reach/,
      ),
    ]);
    expect(await Promise.all([errors("ETH", "evm", "malformed"), errors("USDT", "evm", "malformed")])).toEqual([counted[0] + 1, counted[1] + 1]);
    expect(await Promise.all([recorded(eth.id), recorded(usdt.id)])).toEqual(before);
    await watcher.tick();
    expect(logs.slice(said + 1)).toEqual([
      expect.stringMatching(/^payment watcher: (ETH test, USDT test|USDT test, ETH test): the node answers again/),
    ]);
  });
});

describe("a node that does not answer in time", () => {
  it("fails the pass within the timeout, counted as timeout, and leaves the transaction as it was", async () => {
    const { id } = await pending("4");
    const before = await recorded(id);
    esplora.failure = (path) => (path.startsWith("/address/") ? "hang" : null);
    const counted = await errors("BTC", "esplora", "timeout");
    const report = await watcher.tick();
    esplora.failure = null;
    expect(report.failed).toBeGreaterThan(0);
    expect(await errors("BTC", "esplora", "timeout")).toBe(counted + report.failed);
    expect(await recorded(id)).toEqual(before);
    expect((await fetch(`${t.url}/readyz`)).status).toBe(200);
    const scrape = await (await fetch(`${t.url}/metrics`)).text();
    expect(scrape).toMatch(/^paygate_chain_node_errors_total\{coin="BTC",network="bitcoin",mode="test",backend="esplora",reason="timeout"\} \d+$/m);
    await watcher.tick();
    expect(logs.at(-1)).toMatch(/^payment watcher: BTC test: the node answers again/);
  });
});

describe("a node on another network", () => {
  it("is refused by its genesis block, once, naming the variable to fix", async () => {
    const { id } = await pending("4");
    const before = await recorded(id);
    esplora.genesis = "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f"; // Bitcoin mainnet's
    // The check is made at the first read and after a connection failure: cut one, as a restarted server would.
    esplora.failure = (path) => (path === "/blocks/tip/height" ? "reset" : null);
    await watcher.tick();
    esplora.failure = null;
    clock.now += 61_000; // said again: a minute later
    const counted = await errors("BTC", "esplora", "wrong_network");
    const report = await watcher.tick();
    esplora.genesis = "00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043";
    expect(report.failed).toBeGreaterThan(0);
    expect(await errors("BTC", "esplora", "wrong_network")).toBe(counted + 1);
    expect(
      logs.some((l) =>
        l.includes(
          "the server is on Bitcoin mainnet, not a Bitcoin test network (testnet3, testnet4, signet or regtest): nothing is read from it (set PAYGATE_BTC_TEST_ESPLORA_URL to an Esplora API of a Bitcoin test network",
        ),
      ),
    ).toBe(true);
    expect(await recorded(id)).toEqual(before);
  });
});

describe("the nodes at start", () => {
  it("are checked in the background, before any payment: a hanging one and an unreachable one named, each once with its variable; a fine one in one line", async () => {
    const port = await freePort();
    const chains = new ChainWatchers({
      timeoutMs: 300,
      esplora: { BTC: { test: esplora.url }, LTC: { test: `http://127.0.0.1:${port}` } },
      evm: { ethereum: { test: evm.url }, bsc: {} },
    });
    const lines: string[] = [];
    // An instance with no share of the watch list makes no pass: what it says is the start-up check's.
    const noShare = { current: async () => null, release: async () => {} };
    const settings = { intervalMs: 15_000, concurrency: 2, lateGraceMs: 0, requiredConfirmations: () => 2, now: () => clock.now };
    const starting = new PaymentWatcher(t.gateway.payments, chains, settings, (line) => lines.push(line), noShare, t.metrics);
    esplora.failure = (path) => (path === "/block-height/0" ? "hang" : null);
    const counted = await Promise.all([errors("BTC", "esplora", "timeout"), errors("LTC", "esplora", "unreachable")]);
    try {
      starting.start();
      // Not waited for: the service is ready while a node hangs.
      expect((await fetch(`${t.url}/readyz`)).status).toBe(200);
      for (const deadline = Date.now() + 10_000; lines.length < 3 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
      expect([...lines].sort()).toEqual([
        expect.stringMatching(
          /^payment watcher: BTC test: BTC test Esplora \(127\.0\.0\.1:\d+\): .*300 ms.*\(set PAYGATE_BTC_TEST_ESPLORA_URL to a node this machine can reach, or to none to stop watching BTC test\)$/,
        ),
        `payment watcher: ETH test, USDT test, USDC test: Ethereum Sepolia testnet JSON-RPC (${new URL(evm.url).host}) answers: chain id 11155111 (Ethereum Sepolia testnet)`,
        expect.stringMatching(
          new RegExp(
            `^payment watcher: LTC test: LTC test Esplora \\(127\\.0\\.0\\.1:${port}\\): .*connection refused.*\\(set PAYGATE_LTC_TEST_ESPLORA_URL to a node this machine can reach, or to none to stop watching LTC test\\)$`,
          ),
        ),
      ]);
      expect(await Promise.all([errors("BTC", "esplora", "timeout"), errors("LTC", "esplora", "unreachable")])).toEqual([
        counted[0] + 1,
        counted[1] + 1,
      ]);
    } finally {
      await starting.stop();
    }
  });
});

describe("how a failing node is logged (issue 42)", () => {
  /** A watcher of its own writing through the service's structured log, its lines captured. */
  function loggedWatcher() {
    const lines: { level: string; msg: string }[] = [];
    const logger = createLogger({ destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
    const chains = new ChainWatchers({
      timeoutMs: 300,
      esplora: { BTC: { test: esplora.url }, LTC: {} },
      evm: { ethereum: { test: evm.url }, bsc: {} },
      esploraTuning: { tipMaxAgeMs: 0 },
      evmTuning: { headMaxAgeMs: 0 },
    });
    const settings = { intervalMs: 15_000, concurrency: 2, lateGraceMs: 0, requiredConfirmations: () => 2, now: () => clock.now };
    return { lines, watcher: new PaymentWatcher(t.gateway.payments, chains, settings, lineLogger(logger), wholeWatchList) };
  }

  it("says a node failure at warn (payments go unwatched), and its recovery at info", async () => {
    await pending("4");
    const { lines, watcher: own } = loggedWatcher();
    esplora.failure = (path) => (path.startsWith("/address/") ? { raw: "<html><body>Service Unavailable</body></html>" } : null);
    await own.tick();
    expect(lines.filter((l) => l.msg.startsWith("payment watcher: BTC test:")).map((l) => l.level)).toEqual(["warn"]);
    esplora.failure = null;
    await own.tick();
    expect(lines.filter((l) => l.msg.startsWith("payment watcher: BTC test:")).map((l) => [l.level, /answers again/.test(l.msg)])).toEqual([
      ["warn", false],
      ["info", true],
    ]);
  });

  it("says a node on the wrong chain at warn, asking for a node on the right chain", async () => {
    await pending("6");
    const { lines, watcher: own } = loggedWatcher();
    evm.chainId = 1; // Ethereum mainnet, where test mode reads Sepolia
    try {
      await own.tick();
    } finally {
      evm.chainId = 11_155_111;
    }
    const said = lines.filter((l) => /^payment watcher: (ETH|USDT) test/.test(l.msg));
    expect(said.map((l) => l.level)).toEqual(["warn"]);
    expect(said[0]?.msg).toMatch(
      /the node is on chain id 1 \(Ethereum\).* \(set PAYGATE_ETH_TEST_RPC_URL to a node on the right chain, or to none to stop watching (ETH test|ETH test, USDT test|USDT test, ETH test)\)$/,
    );
  });
});
