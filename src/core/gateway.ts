// The one entry to the domain for every adapter (REST, GraphQL, the CLI, the dashboard, the jobs): it
// holds the stores and ports and exposes the payment, merchant, test-rate and webhook-event operations.
// Rules live in the functions it calls, never in the adapters; queries live in src/db behind the stores.
import { authorize, type DashboardActor } from "./access/roles.ts";
import { auditLogPage, authorOf, OPERATOR, type AuditLogPage, type ChangeAuthor } from "./access/audit-log.ts";
import {
  disableSecondFactor,
  reauthenticate,
  reauthenticationOptions,
  requireRecentAuthentication,
  resetSecondFactor,
  type Reauthentication,
} from "./dashboard/reauthentication.ts";
import {
  beginEnrolment,
  confirmEnrolment,
  DEFAULT_SECOND_FACTOR_LIMIT,
  SecondFactorThrottle,
  type SecondFactorProof,
  type TotpEnrolment,
} from "./dashboard/second-factor.ts";
import { listSecurityKeys, registerSecurityKey, registrationOptions, removeSecurityKey, type SecurityKeyView } from "./dashboard/security-keys.ts";
import {
  completeSignIn,
  DEFAULT_SESSION_POLICY,
  pruneSessions,
  sessionOf,
  signIn,
  signInSecurityKeyOptions,
  signOut,
  signOutEverywhere,
  useSignInLink,
  type DashboardDeps,
  type DashboardSession,
  type DashboardUserView,
  type SecondFactorRequired,
  type SessionPolicy,
  type SignedIn,
} from "./dashboard/sessions.ts";
import { DEFAULT_SIGN_IN_LIMITS, SignInThrottle, type SignInLimits } from "./dashboard/throttle.ts";
import { changeRole, createUser, inviteUser, issueSignInLink, listUsers, removeUser, type CreatedUser } from "./dashboard/users.ts";
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/server";
import type { CoreDeps } from "./deps.ts";
import { type NetworkSlug, transactionExplorer } from "./networks.ts";
import { pruneIdempotencyKeys } from "./transactions/idempotency.ts";
import type { Caller } from "./credentials.ts";
import { authorizeKey, keyAuthor, requireLiveKey } from "./merchants/key-access.ts";
import { listApiKeys, rollApiKey, type ApiKeyRollRequest, type ApiKeyView, type KeyRoller, type RolledApiKey } from "./merchants/api-keys.ts";
import type { KybStatus } from "./records/kyb.ts";
import { checkedMode, type Mode } from "./mode.ts";
import { NO_PRIVATE_TARGETS, type PrivateTargets } from "./private-targets.ts";
import { deactivatePaymentLink, listPaymentLinks, type PaymentLinkView } from "./merchants/payment-links.ts";
import { defaultNetworkChoices, setDefaultNetwork, type DefaultNetworkChoice } from "./merchants/default-networks.ts";
import { fundsHeld, type FundsHeldQuery, type HeldFunds } from "./transactions/funds-held.ts";
import { listWallets, previewWallet, setWallet, type WalletPreview, type WalletRequest, type WalletView } from "./merchants/wallets.ts";
import { rotateWebhookSecret, type RotatedWebhookSecret } from "./merchants/webhook-secrets.ts";
import {
  merchantSettings,
  sendTestEvent,
  setWebhookUrl,
  shownTestEvent,
  type MerchantSettings,
  type ShownTestEvent,
  type TestEventAttempt,
} from "./merchants/webhook-settings.ts";
import {
  createMerchant,
  createPaymentLink,
  defaultNetworks,
  updateMerchant,
  type DefaultNetworkRow,
  type DefaultNetworkSetting,
  type NewMerchant,
  type WalletSetting,
  type WebhookUrls,
} from "./merchants/merchants.ts";
import { merchantPricing, setMerchantPricing, type MerchantPricing } from "./merchants/pricing.ts";
import { listTestRates, setTestRate, type TestRateChange, type TestRateRow } from "./test-rates.ts";
import type { Clock, DeliveryReport } from "./ports.ts";
import type { RateLimit } from "./rate-limits.ts";
import {
  type DashboardTransactionPage,
  dashboardTransaction,
  exportDashboardTransactions,
  listDashboardTransactions,
  redeliverDashboardEvent,
  type TransactionDetail,
} from "./dashboard/transactions.ts";
import { dashboardHome, type DashboardHome } from "./dashboard/home.ts";
import type { MerchantWithWallets } from "./stores/merchants.ts";
import type { TransactionChanges } from "./stores/transaction-changes.ts";
import type { WatchedAddress, WatchShare } from "./stores/transactions.ts";
import type { EventFilter, EventWithAttempts, WebhookBacklog } from "./stores/webhook-events.ts";
import { initializeTransaction, type InitializeRequest } from "./transactions/initialize.ts";
import * as refunds from "./refunds/refunds.ts";
import type { RefundOutcome, RefundRequest } from "./refunds/refunds.ts";
import type { RefundSummary } from "./refunds/view.ts";
import type { RefundRecord } from "./records/refunds.ts";
import { initiatePayment, type InitiateRequest } from "./transactions/initiate.ts";
import { checkoutOf, type CheckoutLink } from "./transactions/checkout.ts";
import { paymentOptions, type PaymentOptionsResult } from "./transactions/payment-options.ts";
import { paymentRequestOf } from "./transactions/payment-request.ts";
import { transactionNotFoundFor } from "./transactions/record.ts";
import type { TransactionRecord } from "./records/transactions.ts";
import type { PaygateError } from "./errors.ts";
import { clientSecretVisibleTo, retrieveTransaction } from "./transactions/retrieve.ts";
import { detailOf, detailsOf, type DetailedOutcome, type ReplyParts, type TransactionDetails } from "./transactions/details.ts";
import { listTransactions, type TransactionListParam, type TransactionPage } from "./transactions/list.ts";
import { listEvents, pruneEvents, retrieveEvent, type EventPage } from "./events/list.ts";
import * as endpoints from "./webhook-endpoints/endpoints.ts";
import * as deliveryLog from "./webhook-endpoints/delivery-log.ts";
import type { DeliveryLogEntry, WebhookEndpointRow } from "./stores/webhook-endpoints.ts";
import { redeliverEvent } from "./events/deliveries.ts";
import { type EventStream, type EventStreamRequest, EventStreams, openEventStream } from "./events/stream.ts";
import type { WebhookEvent } from "./records/rows.ts";
import { LiveCredentials, TransactionFollowers, transactionUpdates } from "./transactions/updates.ts";
import { applyReceipts, expireDue, type ReceiptUpdate } from "./transactions/lifecycle.ts";
import { DEFAULT_LIFECYCLE, type LifecyclePolicy } from "./policies.ts";
import { viewOf, type TransactionView } from "./transactions/view.ts";
import { expireTestTransaction, recordTestPayment, type TestHelperRequest } from "./transactions/test-helpers.ts";

/** The gateway's dependencies; the policy, the private webhook targets (none) and the public URL have defaults. */
export type GatewayDeps = Omit<CoreDeps, "lifecycle" | "privateWebhookTargets" | "publicUrl"> & {
  lifecycle?: LifecyclePolicy;
  privateWebhookTargets?: PrivateTargets;
  publicUrl?: string;
  /** Every instance's transaction changes (the database's notifications): live updates follow them. None: updates send the first state only. */
  changes?: TransactionChanges;
  /**
   * The dashboard's session lifetimes and sign-in throttling; defaults when absent. `requireSecondFactor`:
   * PAYGATE_DASHBOARD_REQUIRE_2FA; `secondFactorLimit`: wrong codes and re-authentication passwords per user.
   */
  dashboard?: {
    sessions?: Partial<SessionPolicy>;
    signInLimits?: SignInLimits;
    requireSecondFactor?: boolean;
    secondFactorLimit?: RateLimit | null;
  };
};

/** PAYGATE_PUBLIC_URL's default for the default HOST and PORT (src/config.ts). */
export const DEFAULT_PUBLIC_URL = "http://127.0.0.1:3000";

const NO_CHANGES: TransactionChanges = { subscribe: () => () => {} };

export class PaymentGateway {
  private readonly deps: CoreDeps;
  private readonly followers: TransactionFollowers;
  private readonly liveCredentials: LiveCredentials;
  private readonly eventStreams: EventStreams;
  private readonly dashboard: DashboardDeps;

  constructor(deps: GatewayDeps) {
    const { changes, dashboard, ...core } = deps;
    this.deps = {
      ...core,
      lifecycle: deps.lifecycle ?? DEFAULT_LIFECYCLE,
      privateWebhookTargets: deps.privateWebhookTargets ?? NO_PRIVATE_TARGETS,
      publicUrl: deps.publicUrl ?? DEFAULT_PUBLIC_URL,
    };
    this.followers = new TransactionFollowers(changes ?? NO_CHANGES);
    this.liveCredentials = new LiveCredentials(deps.credentials);
    this.eventStreams = new EventStreams(changes ?? NO_CHANGES);
    this.dashboard = {
      store: deps.stores.dashboard,
      clock: deps.clock,
      throttle: new SignInThrottle(deps.stores.rateLimits, dashboard?.signInLimits ?? DEFAULT_SIGN_IN_LIMITS, deps.clock),
      policy: { ...DEFAULT_SESSION_POLICY, ...dashboard?.sessions },
      publicUrl: this.deps.publicUrl,
      requireSecondFactor: dashboard?.requireSecondFactor ?? false,
      secondFactors: deps.stores.secondFactors,
      securityKeys: deps.stores.securityKeys,
      audit: deps.stores.auditLog,
      secrets: deps.secrets,
      qr: deps.qr,
      secondFactorThrottle: new SecondFactorThrottle(
        deps.stores.rateLimits,
        dashboard?.secondFactorLimit === undefined ? DEFAULT_SECOND_FACTOR_LIMIT : dashboard.secondFactorLimit,
        deps.clock,
      ),
    };
  }

  /** What the lifecycle's late-payment policy asks (the rate now, the merchant's providers). */
  private get latePayments() {
    return { prices: this.deps.prices, merchants: this.deps.stores.merchants, clock: this.deps.clock };
  }

  /** PAYGATE_PUBLIC_URL (no trailing slash): the dashboard's cookie is Secure when it is https. */
  get publicUrl(): string {
    return this.deps.publicUrl;
  }

  /** The explorer page template (`{tx}`) of a transaction on a network in a mode; null on a local test chain without one. */
  transactionExplorer(network: NetworkSlug, isLive: boolean): string | null {
    return transactionExplorer(network, isLive, this.deps.explorers);
  }

  /** The private destinations webhook URLs may name, for an adapter that explains a refused URL. */
  get privateWebhookTargets(): PrivateTargets {
    return this.deps.privateWebhookTargets;
  }

  // ── Payments (spec 4) ─────────────────────────────────────────────────────────────────────────

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
    const details = transaction && (await detailOf(this.deps, transaction, { ...parts, clientSecret }));
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
    return { ...page, details: await detailsOf(this.deps, page.transactions, { ...parts, clientSecret: parts.checkout !== false }) };
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

  /** Test mode: a payment as the chain watcher would record it; the transaction as its secret-key caller is shown it. */
  async recordTestPayment(request: TestHelperRequest): Promise<TransactionDetails> {
    return detailOf(this.deps, await recordTestPayment(this.deps, request), { clientSecret: true });
  }

  /** Test mode: the checkout window ends now; the transaction as its secret-key caller is shown it. */
  async expireTestTransaction(request: TestHelperRequest): Promise<TransactionDetails> {
    return detailOf(this.deps, await expireTestTransaction(this.deps, request), { clientSecret: true });
  }

  // ── The jobs' operations ──────────────────────────────────────────────────────────────────────

  /** Abandons open transactions whose window has closed (the expiry scheduler's tick). */
  expireDue(limit?: number): Promise<TransactionRecord[]> {
    return expireDue(this.deps.stores.transactions, this.deps.clock.now(), limit, this.deps.lifecycle);
  }

  // ── Refunds (issue 26; src/core/refunds): whose refunds (a secret key's, or a dashboard user's once its role allows it), then one use case each ──

  /**
   * The merchant and mode a secret key reaches: whose refunds a REST or GraphQL call works on, once the
   * key's role allows it (`read`, or `manage_refunds` for a change, audited as the key from `clientAddress`).
   */
  refundOwner(
    bearerToken: string | undefined,
    clientAddress: string | null = null,
    permission: "read" | "manage_refunds" = "manage_refunds",
  ): Promise<refunds.RefundOwner> {
    return refunds.keyOwner(this.deps, bearerToken, clientAddress, permission);
  }

  /** A dashboard user's merchant in the mode shown, once its role allows it (`read`, or `manage_refunds` for a change, audited as the user's). */
  dashboardRefundOwner(actor: DashboardActor, isLive: boolean, permission: Parameters<typeof refunds.dashboardOwner>[2]): refunds.RefundOwner {
    return refunds.dashboardOwner(actor, isLive, permission);
  }

  /**
   * The REST body and Idempotency-Key (docs/refunds.md); the dashboard's Refund action sends the same.
   * From the dashboard it needs a recent password (sudo mode): a refund sends money out and its reply
   * holds the claim link, so a stolen session could send it anywhere. Cancelling and marking paid
   * need none: they stop a refund or record the merchant's own payment, and hand out nothing.
   */
  async createRefund(owner: refunds.RefundOwner, request: RefundRequest): Promise<RefundOutcome> {
    if (owner.authenticatedAt) requireRecentAuthentication(this.dashboard, { authenticatedAt: owner.authenticatedAt });
    return refunds.createRefund(this.deps, owner, request);
  }

  retrieveRefund(owner: refunds.RefundOwner, id: string): Promise<RefundOutcome> {
    return refunds.retrieveRefund(this.deps, owner, id);
  }

  transactionRefunds(owner: refunds.RefundOwner, transactionId: string): Promise<refunds.TransactionRefunds> {
    return refunds.transactionRefunds(this.deps, owner, transactionId);
  }

  listRefunds(owner: refunds.RefundOwner, params: Record<string, unknown>) {
    return refunds.listRefunds(this.deps, owner, params);
  }

  cancelRefund(owner: refunds.RefundOwner, id: string): Promise<RefundOutcome> {
    return refunds.cancelRefund(this.deps, owner, id);
  }

  markRefundPaid(owner: refunds.RefundOwner, id: string, body: unknown): Promise<RefundOutcome> {
    return refunds.markRefundPaid(this.deps, owner, id, body);
  }

  /** The transactions' refunds in short and what is left to refund (the transaction replies' added fields). */
  refundSummaries(transactions: readonly TransactionRecord[]): Promise<Map<string, RefundSummary>> {
    return refunds.refundSummaries(this.deps, transactions);
  }

  /** The claim page's refund (GET /refund/:token), or why the link is refused. */
  refundClaim(token: string): Promise<refunds.ClaimState> {
    return refunds.claimState(this.deps, token);
  }

  claimRefund(token: string, address: unknown): Promise<refunds.ClaimOutcome> {
    return refunds.claimRefund(this.deps, token, address);
  }

  /** For the refund watcher (the chain side): pending refunds with a destination, oldest first. */
  refundsToWatch(limit: number): Promise<RefundRecord[]> {
    return this.deps.stores.refunds.openWithDestination(limit);
  }

  /**
   * For the refund watcher: the refund's transaction reached its destination (refund.succeeded); null
   * when not pending, `tx_taken` when that transaction closed another refund already.
   */
  refundSucceeded(id: string, txHash: string, paidBy: "watcher" | "merchant"): Promise<RefundRecord | "tx_taken" | null> {
    return refunds.refundSucceeded(this.deps, id, txHash, paidBy);
  }

  /** For the refund watcher: of these tx hashes (lower case), those that closed a refund of the mode. */
  refundTxHashesTaken(isLive: boolean, hashes: readonly string[]): Promise<Set<string>> {
    return refunds.refundTxHashesTaken(this.deps, isLive, hashes);
  }

  /** For the refund watcher: a merchant's tx_hash does not pay the refund (verification failed; it stays pending). */
  refundVerificationFailed(id: string): Promise<RefundRecord | null> {
    return refunds.refundVerificationFailed(this.deps, id);
  }

  /** Forgets Idempotency-Keys past their 24 hours (the expiry job's tick). */
  pruneIdempotencyKeys(): Promise<number> {
    return pruneIdempotencyKeys(this.deps.stores.idempotency, this.deps.clock.now());
  }

  /** Deletes webhook events past their 30 days (the expiry job's tick). */
  pruneWebhookEvents(): Promise<number> {
    return pruneEvents(this.deps.stores.webhookEvents, this.deps.clock.now());
  }

  /**
   * The addresses the payment watcher reads: open checkouts, those abandoned within `lateGraceMs`
   * (late payments) and the SUCCESSFUL ones not yet final whose window closed within `finalityWatchMs`;
   * of them, this instance's share when several watch.
   */
  watchList(lateGraceMs: number, limit: number, share: WatchShare = { index: 0, of: 1 }, finalityWatchMs = lateGraceMs): Promise<WatchedAddress[]> {
    if (!Number.isInteger(share.of) || share.of < 1 || !Number.isInteger(share.index) || share.index < 0 || share.index >= share.of) {
      throw new RangeError(`A watch share is an index below its count, got ${share.index} of ${share.of}`);
    }
    const now = this.deps.clock.now().getTime();
    return this.deps.stores.transactions.watchList(new Date(now - lateGraceMs), limit, share, new Date(now - finalityWatchMs));
  }

  /** Records what a chain watcher saw at a transaction's address, and moves the transaction on. */
  applyReceipts(transactionId: string, update: ReceiptUpdate): Promise<TransactionRecord> {
    return applyReceipts(this.deps.stores.transactions, transactionId, update, this.deps.clock.now(), this.deps.lifecycle, this.latePayments);
  }

  // ── Merchants by id (the operator CLI; the dashboard's methods below call these) ──────────────

  createMerchant(input: { name: string; kybStatus?: KybStatus } & WebhookUrls): Promise<NewMerchant> {
    return createMerchant(this.deps, input);
  }

  /** `by`: who, in the audit log (the operator unless a dashboard method says otherwise), as for each change below. */
  updateMerchant(
    id: number,
    input: { active?: boolean; kybStatus?: KybStatus; wallets?: WalletSetting[]; defaultNetworks?: DefaultNetworkSetting[] } & WebhookUrls,
    by: ChangeAuthor = OPERATOR,
  ): Promise<MerchantWithWallets> {
    return updateMerchant(this.deps, id, input, by);
  }

  /** The networks the merchant set as its coins' defaults, per mode (a coin not listed: its own default). */
  defaultNetworks(merchantId: number): Promise<DefaultNetworkRow[]> {
    return defaultNetworks(this.deps, merchantId);
  }

  /** The merchant's spread and price providers (merchant pricing), with the providers it may choose from. */
  merchantPricing(merchantId: number): Promise<MerchantPricing> {
    return merchantPricing(this.deps, merchantId);
  }

  /** Sets the spread and/or the providers (merchant pricing), audited by `by`. */
  setMerchantPricing(merchantId: number, input: { spread?: unknown; sources?: unknown }, by: ChangeAuthor = OPERATOR): Promise<MerchantPricing> {
    return setMerchantPricing(this.deps, merchantId, input, by);
  }

  /** GET /v1/merchant/pricing: the secret key's merchant's pricing. */
  async pricingForKey(bearerToken: string | undefined): Promise<{ merchantId: number; pricing: MerchantPricing }> {
    const caller = await this.deps.credentials.authenticateSecret(bearerToken);
    return { merchantId: caller.merchant.id, pricing: await merchantPricing(this.deps, caller.merchant.id) };
  }

  /**
   * POST /v1/merchant/pricing: the secret key's merchant sets its pricing. A live key only (pricing is
   * what live payments use), one whose role may manage pricing; audited as the key (key-access.ts).
   */
  async setPricingForKey(
    bearerToken: string | undefined,
    input: { spread?: unknown; sources?: unknown },
    clientAddress: string | null = null,
  ): Promise<{ merchantId: number; pricing: MerchantPricing }> {
    const caller = await this.deps.credentials.authenticateSecret(bearerToken);
    requireLiveKey(caller, "pricing");
    authorizeKey(caller, "manage_pricing");
    const pricing = await setMerchantPricing(this.deps, caller.merchant.id, input, keyAuthor(caller, clientAddress));
    return { merchantId: caller.merchant.id, pricing };
  }

  createPaymentLink(merchantId: number, isLive: boolean): Promise<{ slug: string }> {
    return createPaymentLink(this.deps, merchantId, isLive);
  }

  /** Name, KYB, webhook URLs per mode and the signing secret's rotation state; never a secret. */
  merchantSettings(merchantId: number): Promise<MerchantSettings> {
    return merchantSettings(this.deps, merchantId);
  }

  /** One mode's webhook URL (null or "" removes it), with merchant update's checks. */
  setMerchantWebhookUrl(merchantId: number, mode: Mode, url: string | null, by: ChangeAuthor = OPERATOR): Promise<MerchantSettings> {
    return setWebhookUrl(this.deps, merchantId, mode, url, by);
  }

  /** A new signing secret (returned once); the previous one keeps signing deliveries for 24 hours. */
  rotateMerchantWebhookSecret(merchantId: number, by: ChangeAuthor = OPERATOR): Promise<RotatedWebhookSecret> {
    return rotateWebhookSecret(this.deps, merchantId, by);
  }

  /** A signed `webhook.test` POST to the mode's URL now; the attempt, nothing stored. */
  sendMerchantTestEvent(merchantId: number, mode: Mode): Promise<TestEventAttempt> {
    return sendTestEvent(this.deps, merchantId, mode);
  }

  /** Every key of the merchant for display (prefix, kind, mode, dates, status); never a secret. */
  listMerchantApiKeys(merchantId: number): Promise<ApiKeyView[]> {
    return listApiKeys(this.deps, merchantId);
  }

  /** A new key of a kind and mode (returned once); the keys it replaces work until the chosen end. */
  async rollMerchantApiKey(
    merchantId: number,
    request: ApiKeyRollRequest,
    by: ChangeAuthor = OPERATOR,
    rolledBy: KeyRoller | null = null,
  ): Promise<RolledApiKey> {
    const rolled = await rollApiKey(this.deps, merchantId, request, by, rolledBy);
    // A key ended now ends its live updates in this process at once (other instances at their next check).
    await this.liveCredentials.recheckAll();
    return rolled;
  }

  /** The checks of setting a wallet key, and the next three addresses it would hand out; nothing stored. */
  previewMerchantWallet(merchantId: number, request: WalletRequest): Promise<WalletPreview> {
    return previewWallet(this.deps, merchantId, request);
  }

  setMerchantWallet(merchantId: number, request: WalletRequest, by: ChangeAuthor = OPERATOR): Promise<WalletView> {
    return setWallet(this.deps, merchantId, request, by);
  }

  /** Every coin in both modes, with its wallet (key shortened), next index and gap-limit warning. */
  listMerchantWallets(merchantId: number): Promise<WalletView[]> {
    return listWallets(this.deps, merchantId);
  }

  /** What each handed-out address holds now, with the fee coin a token on it needs (`paygate holdings`). */
  merchantFundsHeld(merchantId: number, query: FundsHeldQuery): Promise<HeldFunds[]> {
    return fundsHeld(this.deps, merchantId, query);
  }

  listMerchantPaymentLinks(merchantId: number): Promise<PaymentLinkView[]> {
    return listPaymentLinks(this.deps, merchantId);
  }

  /** The link starts no more transactions; not_found for an unknown slug or another merchant's link. */
  deactivateMerchantPaymentLink(merchantId: number, slug: string): Promise<PaymentLinkView> {
    return deactivatePaymentLink(this.deps, merchantId, slug);
  }

  // ── The merchant dashboard: each checks the actor's role (dashboard/access.ts), then works on its merchant ──
  // (async, so that a refusal is a rejected promise like every other failure)

  async settings(actor: DashboardActor): Promise<MerchantSettings> {
    authorize(actor, "read");
    return this.merchantSettings(actor.merchantId);
  }

  // The changes that redirect money or events, or hand out access, also need a recent proof of the
  // password (sudo mode: requireRecentAuthentication) and are written to the audit log by the actor.

  async setWebhookUrl(actor: DashboardActor, mode: Mode, url: string | null): Promise<MerchantSettings> {
    authorize(actor, "manage_webhooks");
    requireRecentAuthentication(this.dashboard, actor);
    return this.setMerchantWebhookUrl(actor.merchantId, mode, url, authorOf(actor));
  }

  async rotateWebhookSecret(actor: DashboardActor): Promise<RotatedWebhookSecret> {
    authorize(actor, "manage_webhooks");
    requireRecentAuthentication(this.dashboard, actor);
    return this.rotateMerchantWebhookSecret(actor.merchantId, authorOf(actor));
  }

  /**
   * As sendMerchantTestEvent (the operator's CLI, which shows everything), but to a private target
   * only whether it was delivered, unless the operator asked for details; never a private answer's body.
   */
  async sendTestEvent(actor: DashboardActor, mode: Mode): Promise<ShownTestEvent> {
    authorize(actor, "manage_webhooks");
    const attempt = await this.sendMerchantTestEvent(actor.merchantId, mode);
    return shownTestEvent(attempt, { details: this.deps.webhookTestEventDetails ?? false, privateTargets: this.deps.privateWebhookTargets });
  }

  async listApiKeys(actor: DashboardActor): Promise<ApiKeyView[]> {
    authorize(actor, "read");
    return this.listMerchantApiKeys(actor.merchantId);
  }

  async rollApiKey(actor: DashboardActor, request: ApiKeyRollRequest): Promise<RolledApiKey> {
    authorize(actor, "manage_keys");
    requireRecentAuthentication(this.dashboard, actor);
    return this.rollMerchantApiKey(actor.merchantId, request, authorOf(actor), { userId: actor.userId, email: actor.email, role: actor.role });
  }

  /** Sudo mode too: the preview is the first step of a wallet change, so the prompt comes before the merchant compares addresses. */
  async previewWallet(actor: DashboardActor, request: WalletRequest): Promise<WalletPreview> {
    authorize(actor, "manage_wallets");
    requireRecentAuthentication(this.dashboard, actor);
    return this.previewMerchantWallet(actor.merchantId, request);
  }

  async setWallet(actor: DashboardActor, request: WalletRequest): Promise<WalletView> {
    authorize(actor, "manage_wallets");
    requireRecentAuthentication(this.dashboard, actor);
    return this.setMerchantWallet(actor.merchantId, request, authorOf(actor));
  }

  async listWallets(actor: DashboardActor): Promise<WalletView[]> {
    authorize(actor, "read");
    return this.listMerchantWallets(actor.merchantId);
  }

  async fundsHeld(actor: DashboardActor, query: FundsHeldQuery): Promise<HeldFunds[]> {
    authorize(actor, "read");
    return this.merchantFundsHeld(actor.merchantId, query);
  }

  async dashboardDefaultNetworks(actor: DashboardActor, mode: Mode): Promise<DefaultNetworkChoice[]> {
    authorize(actor, "read");
    return defaultNetworkChoices(this.deps, actor.merchantId, checkedMode(mode) === "live");
  }

  async setDashboardDefaultNetwork(
    actor: DashboardActor,
    request: { currency: string; network: string; mode: Mode },
  ): Promise<DefaultNetworkChoice[]> {
    authorize(actor, "manage_default_networks");
    const isLive = checkedMode(request.mode) === "live";
    return setDefaultNetwork(this.deps, actor.merchantId, { currency: request.currency, network: request.network, isLive }, authorOf(actor));
  }

  async pricing(actor: DashboardActor): Promise<MerchantPricing> {
    authorize(actor, "read");
    return this.merchantPricing(actor.merchantId);
  }

  /** Owners only: the spread and providers decide what customers pay. */
  async setPricing(actor: DashboardActor, input: { spread?: unknown; sources?: unknown }): Promise<MerchantPricing> {
    authorize(actor, "manage_pricing");
    return this.setMerchantPricing(actor.merchantId, input, authorOf(actor));
  }

  async listPaymentLinks(actor: DashboardActor): Promise<PaymentLinkView[]> {
    authorize(actor, "read");
    return this.listMerchantPaymentLinks(actor.merchantId);
  }

  async newPaymentLink(actor: DashboardActor, mode: Mode): Promise<{ slug: string }> {
    authorize(actor, "manage_payment_links");
    return this.createPaymentLink(actor.merchantId, checkedMode(mode) === "live");
  }

  async deactivatePaymentLink(actor: DashboardActor, slug: string): Promise<PaymentLinkView> {
    authorize(actor, "manage_payment_links");
    return this.deactivateMerchantPaymentLink(actor.merchantId, slug);
  }

  // ── Test rates ────────────────────────────────────────────────────────────────────────────────

  listTestRates(): Promise<TestRateRow[]> {
    return listTestRates(this.deps);
  }

  setTestRate(input: { crypto: string; fiat: string; rate: string }): Promise<TestRateChange> {
    return setTestRate(this.deps, input);
  }

  // ── Webhook events ────────────────────────────────────────────────────────────────────────────

  /** Newest first, with their delivery attempts. */
  listWebhookEvents(filter: EventFilter = {}): Promise<EventWithAttempts[]> {
    return this.deps.stores.webhookEvents.list(filter);
  }

  // ── Webhook endpoints (issue 27): the REST API's with a secret key (its merchant and mode), the CLI's with an owner ──

  /**
   * The merchant and mode a secret key reaches: whose endpoints a REST or GraphQL call manages, once the
   * key's role allows it (`read`, or `manage_webhooks` for a change, audited as the key from `clientAddress`).
   */
  async webhookEndpointOwner(
    bearerToken: string | undefined,
    clientAddress: string | null = null,
    permission: "read" | "manage_webhooks" = "manage_webhooks",
  ): Promise<endpoints.EndpointOwner> {
    const caller = await this.deps.credentials.authenticateSecret(bearerToken);
    authorizeKey(caller, permission);
    return { merchantId: caller.merchant.id, isLive: caller.isLive, by: keyAuthor(caller, clientAddress) };
  }

  createWebhookEndpoint(owner: endpoints.EndpointOwner, body: unknown): Promise<endpoints.WebhookEndpointView> {
    return endpoints.createEndpoint(this.deps, owner, body);
  }

  listWebhookEndpoints(owner: endpoints.EndpointOwner): Promise<WebhookEndpointRow[]> {
    return endpoints.listEndpoints(this.deps, owner);
  }

  retrieveWebhookEndpoint(owner: endpoints.EndpointOwner, id: string): Promise<WebhookEndpointRow> {
    return endpoints.retrieveEndpoint(this.deps, owner, id);
  }

  updateWebhookEndpoint(owner: endpoints.EndpointOwner, id: string, body: unknown): Promise<endpoints.UpdatedEndpoint> {
    return endpoints.updateEndpoint(this.deps, owner, id, body);
  }

  deleteWebhookEndpoint(owner: endpoints.EndpointOwner, id: string): Promise<WebhookEndpointRow> {
    return endpoints.deleteEndpoint(this.deps, owner, id);
  }

  rotateWebhookEndpointSecret(owner: endpoints.EndpointOwner, id: string): Promise<endpoints.WebhookEndpointView> {
    return endpoints.rotateEndpointSecret(this.deps, owner, id);
  }

  /** `names`: the list's parameters in the adapter's words, for its messages (GraphQL's first, after). */
  listWebhookDeliveries(
    owner: endpoints.EndpointOwner,
    endpointId: string,
    params: Record<string, unknown>,
    names?: Partial<Record<string, string>>,
  ): Promise<deliveryLog.DeliveryPage> {
    return deliveryLog.listDeliveries(this.deps, owner, endpointId, params, names);
  }

  redeliverWebhookDelivery(owner: endpoints.EndpointOwner, id: string): Promise<DeliveryLogEntry> {
    return deliveryLog.redeliverDelivery(this.deps, owner, id);
  }

  redeliverFailedWebhookDeliveries(owner: endpoints.EndpointOwner, endpointId: string, body: unknown): Promise<number> {
    return deliveryLog.redeliverFailed(this.deps, owner, endpointId, body);
  }

  // The dashboard's (its Webhooks page): the actor's merchant in the mode shown, once its role allows it
  // (endpoints.dashboardOwner), then the same functions as the API's above; changes audited as the user's,
  // and those that send events somewhere new or hand out a secret need a recent password (sudo mode).

  /** The event types an endpoint's filter may name (the form's choices), `*` aside. */
  dashboardWebhookEventTypes(actor: DashboardActor): readonly string[] {
    authorize(actor, "read");
    return endpoints.knownEventTypes();
  }

  async dashboardWebhookEndpoints(actor: DashboardActor, isLive: boolean): Promise<WebhookEndpointRow[]> {
    return endpoints.listEndpoints(this.deps, endpoints.dashboardOwner(actor, isLive, "read"));
  }

  async dashboardCreateWebhookEndpoint(actor: DashboardActor, isLive: boolean, body: unknown): Promise<endpoints.WebhookEndpointView> {
    const owner = this.endpointChanger(actor, isLive, "create", body);
    return endpoints.createEndpoint(this.deps, owner, body, authorOf(actor));
  }

  async dashboardUpdateWebhookEndpoint(actor: DashboardActor, isLive: boolean, id: string, body: unknown): Promise<endpoints.UpdatedEndpoint> {
    const owner = this.endpointChanger(actor, isLive, "update", body);
    return endpoints.updateEndpoint(this.deps, owner, id, body, authorOf(actor));
  }

  async dashboardDeleteWebhookEndpoint(actor: DashboardActor, isLive: boolean, id: string): Promise<WebhookEndpointRow> {
    const owner = this.endpointChanger(actor, isLive, "delete");
    return endpoints.deleteEndpoint(this.deps, owner, id, authorOf(actor));
  }

  async dashboardRotateWebhookEndpointSecret(actor: DashboardActor, isLive: boolean, id: string): Promise<endpoints.WebhookEndpointView> {
    const owner = this.endpointChanger(actor, isLive, "rotate_secret");
    return endpoints.rotateEndpointSecret(this.deps, owner, id, authorOf(actor));
  }

  async dashboardWebhookDeliveries(
    actor: DashboardActor,
    isLive: boolean,
    endpointId: string,
    params: Record<string, unknown>,
  ): Promise<deliveryLog.DeliveryPage> {
    return deliveryLog.listDeliveries(this.deps, endpoints.dashboardOwner(actor, isLive, "read"), endpointId, params);
  }

  async dashboardRedeliverWebhookDelivery(actor: DashboardActor, isLive: boolean, id: string): Promise<DeliveryLogEntry> {
    return deliveryLog.redeliverDelivery(this.deps, endpoints.dashboardOwner(actor, isLive, "manage_webhooks"), id);
  }

  async dashboardRedeliverFailedWebhookDeliveries(actor: DashboardActor, isLive: boolean, endpointId: string, body: unknown): Promise<number> {
    return deliveryLog.redeliverFailed(this.deps, endpoints.dashboardOwner(actor, isLive, "manage_webhooks"), endpointId, body);
  }

  /** The owner of an endpoint change by a dashboard user: its role first, then a recent password where the change needs one. */
  private endpointChanger(
    actor: DashboardActor,
    isLive: boolean,
    change: Parameters<typeof endpoints.needsRecentAuthentication>[0],
    body?: unknown,
  ): endpoints.EndpointOwner {
    const owner = endpoints.dashboardOwner(actor, isLive, "manage_webhooks");
    if (endpoints.needsRecentAuthentication(change, body)) requireRecentAuthentication(this.dashboard, actor);
    return owner;
  }

  /** The Events API: the secret key's merchant's events of its mode, newest first; `params` are the list's query (events/list.ts). */
  listEvents(bearerToken: string | undefined, params: Record<string, unknown>): Promise<EventPage> {
    return listEvents(this.deps, bearerToken, params);
  }

  /** One event of the secret key's merchant and mode; not_found otherwise. */
  retrieveEvent(bearerToken: string | undefined, id: string): Promise<{ merchantId: number; event: WebhookEvent }> {
    return retrieveEvent(this.deps, bearerToken, id);
  }

  /**
   * The live event stream (GET /v1/events/stream): the secret key's merchant's events of its mode after
   * the cursor (Last-Event-ID or `starting_after`; none: from now), then each new one any instance writes.
   */
  openEventStream(bearerToken: string | undefined, request: EventStreamRequest): Promise<EventStream> {
    return openEventStream(this.deps, this.eventStreams, this.liveCredentials, bearerToken, request);
  }

  /** Live event streams open in this process now. */
  get openEventStreams(): number {
    return this.eventStreams.count;
  }

  /**
   * The operator's redelivery (`paygate webhooks redeliver`): any merchant's event, one attempt now;
   * null for an unknown id. The dashboard's (redeliverEvent) checks the actor's merchant and mode, then does the same.
   */
  redeliverWebhookEvent(eventId: string): Promise<DeliveryReport | null> {
    return redeliverEvent(this.deps.redelivery, eventId);
  }

  webhookBacklog(): Promise<WebhookBacklog> {
    return this.deps.stores.webhookEvents.backlog(this.deps.clock.now());
  }

  /** The same for the deliveries to the enabled endpoints other than a mode's first (GET /metrics). */
  webhookDeliveriesBacklog(): Promise<WebhookBacklog> {
    return this.deps.stores.webhookEndpoints.backlog(this.deps.clock.now());
  }

  // ── The dashboard: transactions (each checks the actor's role first; `isLive`: the mode shown) ──

  /** The home's figures for the mode: 30 days of volume per fiat currency, statuses, coins, checkouts paid, failing webhook endpoints. */
  dashboardHome(actor: DashboardActor, isLive: boolean): Promise<DashboardHome> {
    return dashboardHome(this.deps, actor, isLive);
  }

  /** A page of the actor's merchant's transactions, newest first; `params` are GET /v1/transactions' query. */
  dashboardTransactions(actor: DashboardActor, isLive: boolean, params: Record<string, unknown>): Promise<DashboardTransactionPage> {
    return listDashboardTransactions(this.deps, actor, isLive, params);
  }

  /** One transaction with its quote, receipts and webhook events with their attempts; not_found for another merchant's or mode's. */
  dashboardTransaction(actor: DashboardActor, isLive: boolean, id: string): Promise<TransactionDetail> {
    return dashboardTransaction(this.deps, actor, isLive, id);
  }

  /** The CSV rows (header first) of every transaction the list's filters match, read from the database a page at a time. */
  exportTransactionsCsv(actor: DashboardActor, isLive: boolean, params: Record<string, unknown>): Promise<AsyncGenerator<string>> {
    return exportDashboardTransactions(this.deps, actor, isLive, params);
  }

  /** Sends the actor's merchant's event again now (manage_webhooks); not_found for another merchant's or mode's. */
  redeliverEvent(actor: DashboardActor, isLive: boolean, eventId: string): Promise<DeliveryReport> {
    return redeliverDashboardEvent(this.deps, actor, isLive, eventId);
  }

  // ── The dashboard: accounts and sessions (src/core/dashboard/) ────────────────────────────────

  /**
   * Signs in with e-mail and password; throttled per e-mail and per client address (429). A user with
   * a second factor gets a challenge instead of a session, for completeSignIn.
   */
  signIn(input: { email: string; password: string; clientAddress: string }): Promise<SignedIn | SecondFactorRequired> {
    return signIn(this.dashboard, input);
  }

  /** The second step of a sign-in: the challenge with the app's code or a recovery code; wrong codes throttled per user (429). */
  completeSignIn(input: { challengeToken: unknown; clientAddress: string } & SecondFactorProof): Promise<SignedIn> {
    return completeSignIn(this.dashboard, input);
  }

  /** Uses a one-time sign-in link: sets the password, ends the user's other sessions, signs in. */
  useSignInLink(token: string, password: unknown, clientAddress: string | null = null): Promise<SignedIn> {
    return useSignInLink(this.dashboard, token, password, clientAddress);
  }

  /** The session a cookie names, with its actor (from `clientAddress`) and CSRF token; 401 session_required otherwise. */
  dashboardSession(token: string | undefined, clientAddress: string | null = null): Promise<DashboardSession> {
    return sessionOf(this.dashboard, token, clientAddress);
  }

  /** Sudo mode: the password (and second factor) proved again; the session's sensitive changes are allowed for a few more minutes. */
  reauthenticate(token: string | undefined, clientAddress: string | null, input: Reauthentication): Promise<DashboardSession> {
    return reauthenticate(this.dashboard, token, clientAddress, input);
  }

  /** Starts setting up an authenticator app (sudo mode): the secret, its otpauth:// URI and QR code, shown once. */
  async beginSecondFactor(actor: DashboardActor): Promise<TotpEnrolment> {
    requireRecentAuthentication(this.dashboard, actor);
    return beginEnrolment(this.dashboard, actor);
  }

  /** The app's code turns the second factor on; the ten recovery codes are answered this once. */
  confirmSecondFactor(actor: DashboardActor, code: unknown): Promise<{ recoveryCodes: string[] }> {
    return confirmEnrolment(this.dashboard, actor, code);
  }

  /** Turns the actor's second factor off, with its password and a code. */
  disableSecondFactor(actor: DashboardActor, input: Reauthentication): Promise<void> {
    return disableSecondFactor(this.dashboard, actor, input);
  }

  /** The actor's WebAuthn security keys (never their public keys). */
  securityKeys(actor: DashboardActor): Promise<SecurityKeyView[]> {
    return listSecurityKeys(this.dashboard, actor);
  }

  /** Starts registering a security key (sudo mode): the options for navigator.credentials.create(). */
  async securityKeyRegistrationOptions(actor: DashboardActor): Promise<PublicKeyCredentialCreationOptionsJSON> {
    requireRecentAuthentication(this.dashboard, actor);
    return registrationOptions(this.dashboard, actor);
  }

  /** Registers the key the browser created for the last options, under a name; audited. */
  registerSecurityKey(actor: DashboardActor, input: { name: unknown; response: unknown }): Promise<SecurityKeyView> {
    return registerSecurityKey(this.dashboard, actor, input);
  }

  /** Removes one of the actor's security keys (sudo mode); audited. */
  async removeSecurityKey(actor: DashboardActor, id: string): Promise<void> {
    requireRecentAuthentication(this.dashboard, actor);
    return removeSecurityKey(this.dashboard, actor, id);
  }

  /** The options for navigator.credentials.get() that answer a sign-in challenge with a security key. */
  signInSecurityKeyOptions(challengeToken: unknown): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return signInSecurityKeyOptions(this.dashboard, challengeToken);
  }

  /** The options for navigator.credentials.get() that re-authenticate the session's user with a security key. */
  reauthenticationSecurityKeyOptions(token: string | undefined, clientAddress: string | null): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return reauthenticationOptions(this.dashboard, token, clientAddress);
  }

  /** The operator's `paygate user sign-in-link`: a new one-time sign-in link for a user locked out (a lost password, an unused link). */
  issueDashboardSignInLink(email: unknown): Promise<CreatedUser> {
    return issueSignInLink(this.dashboard, email);
  }

  /** The operator's `paygate user reset-second-factor`: a user who lost its app and recovery codes signs in with its password again. */
  resetDashboardSecondFactor(email: unknown): Promise<{ userId: string; email: string; merchantId: number }> {
    return resetSecondFactor(this.dashboard, email);
  }

  /** The actor's merchant's audit log, newest first (owners only). */
  auditLog(actor: DashboardActor, params: Record<string, unknown>): Promise<AuditLogPage> {
    return auditLogPage(this.deps, actor, params);
  }

  signOut(token: string): Promise<void> {
    return signOut(this.dashboard, token);
  }

  signOutEverywhere(actor: DashboardActor): Promise<number> {
    return signOutEverywhere(this.dashboard, actor);
  }

  /** Deletes ended dashboard sessions, expired sign-in links and WebAuthn challenges (the expiry job's tick). */
  pruneDashboardSessions(): Promise<number> {
    return pruneSessions(this.dashboard);
  }

  /** The operator's `paygate user create`: with a password, or a one-time sign-in link (audited as the operator's). */
  createDashboardUser(input: { merchantId: number; email: unknown; role: unknown; password?: unknown }): Promise<CreatedUser> {
    return createUser(this.dashboard, input);
  }

  inviteDashboardUser(actor: DashboardActor, input: { email: unknown; role: unknown }): Promise<CreatedUser> {
    return inviteUser(this.dashboard, actor, input);
  }

  listDashboardUsers(actor: DashboardActor): Promise<DashboardUserView[]> {
    return listUsers(this.dashboard, actor);
  }

  changeDashboardUserRole(actor: DashboardActor, userId: string, role: unknown): Promise<DashboardUserView> {
    return changeRole(this.dashboard, actor, userId, role);
  }

  removeDashboardUser(actor: DashboardActor, userId: string): Promise<DashboardUserView> {
    return removeUser(this.dashboard, actor, userId);
  }
}

export const systemClock: Clock = { now: () => new Date() };
