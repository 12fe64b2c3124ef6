// Who may do what in the merchant dashboard. Every dashboard operation of the gateway names the
// permission it needs and calls `authorize` first, so the rule lives here once and no adapter
// (the dashboard's HTTP routes, its pages) decides it. A deactivated merchant's dashboard is
// read-only: its users still sign in and read, and every change is refused here.
import { errors, PaygateError } from "../errors.ts";
import { DASHBOARD_ROLES, type DashboardRole } from "../records/dashboard.ts";

export type DashboardPermission =
  /** See transactions, events, delivery attempts, settings (never a secret). */
  | "read"
  /** Roll API keys. */
  | "manage_keys"
  /** Set webhook URLs, send test events, rotate the signing secret, redeliver events. */
  | "manage_webhooks"
  /** Set extended public keys. */
  | "manage_wallets"
  /** Choose the network each coin is paid on when a request names none (the owner's call: it decides where customers pay). */
  | "manage_default_networks"
  /** Create and deactivate payment links. */
  | "manage_payment_links"
  /** Set the merchant's spread and price providers (merchant pricing): what customers pay. */
  | "manage_pricing"
  /** Invite and remove dashboard users. */
  | "manage_users"
  /** Create, cancel and mark paid refunds of the merchant's transactions (issue 26; reading them is `read`). */
  | "manage_refunds"
  /** Create, finalize and void invoices (issue 44; reading them is `read`). */
  | "manage_invoices"
  /** Build and cancel consolidations of the merchant's settled BTC and LTC outputs (issue 40; reading them is `read`). */
  | "manage_settlement"
  /** Read the merchant's audit log (audit-log.ts). */
  | "read_audit_log";

const GRANTS: Record<DashboardRole, ReadonlySet<DashboardPermission>> = {
  owner: new Set([
    "read",
    "manage_keys",
    "manage_webhooks",
    "manage_wallets",
    "manage_default_networks",
    "manage_payment_links",
    "manage_pricing",
    "manage_users",
    "read_audit_log",
    "manage_refunds",
    "manage_invoices",
    "manage_settlement",
  ]),
  developer: new Set(["read", "manage_keys", "manage_webhooks", "manage_wallets", "manage_refunds", "manage_invoices", "manage_settlement"]),
  viewer: new Set(["read"]),
};

/** A signed-in dashboard user: the merchant it belongs to and its role there. */
export interface DashboardActor {
  userId: string;
  merchantId: number;
  role: DashboardRole;
  /** False for a deactivated merchant (read with the session): its dashboard is read-only. */
  merchantActive: boolean;
  /** Who, in the audit log. */
  email: string;
  /** When the session last proved its password (and second factor): sensitive changes need it recent (reauthentication.ts). */
  authenticatedAt: Date;
  /** The request's client address, for the audit log; null when unknown. */
  clientAddress: string | null;
  /** The operator requires a second factor (PAYGATE_DASHBOARD_REQUIRE_2FA) and this user has none yet: it may only enrol one. */
  mustEnrolSecondFactor: boolean;
}

/** Whether a role holds a permission, whatever the merchant's state (an API key's rolled-by role: key-access.ts). */
export function roleGrants(role: DashboardRole, permission: DashboardPermission): boolean {
  return GRANTS[role].has(permission);
}

export function isDashboardRole(value: string): value is DashboardRole {
  return (DASHBOARD_ROLES as readonly string[]).includes(value);
}

/** Every permission is a read (`read…`) or a change (`manage_…`); a deactivated merchant's users keep the reads only. */
const isChange = (permission: DashboardPermission) => !permission.startsWith("read");

export function can(actor: Pick<DashboardActor, "role" | "merchantActive">, permission: DashboardPermission): boolean {
  return GRANTS[actor.role].has(permission) && (actor.merchantActive || !isChange(permission));
}

/** Every permission the actor holds: the dashboard's pages show the controls of these only (the API still authorizes each change). */
export function permissionsOf(actor: Pick<DashboardActor, "role" | "merchantActive">): DashboardPermission[] {
  return [...GRANTS[actor.role]].filter((permission) => can(actor, permission));
}

/**
 * Refuses (403 `role_forbidden`) an actor whose role lacks the permission, (403 `merchant_inactive`)
 * any change of a deactivated merchant, and (403
 * `second_factor_enrolment_required`) any actor that must enrol a second factor first; nothing has run yet.
 */
export function authorize(actor: DashboardActor, permission: DashboardPermission): void {
  if (actor.mustEnrolSecondFactor) throw errors.secondFactorEnrolmentRequired();
  if (can(actor, permission)) return;
  if (GRANTS[actor.role].has(permission)) throw errors.dashboardReadOnly(); // the merchant is deactivated
  const roles = DASHBOARD_ROLES.filter((role) => GRANTS[role].has(permission)).join(" or ");
  throw new PaygateError(
    "forbidden",
    `Your role (${actor.role}) cannot ${permission.replaceAll("_", " ")}; ask an owner of this merchant for the ${roles} role`,
    "role_forbidden",
  );
}

/**
 * What a use case on one merchant's objects needs of whoever acts, whichever door it came through:
 * the merchant, the mode reached and a permission check (facades/access.ts makes one per door).
 */
export interface MerchantReach {
  readonly merchantId: number;
  readonly isLive: boolean;
  /** 403 unless the actor may. */
  require(permission: DashboardPermission): void;
}
