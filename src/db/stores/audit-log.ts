// Each merchant's audit log (src/core/access/audit-log.ts decides what goes in it). A change's
// entry is written by the change's own store method in the same database transaction (auditRow
// below), so a change never commits without its entry nor an entry without its change.
import type { AuditLogStore, AuditWrite } from "../../core/stores/audit-log.ts";
import type { Database, Prisma } from "../types.ts";

/** The row of one entry. */
export function auditRow(entry: AuditWrite): Prisma.AuditLogEntryUncheckedCreateInput {
  const { actor } = entry;
  return {
    merchantId: entry.merchantId,
    createdAt: entry.at,
    actorKind: actor.kind,
    actorUserId: actor.kind === "user" ? actor.userId : actor.kind === "api_key" ? actor.createdByUserId : null,
    actorEmail: actor.kind === "user" ? actor.email : actor.kind === "api_key" ? actor.createdByEmail : null,
    clientAddress: actor.kind === "operator" ? null : actor.clientAddress,
    actorApiKeyId: actor.kind === "api_key" ? actor.keyId : null,
    actorApiKeyPrefix: actor.kind === "api_key" ? actor.keyPrefix : null,
    action: entry.action,
    target: entry.target,
  };
}

export function auditLogStore(db: Database): AuditLogStore {
  return {
    async append(entry) {
      await db.auditLogEntry.create({ data: auditRow(entry) });
    },

    page: (merchantId, beforeId, limit) =>
      db.auditLogEntry.findMany({
        where: { merchantId, ...(beforeId === null ? {} : { id: { lt: beforeId } }) },
        select: {
          id: true,
          createdAt: true,
          actorKind: true,
          actorUserId: true,
          actorEmail: true,
          action: true,
          target: true,
          clientAddress: true,
          actorApiKeyId: true,
          actorApiKeyPrefix: true,
        },
        orderBy: { id: "desc" },
        take: limit,
      }),
  };
}
