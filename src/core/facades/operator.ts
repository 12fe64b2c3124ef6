// The operator's façade: what only whoever runs the service does, from the CLI or the jobs (it holds
// the database and the encryption key already, so it is named, not authenticated): creating and
// changing merchants, dashboard users locked out, test rates, the webhook log across merchants, and
// the housekeeping ticks. No API key, GraphQL call or dashboard session reaches these.
import { OPERATOR, type ChangeAuthor } from "../access/audit-log.ts";
import { pruneSessions, type DashboardDeps } from "../dashboard/sessions.ts";
import { createUser, issueSignInLink, type CreatedUser } from "../dashboard/users.ts";
import { resetSecondFactor } from "../dashboard/reauthentication.ts";
import { setNoticeLocaleByEmail, setNoticesByEmail } from "../email/notices.ts";
import type { CoreDeps } from "../deps.ts";
import { redeliverEvent } from "../webhooks/deliveries.ts";
import { pruneEvents } from "../events/list.ts";
import { pruneIdempotencyKeys } from "../transactions/idempotency.ts";
import type { KybStatus } from "../records/kyb.ts";
import {
  createMerchant,
  defaultNetworks,
  updateMerchant,
  type DefaultNetworkRow,
  type DefaultNetworkSetting,
  type NewMerchant,
  type WalletSetting,
  type WebhookUrls,
} from "../merchants/merchants.ts";
import type { Mode } from "../mode.ts";
import { sendTestEvent, type TestEventAttempt } from "../webhooks/settings.ts";
import { listTestRates, setTestRate, type TestRateChange, type TestRateRow } from "../test-rates.ts";
import type { DeliveryReport } from "../ports.ts";
import type { MerchantWithWallets } from "../stores/merchants.ts";
import type { EventFilter, EventWithAttempts } from "../stores/webhook-events.ts";
import type { WebhookBacklog } from "../stores/webhook-endpoints.ts";
import type { CheckoutLocale } from "../transactions/locales.ts";

export class Operator {
  constructor(
    private readonly deps: CoreDeps,
    private readonly dashboard: DashboardDeps,
  ) {}

  createMerchant(input: { name: string; kybStatus?: KybStatus } & WebhookUrls): Promise<NewMerchant> {
    return createMerchant(this.deps, input);
  }

  /** `by`: who, in the audit log. */
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

  /** A signed `webhook.test` POST to the mode's URL now, with everything the attempt saw (the dashboard's withholds some); nothing stored. */
  sendTestEvent(merchantId: number, mode: Mode): Promise<TestEventAttempt> {
    return sendTestEvent(this.deps, merchantId, mode);
  }

  /** `paygate user create`: with a password, or a one-time sign-in link (audited as the operator's). */
  createDashboardUser(input: { merchantId: number; email: unknown; role: unknown; password?: unknown }): Promise<CreatedUser> {
    return createUser(this.dashboard, input);
  }

  /** `paygate user sign-in-link`: a new one-time sign-in link for a user locked out (a lost password, an unused link). */
  issueDashboardSignInLink(email: unknown): Promise<CreatedUser> {
    return issueSignInLink(this.dashboard, email);
  }

  /** `paygate user reset-second-factor`: a user who lost its app and recovery codes signs in with its password again. */
  resetDashboardSecondFactor(email: unknown): Promise<{ userId: string; email: string; merchantId: number }> {
    return resetSecondFactor(this.dashboard, email);
  }

  /** `paygate user email-notices`: turns a user's e-mail notices (payment received, endpoint disabled, unmatched receipt) on or off. */
  setDashboardUserNotices(email: unknown, enabled: unknown): Promise<{ userId: string; email: string; merchantId: number; enabled: boolean }> {
    return setNoticesByEmail(this.deps.stores.email, (e) => this.dashboard.store.userByEmail(e), email, enabled);
  }

  /** `paygate user notice-language`: the language of a user's e-mail notices. */
  setDashboardUserNoticeLocale(
    email: unknown,
    locale: unknown,
  ): Promise<{ userId: string; email: string; merchantId: number; locale: CheckoutLocale }> {
    return setNoticeLocaleByEmail(this.deps.stores.email, (e) => this.dashboard.store.userByEmail(e), email, locale);
  }

  listTestRates(): Promise<TestRateRow[]> {
    return listTestRates(this.deps);
  }

  setTestRate(input: { crypto: string; fiat: string; rate: string }): Promise<TestRateChange> {
    return setTestRate(this.deps, input);
  }

  /** Every merchant's webhook events, newest first, with their delivery attempts. */
  listWebhookEvents(filter: EventFilter = {}): Promise<EventWithAttempts[]> {
    return this.deps.stores.webhookEvents.list(filter);
  }

  /** `paygate webhooks redeliver`: any merchant's event, one attempt now; null for an unknown id. */
  redeliverWebhookEvent(eventId: string): Promise<DeliveryReport | null> {
    return redeliverEvent(this.deps.redelivery, eventId);
  }

  /** The mode's first endpoints' queue (GET /metrics). */
  webhookBacklog(): Promise<WebhookBacklog> {
    return this.deps.stores.webhookEndpoints.backlog(this.deps.clock.now(), "first");
  }

  /** The same for the deliveries to the enabled endpoints other than a mode's first (GET /metrics). */
  webhookDeliveriesBacklog(): Promise<WebhookBacklog> {
    return this.deps.stores.webhookEndpoints.backlog(this.deps.clock.now(), "others");
  }

  // ── The expiry job's housekeeping ──

  /** Forgets Idempotency-Keys past their 24 hours. */
  pruneIdempotencyKeys(): Promise<number> {
    return pruneIdempotencyKeys(this.deps.stores.idempotency, this.deps.clock.now());
  }

  /** Deletes webhook events past their 30 days. */
  pruneWebhookEvents(): Promise<number> {
    return pruneEvents(this.deps.stores.webhookEvents, this.deps.clock.now());
  }

  /** Deletes ended dashboard sessions, expired sign-in links and WebAuthn challenges. */
  pruneDashboardSessions(): Promise<number> {
    return pruneSessions(this.dashboard);
  }
}
