// Refunds (issue 26): the records and their changes, each written with its event in one database
// transaction. src/db/stores/refunds.ts implements it; the rules are in src/core/refunds.
import type { Decimal } from "../money/amounts.ts";
import type { Refund } from "../records/rows.ts";
import type { RefundRecord } from "../records/refunds.ts";
import type { AuditWrite } from "./audit-log.ts";
import type { IdempotencyRecord } from "./idempotency.ts";

/** An outbox row of a refund event (src/core/refunds/refund-events.ts), written with the change. */
export interface RefundEventRow {
  id: string;
  type: string;
  body: string;
}

export type NewRefund = Omit<Refund, "updatedAt" | "succeededAt" | "canceledAt" | "claimedAt" | "txHash" | "paidBy" | "verification">;

/** What a refund change sets; only a refund still in `from` is changed. */
export type RefundChange = Partial<
  Pick<
    Refund,
    "state" | "destination" | "claimedAt" | "txHash" | "paidBy" | "verification" | "succeededAt" | "canceledAt" | "networkFee" | "amountToCustomer"
  >
>;

/** A page of a merchant's refunds in one mode, newest first, (createdAt, id) as the cursor. */
export interface RefundListQuery {
  merchantId: number;
  isLive: boolean;
  transactionId: string | null;
  after: { createdAt: Date; id: string } | null;
  limit: number;
}

export interface RefundStore {
  /**
   * Inserts the refund, its event and its Idempotency-Key in one database transaction that holds the
   * transaction's row lock, after `check` accepted the amount already refunded (pending and succeeded
   * refunds, read under that lock). `check` throws to refuse; then nothing is written. A key already
   * taken fails with DuplicateKeyError. `audit`: a dashboard user's change, written in the same transaction.
   */
  create(
    refund: NewRefund,
    check: (alreadyRefunded: Decimal) => void,
    event: (created: RefundRecord) => RefundEventRow,
    idempotency: IdempotencyRecord | null,
    audit?: AuditWrite | null,
  ): Promise<RefundRecord>;
  /** The refund of this merchant and mode, or null. */
  findFor(id: string, merchantId: number, isLive: boolean): Promise<RefundRecord | null>;
  findByClaimHash(hash: string): Promise<RefundRecord | null>;
  /** The refunds of these transactions, oldest first: one read for a page of transactions. */
  listForTransactions(transactionIds: readonly string[]): Promise<RefundRecord[]>;
  /** Per transaction: the sum of its pending and succeeded refunds (absent: none). */
  refundedAmounts(transactionIds: readonly string[]): Promise<Map<string, Decimal>>;
  /** Newest first by (createdAt, id), after the cursor, up to the limit. */
  page(query: RefundListQuery): Promise<RefundRecord[]>;
  /**
   * Applies `change` to the refund if it is still `from` (and, with `unclaimed`, has no destination
   * yet), writing `event` (and a dashboard user's `audit` entry) in the same database transaction;
   * null when it had moved on (nothing written). A change to succeeded with a tx_hash that already
   * closed another refund of the mode fails with DuplicateKeyError (a unique index: nothing written).
   */
  change(
    id: string,
    from: Refund["state"],
    change: RefundChange,
    event: ((changed: RefundRecord) => RefundEventRow) | null,
    unclaimed?: boolean,
    audit?: AuditWrite | null,
  ): Promise<RefundRecord | null>;
  /** Pending refunds that have a destination, for the chain side's watch (oldest first, up to `limit`). */
  openWithDestination(limit: number): Promise<RefundRecord[]>;
  /** Of these tx hashes (lower case), those that closed a succeeded refund of the mode. */
  closingTxHashes(isLive: boolean, hashes: readonly string[]): Promise<Set<string>>;
}
