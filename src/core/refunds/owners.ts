// Whose refunds a call works on (issue 26): the merchant and mode of a caller's MerchantAccess, made by
// the refunds façade once the caller's permission is checked; then the refund use cases (create.ts,
// refunds.ts, claim.ts) run on that owner, and a change's author goes to the audit log.
import { auditEntry, type AuditAction, type ChangeAuthor } from "../access/audit-log.ts";
import type { CoreDeps } from "../deps.ts";
import { errors } from "../errors.ts";
import type { AuditWrite } from "../stores/audit-log.ts";
import { isRefundId } from "./rules.ts";
import type { RefundView } from "./view.ts";
import type { RefundRecord } from "../records/refunds.ts";

export type RefundDeps = Pick<
  CoreDeps,
  "stores" | "secrets" | "credentials" | "clock" | "prices" | "rails" | "qr" | "publicUrl" | "refundPayments" | "refundClaimDays"
>;

/**
 * Whose refunds a call works on: a merchant in one mode, and who acts. The refunds façade (facade.ts)
 * makes one from a caller's MerchantAccess once its permission is checked; a change's `by` (the key or
 * the user) goes to the audit log, a read's is null.
 */
export interface RefundOwner {
  merchantId: number;
  isLive: boolean;
  by: ChangeAuthor | null;
}

export interface RefundOutcome {
  merchantId: number;
  refund: RefundView;
  replayed?: true;
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
