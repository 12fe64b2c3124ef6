// Who may do what in the merchant dashboard. Every dashboard operation of the gateway names the
// permission it needs and calls `authorize` first, so the rule lives here once and no adapter
// (the dashboard's HTTP routes, its pages) decides it.
import { PaygateError } from "../errors.ts";

export const DASHBOARD_ROLES = ["owner", "developer", "viewer"] as const;
export type DashboardRole = (typeof DASHBOARD_ROLES)[number];

export type DashboardPermission =
  /** See transactions, events, delivery attempts, settings (never a secret). */
  | "read"
  /** Roll API keys. */
  | "manage_keys"
  /** Set webhook URLs, send test events, rotate the signing secret, redeliver events. */
  | "manage_webhooks"
  /** Set extended public keys. */
  | "manage_wallets"
  /** Create and deactivate payment links. */
  | "manage_payment_links"
  /** Invite and remove dashboard users. */
  | "manage_users";

const GRANTS: Record<DashboardRole, ReadonlySet<DashboardPermission>> = {
  owner: new Set(["read", "manage_keys", "manage_webhooks", "manage_wallets", "manage_payment_links", "manage_users"]),
  developer: new Set(["read", "manage_keys", "manage_webhooks", "manage_wallets"]),
  viewer: new Set(["read"]),
};

/** A signed-in dashboard user: the merchant it belongs to and its role there. */
export interface DashboardActor {
  userId: string;
  merchantId: number;
  role: DashboardRole;
}

export function isDashboardRole(value: string): value is DashboardRole {
  return (DASHBOARD_ROLES as readonly string[]).includes(value);
}

export function can(actor: DashboardActor, permission: DashboardPermission): boolean {
  return GRANTS[actor.role].has(permission);
}

/** Every permission the role holds: the dashboard's pages show the controls of these only (the API still authorizes each change). */
export function permissionsOf(role: DashboardRole): DashboardPermission[] {
  return [...GRANTS[role]];
}

/** Refuses (403 `role_forbidden`) an actor whose role lacks the permission; nothing has run yet. */
export function authorize(actor: DashboardActor, permission: DashboardPermission): void {
  if (can(actor, permission)) return;
  const roles = DASHBOARD_ROLES.filter((role) => GRANTS[role].has(permission)).join(" or ");
  throw new PaygateError(
    "forbidden",
    `Your role (${actor.role}) cannot ${permission.replaceAll("_", " ")}; ask an owner of this merchant for the ${roles} role`,
    "role_forbidden",
  );
}
