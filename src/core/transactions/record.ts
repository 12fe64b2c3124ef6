// A transaction as the core hands it to adapters: the stored row with what every reply shows.
import type { Database, Prisma } from "../../db/types.ts";

export const transactionInclude = {
  merchant: { select: { id: true, name: true } },
} as const satisfies Prisma.TransactionInclude;

export type TransactionRecord = Prisma.TransactionGetPayload<{ include: typeof transactionInclude }>;

/** A transaction of this merchant in this mode, or null: other merchants' and modes' objects do not exist for it. */
export function findTransactionFor(db: Database, id: string, merchantId: number, isLive: boolean) {
  return db.transaction.findFirst({ where: { id, merchantId, isLive }, include: transactionInclude });
}
