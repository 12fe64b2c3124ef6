// The payments context's façade (spec 4): initialize, initiate, read, follow and list transactions, the
// test helpers, and the jobs' operations on transactions (expiry, the watcher's list and receipts).
// Rules live in the functions it calls; the dashboard's pages of transactions take a MerchantAccess.
import type { CoreDeps } from "../deps.ts";
import type { PaygateError } from "../errors.ts";
import { type NetworkSlug, transactionExplorer } from "../networks.ts";
import type { MerchantAccess } from "./access.ts";
import type { Caller } from "../credentials.ts";
import type { DeliveryReport, ObservedReceipt } from "../ports.ts";
import type { WatchedAddress, WatchShare } from "../stores/transactions.ts";
import {
  type DashboardTransactionPage,
  dashboardTransaction,
  exportDashboardTransactions,
  listDashboardTransactions,
  redeliverDashboardEvent,
  type TransactionDetail,
} from "../dashboard/transactions.ts";
import { dashboardHome, type DashboardHome } from "../dashboard/home.ts";
import { checkoutOf, type CheckoutLink } from "../transactions/checkout.ts";
import { detailOf, detailsOf, type DetailedOutcome, type ReplyParts, type TransactionDetails } from "../transactions/details.ts";
import { initializeTransaction, type InitializeRequest } from "../transactions/initialize.ts";
import { initiatePayment, type InitiateRequest } from "../transactions/initiate.ts";
import { applyReceipts, expireDue, type ReceiptUpdate } from "../transactions/lifecycle.ts";
import { ownReceipts } from "../own-addresses/matching.ts";
import {
  type IdleScanChains,
  type IdleScanObserver,
  type IdleScanOutcome,
  type IdleScanSettings,
  scanOwnAddresses,
} from "../own-addresses/idle-scan.ts";
import { listTransactions, type TransactionListParam, type TransactionPage } from "../transactions/list.ts";
import { paymentOptions, type PaymentOptionsResult } from "../transactions/payment-options.ts";
import { paymentRequestOf } from "../transactions/payment-request.ts";
import { transactionNotFoundFor } from "../transactions/record.ts";
import type { TransactionRecord } from "../records/transactions.ts";
import { clientSecretVisibleTo, retrieveTransaction } from "../transactions/retrieve.ts";
import { expireTestTransaction, recordTestPayment, type TestHelperRequest } from "../transactions/test-helpers.ts";
import { type LiveCredentials, type TransactionFollowers, transactionUpdates } from "../transactions/updates.ts";
import { viewOf, type TransactionView } from "../transactions/view.ts";
import { watchList } from "../watching/watched-payments.ts";

export class Payments {
  constructor(
    private readonly deps: CoreDeps,
    private readonly followers: TransactionFollowers,
    private readonly liveCredentials: LiveCredentials,
  ) {}

  /** The new transaction with all its reply shows (details.ts): its client secret and checkout URL. */
  initializeTransaction(request: InitializeRequest): Promise<DetailedOutcome> {
    return initializeTransaction(this.deps, request);
  }

  /** The initiated transaction with all its reply shows (details.ts): the QR image, checkout link and receipts. */
  initiatePayment(request: InitiateRequest): Promise<DetailedOutcome> {
    return initiatePayment(this.deps, request);
  }

  /** The 404 for a transaction the caller does not reach, with a hint when it is its merchant's of the other mode. */
  transactionNotFound(caller: Caller, id: string): Promise<PaygateError> {
    return transactionNotFoundFor(this.deps.stores.transactions, caller, id);
  }

  retrieveTransaction(bearerToken: string | undefined, id: string) {
    return retrieveTransaction(this.deps, bearerToken, id);
  }

  /**
   * One transaction with all a reply shows, the row and its receipts as of one moment (details.ts), the
   * client secret only to those retrieve.ts shows it; null where a read finds nothing. `parts`: false
   * leaves out the payment request or the checkout link (GraphQL makes them per field, when selected).
   */
  async transactionDetails(
    bearerToken: string | undefined,
    id: string,
    parts: ReplyParts = {},
  ): Promise<{ details: TransactionDetails | null; caller: Caller }> {
    const { transaction, caller } = await retrieveTransaction(this.deps, bearerToken, id);
    const clientSecret = parts.checkout !== false && clientSecretVisibleTo(caller);
    // Assigned onto a literal, not spread: a key added to a spread copy costs microseconds on Node 20 (CONTRIBUTING).
    const details = transaction && (await detailOf(this.deps, transaction, Object.assign({}, parts, { clientSecret })));
    return { details, caller };
  }

  /**
   * listTransactions with all a reply shows of each (a secret key's list: shown the client secrets), the
   * receipts in one query, each row as of its receipts' moment; `names`: the query's names in the caller's API.
   */
  async listTransactionDetails(
    bearerToken: string | undefined,
    params: Record<string, unknown>,
    parts: ReplyParts & { names?: Partial<Record<TransactionListParam, string>> } = {},
  ): Promise<TransactionPage & { details: TransactionDetails[] }> {
    const page = await listTransactions(this.deps, bearerToken, params, parts.names);
    const details = await detailsOf(this.deps, page.transactions, Object.assign({}, parts, { clientSecret: parts.checkout !== false }));
    return { ...page, details }; // spread: once per page of a list
  }

  /** A page of the secret key's merchant's transactions of its mode, newest first; `params` are the list's query (list.ts). */
  listTransactions(
    bearerToken: string | undefined,
    params: Record<string, unknown>,
    names?: Partial<Record<TransactionListParam, string>>,
  ): Promise<TransactionPage> {
    return listTransactions(this.deps, bearerToken, params, names);
  }

  /**
   * Live updates of one transaction, for the readers `retrieveTransaction` admits: its state now,
   * then after every change any instance commits, until the caller's `return()`. Rejects as a read
   * does (unauthenticated), and with not_found where a read finds nothing.
   */
  transactionUpdates(bearerToken: string | undefined, id: string) {
    return transactionUpdates(this.deps, this.followers, this.liveCredentials, bearerToken, id);
  }

  /** How many transactions live updates follow in this process now (each costs a map entry, no connection). */
  get followedTransactions(): number {
    return this.followers.followed;
  }

  paymentRequest(transaction: TransactionRecord) {
    return paymentRequestOf(this.deps, transaction);
  }

  /** The transaction's client secret and checkout_url; which callers are shown the secret is retrieve.ts's rule. */
  checkout(transaction: TransactionRecord): Promise<CheckoutLink> {
    return checkoutOf(this.deps, transaction);
  }

  /** The coins a checkout may offer for a transaction, each with an indicative amount; null payment options when not reachable. */
  paymentOptions(bearerToken: string | undefined, transactionId: string): Promise<PaymentOptionsResult> {
    return paymentOptions(this.deps, bearerToken, transactionId);
  }

  /** The currencies, quote and payment state of a transaction, as every API shows them. */
  describe(transaction: TransactionRecord): TransactionView {
    return viewOf(transaction, this.deps.lifecycle);
  }

  /** The explorer page template (`{tx}`) of a transaction on a network in a mode; null on a local test chain without one. */
  transactionExplorer(network: NetworkSlug, isLive: boolean): string | null {
    return transactionExplorer(network, isLive, this.deps.explorers);
  }

  /** Test mode: a payment as the chain watcher would record it; the transaction as its secret-key caller is shown it. */
  async recordTestPayment(request: TestHelperRequest): Promise<TransactionDetails> {
    return detailOf(this.deps, await recordTestPayment(this.deps, request), { clientSecret: true });
  }

  /** Test mode: the checkout window ends now; the transaction as its secret-key caller is shown it. */
  async expireTestTransaction(request: TestHelperRequest): Promise<TransactionDetails> {
    return detailOf(this.deps, await expireTestTransaction(this.deps, request), { clientSecret: true });
  }

  // ── The dashboard's pages of transactions: the access's merchant in the mode shown ──

  /** The home's figures for the mode: 30 days of volume per fiat currency, statuses, coins, checkouts paid, failing webhook endpoints. */
  dashboardHome(access: MerchantAccess): Promise<DashboardHome> {
    return dashboardHome(this.deps, access);
  }

  /** A page of the merchant's transactions, newest first; `params` are GET /v1/transactions' query. */
  dashboardTransactions(access: MerchantAccess, params: Record<string, unknown>): Promise<DashboardTransactionPage> {
    return listDashboardTransactions(this.deps, access, params);
  }

  /** One transaction with its quote, receipts and webhook events with their attempts; not_found for another merchant's or mode's. */
  dashboardTransaction(access: MerchantAccess, id: string): Promise<TransactionDetail> {
    return dashboardTransaction(this.deps, access, id);
  }

  /** The CSV rows (header first) of every transaction the list's filters match, read from the database a page at a time. */
  exportTransactionsCsv(access: MerchantAccess, params: Record<string, unknown>): Promise<AsyncGenerator<string>> {
    return exportDashboardTransactions(this.deps, access, params);
  }

  /** Sends the merchant's event again now (manage_webhooks); not_found for another merchant's or mode's. */
  redeliverEvent(access: MerchantAccess, eventId: string): Promise<DeliveryReport> {
    return redeliverDashboardEvent(this.deps, access, eventId);
  }

  // ── The jobs' operations ──

  /** Abandons open transactions whose window has closed (the expiry scheduler's tick). */
  expireDue(limit?: number): Promise<TransactionRecord[]> {
    return expireDue(this.deps.stores.transactions, this.deps.clock.now(), limit, this.deps.lifecycle);
  }

  /**
   * The addresses the payment watcher reads: open checkouts, those abandoned within `lateGraceMs`
   * (late payments) and the SUCCESSFUL ones not yet final whose window closed within `finalityWatchMs`;
   * of them, this instance's share when several watch.
   */
  watchList(lateGraceMs: number, limit: number, share: WatchShare = { index: 0, of: 1 }, finalityWatchMs = lateGraceMs): Promise<WatchedAddress[]> {
    return watchList({ transactions: this.deps.stores.transactions, clock: this.deps.clock }, lateGraceMs, limit, share, finalityWatchMs);
  }

  /** Records what a chain watcher saw at a transaction's address, and moves the transaction on. */
  applyReceipts(transactionId: string, update: ReceiptUpdate): Promise<TransactionRecord> {
    const latePayments = { prices: this.deps.prices, merchants: this.deps.stores.merchants, clock: this.deps.clock };
    return applyReceipts(this.deps.stores.transactions, transactionId, update, this.deps.clock.now(), this.deps.lifecycle, latePayments);
  }

  /** A read of a shared own address (TRON own-address mode): the payment's receipts; the others become unmatched receipts. */
  ownReceipts(row: WatchedAddress, observed: ObservedReceipt[]): Promise<ObservedReceipt[]> {
    return ownReceipts(this.deps, row, observed);
  }

  /** The idle scan of own addresses (TRON own-address mode): the share's settings read since their cursors, for unmatched receipts. */
  scanOwnAddresses(chains: IdleScanChains, share: WatchShare, settings: IdleScanSettings, observer?: IdleScanObserver): Promise<IdleScanOutcome> {
    return scanOwnAddresses(this.deps, chains, share, settings, observer);
  }
}
