// The payment watcher end to end: real chain clients against local nodes that speak Esplora and
// Ethereum JSON-RPC, feeding the core, which moves transactions and writes their events.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import type { CryptoCurrency } from "../../src/core/money/currencies.ts";
import { PaymentWatcher } from "../../src/jobs/payment-watcher.ts";
import { ChainWatchers } from "../../src/rails/chains/index.ts";
import { USDT_SEPOLIA_CONTRACT } from "../../src/rails/wallets/networks.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { startFakeEsplora, txid, type FakeEsplora } from "../rails/chains/fake-esplora.ts";
import { hash, startFakeEvmNode, type FakeEvmNode } from "../rails/chains/fake-evm-node.ts";
import { initializeBody } from "../support/builders.ts";
import { randomBytes } from "node:crypto";
import { HDKey } from "@scure/bip32";
import { cryptoBySlug } from "../../src/core/money/currencies.ts";
import type { NetworkSlug } from "../../src/core/networks.ts";
import type { ObservedReceipt } from "../../src/core/ports.ts";
import type { ConfiguredChains } from "../../src/jobs/payment-watcher.ts";
import { deriveTronAddress, tronOwnChain } from "../../src/rails/wallets/tron.ts";
import { serializeKey } from "../support/hd-keys.ts";

let t: TestGateway;
let esplora: FakeEsplora;
let evm: FakeEvmNode;
let watcher: PaymentWatcher;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
const logs: string[] = [];
const CONFIRMATIONS: Record<string, number> = { BTC: 2, LTC: 2, ETH: 3, USDT: 3, BNB: 3 };

beforeAll(async () => {
  t = await startTestGateway();
  esplora = await startFakeEsplora();
  evm = await startFakeEvmNode();
  evm.chainId = 11_155_111; // Sepolia: test mode's chain
  evm.genesisTime = Math.floor(Date.now() / 1000) - evm.head * evm.blockSeconds; // the head block was just mined
  keys = await t.merchant({ name: "Watched Ltd" });
  watcher = startWatcher();
});

/** A watcher as the service starts one: chain clients of its own (their caches empty) on the local nodes. */
function startWatcher(): PaymentWatcher {
  const chains = new ChainWatchers({
    timeoutMs: 500,
    esplora: { BTC: { test: esplora.url }, LTC: {} },
    evm: { ethereum: { test: evm.url }, bsc: {} },
    // The tests move the tip and the head between passes.
    esploraTuning: { tipMaxAgeMs: 0 },
    evmTuning: { headMaxAgeMs: 0 },
  });
  return new PaymentWatcher(
    t.gateway.payments,
    chains,
    { intervalMs: 20, concurrency: 2, lateGraceMs: 3_600_000, requiredConfirmations: (c: CryptoCurrency) => CONFIRMATIONS[c.slug]! },
    (line) => logs.push(line),
  );
}
afterAll(async () => {
  await watcher.stop();
  await t.close();
  await esplora.close();
  await evm.close();
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const nowSeconds = () => Math.floor(Date.now() / 1000);

async function pending(currencyId: string, amount = "100") {
  const init = await t.post("/v1/transaction", initializeBody({ amount }), bearer(keys.testPublicKey));
  const pay = await t.post(`/v1/transaction/${init.body.data.id}/pay`, { currency_id: currencyId }, bearer(keys.testSecretKey));
  expect(pay.status).toBe(200);
  return {
    id: init.body.data.id as string,
    address: pay.body.data.payment_address as string,
    due: new Decimal(String(pay.body.data.payment_amount)),
  };
}
const row = (id: string) => t.db.transaction.findUniqueOrThrow({ where: { id }, include: { merchant: { select: { id: true, name: true } } } });
const sats = (btc: Decimal) => BigInt(btc.times(1e8).toFixed(0));
const eventTypes = async (id: string) =>
  (await t.db.webhookEvent.findMany({ where: { transactionId: id }, orderBy: { seq: "asc" } })).map((e) => e.type);

describe("Bitcoin through Esplora", () => {
  it("sees a split payment in the mempool, waits for confirmations, then completes", async () => {
    const { id, address, due } = await pending("4");
    const first = due.div(3).toDecimalPlaces(8, Decimal.ROUND_DOWN);
    esplora.txs.push({
      txid: txid(1),
      outputs: [
        { address, value: sats(first) },
        { address: "tb1qother", value: 5000 },
      ],
      height: null,
    });
    await watcher.tick();
    let r = await row(id);
    expect(r).toMatchObject({ status: "PENDING", amountPaid: null });
    expect(r.amountUnconfirmed?.toString()).toBe(first.toFixed());
    expect(t.gateway.payments.describe(r).payment?.state).toBe("underpaid");

    esplora.txs.push({ txid: txid(2), outputs: [{ address, value: sats(due.minus(first)) }], height: null });
    await watcher.tick();
    expect(t.gateway.payments.describe(await row(id)).payment).toMatchObject({ state: "confirming", confirmations: 0, requiredConfirmations: 2 });

    for (const tx of esplora.txs.slice(-2)) Object.assign(tx, { height: esplora.tip, blockTime: nowSeconds() }); // 1 confirmation
    await watcher.tick();
    r = await row(id);
    expect(r.status).toBe("PENDING");
    // What a checkout shows while it waits: 1 of 2 confirmations.
    expect(t.gateway.payments.describe(r).payment).toMatchObject({ state: "confirming", confirmations: 1, requiredConfirmations: 2 });

    esplora.tip += 1; // 2 confirmations
    const report = await watcher.tick();
    expect(report.failed).toBe(0);
    r = await row(id);
    expect(r.status).toBe("SUCCESSFUL");
    expect(r.amountPaid?.toString()).toBe(due.toFixed());
    expect(r.amountUnconfirmed).toBeNull();
    expect(t.gateway.payments.describe(r).payment).toMatchObject({ state: "paid", confirmations: null, requiredConfirmations: 2 });
    expect(await eventTypes(id)).toEqual(["payment.initiated", "payment.pending", "payment.received"]);
  });

  it("stops counting a confirmed payment that a reorganisation took away", async () => {
    const { id, address, due } = await pending("4");
    const half = due.div(2).toDecimalPlaces(8, Decimal.ROUND_DOWN);
    const tx = { txid: txid(3), outputs: [{ address, value: sats(half) }], height: esplora.tip - 1, blockTime: nowSeconds() };
    esplora.txs.push(tx);
    await watcher.tick();
    expect((await row(id)).amountPaid?.toString()).toBe(half.toFixed());

    esplora.txs.splice(esplora.txs.indexOf(tx), 1);
    await watcher.tick();
    const r = await row(id);
    expect(r.amountPaid).toBeNull();
    expect(r.status).toBe("PENDING");
    expect((await t.db.paymentReceipt.findFirstOrThrow({ where: { transactionId: id } })).status).toBe("DROPPED");
  });

  it("keeps reading the other addresses when a node stops answering, and says which network failed", async () => {
    const { id, address, due } = await pending("4");
    esplora.failure = "hang";
    try {
      const started = Date.now();
      const report = await watcher.tick();
      expect(Date.now() - started).toBeLessThan(5000);
      expect(report.failed).toBeGreaterThan(0);
      expect(logs.at(-1)).toMatch(
        /^payment watcher: BTC test: .*; the addresses are read again every \d+ s, and this is said again at most once a minute while it lasts \(set PAYGATE_BTC_TEST_ESPLORA_URL to a node this machine can reach, or to none to stop watching BTC test\)$/,
      );
      // An offline machine is not told the same thing every pass (again within the minute: not said).
      const said = logs.length;
      await watcher.tick();
      expect(logs.length).toBe(said);
    } finally {
      esplora.failure = null;
    }
    expect((await row(id)).status).toBe("PENDING");
    esplora.txs.push({ txid: txid(4), outputs: [{ address, value: sats(due) }], height: esplora.tip - 5, blockTime: nowSeconds() });
    await watcher.tick();
    expect((await row(id)).status).toBe("SUCCESSFUL");
    expect(logs.at(-1)).toMatch(/^payment watcher: BTC test: the node answers again \(it failed for \d+ s\)$/);
  });

  it("records a payment that arrives after the transaction was abandoned", async () => {
    const { id, address, due } = await pending("4");
    await t.post(`/v1/test_helpers/transaction/${id}/expire`, {}, bearer(keys.testSecretKey));
    esplora.txs.push({ txid: txid(5), outputs: [{ address, value: sats(due) }], height: esplora.tip - 3, blockTime: nowSeconds() });
    await watcher.tick();
    const r = await row(id);
    expect(r.status).toBe("ABANDONED");
    expect(r.amountPaid?.toString()).toBe(due.toFixed());
    expect(t.gateway.payments.describe(r).payment?.state).toBe("paid_late");
    expect(await eventTypes(id)).toEqual(["payment.initiated", "payment.pending", "payment.abandoned"]);
  });

  it("writes nothing when the node shows what is already recorded", async () => {
    const { id, address, due } = await pending("4");
    esplora.txs.push({ txid: txid(6), outputs: [{ address, value: sats(due.div(2).toDecimalPlaces(8)) }], height: null });
    await watcher.tick();
    const before = await row(id);
    await watcher.tick();
    expect((await row(id)).updatedAt).toEqual(before.updatedAt);
  });
});

describe("Ethereum through JSON-RPC", () => {
  it("completes a USDT payment from the token's Transfer logs, summing two transfers", async () => {
    const { id, address, due } = await pending("3", "10");
    const units = BigInt(due.times(1e6).toFixed(0));
    const log = (n: number, value: bigint, blockNumber: number) => ({
      contract: USDT_SEPOLIA_CONTRACT,
      from: "0x1111111111111111111111111111111111111111",
      to: address,
      value,
      blockNumber,
      txHash: hash(n),
      logIndex: n,
    });
    evm.logs.push(log(1, units - 1_000_000n, evm.head - 10), log(2, 1_000_000n, evm.head));
    await watcher.tick();
    let r = await row(id);
    expect(r.status).toBe("PENDING"); // the second transfer has 1 of 3 confirmations
    expect(t.gateway.payments.describe(r).payment?.state).toBe("confirming");
    evm.head += 2;
    await watcher.tick();
    r = await row(id);
    expect(r.status).toBe("SUCCESSFUL");
    expect(r.amountPaid?.toString()).toBe(due.toFixed());
  });

  it("completes a native ETH payment from its transaction in a block, recorded with its hash", async () => {
    const { id, address, due } = await pending("6");
    evm.head += 1;
    evm.transfers.push({ to: address, value: BigInt(due.times("1e18").toFixed(0)), txHash: hash(9), blockNumber: evm.head });
    await watcher.tick();
    expect(t.gateway.payments.describe(await row(id)).payment).toMatchObject({ state: "confirming", confirmations: 1, requiredConfirmations: 3 });
    evm.head += 2;
    await watcher.tick();
    const r = await row(id);
    expect(r.status).toBe("SUCCESSFUL");
    expect(r.amountPaid?.toString()).toBe(due.toFixed());
    const receipt = await t.db.paymentReceipt.findFirstOrThrow({ where: { transactionId: id } });
    expect([receipt.key, receipt.txHash, receipt.blockHeight, receipt.status]).toEqual([hash(9), hash(9), evm.head - 2, "CONFIRMED"]);
  });
});

describe("a restarted watcher (an empty scan cache)", () => {
  it("keeps a native payment recorded before as it is, even when older than its scan reaches: not dropped, no balance part", async () => {
    const { id, address, due } = await pending("6");
    evm.head += 1;
    const half = BigInt(due.times("1e18").div(2).floor().toFixed(0)); // underpaid: the transaction stays watched
    evm.transfers.push({ to: address, value: half, txHash: hash(21), blockNumber: evm.head });
    evm.head += 3;
    await watcher.tick();
    const receipts = () => t.db.paymentReceipt.findMany({ where: { transactionId: id }, select: { key: true, status: true } });
    expect(await receipts()).toEqual([{ key: hash(21), status: "CONFIRMED" }]);

    evm.head += 400; // the restarted scan reaches 300 blocks back (3600 s of 12-s blocks)
    const restarted = startWatcher();
    try {
      expect(await restarted.tick()).toMatchObject({ failed: 0 });
    } finally {
      await restarted.stop();
    }
    expect(await receipts()).toEqual([{ key: hash(21), status: "CONFIRMED" }]);
    const r = await row(id);
    expect([r.status, r.amountPaid?.toString()]).toEqual(["PENDING", new Decimal(half.toString()).div("1e18").toFixed()]);
  });
});

describe("networks without a node", () => {
  it("leaves them alone: LTC test has no node here", async () => {
    const { id } = await pending("7");
    const before = evm.calls.length + esplora.requests.length;
    await watcher.tick();
    expect((await row(id)).status).toBe("PENDING");
    expect(logs.some((l) => l.includes("LTC"))).toBe(false);
    expect(evm.calls.length + esplora.requests.length).toBeGreaterThan(before); // the others were read
  });
});

describe("own addresses no payment is on (the idle scan after each pass)", () => {
  it("says a node that fails for an own address as a pass's failure and keeps the setting's cursor; the next pass records the transfer and moves it", async () => {
    const USDT = cryptoBySlug("USDT") as CryptoCurrency;
    const tronKey = serializeKey(HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/195'/0'"), "tpub");
    const own = await t.merchant({ name: "Own Addresses Ltd" });
    await t.gateway.operator.updateMerchant(own.id, { wallets: [{ currency: USDT, network: "tron", isLive: false, extendedPublicKey: tronKey }] });
    const turnedOn = new Date(Date.now() - 60_000);
    await t.stores.ownAddresses.putSetting({ merchantId: own.id, network: "tron", isLive: false, addressCount: 1, updatedAt: turnedOn }, null);
    const address = deriveTronAddress(tronOwnChain(false, tronKey), 0);
    let failing = true;
    const reads: string[] = [];
    // A TRON node only (the other coins are this file's other nodes'): one transfer to the own address.
    const tron: ConfiguredChains = {
      supports: (c: CryptoCurrency, isLive: boolean, network?: NetworkSlug) => c.slug === "USDT" && network === "tron" && !isLive,
      nodeVariable: () => "PAYGATE_TRON_TEST_RPC_URL",
      receiptsTo: async (_c, _live, to): Promise<ObservedReceipt[]> => {
        reads.push(to);
        if (failing) throw new Error("TRON JSON-RPC (nile.example): connect ECONNREFUSED");
        const txHash = "ab".repeat(32);
        return [{ key: `${txHash}:0`, txHash, amount: new Decimal("12.5"), confirmations: 2, blockHeight: 7, minedAt: new Date() }];
      },
    };
    const lines: string[] = [];
    const scanner = new PaymentWatcher(
      t.gateway.payments,
      tron,
      { intervalMs: 1000, concurrency: 1, lateGraceMs: 3_600_000, requiredConfirmations: () => 1 },
      (line) => lines.push(line),
    );
    const cursor = async () =>
      (
        await t.db.settlementSetting.findUniqueOrThrow({
          where: { merchantId_network_isLive: { merchantId: own.id, network: "tron", isLive: false } },
        })
      ).scannedFrom;

    await scanner.tick();
    expect(reads).toEqual([address]);
    expect(lines).toEqual([
      "payment watcher: USDT on tron test: TRON JSON-RPC (nile.example): connect ECONNREFUSED; the addresses are read again every 1 s, and this is said again at most once a minute while it lasts (set PAYGATE_TRON_TEST_RPC_URL to a node this machine can reach, or to none to stop watching USDT on tron test)",
    ]);
    expect(await cursor()).toEqual(turnedOn);
    expect(await t.db.unmatchedReceipt.count({ where: { merchantId: own.id } })).toBe(0);

    failing = false;
    const started = Date.now();
    await scanner.tick();
    expect(lines[1]).toMatch(/^payment watcher: USDT on tron test: the node answers again/);
    const recorded = await t.db.unmatchedReceipt.findMany({ where: { merchantId: own.id } });
    expect(recorded.map((r) => [r.address, r.amount.toString(), r.confirmations, r.state])).toEqual([[address, "12.5", 2, "open"]]);
    expect(await t.db.webhookEvent.count({ where: { merchantId: own.id, type: "settlement.unmatched_receipt.created" } })).toBe(1);
    expect((await cursor())?.getTime()).toBeGreaterThanOrEqual(started);
  });
});
