// What every store reads with a row: shared so that each shape is written once.
import type { Database, Prisma } from "../types.ts";

/** A transaction as the core's TransactionRecord wants it: with its merchant's id and name. */
export const transactionInclude = {
  merchant: { select: { id: true, name: true } },
} as const satisfies Prisma.TransactionInclude;

/** The merchant behind a key or a payment link. */
export const merchantIdentity = { select: { id: true, name: true, active: true, kybStatus: true } } as const;

/**
 * What customer_email_key holds for an e-mail, written with the transaction and compared by the
 * list's search, so a search in any case is one equality on an index. E-mails are ASCII (initialize
 * checks them), where this is exactly PostgreSQL's lower() (which filled the column for older rows).
 */
export function emailKey(email: string): string {
  return email.toLowerCase();
}

/** The receipts of the transactions, each one's first seen first: one query (a page of a list, the outbox's events). */
export function receiptsOf(db: Pick<Database, "paymentReceipt">, transactionIds: readonly string[]) {
  return db.paymentReceipt.findMany({
    where: { transactionId: { in: [...transactionIds] } },
    orderBy: [{ transactionId: "asc" }, { firstSeenAt: "asc" }, { id: "asc" }],
  });
}
