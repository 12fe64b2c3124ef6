// The composition of the domain's façades, one per context, each holding only the stores and ports it
// uses: payments, refunds, settlement, webhooks, merchants and keys, dashboard accounts, and the operator's. Every
// adapter (REST, GraphQL, the CLI, the dashboard, the jobs) reaches the core through these; a caller's
// right to act on a merchant is a MerchantAccess made at its door (`access`), checked in the use case.
// Rules live in the functions the façades call, never in the adapters; queries live in src/db behind the stores.
import { DEFAULT_SECOND_FACTOR_LIMIT, SecondFactorThrottle } from "./dashboard/second-factor.ts";
import { DEFAULT_SESSION_POLICY, type DashboardDeps, type SessionPolicy } from "./dashboard/sessions.ts";
import { DashboardAccounts } from "./facades/accounts.ts";
import type { DashboardActor } from "./access/roles.ts";
import { DEFAULT_SIGN_IN_LIMITS, SignInThrottle, type SignInLimits } from "./dashboard/throttle.ts";
import type { CoreDeps } from "./deps.ts";
import { EventStreams } from "./events/stream.ts";
import { dashboardAccess, keyAccess, type MerchantAccess, operatorAccess } from "./facades/access.ts";
import { Invoices } from "./facades/invoices.ts";
import { Ledger } from "./facades/ledger.ts";
import { Merchants } from "./facades/merchants.ts";
import { NO_PRIVATE_TARGETS, type PrivateTargets } from "./private-targets.ts";
import { Operator } from "./facades/operator.ts";
import type { Clock } from "./ports.ts";
import type { RateLimit } from "./rate-limits.ts";
import { Refunds } from "./facades/refunds.ts";
import { Settlement } from "./facades/settlement.ts";
import type { TransactionChanges } from "./stores/transaction-changes.ts";
import { DEFAULT_LIFECYCLE, type LifecyclePolicy } from "./policies.ts";
import { Payments } from "./facades/payments.ts";
import { LiveCredentials, TransactionFollowers } from "./transactions/updates.ts";
import { Webhooks } from "./facades/webhooks.ts";
import { Email, type EmailSettings } from "./facades/email.ts";

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
  /** The SMTP transport and retry policy (issue 44); none: nothing is sent. */
  email?: EmailSettings;
};

/** PAYGATE_PUBLIC_URL's default for the default HOST and PORT (src/config.ts). */
export const DEFAULT_PUBLIC_URL = "http://127.0.0.1:3000";

const NO_CHANGES: TransactionChanges = { subscribe: () => () => {} };

/** Where a caller's MerchantAccess is made: one builder per door (facades/access.ts). */
export interface Doors {
  /** The CLI's: any change, audited as the operator; `isLive`: its `--mode` (test unless said). */
  operator(merchantId: number, isLive?: boolean): MerchantAccess;
  /** A signed-in dashboard user's, in the mode the dashboard shows. */
  dashboard(actor: DashboardActor, isLive?: boolean): MerchantAccess;
  /** A secret key's (REST, GraphQL): 401/404 as the spec says for anything else; changes audited from `clientAddress`. */
  key(bearerToken: string | undefined, clientAddress?: string | null): Promise<MerchantAccess>;
}

export class PaymentGateway {
  readonly payments: Payments;
  readonly refunds: Refunds;
  /** Invoices (issue 44) and their hosted pages. */
  readonly invoices: Invoices;
  readonly settlement: Settlement;
  /** The ledger of receipts, refunds and consolidations (issue 40, goal 5). */
  readonly ledger: Ledger;
  readonly webhooks: Webhooks;
  readonly merchants: Merchants;
  readonly accounts: DashboardAccounts;
  readonly operator: Operator;
  readonly email: Email;
  readonly access: Doors;
  /** PAYGATE_PUBLIC_URL (no trailing slash): the dashboard's cookie is Secure when it is https. */
  readonly publicUrl: string;

  constructor(deps: GatewayDeps) {
    const { changes, dashboard: dashboardOptions, email, ...rest } = deps;
    const core: CoreDeps = {
      ...rest,
      lifecycle: deps.lifecycle ?? DEFAULT_LIFECYCLE,
      privateWebhookTargets: deps.privateWebhookTargets ?? NO_PRIVATE_TARGETS,
      publicUrl: deps.publicUrl ?? DEFAULT_PUBLIC_URL,
    };
    const liveCredentials = new LiveCredentials(deps.credentials);
    const dashboard: DashboardDeps = {
      store: deps.stores.dashboard,
      clock: deps.clock,
      throttle: new SignInThrottle(deps.stores.rateLimits, dashboardOptions?.signInLimits ?? DEFAULT_SIGN_IN_LIMITS, deps.clock),
      policy: { ...DEFAULT_SESSION_POLICY, ...dashboardOptions?.sessions },
      publicUrl: core.publicUrl,
      requireSecondFactor: dashboardOptions?.requireSecondFactor ?? false,
      secondFactors: deps.stores.secondFactors,
      securityKeys: deps.stores.securityKeys,
      audit: deps.stores.auditLog,
      secrets: deps.secrets,
      qr: deps.qr,
      secondFactorThrottle: new SecondFactorThrottle(
        deps.stores.rateLimits,
        dashboardOptions?.secondFactorLimit === undefined ? DEFAULT_SECOND_FACTOR_LIMIT : dashboardOptions.secondFactorLimit,
        deps.clock,
      ),
    };
    this.publicUrl = core.publicUrl;
    this.payments = new Payments(core, new TransactionFollowers(changes ?? NO_CHANGES), liveCredentials);
    this.refunds = new Refunds(core);
    this.invoices = new Invoices(core);
    this.settlement = new Settlement(core);
    this.ledger = new Ledger(core);
    this.webhooks = new Webhooks(core, new EventStreams(changes ?? NO_CHANGES), liveCredentials);
    this.merchants = new Merchants(core, liveCredentials);
    this.accounts = new DashboardAccounts(core, dashboard);
    this.operator = new Operator(core, dashboard);
    this.email = new Email(core, email ?? { transport: null });
    this.access = {
      operator: (merchantId, isLive = false) => operatorAccess(merchantId, isLive),
      dashboard: (actor, isLive = false) => dashboardAccess(dashboard, actor, isLive),
      key: async (bearerToken, clientAddress = null) => keyAccess(await core.credentials.authenticateSecret(bearerToken), clientAddress),
    };
  }

  /** The private destinations webhook URLs may name, for an adapter that explains a refused URL. */
  get privateWebhookTargets(): PrivateTargets {
    return this.webhooks.privateTargets;
  }
}

export const systemClock: Clock = { now: () => new Date() };
