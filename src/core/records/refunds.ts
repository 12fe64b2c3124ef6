// A refund as the core works on it: the stored row with its transaction.
import type { Refund } from "./rows.ts";
import type { TransactionRecord } from "./transactions.ts";

/** A refund with the transaction it gives money back from. */
export type RefundRecord = Refund & { transaction: TransactionRecord };
