// Whose refunds a call works on (issue 26): a secret key's merchant and mode, or a dashboard user's once
// its role allows it, resolved once; then the refund use cases (create.ts, refunds.ts, claim.ts) run
// on that owner, and a change's author goes to the audit log.
import { authorize, type DashboardActor, type DashboardPermission } from "../dashboard/access.ts";
import { auditEntry, authorOf, type AuditAction, type ChangeAuthor } from "../dashboard/audit-log.ts";
import type { CoreDeps } from "../deps.ts";
import { errors } from "../errors.ts";
import type { Caller } from "../merchants/credentials.ts";
import { authorizeKey, keyAuthor } from "../merchants/key-access.ts";
import type { AuditWrite } from "../stores/audit-log.ts";
import { isRefundId } from "./rules.ts";
import type { RefundRecord, RefundView } from "./view.ts";

export type RefundDeps = Pick<
  CoreDeps,
  "stores" | "credentials" | "clock" | "prices" | "rails" | "qr" | "publicUrl" | "refundPayments" | "refundClaimDays"
>;

/**
 * Whose refunds a call works on: a merchant in one mode, and who acts. A secret key (keyOwner) and a
 * dashboard user (dashboardOwner) each resolve to one once, after their role is checked, then call
 * the same functions below; a change's `by` (the key or the user) goes to the audit log, a read's is null.
 */
export interface RefundOwner {
  merchantId: number;
  isLive: boolean;
  by: ChangeAuthor | null;
  /** When the dashboard user last proved its password (making a refund needs it recent); null for a secret key. */
  authenticatedAt: Date | null;
}

export interface RefundOutcome {
  merchantId: number;
  refund: RefundView;
  replayed?: true;
}

/** A secret key's merchant and mode (a public key or client secret is refused; so is a deactivated merchant's key). */
export async function keyOwner(
  deps: Pick<RefundDeps, "credentials">,
  bearerToken: string | undefined,
  clientAddress: string | null,
  permission: Extract<DashboardPermission, "read" | "manage_refunds">,
): Promise<RefundOwner> {
  const caller: Caller = await deps.credentials.authenticateSecret(bearerToken);
  authorizeKey(caller, permission);
  const by = permission === "read" ? null : keyAuthor(caller, clientAddress);
  return { merchantId: caller.merchant.id, isLive: caller.isLive, by, authenticatedAt: null };
}

/**
 * A dashboard user's merchant in the mode the dashboard shows, after its role is checked: `read` to
 * read, `manage_refunds` to change (a deactivated merchant's changes are refused there).
 */
export function dashboardOwner(
  actor: DashboardActor,
  isLive: boolean,
  permission: Extract<DashboardPermission, "read" | "manage_refunds">,
): RefundOwner {
  authorize(actor, permission);
  return { merchantId: actor.merchantId, isLive, by: permission === "read" ? null : authorOf(actor), authenticatedAt: actor.authenticatedAt };
}

/** The audit log's entry of a dashboard user's change; none for a secret key's. */
export function auditOf(deps: RefundDeps, owner: RefundOwner, action: AuditAction, target: string): AuditWrite | null {
  return owner.by === null ? null : auditEntry(owner.by, owner.merchantId, deps.clock.now(), action, target);
}

/** The owner's refund with this id; 404 for another merchant's, another mode's, or an id of another shape. */
export async function ownRefund(deps: RefundDeps, owner: RefundOwner, id: string): Promise<RefundRecord> {
  const found = isRefundId(id) ? await deps.stores.refunds.findFor(id, owner.merchantId, owner.isLive) : null;
  if (!found) throw errors.refundNotFound(id);
  return found;
}
