// The one entry to the domain for every adapter (REST, GraphQL, the CLI, the dashboard, the jobs): it
// holds the stores and ports and exposes the payment, merchant, test-rate and webhook-event operations.
// Rules live in the functions it calls, never in the adapters; queries live in src/db behind the stores.
import { authorize, type DashboardActor } from "./dashboard/access.ts";
import {
  DEFAULT_SESSION_POLICY,
  pruneSessions,
  sessionOf,
  signIn,
  signOut,
  signOutEverywhere,
  useSignInLink,
  type DashboardDeps,
  type DashboardSession,
  type DashboardUserView,
  type SessionPolicy,
  type SignedIn,
} from "./dashboard/sessions.ts";
import { DEFAULT_SIGN_IN_LIMITS, SignInThrottle, type SignInLimits } from "./dashboard/throttle.ts";
import { changeRole, createUser, inviteUser, listUsers, removeUser, type CreatedUser } from "./dashboard/users.ts";
import type { CoreDeps } from "./deps.ts";
import { pruneIdempotencyKeys, type Outcome } from "./idempotency.ts";
import { listApiKeys, rollApiKey, type ApiKeyRollRequest, type ApiKeyView, type RolledApiKey } from "./merchants/api-keys.ts";
import type { KybStatus } from "./merchants/kyb.ts";
import { checkedMode, type Mode } from "./merchants/mode.ts";
import { deactivatePaymentLink, listPaymentLinks, type PaymentLinkView } from "./merchants/payment-links.ts";
import { listWallets, previewWallet, setWallet, type WalletPreview, type WalletRequest, type WalletView } from "./merchants/wallets.ts";
import { rotateWebhookSecret, type RotatedWebhookSecret } from "./merchants/webhook-secrets.ts";
import { merchantSettings, sendTestEvent, setWebhookUrl, type MerchantSettings, type TestEventAttempt } from "./merchants/webhook-settings.ts";
import { createMerchant, createPaymentLink, updateMerchant, type NewMerchant, type WalletSetting, type WebhookUrls } from "./merchants/merchants.ts";
import { listTestRates, setTestRate, type TestRateChange, type TestRateRow } from "./money/test-rates.ts";
import type { Clock } from "./ports.ts";
import type {
  EventFilter,
  EventWithAttempts,
  MerchantWithWallets,
  TransactionChanges,
  WatchedAddress,
  WatchShare,
  WebhookBacklog,
} from "./stores.ts";
import { initializeTransaction, type InitializeRequest } from "./transactions/initialize.ts";
import { initiatePayment, type InitiateRequest } from "./transactions/initiate.ts";
import { checkoutOf, type CheckoutLink } from "./transactions/checkout.ts";
import { paymentOptions, type PaymentOptionsResult } from "./transactions/payment-options.ts";
import { paymentRequestOf } from "./transactions/payment-request.ts";
import type { TransactionRecord } from "./transactions/record.ts";
import { retrieveTransaction } from "./transactions/retrieve.ts";
import { listTransactions, type TransactionListParam, type TransactionPage } from "./transactions/list.ts";
import { listEvents, pruneEvents, retrieveEvent, type EventPage } from "./events/list.ts";
import type { WebhookEvent } from "../db/types.ts";
import { TransactionFollowers, transactionUpdates } from "./transactions/updates.ts";
import { applyReceipts, DEFAULT_LIFECYCLE, expireDue, type LifecyclePolicy, type ReceiptUpdate } from "./transactions/lifecycle.ts";
import { viewOf, type TransactionView } from "./transactions/view.ts";
import { expireTestTransaction, recordTestPayment, type TestHelperRequest } from "./transactions/test-helpers.ts";

/** The gateway's dependencies; the policy, the private-URL switch and the public URL have defaults. */
export type GatewayDeps = Omit<CoreDeps, "lifecycle" | "allowPrivateWebhookUrls" | "publicUrl"> & {
  lifecycle?: LifecyclePolicy;
  allowPrivateWebhookUrls?: boolean;
  publicUrl?: string;
  /** Every instance's transaction changes (the database's notifications): live updates follow them. None: updates send the first state only. */
  changes?: TransactionChanges;
  /** The dashboard's session lifetimes and sign-in throttling; defaults when absent. */
  dashboard?: { sessions?: Partial<SessionPolicy>; signInLimits?: SignInLimits };
};

/** PAYGATE_PUBLIC_URL's default for the default HOST and PORT (src/config.ts). */
export const DEFAULT_PUBLIC_URL = "http://127.0.0.1:3000";

const NO_CHANGES: TransactionChanges = { subscribe: () => () => {} };

export class PaymentGateway {
  private readonly deps: CoreDeps;
  private readonly followers: TransactionFollowers;
  private readonly dashboard: DashboardDeps;

  constructor(deps: GatewayDeps) {
    const { changes, dashboard, ...core } = deps;
    this.deps = {
      ...core,
      lifecycle: deps.lifecycle ?? DEFAULT_LIFECYCLE,
      allowPrivateWebhookUrls: deps.allowPrivateWebhookUrls ?? false,
      publicUrl: deps.publicUrl ?? DEFAULT_PUBLIC_URL,
    };
    this.followers = new TransactionFollowers(changes ?? NO_CHANGES);
    this.dashboard = {
      store: deps.stores.dashboard,
      clock: deps.clock,
      throttle: new SignInThrottle(deps.stores.rateLimits, dashboard?.signInLimits ?? DEFAULT_SIGN_IN_LIMITS, deps.clock),
      policy: { ...DEFAULT_SESSION_POLICY, ...dashboard?.sessions },
      publicUrl: this.deps.publicUrl,
    };
  }

  /** PAYGATE_PUBLIC_URL (no trailing slash): the dashboard's cookie is Secure when it is https. */
  get publicUrl(): string {
    return this.deps.publicUrl;
  }

  /** PAYGATE_WEBHOOK_ALLOW_PRIVATE, for an adapter that explains a refused URL. */
  get allowsPrivateWebhookUrls(): boolean {
    return this.deps.allowPrivateWebhookUrls;
  }

  // ── Payments (spec 4) ─────────────────────────────────────────────────────────────────────────

  initializeTransaction(request: InitializeRequest): Promise<Outcome> {
    return initializeTransaction(this.deps, request);
  }

  initiatePayment(request: InitiateRequest): Promise<Outcome> {
    return initiatePayment(this.deps, request);
  }

  retrieveTransaction(bearerToken: string | undefined, id: string) {
    return retrieveTransaction(this.deps, bearerToken, id);
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
    return transactionUpdates(this.deps, this.followers, bearerToken, id);
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

  /** Test mode: a payment as the chain watcher would record it. */
  recordTestPayment(request: TestHelperRequest): Promise<TransactionRecord> {
    return recordTestPayment(this.deps, request);
  }

  /** Test mode: the checkout window ends now. */
  expireTestTransaction(request: TestHelperRequest): Promise<TransactionRecord> {
    return expireTestTransaction(this.deps, request);
  }

  // ── The jobs' operations ──────────────────────────────────────────────────────────────────────

  /** Abandons open transactions whose window has closed (the expiry scheduler's tick). */
  expireDue(limit?: number): Promise<TransactionRecord[]> {
    return expireDue(this.deps.stores.transactions, this.deps.clock.now(), limit, this.deps.lifecycle);
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
   * The addresses the payment watcher reads: open checkouts, and those abandoned within `lateGraceMs`
   * (late payments); of them, this instance's share when several watch.
   */
  watchList(lateGraceMs: number, limit: number, share: WatchShare = { index: 0, of: 1 }): Promise<WatchedAddress[]> {
    if (!Number.isInteger(share.of) || share.of < 1 || !Number.isInteger(share.index) || share.index < 0 || share.index >= share.of) {
      throw new RangeError(`A watch share is an index below its count, got ${share.index} of ${share.of}`);
    }
    return this.deps.stores.transactions.watchList(new Date(this.deps.clock.now().getTime() - lateGraceMs), limit, share);
  }

  /** Records what a chain watcher saw at a transaction's address, and moves the transaction on. */
  applyReceipts(transactionId: string, update: ReceiptUpdate): Promise<TransactionRecord> {
    return applyReceipts(this.deps.stores.transactions, transactionId, update, this.deps.clock.now(), this.deps.lifecycle);
  }

  // ── Merchants by id (the operator CLI; the dashboard's methods below call these) ──────────────

  createMerchant(input: { name: string; kybStatus?: KybStatus } & WebhookUrls): Promise<NewMerchant> {
    return createMerchant(this.deps, input);
  }

  updateMerchant(
    id: number,
    input: { active?: boolean; kybStatus?: KybStatus; wallets?: WalletSetting[] } & WebhookUrls,
  ): Promise<MerchantWithWallets> {
    return updateMerchant(this.deps, id, input);
  }

  createPaymentLink(merchantId: number, isLive: boolean): Promise<{ slug: string }> {
    return createPaymentLink(this.deps, merchantId, isLive);
  }

  /** Name, KYB, webhook URLs per mode and the signing secret's rotation state; never a secret. */
  merchantSettings(merchantId: number): Promise<MerchantSettings> {
    return merchantSettings(this.deps, merchantId);
  }

  /** One mode's webhook URL (null or "" removes it), with merchant update's checks. */
  setMerchantWebhookUrl(merchantId: number, mode: Mode, url: string | null): Promise<MerchantSettings> {
    return setWebhookUrl(this.deps, merchantId, mode, url);
  }

  /** A new signing secret (returned once); the previous one keeps signing deliveries for 24 hours. */
  rotateMerchantWebhookSecret(merchantId: number): Promise<RotatedWebhookSecret> {
    return rotateWebhookSecret(this.deps, merchantId);
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
  rollMerchantApiKey(merchantId: number, request: ApiKeyRollRequest): Promise<RolledApiKey> {
    return rollApiKey(this.deps, merchantId, request);
  }

  /** The checks of setting a wallet key, and the next three addresses it would hand out; nothing stored. */
  previewMerchantWallet(merchantId: number, request: WalletRequest): Promise<WalletPreview> {
    return previewWallet(this.deps, merchantId, request);
  }

  setMerchantWallet(merchantId: number, request: WalletRequest): Promise<WalletView> {
    return setWallet(this.deps, merchantId, request);
  }

  /** Every coin in both modes, with its wallet (key shortened), next index and gap-limit warning. */
  listMerchantWallets(merchantId: number): Promise<WalletView[]> {
    return listWallets(this.deps, merchantId);
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

  async setWebhookUrl(actor: DashboardActor, mode: Mode, url: string | null): Promise<MerchantSettings> {
    authorize(actor, "manage_webhooks");
    return this.setMerchantWebhookUrl(actor.merchantId, mode, url);
  }

  async rotateWebhookSecret(actor: DashboardActor): Promise<RotatedWebhookSecret> {
    authorize(actor, "manage_webhooks");
    return this.rotateMerchantWebhookSecret(actor.merchantId);
  }

  async sendTestEvent(actor: DashboardActor, mode: Mode): Promise<TestEventAttempt> {
    authorize(actor, "manage_webhooks");
    return this.sendMerchantTestEvent(actor.merchantId, mode);
  }

  async listApiKeys(actor: DashboardActor): Promise<ApiKeyView[]> {
    authorize(actor, "read");
    return this.listMerchantApiKeys(actor.merchantId);
  }

  async rollApiKey(actor: DashboardActor, request: ApiKeyRollRequest): Promise<RolledApiKey> {
    authorize(actor, "manage_keys");
    return this.rollMerchantApiKey(actor.merchantId, request);
  }

  async previewWallet(actor: DashboardActor, request: WalletRequest): Promise<WalletPreview> {
    authorize(actor, "manage_wallets");
    return this.previewMerchantWallet(actor.merchantId, request);
  }

  async setWallet(actor: DashboardActor, request: WalletRequest): Promise<WalletView> {
    authorize(actor, "manage_wallets");
    return this.setMerchantWallet(actor.merchantId, request);
  }

  async listWallets(actor: DashboardActor): Promise<WalletView[]> {
    authorize(actor, "read");
    return this.listMerchantWallets(actor.merchantId);
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

  /** The Events API: the secret key's merchant's events of its mode, newest first; `params` are the list's query (events/list.ts). */
  listEvents(bearerToken: string | undefined, params: Record<string, unknown>): Promise<EventPage> {
    return listEvents(this.deps, bearerToken, params);
  }

  /** One event of the secret key's merchant and mode; not_found otherwise. */
  retrieveEvent(bearerToken: string | undefined, id: string): Promise<{ merchantId: number; event: WebhookEvent }> {
    return retrieveEvent(this.deps, bearerToken, id);
  }

  webhookBacklog(): Promise<WebhookBacklog> {
    return this.deps.stores.webhookEvents.backlog(this.deps.clock.now());
  }

  // ── The dashboard: accounts and sessions (src/core/dashboard/) ────────────────────────────────

  /** Signs in with e-mail and password; throttled per e-mail and per client address (429). */
  signIn(input: { email: string; password: string; clientAddress: string }): Promise<SignedIn> {
    return signIn(this.dashboard, input);
  }

  /** Uses a one-time sign-in link: sets the password, ends the user's other sessions, signs in. */
  useSignInLink(token: string, password: unknown): Promise<SignedIn> {
    return useSignInLink(this.dashboard, token, password);
  }

  /** The session a cookie names, with its actor and CSRF token; 401 session_required otherwise. */
  dashboardSession(token: string | undefined): Promise<DashboardSession> {
    return sessionOf(this.dashboard, token);
  }

  signOut(token: string): Promise<void> {
    return signOut(this.dashboard, token);
  }

  signOutEverywhere(actor: DashboardActor): Promise<number> {
    return signOutEverywhere(this.dashboard, actor);
  }

  /** Deletes ended dashboard sessions and expired sign-in links (the expiry job's tick). */
  pruneDashboardSessions(): Promise<number> {
    return pruneSessions(this.dashboard);
  }

  /** The operator's `paygate user create`: with a password, or a one-time sign-in link. */
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
