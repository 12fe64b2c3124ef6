// How a transaction ends (spec 3 names the states, not the moves): PENDING → SUCCESSFUL when the
// confirmed receipts cover the locked amount; INITIATED or PENDING → ABANDONED when its window
// closes unpaid. Receipts after the end are still recorded. Every move goes through the outbox
// hook, so each sends its event (payment.received, payment.abandoned) exactly once.
import { Decimal } from "../money/amounts.ts";
import type { ObservedReceipt } from "../ports.ts";
import type { ExpiryCandidate, TransactionStore } from "../stores.ts";
import type { TransactionRecord } from "./record.ts";

export interface LifecyclePolicy {
  /** How long an INITIATED transaction waits for initiate. */
  initiatedWindowMs: number;
  /** The checkout window: how long a PENDING transaction waits for its payment. */
  checkoutWindowMs: number;
  /** A payment short by at most this fraction still completes (BTCPay's "payment tolerance"); 0 by default. */
  underpaymentTolerance: Decimal;
}

export const DEFAULT_LIFECYCLE: LifecyclePolicy = {
  initiatedWindowMs: 24 * 60 * 60_000,
  checkoutWindowMs: 30 * 60_000,
  underpaymentTolerance: new Decimal(0),
};

/**
 * What the receipts say about a payment, shown as `data.meta.payment`:
 * awaiting_payment, confirming (enough seen, not yet confirmed), underpaid (too little so far, or at
 * expiry), paid, overpaid, expired (nothing came), paid_late (covered after the window closed).
 */
export type PaymentState = "awaiting_payment" | "confirming" | "underpaid" | "paid" | "overpaid" | "expired" | "paid_late";

export type PaymentAmounts = Pick<TransactionRecord, "status" | "paymentAmount" | "amountPaid" | "amountUnconfirmed">;

export function paymentStateOf(t: PaymentAmounts, policy: LifecyclePolicy = DEFAULT_LIFECYCLE): PaymentState | null {
  if (t.paymentAmount === null) return null;
  const due = new Decimal(t.paymentAmount.toString());
  const confirmed = new Decimal(t.amountPaid?.toString() ?? 0);
  const seen = confirmed.plus(t.amountUnconfirmed?.toString() ?? 0);
  const covers = (amount: Decimal) => covered(amount, due, policy);
  switch (t.status) {
    case "SUCCESSFUL":
      return confirmed.gt(due) ? "overpaid" : "paid";
    case "ABANDONED":
      if (covers(confirmed)) return "paid_late";
      return seen.isZero() ? "expired" : "underpaid";
    default:
      if (seen.isZero()) return "awaiting_payment";
      return covers(seen) ? "confirming" : "underpaid";
  }
}

function covered(amount: Decimal, due: Decimal, policy: LifecyclePolicy): boolean {
  return amount.gte(due.times(new Decimal(1).minus(policy.underpaymentTolerance)));
}

export interface ReceiptUpdate {
  receipts: ObservedReceipt[];
  requiredConfirmations: number;
  source: "chain" | "test_helper";
  /**
   * The receipts are the node's whole current view of the address: earlier ones now absent were
   * reorganised away. False for the test helper, which adds one receipt at a time.
   */
  complete: boolean;
}

/**
 * Records what arrived at a transaction's address and moves it on: amount_paid is the sum of
 * confirmed receipts, and a PENDING transaction they cover becomes SUCCESSFUL. The store runs it
 * under the transaction's row lock, so a concurrent expiry or another watcher sees the result, not a half.
 */
export function applyReceipts(
  transactions: TransactionStore,
  transactionId: string,
  update: ReceiptUpdate,
  now: Date,
  policy: LifecyclePolicy = DEFAULT_LIFECYCLE,
): Promise<TransactionRecord> {
  const rows = update.receipts.map((r) => ({ ...r, confirmed: r.confirmations >= update.requiredConfirmations }));
  return transactions.recordReceipts(
    transactionId,
    { source: update.source, rows, dropOthers: update.complete, requiredConfirmations: update.requiredConfirmations },
    now,
    (totals) => totals.status === "PENDING" && totals.paymentAmount !== null && covered(totals.confirmed, totals.paymentAmount, policy),
  );
}

/**
 * Abandons open transactions whose window has closed, at most `limit` at a time; returns them.
 * One whose unconfirmed receipts already cover it waits for its confirmations instead (it is
 * passed over, and looked at again at the next tick). Safe to run on every instance at once: the
 * store's state condition lets each transaction move once.
 */
export async function expireDue(
  transactions: TransactionStore,
  now: Date,
  limit = 500,
  policy: LifecyclePolicy = DEFAULT_LIFECYCLE,
): Promise<TransactionRecord[]> {
  const due: string[] = [];
  let after: ExpiryCandidate | undefined;
  while (due.length < limit) {
    const page = await transactions.openPastDue(now, limit, after && { expiresAt: after.expiresAt ?? now, id: after.id });
    for (const candidate of page) {
      if (due.length < limit && !waitsForConfirmations(candidate, policy)) due.push(candidate.id);
    }
    if (page.length < limit) break;
    after = page[page.length - 1];
  }
  if (due.length === 0) return [];
  return transactions.abandon(due);
}

/** A PENDING transaction whose receipts, confirmed or not, already cover it: the customer paid in time. */
function waitsForConfirmations(t: ExpiryCandidate, policy: LifecyclePolicy): boolean {
  return t.status === "PENDING" && paymentStateOf(t, policy) === "confirming";
}

/** Ends the window of one open transaction now (the test helper); null when it is not open. */
export async function expireNow(transactions: TransactionStore, id: string, now: Date): Promise<TransactionRecord | null> {
  const [row] = await transactions.abandon([id], now);
  return row ?? null;
}
