// A transaction as the core hands it to adapters: the stored row with what every reply shows.
import { errors, type PaygateError } from "../errors.ts";
import type { Transaction } from "../records/rows.ts";
import type { InitiateCoin, InitiateRead, LeaseWindow, TransactionStore } from "../stores/transactions.ts";
import { type TransactionRecord, transactionRecordOf } from "../records/transactions.ts";

/** Transaction ids are UUIDs (initialize makes them); anything else names no transaction. */
const TRANSACTION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isTransactionId(id: string): boolean {
  return TRANSACTION_ID.test(id);
}

/** The id as stored (lower case), or null for an id of another shape, which is never looked up. */
function storedIdOf(id: string): string | null {
  return isTransactionId(id) ? id.toLowerCase() : null;
}

/**
 * A transaction of this merchant in this mode, or null: other merchants' and modes' objects do not
 * exist for it. An id of another shape is not looked up, so no path segment reaches the database.
 */
export async function findTransactionFor(
  transactions: TransactionStore,
  id: string,
  merchantId: number,
  isLive: boolean,
): Promise<TransactionRecord | null> {
  const storedId = storedIdOf(id);
  return storedId === null ? null : transactions.findFor(storedId, merchantId, isLive);
}

/**
 * "No transaction with id …", with a hint when the id is one of the caller's merchant's transactions
 * of the other mode: a key of the wrong mode is the usual mistake, and the merchant's own key may be
 * told so. A caller bound to one transaction (a client secret) gets no hint.
 */
export async function transactionNotFoundFor(
  transactions: TransactionStore,
  caller: { merchant: { id: number }; isLive: boolean; transactionId?: string | null },
  id: string,
): Promise<PaygateError> {
  const refusal = errors.transactionNotFound(id);
  const storedId = storedIdOf(id);
  if (storedId === null || (caller.transactionId ?? null) !== null) return refusal;
  const other = await transactions.findRowFor(storedId, caller.merchant.id, !caller.isLive);
  if (!other) return refusal;
  const [mine, theirs] = caller.isLive ? ["live", "test"] : ["test", "live"];
  return refusal.withHint(
    `The key sent is a ${mine}-mode key and this is a ${theirs}-mode transaction: use the ${theirs} key (pub_${theirs}_… or sec_${theirs}_…)`,
  );
}

/** Who asks for a transaction: a key, a payment link or a client secret (credentials.ts). */
type Reacher = { merchant: { id: number; name: string }; isLive: boolean; transactionId: string | null };

/**
 * The one rule of who reaches which transaction: a key or a payment link reaches its merchant's
 * transactions of its mode, a client secret only its own transaction. Anything else is null, as if it
 * did not exist. Retrieve, payment options and initiate all ask here.
 */
export async function transactionFor(transactions: TransactionStore, caller: Reacher, id: string): Promise<TransactionRecord | null> {
  const storedId = reachableId(caller, id);
  const row = storedId === null ? null : await transactions.findRowFor(storedId, caller.merchant.id, caller.isLive);
  return row && withCallersMerchant(row, caller);
}

/**
 * transactionFor for initiate, which also reads what it needs of the merchant and, given `lease`,
 * leases an index of the wallet it will pay to in the same statement when the transaction is
 * INITIATED (TransactionStore.findForInitiate): one round trip where there were three.
 */
export async function transactionForInitiate(
  transactions: TransactionStore,
  caller: Reacher,
  id: string,
  coin: InitiateCoin | null,
  lease: LeaseWindow | null,
): Promise<Omit<InitiateRead, "row"> & { transaction: TransactionRecord | null }> {
  const storedId = reachableId(caller, id);
  if (storedId === null) return { transaction: null, lease: null, leasedOn: null, pricing: null, defaultNetwork: null };
  const { row, ...read } = await transactions.findForInitiate(storedId, caller.merchant.id, caller.isLive, coin, lease);
  return { transaction: row && withCallersMerchant(row, caller), ...read };
}

/** The id as stored, if the rule above lets the caller look it up. */
function reachableId(caller: Reacher, id: string): string | null {
  const storedId = storedIdOf(id);
  return storedId === null || (caller.transactionId !== null && caller.transactionId !== storedId) ? null : storedId;
}

/** The caller's merchant is the transaction's (the lookup is by it), so its name is not read again. */
function withCallersMerchant(row: Transaction, caller: Reacher): TransactionRecord {
  return transactionRecordOf(row, { id: caller.merchant.id, name: caller.merchant.name });
}
