// Unmatched receipts as use cases (issue 40; docs/settlement.md, Own addresses): the transfers to a
// merchant's own TRON address that matched no open amount, listed; assigned to a transaction (audited:
// the transaction records it as its receipt through the lifecycle, and the watcher keeps it up to date
// while it reads the transaction) or marked refunded with the merchant's refund transaction (the
// address is the merchant's own: the merchant pays it back from its wallet).
import { z } from "zod";
import { auditEntry } from "../access/audit-log.ts";
import type { CoreDeps } from "../deps.ts";
import { errors } from "../errors.ts";
import { LIST_LIMIT_DEFAULT, limitParam, pageOf, parseListQuery, single, startingAfter } from "../lists.ts";
import { cryptoById } from "../money/currencies.ts";
import { coinNetwork, networkOrDefault } from "../networks.ts";
import { requiredConfirmationsOf } from "../policies.ts";
import type { UnmatchedReceiptRecord } from "../records/own-addresses.ts";
import type { OwnAddressOwner } from "./settings.ts";
import { applyReceipts } from "../transactions/lifecycle.ts";
import { parseBody } from "../transactions/requests.ts";
import { type UnmatchedReceiptView, unmatchedReceiptView } from "./view.ts";

export type UnmatchedDeps = Pick<CoreDeps, "stores" | "clock" | "lifecycle">;

export const UNMATCHED_RECEIPT_ID = /^ur_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const ListParams = z.object({
  limit: limitParam.optional(),
  state: single.pipe(z.enum(["open", "assigned", "refunded"], { error: "must be one of open, assigned, refunded" })).optional(),
  starting_after: single.regex(UNMATCHED_RECEIPT_ID, "must be the id (ur_…) of an unmatched receipt of the previous page").optional(),
});
const AssignBody = z.object({
  transaction_id: z.string({ error: "transaction_id is required: the transaction the receipt pays" }).trim().min(1, "transaction_id is required"),
});
const RefundBody = z.object({
  tx_hash: z
    .string({ error: "tx_hash is required: the hash of the refund transaction sent from the merchant's wallet" })
    .trim()
    .regex(/^(0x)?[0-9a-fA-F]{64}$/, "tx_hash must be a transaction hash: 64 hexadecimal digits"),
});

async function openReceipt(deps: UnmatchedDeps, owner: OwnAddressOwner, id: string): Promise<UnmatchedReceiptRecord> {
  const found = UNMATCHED_RECEIPT_ID.test(id) ? await deps.stores.ownAddresses.findUnmatched(id, owner.merchantId, owner.isLive) : null;
  if (found === null) throw errors.unmatchedReceiptNotFound(id);
  if (found.state !== "open") throw errors.unmatchedReceiptNotOpen(found.state);
  return found;
}

export async function retrieveUnmatchedReceipt(deps: UnmatchedDeps, owner: OwnAddressOwner, id: string): Promise<UnmatchedReceiptView> {
  const found = UNMATCHED_RECEIPT_ID.test(id) ? await deps.stores.ownAddresses.findUnmatched(id, owner.merchantId, owner.isLive) : null;
  if (found === null) throw errors.unmatchedReceiptNotFound(id);
  return unmatchedReceiptView(found);
}

/** GET /v1/settlements/unmatched-receipts: newest first. */
export async function listUnmatchedReceipts(
  deps: UnmatchedDeps,
  owner: OwnAddressOwner,
  params: Record<string, unknown>,
): Promise<{ receipts: UnmatchedReceiptView[]; hasMore: boolean }> {
  const query = parseListQuery(ListParams, params);
  const cursor = await startingAfter(query.starting_after, (id) => deps.stores.ownAddresses.findUnmatched(id, owner.merchantId, owner.isLive));
  const limit = query.limit ?? LIST_LIMIT_DEFAULT;
  const rows = await deps.stores.ownAddresses.unmatchedPage({
    merchantId: owner.merchantId,
    isLive: owner.isLive,
    state: query.state ?? null,
    after: cursor && { seenAt: cursor.seenAt, id: cursor.id },
    limit: limit + 1,
  });
  const page = pageOf(rows, limit);
  return { receipts: page.items.map(unmatchedReceiptView), hasMore: page.hasMore };
}

/**
 * POST /v1/settlements/unmatched-receipts/{id}/assign: the transaction (the merchant's, in the mode,
 * paid on the same address in the same coin) records the transfer as its receipt with the
 * confirmations last seen; the lifecycle decides what follows (SUCCESSFUL once they suffice).
 */
export async function assignUnmatchedReceipt(deps: UnmatchedDeps, owner: OwnAddressOwner, id: string, body: unknown): Promise<UnmatchedReceiptView> {
  // The receipt first: one of another merchant or mode is not found, whatever the body (the mode wall).
  const receipt = await openReceipt(deps, owner, id);
  const parsed = parseBody(AssignBody, body);
  if (!parsed.ok) throw errors.unmatchedReceiptValidation(parsed.errors);
  const transactionId = parsed.value.transaction_id;
  // Another merchant's or mode's transaction is not found, as anywhere else.
  const transaction = await deps.stores.transactions.findFor(transactionId, owner.merchantId, owner.isLive);
  if (transaction === null) throw errors.transactionNotFound(transactionId);
  const crypto = transaction.paymentCurrencyId === null ? undefined : cryptoById(transaction.paymentCurrencyId);
  const network = crypto && networkOrDefault(crypto.slug, transaction.paymentNetwork);
  if (crypto === undefined || transaction.paymentAddress === null) throw errors.unmatchedReceiptMismatch("the transaction has not been initiated");
  if (network !== receipt.network || crypto.id !== receipt.currencyId)
    throw errors.unmatchedReceiptMismatch(`the transaction is paid in ${crypto.slug} on ${network}, the receipt is on ${receipt.network}`);
  if (transaction.paymentAddress !== receipt.address)
    throw errors.unmatchedReceiptMismatch(`the receipt was paid to ${receipt.address}, the transaction's address is ${transaction.paymentAddress}`);
  const now = deps.clock.now();
  const audit =
    owner.by === null ? null : auditEntry(owner.by, owner.merchantId, now, "unmatched_receipt.assign", `${receipt.id} to ${transaction.id}`);
  const assigned = await deps.stores.ownAddresses.settleUnmatched(receipt.id, { state: "assigned", transactionId: transaction.id }, now, audit);
  if (assigned === null) throw errors.unmatchedReceiptNotOpen("no longer open");
  const required =
    transaction.requiredConfirmations ?? requiredConfirmationsOf(transaction, crypto.slug, coinNetwork(crypto.slug, network)?.confirmations ?? 1);
  const observed = {
    key: receipt.key,
    txHash: receipt.txHash,
    amount: receipt.amount,
    confirmations: receipt.confirmations,
    blockHeight: receipt.blockHeight,
  };
  await applyReceipts(
    deps.stores.transactions,
    transaction.id,
    { receipts: [observed], requiredConfirmations: required, source: "chain", complete: false },
    now,
    deps.lifecycle,
  );
  return unmatchedReceiptView(assigned);
}

/** POST /v1/settlements/unmatched-receipts/{id}/refund: marked refunded, with the merchant's refund transaction. */
export async function refundUnmatchedReceipt(deps: UnmatchedDeps, owner: OwnAddressOwner, id: string, body: unknown): Promise<UnmatchedReceiptView> {
  const receipt = await openReceipt(deps, owner, id);
  const parsed = parseBody(RefundBody, body);
  if (!parsed.ok) throw errors.unmatchedReceiptValidation(parsed.errors);
  const txHash = parsed.value.tx_hash.replace(/^0x/, "").toLowerCase();
  const now = deps.clock.now();
  const audit =
    owner.by === null ? null : auditEntry(owner.by, owner.merchantId, now, "unmatched_receipt.refund", `${receipt.id}: refunded in ${txHash}`);
  const refunded = await deps.stores.ownAddresses.settleUnmatched(receipt.id, { state: "refunded", refundTxHash: txHash }, now, audit);
  if (refunded === null) throw errors.unmatchedReceiptNotOpen("no longer open");
  return unmatchedReceiptView(refunded);
}
