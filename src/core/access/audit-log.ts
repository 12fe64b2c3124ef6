// Each merchant's audit log: who changed what that decides where money and events go or who may
// sign in (a wallet, a webhook URL or secret, an API key, users, second factors, sign-ins), when,
// and from which address. A dashboard user is named by id and e-mail; the CLI as the operator.
// Targets say what changed for people to read and never carry a secret: a key's prefix (what the
// key list shows), a wallet key shortened, a webhook URL's origin only (a path or query may hold a
// receiver's token). Each change's store method writes its entry in the change's database
// transaction; only owners read the log.
import { z } from "zod";
import type { CoreDeps } from "../deps.ts";
import { LIST_LIMIT_MAX, limitParam, pageOf, parseListQuery, single } from "../lists.ts";
import type { AuditActorWrite, AuditLogRow, AuditWrite } from "../stores/audit-log.ts";
import type { DashboardActor, MerchantReach } from "./roles.ts";

export const AUDIT_ACTIONS = [
  "wallet.set",
  "default_network.set",
  "pricing.set",
  "webhook_url.set",
  "webhook_secret.rotate",
  "webhook_endpoint.create",
  "webhook_endpoint.update",
  "webhook_endpoint.disable",
  "webhook_endpoint.enable",
  "webhook_endpoint.delete",
  "webhook_endpoint.rotate_secret",
  "api_key.roll",
  "merchant.activate",
  "merchant.deactivate",
  "merchant.kyb_set",
  "user.create",
  "user.invite",
  "user.role_change",
  "user.remove",
  "user.sign_in_link",
  "second_factor.enable",
  "second_factor.disable",
  "security_key.add",
  "security_key.remove",
  "sign_in",
  "sign_in.second_factor_failed",
  "refund.create",
  "refund.cancel",
  "refund.mark_paid",
  "consolidation.create",
  "consolidation.cancel",
  "forwarder_setting.set",
  "forwarder_setting.remove",
  "flush_rule.set",
  "flush_rule.remove",
  "flush.create",
  "own_address_setting.set",
  "own_address_setting.remove",
  "unmatched_receipt.assign",
  "unmatched_receipt.refund",
  "invoice.create",
  "invoice.finalize",
  "invoice.update",
  "invoice.void",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who made a change: a dashboard user or a secret key (from its request's address), or the operator at the command line. */
export type ChangeAuthor = AuditActorWrite;

/** The CLI's changes: the operator has the database and the encryption key already, so it is named, not authenticated. */
export const OPERATOR: ChangeAuthor = { kind: "operator" };

/** The signed-in user behind a dashboard change. */
export const authorOf = (actor: DashboardActor): ChangeAuthor => ({
  kind: "user",
  userId: actor.userId,
  email: actor.email,
  clientAddress: actor.clientAddress,
});

export function auditEntry(by: ChangeAuthor, merchantId: number, at: Date, action: AuditAction, target: string): AuditWrite {
  return { merchantId, at, actor: by, action, target };
}

/** A wallet key as the audit log and the wallet list show it: its start and end. */
export function shortenedKey(key: string): string {
  return key.length <= 20 ? key : `${key.slice(0, 10)}…${key.slice(-6)}`;
}

/** A webhook URL's origin only (its path or query may carry the receiver's token), or that it was removed. */
export function webhookUrlTarget(mode: "test" | "live", url: string | null): string {
  if (url === null) return `${mode} removed`;
  return `${mode} ${URL.canParse(url) ? new URL(url).origin : "(unreadable URL)"}`;
}

/** One entry as the dashboard shows it. */
export interface AuditLogEntryView {
  id: string;
  at: Date;
  actor:
    | { kind: "user"; userId: string | null; email: string | null }
    /** A secret key's change: the key, and who rolled it (null: the operator made it). */
    | { kind: "api_key"; keyId: number | null; keyPrefix: string | null; createdByUserId: string | null; createdByEmail: string | null }
    | { kind: "operator" };
  action: string;
  target: string;
  clientAddress: string | null;
}

export interface AuditLogPage {
  entries: AuditLogEntryView[];
  hasMore: boolean;
}

const AUDIT_LOG_LIMIT_DEFAULT = 50;

const QUERY = z.object({
  limit: limitParam.optional(),
  starting_after: single.regex(/^\d{1,10}$/, "must be the id of an entry of the previous page").optional(),
});

/** The actor's merchant's entries, newest first; `params`: `limit` (1–100, default 50) and `starting_after` (the last id of the previous page). */
export async function auditLogPage(
  deps: Pick<CoreDeps, "stores">,
  access: Omit<MerchantReach, "isLive">,
  params: Record<string, unknown>,
): Promise<AuditLogPage> {
  access.require("read_audit_log");
  const query = parseListQuery(QUERY, params);
  const limit = Math.min(query.limit ?? AUDIT_LOG_LIMIT_DEFAULT, LIST_LIMIT_MAX);
  const before = query.starting_after === undefined ? null : Number(query.starting_after);
  const rows = await deps.stores.auditLog.page(access.merchantId, before, limit + 1);
  const page = pageOf(rows, limit);
  return { entries: page.items.map(viewOf), hasMore: page.hasMore };
}

function viewOf(row: AuditLogRow): AuditLogEntryView {
  return {
    id: String(row.id),
    at: row.createdAt,
    actor:
      row.actorKind === "operator"
        ? { kind: "operator" }
        : row.actorKind === "api_key"
          ? {
              kind: "api_key",
              keyId: row.actorApiKeyId,
              keyPrefix: row.actorApiKeyPrefix,
              createdByUserId: row.actorUserId,
              createdByEmail: row.actorEmail,
            }
          : { kind: "user", userId: row.actorUserId, email: row.actorEmail },
    action: row.action,
    target: row.target,
    clientAddress: row.clientAddress,
  };
}
