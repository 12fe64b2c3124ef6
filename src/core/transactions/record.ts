// A transaction as the core hands it to adapters: the stored row with what every reply shows.
import type { Prisma } from "../../db/types.ts";
import type { TransactionStore } from "../stores.ts";

export type TransactionRecord = Prisma.TransactionGetPayload<{ include: { merchant: { select: { id: true; name: true } } } }>;

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
 * The one rule of who reaches which transaction: a key or a payment link reaches its merchant's
 * transactions of its mode, a client secret only its own transaction. Anything else is null, as if it
 * did not exist. Retrieve, payment options and initiate all ask here.
 */
export async function transactionFor(
  transactions: TransactionStore,
  caller: { merchant: { id: number; name: string }; isLive: boolean; transactionId: string | null },
  id: string,
): Promise<TransactionRecord | null> {
  const storedId = storedIdOf(id);
  if (storedId === null || (caller.transactionId !== null && caller.transactionId !== storedId)) return null;
  // The caller's merchant is the transaction's (the lookup is by it), so its name is not read again:
  // a poll or an initiate is one statement fewer.
  const row = await transactions.findRowFor(storedId, caller.merchant.id, caller.isLive);
  return row === null ? null : { ...row, merchant: { id: caller.merchant.id, name: caller.merchant.name } };
}
