// The payments' side of a watcher pass (WatchedPayments in watch-pass.ts) over the transactions store:
// the watch list, and a read recorded through the lifecycle with its late-payment policy. The gateway
// answers with these, and the tests in test/core run them on an in-memory store.
import type { Clock } from "../ports.ts";
import type { TransactionStore, WatchedAddress, WatchShare } from "../stores/transactions.ts";
import { applyReceipts, type LatePaymentDeps, type ReceiptUpdate } from "../transactions/lifecycle.ts";
import type { LifecyclePolicy } from "../policies.ts";
import type { TransactionRecord } from "../records/transactions.ts";
import type { WatchedPayments } from "./watch-pass.ts";
import { type MatchingDeps, ownReceipts } from "../own-addresses/matching.ts";

/** What the payments' side needs of the store. */
export type WatchStore = Pick<TransactionStore, "watchList" | "withLockedPayment" | "settleLatePayment">;

export interface WatchedPaymentsDeps {
  transactions: WatchStore;
  clock: Clock;
  lifecycle: LifecyclePolicy;
  /** The late-payment policy's ports; absent: a late payment is recorded and nothing more is decided. */
  late?: LatePaymentDeps;
  /** Own-address mode (TRON): the stores that tell a payment's receipts on a shared address; absent, every receipt of a read is the payment's. */
  own?: MatchingDeps;
}

/**
 * The addresses the payment watcher reads: open checkouts, those abandoned within `lateGraceMs`
 * (late payments) and the SUCCESSFUL ones not yet final whose window closed within `finalityWatchMs`;
 * of them, this instance's share when several watch.
 */
export function watchList(
  deps: Pick<WatchedPaymentsDeps, "transactions" | "clock">,
  lateGraceMs: number,
  limit: number,
  share: WatchShare,
  finalityWatchMs: number,
): Promise<WatchedAddress[]> {
  if (!Number.isInteger(share.of) || share.of < 1 || !Number.isInteger(share.index) || share.index < 0 || share.index >= share.of) {
    throw new RangeError(`A watch share is an index below its count, got ${share.index} of ${share.of}`);
  }
  const now = deps.clock.now().getTime();
  return deps.transactions.watchList(new Date(now - lateGraceMs), limit, share, new Date(now - finalityWatchMs));
}

/** Records what a chain watcher saw at a transaction's address, and moves the transaction on. */
export function recordRead(deps: WatchedPaymentsDeps, transactionId: string, update: ReceiptUpdate): Promise<TransactionRecord> {
  return applyReceipts(deps.transactions, transactionId, update, deps.clock.now(), deps.lifecycle, deps.late);
}

/** The payments' side of a pass over a store. */
export function watchedPayments(deps: WatchedPaymentsDeps): WatchedPayments {
  return {
    watchList: (lateGraceMs, limit, share, finalityWatchMs) => watchList(deps, lateGraceMs, limit, share, finalityWatchMs),
    applyReceipts: (transactionId, update) => recordRead(deps, transactionId, update),
    ...(deps.own ? { ownReceipts: (row, observed) => ownReceipts(deps.own as MatchingDeps, row, observed) } : {}),
  };
}
