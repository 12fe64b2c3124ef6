// The transactions store: initialize's write, initiate's index lease and move, receipts, expiry,
// the watch list and the merchant's list. src/db/stores/transactions.ts implements it.
import type { NetworkSlug } from "../networks.ts";
import type { Decimal } from "decimal.js";
import type { PaymentReceipt, ReceiptStatus, Transaction, TransactionStatus } from "../records/rows.ts";
import type { LatePaymentDecision, StoredRateSource, StoredReceipt, TransactionRecord } from "../records/transactions.ts";
import type { IdempotencyRecord } from "./idempotency.ts";
import type { MerchantPricingRow } from "./merchants.ts";

/** A transaction as initialize creates it, before it is written. */
export interface NewTransaction {
  id: string;
  reference: string;
  merchantId: number;
  customerEmail: string;
  customerName: string | null;
  paymentLinkId: number | null;
  isLive: boolean;
  description: string | null;
  /** A decimal string within the column's precision. */
  initializedAmount: string;
  initializedCurrencyId: number;
  requestMeta: Record<string, unknown>;
  createdAt: Date;
  expiresAt: Date;
  /** The client secret, sealed (src/core/secrets.ts). */
  clientSecretEnc: string;
  /** Checked by initialize (checkWebhookUrl of the transaction's mode). */
  returnUrl: string | null;
  /** The checkout's "back to the shop" link before paying; checked as returnUrl. */
  cancelUrl: string | null;
  /** The checkout's language (CHECKOUT_LOCALES); null: the customer's browser decides. */
  locale: string | null;
  /** Per-payment policies (core/policies.ts), checked against the operator's bounds; null: the operator's. */
  policyExpiresIn: number | null;
  /** Percent, a decimal string. */
  policyUnderpaymentTolerance: string | null;
  policyConfirmations: Record<string, number> | null;
  /** Percent, a decimal string (initialize's late_payment.accept_if_rate_moved_below). */
  policyLatePaymentPercent: string | null;
}

/** Whose wallet: the one a merchant receives a currency with in a mode (its payment processor). */
export interface WalletOf {
  merchantId: number;
  currencyId: number;
  /** The network (core/networks.ts); absent: the coin's default. */
  network?: NetworkSlug;
  isLive: boolean;
}

/** A wallet index taken for one initiate (TransactionStore.leaseIndex): its address is derived from the key. */
export interface IndexLease {
  walletId: number;
  /** Which of the wallet's places for unused indexes holds it. */
  slot: number;
  index: number;
  extendedPublicKey: string;
  /** Which initiate holds it: the move takes the index only with it. */
  token: string;
  /**
   * The merchant's other wallets of the mode (read with the lease): initiate refuses a wallet whose
   * EVM key another of them has, set before that was refused (issue 42). Absent: not read.
   */
  siblings?: SiblingWallet[];
}

/** Another wallet of the merchant in the lease's mode: its coin, network, key and when it was set (its id). */
export interface SiblingWallet {
  walletId: number;
  currencyId: number;
  network: string;
  extendedPublicKey: string;
}

/**
 * The coin initiate reads its merchant's default network for, and leases on with its read of the
 * transaction (TransactionStore.findForInitiate). `network`: the one the request names; without it, the
 * network the merchant set for the coin in the mode, else the coin's own default (the order initiate's
 * check follows).
 */
export interface InitiateCoin {
  currencyId: number;
  network?: NetworkSlug;
}

/** A lease taken at `now`, held until `until`. */
export interface LeaseWindow {
  now: Date;
  until: Date;
}

/** What initiate reads with its transaction (TransactionStore.findForInitiate). */
export interface InitiateRead {
  row: Transaction | null;
  lease: IndexLease | null;
  /** The wallet network the lease was taken on; null without a lease. */
  leasedOn: string | null;
  /** The merchant's pricing (providers and spread): a change applies to the next initiate. */
  pricing: MerchantPricingRow | null;
  /** The network the merchant set for the coin in the mode; null: none set, or no coin asked about. */
  defaultNetwork: string | null;
}

/** Initiate's move INITIATED → PENDING at a leased index (TransactionStore.moveToPending), in one statement. */
export interface PendingMove {
  /** The transaction as read before the move: its payment.pending event is written from it. */
  transaction: TransactionRecord;
  lease: IndexLease;
  /** The address at the lease's index, or the merchant's own address (ownAddressIndex). */
  address: string;
  /** TRON own-address mode: the own address's index (branch 2 of the key); the lease's index stays unused. */
  ownAddressIndex?: number | null;
  /**
   * A deposit forwarder's address (issue 40): not the key's either, so the lease's index stays in its slot
   * for the next payment and the transaction records none (a wallet never sees a gap it did not cause).
   */
  forwarder?: boolean;
  /** Written with the move, in its statement: a request whose key another took fails (DuplicateKeyError) and replays that one. */
  idempotency: IdempotencyRecord | null;
  now: Date;
  fields: {
    paymentCurrencyId: number;
    /** The network it is paid on (core/networks.ts); absent: the coin's default. */
    paymentNetwork?: NetworkSlug;
    /** Decimal strings within the columns' precision. */
    paymentAmount: string;
    quoteRate: string;
    quoteSource: string;
    quotedAt: Date;
    /** The providers behind the rate when several were asked (core/transactions/rate-sources.ts); null otherwise. */
    quoteSources?: StoredRateSource[] | null;
    /** The market rate before the merchant's spread, and the spread in percent (decimal strings); quoteRate is the rate used. */
    quoteMarketRate?: string | null;
    quoteSpreadPercent?: string | null;
    refundAddress: string | null;
    expiresAt: Date;
  };
}

/** One receipt at a payment address, as the lifecycle records it. */
export interface ReceiptWrite {
  key: string;
  txHash: string | null;
  amount: Decimal;
  confirmations: number;
  blockHeight: number | null;
  confirmed: boolean;
  /** Unconfirmed and signalling replaceability (BIP 125). */
  replaceable: boolean;
}

/** What the receipts of a transaction add up to after an update, with what they are compared against. */
export interface ReceiptTotals {
  /** The transaction's status before the update. */
  status: TransactionStatus;
  paymentAmount: Decimal | null;
  /** Receipts still on the chain (neither DROPPED nor REVERSED): counted, and short of their confirmations. */
  confirmed: Decimal;
  unconfirmed: Decimal;
  /** Receipts this update marked REVERSED. */
  reversed: number;
  /** Confirmations of the least-confirmed chain receipt still on the chain; null when there is none. */
  leastChainConfirmations: number | null;
  reversedAt: Date | null;
  /** The transaction's own underpayment tolerance in percent (initialize's policy); null: the operator's. */
  policyUnderpaymentTolerance?: Decimal | null;
}

/** The locked row's fields the receipts' rules read (its state before the update). */
export type LockedPaymentRow = Pick<TransactionRecord, "status" | "paymentAmount" | "reversedAt" | "finalAt" | "policyUnderpaymentTolerance">;

/** What the receipts still on the chain (SEEN or CONFIRMED) add up to. */
export interface ReceiptSums {
  confirmed: Decimal;
  unconfirmed: Decimal;
  /** Confirmations of the least-confirmed SEEN receipt; null when there is none. */
  leastUnconfirmedConfirmations: number | null;
  /** Confirmations of the least-confirmed chain receipt (source `chain`); null when there is none. */
  leastChainConfirmations: number | null;
}

/** The row's new totals and the moves the lifecycle decided; a move left out changes nothing. */
export interface PaymentWrite {
  amountPaid: Decimal | null;
  amountUnconfirmed: Decimal | null;
  confirmations: number | null;
  requiredConfirmations: number;
  status?: "SUCCESSFUL";
  reversedAt?: Date;
  finalAt?: Date;
}

/**
 * One transaction's payment held under its row lock for one database transaction: the lifecycle
 * (lifecycle.ts) reads through it and decides, the store only reads and writes. Everything written
 * through it commits together, with the row's webhook event (the outbox hook).
 */
export interface LockedPayment {
  readonly current: LockedPaymentRow;
  /** Inserts or updates the receipts of `source` (CONFIRMED when `confirmed`, else SEEN). */
  upsertReceipts(source: "chain" | "test_helper", rows: readonly ReceiptWrite[], now: Date): Promise<void>;
  /** The source's receipts still on the chain whose key is not in `kept`. */
  onChainExcept(source: "chain" | "test_helper", kept: readonly string[]): Promise<{ key: string; status: ReceiptStatus }[]>;
  /** Marks the receipts of these keys `state`. */
  markReceipts(keys: readonly string[], state: "DROPPED" | "REVERSED", now: Date): Promise<void>;
  sums(): Promise<ReceiptSums>;
  /** Writes the totals and moves to the row (one UPDATE, through the outbox hook); returns it. */
  write(change: PaymentWrite): Promise<TransactionRecord>;
}

/** An open transaction whose window has closed: the lifecycle decides whether it is abandoned. */
export type ExpiryCandidate = Pick<
  TransactionRecord,
  "id" | "status" | "paymentAmount" | "amountPaid" | "amountUnconfirmed" | "expiresAt" | "policyUnderpaymentTolerance"
>;

/** Which part of the watch list one instance reads: the addresses whose hash modulo `of` is `index`. */
export interface WatchShare {
  index: number;
  of: number;
}

/** An address the payment watcher reads, with the chain receipts already recorded for it. */
export interface WatchedAddress {
  id: string;
  isLive: boolean;
  paymentCurrencyId: number | null;
  /** core/networks.ts; null: the coin's default (rows before networks are filled by the migration). */
  paymentNetwork: string | null;
  paymentAddress: string | null;
  initiatedAt: Date | null;
  status: TransactionStatus;
  reversedAt: Date | null;
  /** TRON own-address mode: the payment shares its address and is told apart by its amount (core/own-addresses). */
  ownAddressIndex?: number | null;
  paymentAmount?: { toString(): string } | null;
  merchantId?: number;
  /** Confirmations by coin given at initialize (policies.ts); absent or null: the operator's. */
  policyConfirmations?: unknown;
  receipts: { key: string; amount: { toString(): string }; status: string; confirmations: number; replaceable: boolean }[];
}

/** A page of a merchant's transactions in one mode, newest first (src/core/transactions/list.ts checks it). */
/** The dashboard list's refunds filter (src/core/transactions/list.ts). */
export type RefundsFilter = "any" | "pending" | "succeeded";

export interface TransactionListQuery {
  merchantId: number;
  isLive: boolean;
  status: TransactionStatus | null;
  initializedCurrencyId: number | null;
  paymentCurrencyId: number | null;
  createdGte: Date | null;
  createdLt: Date | null;
  /** One of: the reference, the id (lower case), the customer's e-mail compared without case. */
  search: { reference: string } | { id: string } | { customerEmail: string } | null;
  /** The dashboard's refunds filter: with any refund, or with one in that state; absent or null: no filter. */
  refunds?: RefundsFilter | null;
  /** Only transactions older than this one in (createdAt, id) order. */
  after: { createdAt: Date; id: string } | null;
  limit: number;
}

export interface TransactionStore {
  /**
   * Initialize's write: the transaction, its payment.initiated event and the Idempotency-Key in one
   * statement (initialize is the hot path). A key already taken fails it with DuplicateKeyError.
   */
  insertInitiated(transaction: NewTransaction, merchant: { name: string }, idempotency: IdempotencyRecord | null): Promise<Transaction>;
  /** The transaction of this merchant and mode, or null. `id` is a lower-case UUID. */
  findFor(id: string, merchantId: number, isLive: boolean): Promise<TransactionRecord | null>;
  /** The same row without its merchant, for a caller that already knows it: one statement instead of two (polls, initiate). */
  findRowFor(id: string, merchantId: number, isLive: boolean): Promise<Transaction | null>;
  /**
   * Initiate's one read: findRowFor, what initiate needs of its merchant (the default network for
   * `coin`), and, if the transaction is INITIATED and `lease` is given, leaseIndex for the merchant's
   * wallet of `coin` in the transaction's mode, all in one statement. The lease is null when none was
   * taken for any reason (no coin, no such row, not INITIATED, no wallet, no slot free or made yet).
   * A store may answer from what its process remembers (a transaction it initialized, the merchant's
   * settings for a while, leases taken a few at a time), since moveToPending checks the state and the lease.
   */
  findForInitiate(id: string, merchantId: number, isLive: boolean, coin: InitiateCoin | null, lease: LeaseWindow | null): Promise<InitiateRead>;
  /**
   * Takes an index of the wallet that receives `wallet`'s payments, until `until`: the lowest free one
   * (released, or whose lease ran out by `now`), else the wallet's next index, unless all of the
   * wallet's `slots` places for unused indexes are leased ("full"). One short statement, which finds the
   * wallet too; null when the merchant has no wallet for that currency and mode.
   */
  leaseIndex(wallet: WalletOf, now: Date, until: Date, slots: number): Promise<IndexLease | "full" | null>;
  /** Frees a lease that no transaction took, for the next initiate. */
  releaseIndex(lease: IndexLease): Promise<void>;
  /**
   * Moves the transaction to PENDING at the lease's index and address, if it is still INITIATED and
   * the lease still held; the lease is used up with it, in one statement. "not_initiated" and
   * "lease_lost" leave the lease as it was; a key taken by another request throws DuplicateKeyError.
   * "address_taken": another transaction of the mode holds the address in that coin (a key another
   * wallet has too), nothing written.
   */
  moveToPending(move: PendingMove): Promise<{ moved: TransactionRecord } | "not_initiated" | "lease_lost" | "address_taken">;
  /**
   * Runs `work` in one database transaction holding the transaction's row lock (serialising everything
   * that changes its payment: watchers, helpers, expiry), and commits what it wrote through the lock.
   */
  withLockedPayment<T>(transactionId: string, work: (locked: LockedPayment) => Promise<T>): Promise<T>;
  /** INITIATED and PENDING transactions whose window closed by `now`, oldest deadline first, after `after`. */
  openPastDue(now: Date, limit: number, after?: { expiresAt: Date; id: string }): Promise<ExpiryCandidate[]>;
  /**
   * Records the late-payment policy's decision on an ABANDONED transaction that has none yet, and with
   * `accept` moves it to SUCCESSFUL (its payment.received event); null when it is no longer so.
   */
  settleLatePayment(transactionId: string, decision: LatePaymentDecision, accept: boolean): Promise<TransactionRecord | null>;
  /** Moves the still-open ones of `ids` to ABANDONED (with `closedAt` as their end when given); returns those. */
  abandon(ids: string[], closedAt?: Date): Promise<TransactionRecord[]>;
  /**
   * PENDING addresses, those abandoned after `lateSince` (late payments) and the SUCCESSFUL ones not yet
   * final whose window closed after `finalitySince`, oldest deadline first; of them, only `share`'s part
   * (by a hash of the address, so all instances agree on the split).
   */
  watchList(lateSince: Date, limit: number, share: WatchShare, finalitySince?: Date): Promise<WatchedAddress[]>;
  /**
   * Gives a transaction made before client secrets its sealed secret, unless one was stored
   * meanwhile; returns the one stored. Not a state change: no webhook event.
   */
  keepClientSecret(transactionId: string, sealed: string): Promise<string>;
  /** Newest first by (createdAt, id): the filters of `query`, after its cursor, up to its limit. */
  list(query: TransactionListQuery): Promise<TransactionRecord[]>;
  /** The crypto currencies (ids) and networks this merchant has a wallet for in a mode, in id order. */
  walletCurrencies(merchantId: number, isLive: boolean): Promise<{ currencyId: number; network: string }[]>;
  /**
   * The addresses handed out to the merchant's payments in a mode (on `network` only, when given),
   * newest first, at most `limit`: the funds-held view reads each one's balance.
   */
  handedOutAddresses(
    merchantId: number,
    isLive: boolean,
    options: { network?: string; limit: number },
  ): Promise<{ transactionId: string; address: string; currencyId: number; network: string | null; initiatedAt: Date | null; status: string }[]>;
  /** What arrived at the transaction's address (dropped receipts too), first seen first. */
  receipts(transactionId: string): Promise<PaymentReceipt[]>;
  /** The receipts of every transaction of `transactionIds` in one query, each transaction's first seen first (dropped ones too). */
  receiptsOf(transactionIds: readonly string[]): Promise<StoredReceipt[]>;
}
