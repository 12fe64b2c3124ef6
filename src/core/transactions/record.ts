// A transaction as the core hands it to adapters: the stored row with what every reply shows.
import type { Database, Prisma } from "../../db/types.ts";

export const transactionInclude = {
  merchant: { select: { id: true, name: true } },
} as const satisfies Prisma.TransactionInclude;

export type TransactionRecord = Prisma.TransactionGetPayload<{ include: typeof transactionInclude }>;

/** Transaction ids are UUIDs (initialize makes them); anything else names no transaction. */
const TRANSACTION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isTransactionId(id: string): boolean {
  return TRANSACTION_ID.test(id);
}

/**
 * A transaction of this merchant in this mode, or null: other merchants' and modes' objects do not
 * exist for it. An id of another shape is not looked up, so no path segment reaches the database.
 */
export async function findTransactionFor(db: Database, id: string, merchantId: number, isLive: boolean): Promise<TransactionRecord | null> {
  if (!isTransactionId(id)) return null;
  return db.transaction.findFirst({ where: { id: id.toLowerCase(), merchantId, isLive }, include: transactionInclude });
}
