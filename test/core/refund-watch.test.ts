// How refunds close from the chain side (src/core/refunds/watch.ts, issue 45), on an in-memory chain
// and an in-memory refunds side that keeps one chain transaction to one refund, as the database's
// unique index does.
import { beforeEach, describe, expect, it } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import type { RefundRecord } from "../../src/core/records/refunds.ts";
import { RefundWatch, type RefundsToClose } from "../../src/core/refunds/watch.ts";
import { MemoryChain, pendingTransaction } from "./in-memory-watch.ts";

const HASH_A = `${"a".repeat(63)}1`;
const HASH_B = `${"b".repeat(63)}2`;
const HASH_C = `${"c".repeat(63)}3`;

class MemoryRefunds implements RefundsToClose {
  readonly rows = new Map<string, RefundRecord>();
  readonly events: [string, string][] = [];

  add(id: string, destination: string, amountToCustomer: string, over: Partial<RefundRecord> = {}): void {
    const at = new Date("2026-12-01T11:00:00Z");
    this.rows.set(id, {
      id,
      transactionId: "t1",
      merchantId: 1,
      isLive: false,
      state: "pending",
      amountKind: "full",
      amount: new Decimal(amountToCustomer),
      fiatAmount: new Decimal("100"),
      fiatCurrencyId: 1,
      valuation: "locked_rate",
      rate: new Decimal("100"),
      deductNetworkFee: false,
      networkFee: null,
      amountToCustomer: new Decimal(amountToCustomer),
      feeRate: null,
      destination,
      claimTokenHash: null,
      claimTokenEnc: null,
      claimExpiresAt: null,
      claimedAt: null,
      txHash: null,
      paidBy: null,
      verification: null,
      createdAt: at,
      updatedAt: at,
      succeededAt: null,
      canceledAt: null,
      transaction: pendingTransaction("t1", "bc1-paid", "1", { status: "SUCCESSFUL" }),
      ...over,
    });
  }

  get(id: string): RefundRecord {
    const row = this.rows.get(id);
    if (!row) throw new Error(`no refund ${id}`);
    return row;
  }

  async refundsToWatch(limit: number): Promise<RefundRecord[]> {
    return [...this.rows.values()].filter((r) => r.state === "pending" && r.destination !== null).slice(0, limit);
  }

  async refundTxHashesTaken(isLive: boolean, hashes: readonly string[]): Promise<Set<string>> {
    const closing = [...this.rows.values()].filter((r) => r.isLive === isLive && r.state === "succeeded").map((r) => r.txHash);
    return new Set(hashes.filter((h) => closing.includes(h)));
  }

  async refundSucceeded(id: string, txHash: string, paidBy: "watcher" | "merchant"): Promise<RefundRecord | "tx_taken" | null> {
    const row = this.get(id);
    if (row.state !== "pending") return null;
    if ((await this.refundTxHashesTaken(row.isLive, [txHash])).size > 0) return "tx_taken";
    const next: RefundRecord = { ...row, state: "succeeded", txHash, paidBy, verification: paidBy === "merchant" ? "verified" : null };
    this.rows.set(id, next);
    this.events.push([id, "refund.succeeded"]);
    return next;
  }

  async refundVerificationFailed(id: string): Promise<RefundRecord | null> {
    const row = this.get(id);
    if (row.state !== "pending") return null;
    const next: RefundRecord = { ...row, verification: "failed" };
    this.rows.set(id, next);
    return next;
  }
}

let chain: MemoryChain;
let refunds: MemoryRefunds;
let failures: string[];
const pass = () =>
  new RefundWatch(refunds, chain, () => 2).run(500, (refund, currency, _to, error) =>
    failures.push(`${refund.id} ${currency.slug} ${(error as Error).message}`),
  );

beforeEach(() => {
  chain = new MemoryChain();
  refunds = new MemoryRefunds();
  failures = [];
});

describe("a refund the watcher finds paid", () => {
  it("succeeds with the hash of a confirmed transaction that pays the destination its amount, once", async () => {
    refunds.add("re_1", "bc1-customer", "0.5");
    chain.pay("bc1-customer", { key: `${HASH_A.toUpperCase()}:0`, amount: "0.5", height: null });
    expect(await pass()).toEqual(new Map([["re_1", "waiting"]])); // in the mempool
    chain.mine();
    expect(await pass()).toEqual(new Map([["re_1", "waiting"]])); // 1 of 2 confirmations
    chain.mine();
    expect(await pass()).toEqual(new Map([["re_1", "succeeded"]]));
    expect(refunds.get("re_1")).toMatchObject({ state: "succeeded", txHash: HASH_A, paidBy: "watcher", verification: null });
    expect(await pass()).toEqual(new Map());
    expect(refunds.events).toEqual([["re_1", "refund.succeeded"]]);
  });

  it("waits while what one transaction pays falls short (two short transactions are not summed), or it signals replaceability", async () => {
    refunds.add("re_1", "bc1-customer", "0.5");
    chain.pay("bc1-customer", { key: `${HASH_A}:0`, amount: "0.3", height: chain.tip - 5 });
    chain.pay("bc1-customer", { key: `${HASH_B}:0`, amount: "0.3", height: chain.tip - 5 });
    expect(await pass()).toEqual(new Map([["re_1", "waiting"]]));
    // Two outputs of one transaction are summed.
    chain.pay("bc1-customer", { key: `${HASH_C}:0`, amount: "0.25", height: chain.tip - 5 });
    chain.pay("bc1-customer", { key: `${HASH_C}:1`, amount: "0.25", height: chain.tip - 5 });
    expect(await pass()).toEqual(new Map([["re_1", "succeeded"]]));
    expect(refunds.get("re_1").txHash).toBe(HASH_C);

    refunds.add("re_2", "bc1-other", "0.5");
    chain.pay("bc1-other", { key: `${HASH_A}:1`, amount: "0.5", height: null, replaceable: true });
    expect(await new RefundWatch(refunds, chain, () => 0).run(500)).toEqual(new Map([["re_2", "waiting"]]));
  });

  it("closes one refund with one chain transaction: a second refund to the same address waits for its own", async () => {
    refunds.add("re_1", "bc1-customer", "0.5");
    refunds.add("re_2", "bc1-customer", "0.5");
    chain.pay("bc1-customer", { key: `${HASH_A}:0`, amount: "0.5", height: chain.tip - 5 });
    expect(await pass()).toEqual(
      new Map([
        ["re_1", "succeeded"],
        ["re_2", "waiting"],
      ]),
    );
    chain.pay("bc1-customer", { key: `${HASH_B}:0`, amount: "0.5", height: chain.tip - 5 });
    expect(await pass()).toEqual(new Map([["re_2", "succeeded"]]));
    expect([refunds.get("re_1").txHash, refunds.get("re_2").txHash]).toEqual([HASH_A, HASH_B]);
  });
});

describe("a merchant's tx_hash (mark paid)", () => {
  it("succeeds as the merchant's, verified, once its transaction pays the destination with its confirmations", async () => {
    refunds.add("re_1", "bc1-customer", "0.5", { txHash: HASH_B, paidBy: "merchant", verification: "pending" });
    chain.pay("bc1-customer", { key: `${HASH_A}:0`, amount: "0.5", height: chain.tip - 5 });
    chain.pay("bc1-customer", { key: `${HASH_B}:0`, amount: "0.5", height: chain.tip - 5 });
    expect(await pass()).toEqual(new Map([["re_1", "succeeded"]]));
    expect(refunds.get("re_1")).toMatchObject({ txHash: HASH_B, paidBy: "merchant", verification: "verified" });
  });

  it("says the verification failed while the hash pays nothing there, and another transaction that pays it still closes it", async () => {
    refunds.add("re_1", "bc1-customer", "0.5", { txHash: HASH_B, paidBy: "merchant", verification: "pending" });
    expect(await pass()).toEqual(new Map([["re_1", "verification_failed"]]));
    expect(refunds.get("re_1")).toMatchObject({ state: "pending", verification: "failed" });
    chain.pay("bc1-customer", { key: `${HASH_A}:0`, amount: "0.5", height: chain.tip - 5 });
    expect(await pass()).toEqual(new Map([["re_1", "succeeded"]]));
    expect(refunds.get("re_1")).toMatchObject({ txHash: HASH_A, paidBy: "watcher" });
  });

  it("keeps a hash the merchant named for one refund from closing another", async () => {
    refunds.add("re_1", "bc1-customer", "0.5");
    refunds.add("re_2", "bc1-customer", "0.5", { txHash: HASH_A, paidBy: "merchant", verification: "pending" });
    chain.pay("bc1-customer", { key: `${HASH_A}:0`, amount: "0.5", height: chain.tip - 5 });
    expect(await pass()).toEqual(
      new Map([
        ["re_1", "waiting"],
        ["re_2", "succeeded"],
      ]),
    );
  });
});

it("tells a read that failed and changes nothing for that refund", async () => {
  refunds.add("re_1", "bc1-customer", "0.5");
  chain.failure = new Error("connect ECONNREFUSED");
  expect(await pass()).toEqual(new Map());
  expect(failures).toEqual(["re_1 BTC connect ECONNREFUSED"]);
  expect(refunds.get("re_1").state).toBe("pending");
});
