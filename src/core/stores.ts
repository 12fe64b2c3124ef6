// What the core needs from its database: one store per kind of record. src/db/ implements them on
// Prisma (src/db/stores.ts); the core imports only their types, so every query lives in src/db and
// every rule here. Row types are Prisma's generated model types (one definition, from the schema).
import type { Decimal } from "decimal.js";
import type { PaymentReceipt, StoredKybStatus, Transaction, TransactionStatus, WebhookEvent, WebhookDeliveryAttempt } from "./records.ts";
import type { DashboardRole } from "./dashboard/access.ts";
import type { KybStatus } from "./merchants/kyb.ts";
import type { RateLimitCounters } from "./rate-limits.ts";
import type { TransactionRecord } from "./transactions/record.ts";
import type { StoredReceipt } from "./transactions/receipts.ts";

// ── Transactions ────────────────────────────────────────────────────────────────────────────────

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
}

/** An Idempotency-Key as it is remembered with the transaction its request made (src/core/idempotency.ts). */
export interface IdempotencyRecord {
  merchantId: number;
  isLive: boolean;
  key: string;
  /** `initialize`, or `initiate:<transaction id>`. */
  operation: string;
  fingerprint: string;
}

/** Whose wallet: the one a merchant receives a currency with in a mode (its payment processor). */
export interface WalletOf {
  merchantId: number;
  currencyId: number;
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
}

/** What initiate asks to lease with its read of the transaction (TransactionStore.findRowAndLease). */
export interface EarlyLease {
  currencyId: number;
  now: Date;
  until: Date;
}

/** Initiate's move INITIATED → PENDING at a leased index (TransactionStore.moveToPending), in one statement. */
export interface PendingMove {
  /** The transaction as read before the move: its payment.pending event is written from it. */
  transaction: TransactionRecord;
  lease: IndexLease;
  /** The address at the lease's index. */
  address: string;
  /** Written with the move, in its statement: a request whose key another took fails (DuplicateKeyError) and replays that one. */
  idempotency: IdempotencyRecord | null;
  now: Date;
  fields: {
    paymentCurrencyId: number;
    /** Decimal strings within the columns' precision. */
    paymentAmount: string;
    quoteRate: string;
    quoteSource: string;
    quotedAt: Date;
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
}

/** What the receipts of a transaction add up to, with what they are compared against. */
export interface ReceiptTotals {
  status: TransactionStatus;
  paymentAmount: Decimal | null;
  confirmed: Decimal;
  unconfirmed: Decimal;
}

/** An open transaction whose window has closed: the lifecycle decides whether it is abandoned. */
export type ExpiryCandidate = Pick<TransactionRecord, "id" | "status" | "paymentAmount" | "amountPaid" | "amountUnconfirmed" | "expiresAt">;

/** An address the payment watcher reads, with the chain receipts already recorded for it. */
/** Which part of the watch list one instance reads: the addresses whose hash modulo `of` is `index`. */
export interface WatchShare {
  index: number;
  of: number;
}

export interface WatchedAddress {
  id: string;
  isLive: boolean;
  paymentCurrencyId: number | null;
  paymentAddress: string | null;
  initiatedAt: Date | null;
  receipts: { key: string; amount: { toString(): string }; status: string; confirmations: number }[];
}

/** A page of a merchant's transactions in one mode, newest first (src/core/transactions/list.ts checks it). */
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
   * findRowFor, and in the same statement, if the transaction is INITIATED, leaseIndex for the
   * merchant's wallet of `leasing.currencyId` in the transaction's mode. The lease is null when none
   * was taken for any reason (no such row, not INITIATED, no wallet, no slot free or made yet).
   */
  findRowAndLease(
    id: string,
    merchantId: number,
    isLive: boolean,
    leasing: EarlyLease,
  ): Promise<{ row: Transaction | null; lease: IndexLease | null }>;
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
   */
  moveToPending(move: PendingMove): Promise<{ moved: TransactionRecord } | "not_initiated" | "lease_lost">;
  /**
   * Under the transaction's row lock: upserts the receipts, marks the source's other receipts dropped
   * when `dropOthers` (reorganised away), totals them, and writes the totals, the confirmations of the
   * least-confirmed unconfirmed receipt with the number required, and SUCCESSFUL when `completes` says so.
   * The number required is set with the first receipt: a transaction without it has none (mayHaveReceipts).
   */
  recordReceipts(
    transactionId: string,
    receipts: { source: "chain" | "test_helper"; rows: ReceiptWrite[]; dropOthers: boolean; requiredConfirmations: number },
    now: Date,
    completes: (totals: ReceiptTotals) => boolean,
  ): Promise<TransactionRecord>;
  /** INITIATED and PENDING transactions whose window closed by `now`, oldest deadline first, after `after`. */
  openPastDue(now: Date, limit: number, after?: { expiresAt: Date; id: string }): Promise<ExpiryCandidate[]>;
  /** Moves the still-open ones of `ids` to ABANDONED (with `closedAt` as their end when given); returns those. */
  abandon(ids: string[], closedAt?: Date): Promise<TransactionRecord[]>;
  /**
   * PENDING addresses, and those abandoned after `lateSince` (late payments), oldest deadline first;
   * of them, only `share`'s part (by a hash of the address, so all instances agree on the split).
   */
  watchList(lateSince: Date, limit: number, share: WatchShare): Promise<WatchedAddress[]>;
  /**
   * Gives a transaction made before client secrets its sealed secret, unless one was stored
   * meanwhile; returns the one stored. Not a state change: no webhook event.
   */
  keepClientSecret(transactionId: string, sealed: string): Promise<string>;
  /** Newest first by (createdAt, id): the filters of `query`, after its cursor, up to its limit. */
  list(query: TransactionListQuery): Promise<TransactionRecord[]>;
  /** The crypto currency ids this merchant has a wallet for in a mode, in id order. */
  walletCurrencies(merchantId: number, isLive: boolean): Promise<number[]>;
  /** What arrived at the transaction's address (dropped receipts too), first seen first. */
  receipts(transactionId: string): Promise<PaymentReceipt[]>;
  /** The receipts of every transaction of `transactionIds` in one query, each transaction's first seen first (dropped ones too). */
  receiptsOf(transactionIds: readonly string[]): Promise<StoredReceipt[]>;
}

// ── Credentials and Idempotency-Keys ────────────────────────────────────────────────────────────

export interface MerchantIdentity {
  id: number;
  name: string;
  active: boolean;
  kybStatus: KybStatus;
}

export interface ApiKeyRow {
  kind: "PUBLIC" | "SECRET";
  isLive: boolean;
  revokedAt: Date | null;
  /** A rolled key's end (src/core/merchants/api-keys.ts); null: none. */
  expiresAt: Date | null;
  keyHash: string;
  merchant: MerchantIdentity;
}

export interface PaymentLinkRow {
  id: number;
  isLive: boolean;
  active: boolean;
  merchant: MerchantIdentity;
}

/** The transaction a client secret names, with what proves the secret. */
export interface ClientSecretRow {
  id: string;
  isLive: boolean;
  clientSecretEnc: string | null;
  merchant: MerchantIdentity;
}

export interface CredentialStore {
  apiKeyByHash(keyHash: string): Promise<ApiKeyRow | null>;
  /** `id` is a lower-case UUID. */
  clientSecretOf(transactionId: string): Promise<ClientSecretRow | null>;
  paymentLinkBySlug(slug: string): Promise<PaymentLinkRow | null>;
}

export interface IdempotencyStore {
  /** What the key of this merchant and mode was used for, or null when it is new. */
  find(merchantId: number, isLive: boolean, key: string): Promise<{ operation: string; fingerprint: string; transactionId: string } | null>;
  /** Forgets keys made before `before`; returns how many. */
  pruneBefore(before: Date): Promise<number>;
}

// ── Merchants ───────────────────────────────────────────────────────────────────────────────────

export interface ApiKeyWrite {
  kind: "PUBLIC" | "SECRET";
  isLive: boolean;
  /** What a list shows of the key: a public key whole, a secret key's first characters. */
  prefix: string;
  keyHash: string;
}

export interface WalletWrite {
  currencyId: number;
  isLive: boolean;
  extendedPublicKey: string;
}

export interface MerchantWrite {
  name: string;
  kybStatus: KybStatus;
  liveWebhookUrl: string | null;
  testWebhookUrl: string | null;
  webhookSecretEnc: string;
  apiKeys: ApiKeyWrite[];
  wallets: WalletWrite[];
}

export interface MerchantChanges {
  active?: boolean;
  kybStatus?: KybStatus;
  liveWebhookUrl?: string | null;
  testWebhookUrl?: string | null;
  wallets: WalletWrite[];
  /** The audit log's entries of the change, written in its database transaction. */
  audit?: AuditWrite[];
}

/** A merchant with its wallets per currency and mode, as an operator sees it after a change. */
export interface MerchantWithWallets {
  id: number;
  name: string;
  active: boolean;
  kybStatus: StoredKybStatus;
  liveWebhookUrl: string | null;
  testWebhookUrl: string | null;
  createdAt: Date;
  paymentProcessors: {
    currencyId: number;
    isLive: boolean;
    currency: { id: number; slug: string; name: string; decimals: number };
    wallet: { id: number; extendedPublicKey: string; nextIndex: number };
  }[];
}

export type MerchantUpdate =
  | { ok: true; merchant: MerchantWithWallets }
  | { ok: false; problem: "no_merchant" }
  /** The key is another merchant's wallet already: two merchants would receive to the same addresses. */
  | { ok: false; problem: "wallet_taken"; currencyId: number };

/** A merchant's settings and webhook signing state, sealed secrets included (the core never shows them). */
export interface MerchantSettingsRow {
  id: number;
  name: string;
  active: boolean;
  kybStatus: KybStatus;
  liveWebhookUrl: string | null;
  testWebhookUrl: string | null;
  webhookSecretEnc: string;
  webhookSecretRotatedAt: Date | null;
  previousWebhookSecretEnc: string | null;
  previousWebhookSecretExpiresAt: Date | null;
}

/** An API key as a list shows it: never its hash. */
export interface ApiKeyListRow {
  id: number;
  kind: "PUBLIC" | "SECRET";
  isLive: boolean;
  prefix: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** A roll: the new key, and the end the keys it replaces get (an earlier end they already had is kept). */
export interface ApiKeyRoll {
  kind: "PUBLIC" | "SECRET";
  isLive: boolean;
  newKey: ApiKeyWrite;
  oldExpiresAt: Date;
  now: Date;
  /** The audit log's entry of the roll, written in its database transaction. */
  audit?: AuditWrite;
}

/** The wallet that receives a currency in a mode, with how far its addresses are used. */
export interface WalletUsageRow {
  currencyId: number;
  isLive: boolean;
  extendedPublicKey: string;
  nextIndex: number;
  /** The highest index whose transaction received anything (a receipt not dropped); null: none. */
  highestPaidIndex: number | null;
}

export interface PaymentLinkListRow {
  id: number;
  slug: string;
  isLive: boolean;
  active: boolean;
  createdAt: Date;
  transactionCount: number;
}

export interface MerchantStore {
  /** The merchant, its keys and wallets, in one database transaction. */
  create(merchant: MerchantWrite): Promise<{ id: number; name: string }>;
  /** The changes and wallets in one database transaction; a wallet key seen before keeps its counter. */
  update(id: number, changes: MerchantChanges): Promise<MerchantUpdate>;
  /** Null when there is no such merchant. */
  createPaymentLink(merchantId: number, isLive: boolean, slug: string): Promise<{ slug: string } | null>;
  /** Null when there is no such merchant. */
  settings(merchantId: number): Promise<MerchantSettingsRow | null>;
  /**
   * In one statement: the current secret becomes the previous one (until `previousExpiresAt`),
   * `sealed` the current one. Whatever was previous before is dropped. False: no such merchant.
   */
  rotateWebhookSecret(merchantId: number, sealed: string, now: Date, previousExpiresAt: Date, audit?: AuditWrite): Promise<boolean>;
  /** Every key of the merchant, newest first; null when there is no such merchant. */
  apiKeys(merchantId: number): Promise<ApiKeyListRow[] | null>;
  /**
   * In one database transaction: every usable key of the merchant, kind and mode gets `oldExpiresAt`
   * as its end (or keeps an earlier one), and the new key is stored. Returns the hashes and ends of
   * the keys it ended; null when there is no such merchant.
   */
  rollApiKey(merchantId: number, roll: ApiKeyRoll): Promise<{ keyHash: string; prefix: string; expiresAt: Date }[] | null>;
  /** Who holds a wallet key of a currency and mode, and its next index; null: nobody yet. */
  walletByKey(currencyId: number, isLive: boolean, extendedPublicKey: string): Promise<{ merchantId: number; nextIndex: number } | null>;
  /** The wallets that receive the merchant's payments (one per currency and mode), with their use; null: no such merchant. */
  walletUsage(merchantId: number): Promise<WalletUsageRow[] | null>;
  /** Newest first; null when there is no such merchant. */
  paymentLinks(merchantId: number): Promise<PaymentLinkListRow[] | null>;
  /** The merchant's link, now inactive; null when the merchant has no link with this slug. */
  deactivatePaymentLink(merchantId: number, slug: string): Promise<PaymentLinkListRow | null>;
}

// ── Test rates ──────────────────────────────────────────────────────────────────────────────────

export interface StoredTestRate {
  crypto: string;
  fiat: string;
  /** Fiat per one coin, as stored (decimal string). */
  rate: string;
  updatedAt: Date;
}

export interface TestRateStore {
  get(crypto: string, fiat: string): Promise<string | null>;
  list(): Promise<StoredTestRate[]>;
  set(crypto: string, fiat: string, rate: string): Promise<StoredTestRate>;
}

// ── Webhook events (the outbox) ─────────────────────────────────────────────────────────────────

/** What became of one claimed event: its new state and the attempt that decided it (none when skipped). */
export interface Settlement {
  event: Pick<ClaimedEvent, "id" | "claimToken">;
  outcome: EventOutcome;
  attempt: AttemptRecord | null;
}

/** An event a dispatcher holds, with what it needs to send it. */
export interface ClaimedEvent {
  id: string;
  claimToken: string;
  merchantId: number;
  transactionId: string;
  type: string;
  isLive: boolean;
  body: string;
  attemptCount: number;
  liveWebhookUrl: string | null;
  testWebhookUrl: string | null;
  webhookSecretEnc: string;
  /** The secret before the last rotation and when it stops signing (src/core/merchants/webhook-secrets.ts). */
  previousWebhookSecretEnc: string | null;
  previousWebhookSecretExpiresAt: Date | null;
  /** When the event was written, with its state change. */
  createdAt: Date;
}

export interface AttemptRecord {
  attemptedAt: Date;
  url: string;
  statusCode: number | null;
  latencyMs: number;
  responseBody: string | null;
  error: string | null;
  succeeded: boolean;
  trigger: "schedule" | "manual";
}

export type EventOutcome = { state: "DELIVERED"; at: Date } | { state: "PENDING"; nextAttemptAt: Date } | { state: "FAILED" } | { state: "SKIPPED" };

export interface EventFilter {
  merchantId?: number;
  state?: "PENDING" | "DELIVERED" | "FAILED" | "SKIPPED";
  transactionId?: string;
  limit?: number;
}

export type EventWithAttempts = WebhookEvent & { attempts: WebhookDeliveryAttempt[]; transaction: { reference: string } };

/** What waits in the outbox (GET /metrics reads it at scrape time). */
export interface WebhookBacklog {
  /** Undelivered events: due, held by a dispatcher, or waiting for a retry. */
  pending: number;
  /** Events a dispatcher would take now: due, and not behind an undelivered earlier event of their transaction. */
  due: number;
  /** When the longest-waiting due event fell due; null when none is due. */
  oldestDueAt: Date | null;
}

/** A page of one merchant's events in one mode, newest first (src/core/events/list.ts checks it). */
export interface EventPageQuery {
  merchantId: number;
  isLive: boolean;
  type: string | null;
  transactionId: string | null;
  /** Only events committed before this one (seq order). */
  afterSeq: bigint | null;
  limit: number;
}

export interface WebhookEventStore {
  /**
   * Takes up to `limit` due events and holds them until `leaseUntil`. Only the oldest undelivered
   * event of each transaction is due, so a transaction's events arrive in order. `onlyId`: an
   * operator's redelivery of one event, taken regardless of order and URL.
   */
  claimDue(now: Date, leaseUntil: Date, limit: number, onlyId?: string): Promise<ClaimedEvent[]>;
  /** Marks due events whose merchant has no URL for their mode as skipped, up to `limit`; returns how many. */
  skipUnroutable(now: Date, limit: number): Promise<number>;
  /**
   * Records each attempt (if any) and each event's new state, all in one statement; a holder whose
   * lease ran out only logs its attempt.
   */
  settle(settlements: readonly Settlement[]): Promise<void>;
  /** Due now with a fresh retry schedule; null when there is no such event. */
  requeue(id: string, now: Date): Promise<{ type: string; nextAttemptAt: Date } | null>;
  /** Newest first, each with its attempts (newest first). */
  list(filter: EventFilter): Promise<EventWithAttempts[]>;
  backlog(now: Date): Promise<WebhookBacklog>;
  /** The event of this merchant and mode, or null. */
  findFor(id: string, merchantId: number, isLive: boolean): Promise<WebhookEvent | null>;
  /** Newest first by seq: the filters of `query`, after its cursor, up to its limit. */
  page(query: EventPageQuery): Promise<WebhookEvent[]>;
  /** Deletes events made before `before` (their attempts with them); returns how many. */
  pruneBefore(before: Date): Promise<number>;
}

// ── Change notifications ────────────────────────────────────────────────────────────────────────

/**
 * What the database announces after a commit (PostgreSQL LISTEN/NOTIFY, sent inside the writing
 * transaction, so a rolled-back change announces nothing): a transaction changed, and whether that
 * change wrote a webhook event. `resync`: the listening connection was (re)established, so changes
 * may have been missed meanwhile and every listener should re-read what it follows.
 */
export type TransactionChange = { kind: "changed"; transactionId: string; eventWritten: boolean } | { kind: "resync" };

/** Every instance's transaction changes, in this process: one listening connection, fanned out. */
export interface TransactionChanges {
  /** Calls `listener` for each change until the returned function is called. */
  subscribe(listener: (change: TransactionChange) => void): () => void;
}

// ── Dashboard users and sessions ────────────────────────────────────────────────────────────────

export interface DashboardUserRow {
  id: string;
  merchantId: number;
  /** Lower-cased. */
  email: string;
  role: DashboardRole;
  passwordHash: string | null;
  createdAt: Date;
  /** When its TOTP second factor was turned on; null: none. */
  totpEnabledAt: Date | null;
  /** How many WebAuthn security keys it has registered (a second factor too). */
  securityKeyCount: number;
}

/** A one-time sign-in link as stored: the token's SHA-256 only. */
export interface SignInLinkWrite {
  tokenHash: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface SessionWrite {
  tokenHash: string;
  userId: string;
  createdAt: Date;
  expiresAt: Date;
  /** The audit log's entry of the sign-in, written with the session. */
  audit?: AuditWrite;
}

/** A session with its user and the user's merchant, as every dashboard request reads it. */
export interface SessionRow {
  tokenHash: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  /** When the session last proved its password (and second factor): sudo mode reads it. */
  authenticatedAt: Date;
  user: DashboardUserRow;
  merchant: MerchantIdentity;
}

/**
 * A change to one user by another (or itself); `check` sees, under the lock, the actor as it is now
 * (null when removed meanwhile), the user, and how many owners the merchant has after the change,
 * and throws to refuse it.
 */
export interface UserChange {
  actorId: string;
  change: { role: DashboardRole } | "remove";
  check(actor: DashboardUserRow | null, user: DashboardUserRow, ownersAfter: number): void;
  /** The audit log's entry of the change (it names the user as it was), written in its database transaction. */
  audit?(user: DashboardUserRow): AuditWrite;
}

export interface DashboardStore {
  /** The merchant, or null: a user is made for an existing one only. */
  merchant(merchantId: number): Promise<MerchantIdentity | null>;
  /**
   * The user and (when given) its sign-in link together; fails with DuplicateKeyError when the merchant
   * has a user with this e-mail, or the user has a password and the e-mail has an account (a user with
   * a password) at any merchant. A user without one (an invitation) may share an e-mail across merchants.
   */
  createUser(
    user: Omit<DashboardUserRow, "createdAt" | "totpEnabledAt" | "securityKeyCount">,
    link: SignInLinkWrite | null,
    audit?: AuditWrite,
  ): Promise<DashboardUserRow>;
  /** The account (the user with a password) of the e-mail at any merchant, or null. */
  userByEmail(email: string): Promise<DashboardUserRow | null>;
  /** Whether any merchant has a user with this e-mail, with a password or not. */
  emailInUse(email: string): Promise<boolean>;
  /** The user of this merchant, or null. */
  userOf(merchantId: number, userId: string): Promise<DashboardUserRow | null>;
  /** Oldest first. */
  listUsers(merchantId: number): Promise<DashboardUserRow[]>;
  /**
   * Under a lock on the merchant's users (so two owners cannot demote each other at once): calls
   * `check`, then applies the change. Null when the merchant has no such user.
   */
  changeUser(merchantId: number, userId: string, change: UserChange): Promise<DashboardUserRow | null>;
  /**
   * Marks an unused, unexpired link used and returns its user; null otherwise (used, expired, unknown,
   * or its user's e-mail has an account at another merchant).
   */
  useSignInLink(tokenHash: string, now: Date): Promise<DashboardUserRow | null>;
  /** DuplicateKeyError when the user's e-mail got an account at another merchant meanwhile. */
  setPassword(userId: string, passwordHash: string): Promise<void>;
  createSession(session: SessionWrite): Promise<void>;
  sessionByHash(tokenHash: string): Promise<SessionRow | null>;
  touchSession(tokenHash: string, now: Date): Promise<void>;
  /** The session proved its password (and second factor) again at `now` (sudo mode); false when it is gone. */
  reauthenticated(tokenHash: string, now: Date): Promise<boolean>;
  /** Returns how many were deleted (0 or 1). */
  deleteSession(tokenHash: string): Promise<number>;
  /** Every session of the user; returns how many. */
  deleteSessionsOf(userId: string): Promise<number>;
  /** Sessions past their absolute end or idle since before `idleBefore`, links and sign-in challenges past their end; returns how many. */
  prune(now: Date, idleBefore: Date): Promise<number>;
}

// ── Second factors and the audit log ────────────────────────────────────────────────────────────

/** A user's TOTP state, its secret sealed (src/core/dashboard/second-factor.ts opens it). */
export interface SecondFactorRow {
  userId: string;
  totpSecretEnc: string | null;
  totpEnabledAt: Date | null;
  totpLastStep: number | null;
}

/** A sign-in whose password was right, waiting for its second factor. */
export interface ChallengeWrite {
  tokenHash: string;
  userId: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface SecondFactorStore {
  /** The user's TOTP state; null when there is no such user. */
  of(userId: string): Promise<SecondFactorRow | null>;
  /** Starts an enrolment: the sealed secret, not yet on; false when the user's second factor is on already (nothing changed). */
  beginTotp(userId: string, sealedSecret: string): Promise<boolean>;
  /**
   * Turns the second factor on with the code's time step and the recovery codes' hashes (any earlier
   * ones replaced), if the secret is still `sealedSecret` and not on yet; with the audit entry, in one
   * database transaction. False: nothing changed.
   */
  enableTotp(userId: string, sealedSecret: string, step: number, recoveryCodeHashes: string[], now: Date, audit: AuditWrite): Promise<boolean>;
  /** Turns it off: the secret and the recovery codes go, with the audit entry, in one database transaction. False: it was off. */
  disableTotp(userId: string, audit: AuditWrite): Promise<boolean>;
  /** Records a code's time step as used if it is later than the last one used (one statement: of two uses at once, one wins). */
  useTotpStep(userId: string, step: number): Promise<boolean>;
  /** Marks an unused recovery code used; null when there is none (wrong or used), else how many unused remain. */
  useRecoveryCode(userId: string, codeHash: string, now: Date): Promise<number | null>;
  /** How many unused recovery codes the user has. */
  recoveryCodesLeft(userId: string): Promise<number>;
  createChallenge(challenge: ChallengeWrite): Promise<void>;
  /** The unexpired challenge's user; null otherwise. */
  challenge(tokenHash: string, now: Date): Promise<DashboardUserRow | null>;
  /** Deletes it; false when it was gone already (used at the same time by another request). */
  endChallenge(tokenHash: string): Promise<boolean>;
}

/** A user's WebAuthn security key (src/core/dashboard/security-keys.ts): public material only. */
export interface SecurityKeyRow {
  id: string;
  userId: string;
  name: string;
  /** base64url, as assertions name it. */
  credentialId: string;
  /** COSE-encoded public key. */
  publicKey: Uint8Array<ArrayBuffer>;
  /** The signature counter of the last accepted assertion. */
  counter: number;
  transports: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** A WebAuthn challenge as stored: its SHA-256, its user and what it is for. */
export interface WebAuthnChallengeWrite {
  challengeHash: string;
  userId: string;
  purpose: "registration" | "authentication";
  expiresAt: Date;
}

export interface SecurityKeyStore {
  /** The user's keys, oldest first. */
  listOf(userId: string): Promise<SecurityKeyRow[]>;
  byCredentialId(credentialId: string): Promise<SecurityKeyRow | null>;
  /** Stores a key with its audit entry in one database transaction; DuplicateKeyError when the credential is registered already. */
  add(key: SecurityKeyRow, audit: AuditWrite): Promise<void>;
  /** Removes the user's key with the audit entry (made from the key) in one transaction; null when the user has no such key. */
  remove(userId: string, id: string, audit: (key: SecurityKeyRow) => AuditWrite): Promise<SecurityKeyRow | null>;
  /** Removes every key of the user (the operator's reset), with the audit entry; how many. */
  removeAllOf(userId: string, audit: AuditWrite): Promise<number>;
  /** Moves the counter from `from` to `to` (one statement: of two uses of one assertion, one wins); false when it was not `from` any more. */
  useCounter(id: string, from: number, to: number, now: Date): Promise<boolean>;
  createChallenge(challenge: WebAuthnChallengeWrite): Promise<void>;
  /** Deletes the unexpired challenge of that user and purpose; false when there is none (unknown, used or expired). */
  useChallenge(challengeHash: string, userId: string, purpose: WebAuthnChallengeWrite["purpose"], now: Date): Promise<boolean>;
  /** Deletes expired challenges; how many. */
  pruneChallenges(now: Date): Promise<number>;
}

/** Who made a change: a dashboard user (from an address), or the operator at the command line. */
export type AuditActorWrite = { kind: "user"; userId: string; email: string; clientAddress: string | null } | { kind: "operator" };

/** One entry of a merchant's audit log, as written; never a secret. */
export interface AuditWrite {
  merchantId: number;
  at: Date;
  actor: AuditActorWrite;
  action: string;
  target: string;
}

export interface AuditLogRow {
  id: number;
  createdAt: Date;
  actorKind: string;
  actorUserId: string | null;
  actorEmail: string | null;
  action: string;
  target: string;
  clientAddress: string | null;
}

export interface AuditLogStore {
  append(entry: AuditWrite): Promise<void>;
  /** The merchant's entries newest first, those older than `beforeId` when given, at most `limit`. */
  page(merchantId: number, beforeId: number | null, limit: number): Promise<AuditLogRow[]>;
}

/** Every store, as src/db/stores.ts makes them on one database. */
export interface Stores {
  transactions: TransactionStore;
  credentials: CredentialStore;
  idempotency: IdempotencyStore;
  merchants: MerchantStore;
  testRates: TestRateStore;
  webhookEvents: WebhookEventStore;
  dashboard: DashboardStore;
  secondFactors: SecondFactorStore;
  securityKeys: SecurityKeyStore;
  auditLog: AuditLogStore;
  /** The rate-limit counters, for sign-in throttling (the API's limiter is given its own by the HTTP layer). */
  rateLimits: RateLimitCounters;
}
