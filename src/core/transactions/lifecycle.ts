// How a transaction ends (spec 3 names the states, not the moves): PENDING → SUCCESSFUL when the
// confirmed receipts cover the locked amount; INITIATED or PENDING → ABANDONED when its window
// closes unpaid. Receipts after the end are still recorded. Every move goes through the outbox
// hook, so each sends its event (payment.received, payment.abandoned) exactly once.
import type { Database, DatabaseTransaction } from "../../db/types.ts";
import { Decimal } from "../money/amounts.ts";
import type { ObservedReceipt } from "../ports.ts";
import { transactionInclude, type TransactionRecord } from "./record.ts";

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
 * confirmed receipts, and a PENDING transaction they cover becomes SUCCESSFUL. Runs under the
 * transaction's row lock, so a concurrent expiry or another watcher sees the result, not a half.
 */
export async function applyReceipts(
  db: Database,
  transactionId: string,
  update: ReceiptUpdate,
  now: Date,
  policy: LifecyclePolicy = DEFAULT_LIFECYCLE,
): Promise<TransactionRecord> {
  return db.$transaction(async (tx) => {
    await lockTransaction(tx, transactionId);
    for (const r of update.receipts) {
      const fields = {
        txHash: r.txHash,
        amount: r.amount.toFixed(),
        confirmations: r.confirmations,
        blockHeight: r.blockHeight,
        status: r.confirmations >= update.requiredConfirmations ? ("CONFIRMED" as const) : ("SEEN" as const),
        updatedAt: now,
      };
      await tx.paymentReceipt.upsert({
        where: { transactionId_key: { transactionId, key: r.key } },
        create: { transactionId, key: r.key, source: update.source, firstSeenAt: now, ...fields },
        update: fields,
      });
    }
    if (update.complete) {
      await tx.paymentReceipt.updateMany({
        where: { transactionId, source: update.source, status: { not: "DROPPED" }, key: { notIn: update.receipts.map((r) => r.key) } },
        data: { status: "DROPPED", updatedAt: now },
      });
    }
    const sums = await tx.paymentReceipt.groupBy({ by: ["status"], where: { transactionId, status: { not: "DROPPED" } }, _sum: { amount: true } });
    const sum = (status: "SEEN" | "CONFIRMED") => new Decimal(sums.find((s) => s.status === status)?._sum.amount?.toString() ?? 0);
    const confirmed = sum("CONFIRMED");
    const unconfirmed = sum("SEEN");
    const current = await tx.transaction.findUniqueOrThrow({ where: { id: transactionId }, select: { status: true, paymentAmount: true } });
    const due = current.paymentAmount === null ? null : new Decimal(current.paymentAmount.toString());
    const completes = current.status === "PENDING" && due !== null && covered(confirmed, due, policy);
    const [row] = await tx.transaction.updateManyAndReturn({
      where: { id: transactionId },
      data: {
        amountPaid: confirmed.isZero() ? null : confirmed.toFixed(),
        amountUnconfirmed: unconfirmed.isZero() ? null : unconfirmed.toFixed(),
        ...(completes ? { status: "SUCCESSFUL" as const } : {}),
      },
      include: transactionInclude,
    });
    if (!row) throw new Error(`Transaction ${transactionId} vanished while recording a payment`);
    return row;
  });
}

/** Serialises everything that changes one transaction's payment (watchers, helpers, expiry). */
async function lockTransaction(tx: DatabaseTransaction, id: string): Promise<void> {
  await tx.$queryRaw`SELECT id FROM transactions WHERE id = ${id} FOR UPDATE`;
}

/**
 * Abandons open transactions whose window has closed, at most `limit` at a time; returns them.
 * One whose unconfirmed receipts already cover it waits for its confirmations instead. Safe to run
 * on every instance at once: the state condition lets each transaction move once.
 */
export async function expireDue(db: Database, now: Date, limit = 500, policy: LifecyclePolicy = DEFAULT_LIFECYCLE): Promise<TransactionRecord[]> {
  const tolerance = new Decimal(1).minus(policy.underpaymentTolerance).toFixed();
  const due = await db.$queryRaw<{ id: string }[]>`
    SELECT t.id FROM transactions t
    WHERE t.status IN ('INITIATED', 'PENDING') AND t.expires_at <= ${now}
      AND NOT (t.status = 'PENDING' AND COALESCE(t.amount_paid, 0) + COALESCE(t.amount_unconfirmed, 0) >= t.payment_amount * ${tolerance}::numeric)
    ORDER BY t.expires_at
    LIMIT ${limit}`;
  if (due.length === 0) return [];
  return abandon(db, due.map((d) => d.id));
}

/** Ends the window of one open transaction now (the test helper); null when it is not open. */
export async function expireNow(db: Database, id: string, now: Date): Promise<TransactionRecord | null> {
  const [row] = await abandon(db, [id], now);
  return row ?? null;
}

function abandon(db: Database, ids: string[], closedAt?: Date): Promise<TransactionRecord[]> {
  return db.transaction.updateManyAndReturn({
    where: { id: { in: ids }, status: { in: ["INITIATED", "PENDING"] } },
    data: { status: "ABANDONED", ...(closedAt ? { expiresAt: closedAt } : {}) },
    include: transactionInclude,
  });
}
