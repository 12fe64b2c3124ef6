// A merchant's audit log of dashboard and operator changes. src/db/stores/audit-log.ts implements it.

/** Who made a change: a dashboard user (from an address), an API key (from an address), or the operator at the command line. */
export type AuditActorWrite =
  | { kind: "user"; userId: string; email: string; clientAddress: string | null }
  /** A secret key: its id and prefix, and the dashboard user who rolled it (null: the operator made it). */
  | { kind: "api_key"; keyId: number; keyPrefix: string; createdByUserId: string | null; createdByEmail: string | null; clientAddress: string | null }
  | { kind: "operator" };

/** One entry of a merchant's audit log, as written; never a secret. */
export interface AuditWrite {
  merchantId: number;
  at: Date;
  actor: AuditActorWrite;
  action: string;
  target: string;
}

export interface AuditLogRow {
  id: number;
  createdAt: Date;
  actorKind: string;
  actorUserId: string | null;
  actorEmail: string | null;
  action: string;
  target: string;
  clientAddress: string | null;
  actorApiKeyId: number | null;
  actorApiKeyPrefix: string | null;
}

export interface AuditLogStore {
  append(entry: AuditWrite): Promise<void>;
  /** The merchant's entries newest first, those older than `beforeId` when given, at most `limit`. */
  page(merchantId: number, beforeId: number | null, limit: number): Promise<AuditLogRow[]>;
}
