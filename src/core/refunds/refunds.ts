// Refund use cases (issue 26; docs/refunds.md): read, list, cancel and mark paid here; making one in
// create.ts, the customer's claim of an address in claim.ts, how to pay one in payment-view.ts, the
// chain side's close in close.ts, whose refunds in owners.ts (all exported from here, the context's
// one entry). Rules are in rules.ts; the refund rails build the unsigned transaction.
import { z } from "zod";
import { errors } from "../errors.ts";
import { refundEvent } from "./refund-events.ts";
import { LIST_LIMIT_DEFAULT, limitParam, pageOf, parseListQuery, single, startingAfter } from "../lists.ts";
import type { AuditWrite } from "../stores/audit-log.ts";
import type { RefundChange } from "../stores/refunds.ts";
import { findTransactionFor, isTransactionId, transactionNotFoundFor } from "../transactions/record.ts";
import { mayHaveReceipts } from "../transactions/receipts.ts";
import type { TransactionRecord } from "../records/transactions.ts";
import { parseBody } from "../transactions/requests.ts";
import { countedRefundsOf, refundableOf } from "./rules.ts";
import { type RefundSummary, type RefundView, refundView } from "./view.ts";
import type { RefundRecord } from "../records/refunds.ts";
import { auditOf, ownRefund, type RefundDeps, type RefundOutcome, type RefundOwner } from "./owners.ts";
import { shown } from "./payment-view.ts";

export { type ClaimOutcome, type ClaimState, claimRefund, claimState } from "./claim.ts";
export { refundSucceeded, refundTxHashesTaken, refundVerificationFailed } from "./close.ts";
export { createRefund, type RefundRequest } from "./create.ts";
export type { RefundDeps, RefundOutcome, RefundOwner } from "./owners.ts";
/** GET /v1/refunds/:id, and the dashboard's refund (any role): how to pay it while pending. */
export async function retrieveRefund(deps: RefundDeps, owner: RefundOwner, id: string): Promise<RefundOutcome> {
  return { merchantId: owner.merchantId, refund: await shown(deps, await ownRefund(deps, owner, id)) };
}

export interface TransactionRefunds {
  merchantId: number;
  refunds: RefundView[];
  amountRefundable: string | null;
}

/** GET /v1/transaction/:id/refunds and the transaction page's refunds (any role): oldest first, with what is left to refund. */
export async function transactionRefunds(deps: RefundDeps, owner: RefundOwner, transactionId: string): Promise<TransactionRefunds> {
  const transaction = await findTransactionFor(deps.stores.transactions, transactionId, owner.merchantId, owner.isLive);
  if (!transaction) {
    throw await transactionNotFoundFor(deps.stores.transactions, { merchant: { id: owner.merchantId }, isLive: owner.isLive }, transactionId);
  }
  const rows = await deps.stores.refunds.listForTransactions([transaction.id]);
  return {
    merchantId: owner.merchantId,
    refunds: rows.map((r) => refundView(r)),
    amountRefundable: summaryOf(transaction, rows).amount_refundable,
  };
}

/**
 * Each transaction's refunds in short and what is left to refund (the transaction replies' added
 * fields). Refunds are read only for transactions that may have any: a refund needs something
 * received (create.ts), and amount_paid is written only with the receipts, which set
 * required_confirmations for good (mayHaveReceipts). A poll of an unpaid checkout reads none.
 */
export async function refundSummaries(
  deps: Pick<RefundDeps, "stores">,
  transactions: readonly TransactionRecord[],
): Promise<Map<string, RefundSummary>> {
  const received = transactions.filter(mayHaveReceipts).map((t) => t.id);
  const rows = received.length === 0 ? [] : await deps.stores.refunds.listForTransactions(received);
  const byTransaction = new Map<string, RefundRecord[]>();
  for (const row of rows) {
    const list = byTransaction.get(row.transactionId);
    if (list) list.push(row);
    else byTransaction.set(row.transactionId, [row]);
  }
  return new Map(transactions.map((t) => [t.id, summaryOf(t, byTransaction.get(t.id) ?? [])]));
}

/** A transaction's refunds in short (oldest first) and what is left to refund. */
function summaryOf(t: TransactionRecord, refunds: readonly RefundRecord[]): RefundSummary {
  return {
    refunds: refunds.map((r) => ({ id: r.id, state: r.state, amount: r.amount.toFixed(), created_at: r.createdAt.toISOString() })),
    amount_refundable: t.paymentCurrencyId === null ? null : refundableOf(t, countedRefundsOf(refunds)).toFixed(),
  };
}

const REFUND_CURSOR = /^re_[0-9a-f-]{36}$/;

export const RefundListParams = z.object({
  limit: limitParam.optional(),
  starting_after: single.regex(REFUND_CURSOR, "must be the id (re_…) of a refund of the previous page").optional(),
  transaction: single.refine(isTransactionId, "must be a transaction id (a UUID)").optional(),
});

/** GET /v1/refunds: the merchant's refunds of the key's mode, newest first, with the cursor of /v1/transactions. */
export async function listRefunds(
  deps: RefundDeps,
  owner: RefundOwner,
  params: Record<string, unknown>,
): Promise<{ merchantId: number; refunds: RefundView[]; hasMore: boolean }> {
  const query = parseListQuery(RefundListParams, params);
  const cursor = await startingAfter(query.starting_after, (id) => deps.stores.refunds.findFor(id, owner.merchantId, owner.isLive));
  const after = cursor && { createdAt: cursor.createdAt, id: cursor.id };
  const limit = query.limit ?? LIST_LIMIT_DEFAULT;
  const rows = await deps.stores.refunds.page({
    merchantId: owner.merchantId,
    isLive: owner.isLive,
    transactionId: query.transaction?.toLowerCase() ?? null,
    after,
    limit: limit + 1,
  });
  const page = pageOf(rows, limit);
  return { merchantId: owner.merchantId, refunds: page.items.map((r) => refundView(r)), hasMore: page.hasMore };
}

/** A pending refund's change with its event; 409 when it is no longer pending (also when it moved in between). */
async function changePending(
  deps: RefundDeps,
  r: RefundRecord,
  change: RefundChange,
  event: "refund.succeeded" | "refund.canceled" | null,
  audit: AuditWrite | null = null,
): Promise<RefundRecord> {
  if (r.state !== "pending") throw errors.refundNotPending(r.state);
  const changed = await deps.stores.refunds.change(
    r.id,
    "pending",
    change,
    event === null ? null : (record) => refundEvent(event, record),
    false,
    audit,
  );
  if (!changed) {
    const now = await deps.stores.refunds.findFor(r.id, r.merchantId, r.isLive);
    throw errors.refundNotPending(now?.state ?? "gone");
  }
  return changed;
}

/** POST /v1/refunds/:id/cancel, and the dashboard's (manage_refunds). */
export async function cancelRefund(deps: RefundDeps, owner: RefundOwner, id: string): Promise<RefundOutcome> {
  const refund = await ownRefund(deps, owner, id);
  const audit = auditOf(deps, owner, "refund.cancel", `${refund.id} on transaction ${refund.transactionId}`);
  const canceled = await changePending(deps, refund, { state: "canceled", canceledAt: deps.clock.now() }, "refund.canceled", audit);
  return { merchantId: owner.merchantId, refund: refundView(canceled) };
}

/** A transaction hash as chains write them: 64 hex digits, with 0x on EVM chains. */
const TX_HASH = /^(?:0x)?[0-9a-fA-F]{64}$/;

export const MarkPaidBody = z.object({
  tx_hash: z
    .string({ error: "tx_hash is required" })
    .trim()
    .regex(TX_HASH, "tx_hash must be a transaction hash: 64 hexadecimal digits (0x first on EVM chains)"),
});

/**
 * POST /v1/refunds/:id/mark_paid, and the dashboard's (manage_refunds): the merchant says it paid with
 * `tx_hash`. The refund stays pending, marked `merchant` with verification pending, until the chain
 * side sees that transaction reach the destination (refundSucceeded) or finds it does not
 * (refundVerificationFailed).
 */
export async function markRefundPaid(deps: RefundDeps, owner: RefundOwner, id: string, body: unknown): Promise<RefundOutcome> {
  const parsed = parseBody(MarkPaidBody, body);
  if (!parsed.ok) throw errors.refundValidation(parsed.errors);
  const refund = await ownRefund(deps, owner, id);
  if (refund.state === "pending" && refund.destination === null) {
    throw errors.refundValidation([
      { field: "tx_hash", message: "the refund has no destination yet: the customer has not claimed it, so no payment can be checked" },
    ]);
  }
  const hash = parsed.value.tx_hash.toLowerCase();
  // Checked here for the message; the unique index decides when the chain side closes the refund.
  if (refund.state === "pending" && (await deps.stores.refunds.closingTxHashes(refund.isLive, [hash])).has(hash)) {
    throw errors.refundTxHashTaken(hash);
  }
  const audit = auditOf(deps, owner, "refund.mark_paid", `${refund.id} with ${hash}`);
  const marked = await changePending(deps, refund, { txHash: hash, paidBy: "merchant", verification: "pending" }, null, audit);
  return { merchantId: owner.merchantId, refund: await shown(deps, marked) };
}
