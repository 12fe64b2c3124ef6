// What every store reads with a row: shared so that each shape is written once.
import type { Prisma } from "../types.ts";

/** A transaction as the core's TransactionRecord wants it: with its merchant's id and name. */
export const transactionInclude = {
  merchant: { select: { id: true, name: true } },
} as const satisfies Prisma.TransactionInclude;

/** The merchant behind a key or a payment link. */
export const merchantIdentity = { select: { id: true, name: true, active: true, kybStatus: true } } as const;
