// A watcher pass as a core use case (src/core/watching/watch-pass.ts, issue 45), run on an in-memory
// store and chain (in-memory-watch.ts): the real lifecycle decides every move, block by block.
import { beforeEach, describe, expect, it } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import type { CryptoCurrency, FiatCurrency } from "../../src/core/money/currencies.ts";
import { paymentStateOf } from "../../src/core/transactions/lifecycle.ts";
import { DEFAULT_LIFECYCLE } from "../../src/core/policies.ts";
import { type PassRead, sameView, WatchPass, type WatchPassSettings } from "../../src/core/watching/watch-pass.ts";
import { type WatchedPaymentsDeps, watchedPayments } from "../../src/core/watching/watched-payments.ts";
import { MemoryChain, MemoryWatchStore, pendingTransaction } from "./in-memory-watch.ts";

const NOW = new Date("2026-12-01T10:40:00Z"); // ten minutes after the test transactions' windows closed
const ALL = { index: 0, of: 1 };
const BTC_2: WatchPassSettings = { concurrency: 2, lateGraceMs: 3_600_000, requiredConfirmations: () => 2 };

let store: MemoryWatchStore;
let chain: MemoryChain;
let heard: { failed: PassRead[]; answered: PassRead[]; reversed: PassRead[] };

beforeEach(() => {
  store = new MemoryWatchStore();
  chain = new MemoryChain();
  heard = { failed: [], answered: [], reversed: [] };
});

function watcher(settings: WatchPassSettings = BTC_2, deps: Partial<WatchedPaymentsDeps> = {}): () => ReturnType<WatchPass["run"]> {
  const payments = watchedPayments({ transactions: store, clock: { now: () => NOW }, lifecycle: DEFAULT_LIFECYCLE, ...deps });
  const pass = new WatchPass(payments, chain, settings);
  return () =>
    pass.run(ALL, 1000, {
      readFailed: (read) => heard.failed.push(read),
      answered: (read) => heard.answered.push(read),
      reversed: (read) => heard.reversed.push(read),
    });
}

const stateOf = (id: string) => paymentStateOf(store.row(id));
const eventsOf = (id: string) => store.events.filter(([t]) => t === id).map(([, type]) => type);
const receiptStates = (id: string) => (store.receipts.get(id) ?? []).map((r) => [r.key, r.status]);

describe("confirmations, block by block", () => {
  it("records a payment in the mempool, its first confirmation, then completes at the second, once", async () => {
    store.add(pendingTransaction("t1", "bc1-a", "1"));
    const pass = watcher();
    chain.pay("bc1-a", { key: "aa:0", amount: "1", height: null });
    expect(await pass()).toEqual({ watched: 1, changed: 1, failed: 0, storeError: null });
    expect(store.row("t1")).toMatchObject({ status: "PENDING", amountPaid: null, confirmations: 0, requiredConfirmations: 2 });
    expect(stateOf("t1")).toBe("confirming");

    chain.mine();
    await pass();
    expect(store.row("t1")).toMatchObject({ status: "PENDING", confirmations: 1 });

    chain.mine();
    await pass();
    const paid = store.row("t1");
    expect([paid.status, paid.amountPaid?.toFixed(), paid.amountUnconfirmed, paid.finalAt]).toEqual(["SUCCESSFUL", "1", null, NOW]);
    // Final once counted (no finality asked): it leaves the watch list, and payment.received is written once.
    expect(await pass()).toMatchObject({ watched: 0 });
    expect(eventsOf("t1")).toEqual(["payment.received"]);
  });

  it("keeps a SUCCESSFUL payment watched until its finality depth, writing once per block, then lets it go", async () => {
    store.add(pendingTransaction("t1", "bc1-a", "1"));
    const pass = watcher({ ...BTC_2, finalityConfirmations: () => 4 });
    chain.pay("bc1-a", { key: "aa:0", amount: "1", height: chain.tip - 1 }); // 2 confirmations
    await pass();
    expect(store.row("t1")).toMatchObject({ status: "SUCCESSFUL", finalAt: null });
    const writes = store.writes;
    expect(await pass()).toMatchObject({ watched: 1, changed: 0 }); // no new block: nothing written
    expect(store.writes).toBe(writes);
    chain.mine();
    expect(await pass()).toMatchObject({ changed: 1 }); // 3 confirmations: shown, not yet final
    expect(store.row("t1").finalAt).toBeNull();
    chain.mine();
    await pass(); // 4: final
    expect(store.row("t1").finalAt).toEqual(NOW);
    expect(await pass()).toMatchObject({ watched: 0 });
    expect(eventsOf("t1")).toEqual(["payment.received"]);
  });
});

describe("amounts", () => {
  it("leaves an underpaid transaction PENDING, then completes it when the top-up confirms", async () => {
    store.add(pendingTransaction("t1", "bc1-a", "1"));
    const pass = watcher();
    chain.pay("bc1-a", { key: "aa:0", amount: "0.4", height: chain.tip - 5 });
    await pass();
    expect(store.row("t1")).toMatchObject({ status: "PENDING", amountPaid: new Decimal("0.4") });
    expect(stateOf("t1")).toBe("underpaid");

    chain.pay("bc1-a", { key: "bb:1", amount: "0.6", height: null });
    await pass();
    expect(stateOf("t1")).toBe("confirming");
    chain.mine();
    chain.mine();
    await pass();
    expect([store.row("t1").status, store.row("t1").amountPaid?.toFixed()]).toEqual(["SUCCESSFUL", "1"]);
    expect(eventsOf("t1")).toEqual(["payment.received"]);
  });

  it("completes an overpaid transaction with all that was paid", async () => {
    store.add(pendingTransaction("t1", "bc1-a", "1"));
    chain.pay("bc1-a", { key: "aa:0", amount: "1.5", height: chain.tip - 1 });
    await watcher()();
    expect([store.row("t1").status, store.row("t1").amountPaid?.toFixed(), stateOf("t1")]).toEqual(["SUCCESSFUL", "1.5", "overpaid"]);
  });
});

describe("late payments", () => {
  const abandoned = (over = {}) => pendingTransaction("t1", "bc1-a", "1", { status: "ABANDONED", ...over });

  it("records a payment to an abandoned transaction within the grace, which stays ABANDONED and reads paid_late", async () => {
    store.add(abandoned());
    chain.pay("bc1-a", { key: "aa:0", amount: "1", height: chain.tip - 1 });
    await watcher()();
    expect([store.row("t1").status, store.row("t1").amountPaid?.toFixed(), stateOf("t1")]).toEqual(["ABANDONED", "1", "paid_late"]);
    expect(eventsOf("t1")).toEqual([]);
  });

  it("does not read an address abandoned longer ago than the grace", async () => {
    store.add(abandoned());
    chain.pay("bc1-a", { key: "aa:0", amount: "1", height: chain.tip - 1 });
    expect(await watcher({ ...BTC_2, lateGraceMs: 5 * 60_000 })()).toMatchObject({ watched: 0 });
    expect(chain.reads).toEqual([]);
  });

  it("accepts it under the transaction's late-payment policy when the rate moved less than its percent", async () => {
    store.add(abandoned({ policyLatePaymentPercent: new Decimal("5") }));
    chain.pay("bc1-a", { key: "aa:0", amount: "1", height: chain.tip - 1 });
    const quote = async (_c: CryptoCurrency, _f: FiatCurrency) => ({ rate: new Decimal("102"), source: "test", quotedAt: NOW });
    const late = { prices: { quote }, merchants: { pricing: async () => null }, clock: { now: () => NOW } };
    await watcher(BTC_2, { late })();
    const row = store.row("t1");
    expect(row.status).toBe("SUCCESSFUL");
    expect(row.latePayment).toMatchObject({ accepted: true, lockedRate: "100", marketRate: "102", movedPercent: "2" });
    expect(eventsOf("t1")).toEqual(["payment.received"]);
  });
});

describe("reorganisations and replacements", () => {
  it("drops a receipt of a PENDING transaction that a reorganisation took away, and stops counting it", async () => {
    store.add(pendingTransaction("t1", "bc1-a", "1"));
    const pass = watcher();
    chain.pay("bc1-a", { key: "aa:0", amount: "0.5", height: chain.tip - 1 });
    await pass();
    expect(store.row("t1").amountPaid?.toFixed()).toBe("0.5");
    chain.remove("bc1-a", "aa:0");
    await pass();
    expect([store.row("t1").status, store.row("t1").amountPaid]).toEqual(["PENDING", null]);
    expect(receiptStates("t1")).toEqual([["aa:0", "DROPPED"]]);
  });

  it("never counts a replaceable payment at 0 confirmations, and counts its replacement once it is final", async () => {
    store.add(pendingTransaction("t1", "bc1-a", "1"));
    const pass = watcher({ ...BTC_2, requiredConfirmations: () => 0 });
    chain.pay("bc1-a", { key: "aa:0", amount: "1", height: null, replaceable: true });
    await pass();
    expect([store.row("t1").status, stateOf("t1")]).toEqual(["PENDING", "confirming"]);
    expect(store.receipts.get("t1")?.[0]).toMatchObject({ status: "SEEN", replaceable: true });
    // Replace-by-fee: the sender swaps it for another transaction that no longer signals.
    chain.remove("bc1-a", "aa:0");
    chain.pay("bc1-a", { key: "cc:0", amount: "1", height: null, replaceable: false });
    await pass();
    expect(store.row("t1").status).toBe("SUCCESSFUL");
    expect(receiptStates("t1")).toEqual([
      ["aa:0", "DROPPED"],
      ["cc:0", "CONFIRMED"],
    ]);
  });
});

describe("reversals and the second read", () => {
  async function paidAndWatched() {
    store.add(pendingTransaction("t1", "bc1-a", "1"));
    const pass = watcher({ ...BTC_2, finalityConfirmations: () => 6 });
    chain.pay("bc1-a", { key: "aa:0", amount: "1", height: chain.tip - 1 });
    await pass();
    expect(store.row("t1")).toMatchObject({ status: "SUCCESSFUL", finalAt: null });
    return pass;
  }

  it("reverses a SUCCESSFUL payment whose receipt left the chain only when a second read agrees, and tells it once", async () => {
    const pass = await paidAndWatched();
    chain.remove("bc1-a", "aa:0");
    const writes = store.writes;
    expect(await pass()).toMatchObject({ changed: 0 });
    expect(store.writes).toBe(writes); // the first read that misses it records nothing
    expect(store.row("t1").reversedAt).toBeNull();

    expect(await pass()).toMatchObject({ changed: 1 });
    const row = store.row("t1");
    expect([row.status, row.reversedAt, row.amountPaid, stateOf("t1")]).toEqual(["SUCCESSFUL", NOW, null, "reversed"]);
    expect(receiptStates("t1")).toEqual([["aa:0", "REVERSED"]]);
    expect(heard.reversed.map((r) => r.transactionId)).toEqual(["t1"]);
    await pass();
    expect(eventsOf("t1")).toEqual(["payment.received", "payment.reversed"]);
    expect(heard.reversed).toHaveLength(1);
  });

  it("records nothing when a receipt one read missed is back at the next (a node that lagged)", async () => {
    const pass = await paidAndWatched();
    const lagged = chain.outputs.get("bc1-a") ?? [];
    chain.outputs.set("bc1-a", []);
    await pass();
    chain.outputs.set("bc1-a", lagged);
    const writes = store.writes;
    expect(await pass()).toMatchObject({ changed: 0 });
    expect(store.writes).toBe(writes);
    // Missed again later: a first miss once more, not a reversal; the read after it that agrees is.
    chain.outputs.set("bc1-a", []);
    await pass();
    expect(store.row("t1").reversedAt).toBeNull();
    expect(eventsOf("t1")).toEqual(["payment.received"]);
    await pass();
    expect(store.row("t1").reversedAt).toEqual(NOW);
    expect(eventsOf("t1")).toEqual(["payment.received", "payment.reversed"]);
  });

  it("is no reversal while the money is still there, back in the mempool after a shallow reorganisation", async () => {
    const pass = await paidAndWatched();
    const [output] = chain.outputs.get("bc1-a") ?? [];
    if (output) output.height = null;
    await pass();
    const row = store.row("t1");
    expect([row.reversedAt, row.amountUnconfirmed?.toFixed(), stateOf("t1")]).toEqual([null, "1", "paid"]);
    expect(receiptStates("t1")).toEqual([["aa:0", "SEEN"]]);
  });
});

describe("what a pass writes, and what it tells", () => {
  it("writes nothing when the node shows what is already recorded", async () => {
    store.add(pendingTransaction("t1", "bc1-a", "1"));
    const pass = watcher();
    chain.pay("bc1-a", { key: "aa:0", amount: "0.5", height: null });
    await pass();
    const writes = store.writes;
    const updated = store.row("t1").updatedAt;
    expect(await pass()).toEqual({ watched: 1, changed: 0, failed: 0, storeError: null });
    expect(store.writes).toBe(writes);
    expect(store.row("t1").updatedAt).toBe(updated);
  });

  it("sameView: a changed amount, confirmation count, replaceability or set of receipts is a new view", () => {
    const watched = {
      ...{ id: "t1", isLive: false, paymentCurrencyId: 4, paymentNetwork: "bitcoin", paymentAddress: "bc1-a", initiatedAt: NOW },
      status: "PENDING" as const,
      reversedAt: null,
      receipts: [{ key: "aa:0", amount: new Decimal("0.5"), status: "SEEN", confirmations: 1, replaceable: false }],
    };
    const seen = { key: "aa:0", txHash: "aa", amount: new Decimal("0.5"), confirmations: 1, blockHeight: 100 };
    expect(sameView(watched, [seen], 2, 2)).toBe(true);
    expect(sameView(watched, [{ ...seen, amount: new Decimal("0.6") }], 2, 2)).toBe(false);
    expect(sameView(watched, [{ ...seen, confirmations: 2 }], 2, 2)).toBe(false);
    expect(sameView(watched, [{ ...seen, confirmations: 0, replaceable: true }], 2, 2)).toBe(false);
    expect(sameView(watched, [seen, { ...seen, key: "bb:0" }], 2, 2)).toBe(false);
    expect(sameView(watched, [], 2, 2)).toBe(false);
  });

  it("records nothing for a node that fails, tells it, and goes on with the other addresses", async () => {
    store.add(pendingTransaction("t1", "bc1-a", "1"));
    chain.pay("bc1-a", { key: "aa:0", amount: "1", height: chain.tip - 1 });
    chain.failure = new Error("connect ECONNREFUSED");
    expect(await watcher()()).toMatchObject({ watched: 1, changed: 0, failed: 1, storeError: null });
    expect(heard.failed.map((r) => [r.transactionId, r.currency.slug, r.network])).toEqual([["t1", "BTC", "bitcoin"]]);
    expect(store.writes).toBe(0);
  });

  it("goes on past a store that fails, and hands back its first error", async () => {
    store.add(pendingTransaction("t1", "bc1-a", "1"));
    store.add(pendingTransaction("t2", "bc1-b", "1"));
    chain.pay("bc1-a", { key: "aa:0", amount: "1", height: chain.tip - 1 });
    chain.pay("bc1-b", { key: "bb:0", amount: "1", height: chain.tip - 1 });
    const outage = new Error("the database went away");
    store.failure = outage;
    const outcome = await watcher()();
    expect(outcome).toEqual({ watched: 2, changed: 0, failed: 2, storeError: { error: outage } });
    expect(store.writes).toBe(2);
    expect(heard.answered).toHaveLength(2);
  });

  it("leaves out the addresses no node reads, and tells the chains the pass's addresses first", async () => {
    store.add(pendingTransaction("t1", "bc1-a", "1"));
    store.add(pendingTransaction("t2", "0xabc", "1", { paymentCurrencyId: 3, paymentNetwork: "bsc" }));
    chain.unsupported.add("bsc");
    expect(await watcher()()).toMatchObject({ watched: 1 });
    expect(chain.reads).toEqual(["bc1-a"]);
    expect(chain.passes.map((p) => p.map((a) => [a.address, a.network, a.since]))).toEqual([[["bc1-a", "bitcoin", store.row("t1").initiatedAt]]]);
  });

  it("asks the transaction's own confirmations when initialize set them for its coin", async () => {
    store.add(pendingTransaction("t1", "bc1-a", "1", { policyConfirmations: { BTC: 1 } }));
    chain.pay("bc1-a", { key: "aa:0", amount: "1", height: null });
    chain.mine();
    await watcher()(); // 1 confirmation: enough for this one, not for the operator's 2
    expect(store.row("t1")).toMatchObject({ status: "SUCCESSFUL", requiredConfirmations: 1 });
  });
});
