// A merchant's API keys: the list a dashboard shows (never a secret) and rolling a key. A roll makes a
// new key of one kind and mode, shown once, and gives the keys it replaces an end: now, or after an
// overlap of 1 or 24 hours in which both work, so a merchant can deploy the new key without downtime.
// A key rolled in the dashboard remembers who rolled it and that user's role: it may do what the role
// may (key-access.ts), so no role gains through a key what the dashboard refuses it.
import type { DashboardRole } from "../records/dashboard.ts";
import { auditEntry, OPERATOR, type ChangeAuthor } from "../access/audit-log.ts";
import type { CoreDeps } from "../deps.ts";
import { errors } from "../errors.ts";
import { hashKey, newPublicKey, newSecretKey } from "../secrets.ts";
import type { ApiKeyWrite } from "../stores/merchants.ts";
import { checkedMode, modeOf, type Mode } from "../mode.ts";

export const API_KEY_KINDS = ["public", "secret"] as const;
export type ApiKeyKind = (typeof API_KEY_KINDS)[number];

/** How long the replaced key keeps working after a roll. */
export const OLD_KEY_OVERLAPS = { now: 0, "1h": 60 * 60 * 1000, "24h": 24 * 60 * 60 * 1000 } as const;
export type OldKeyExpiry = keyof typeof OLD_KEY_OVERLAPS;

/** The dashboard user who rolls a key: the key may do what this role may (key-access.ts). */
export interface KeyRoller {
  userId: string;
  email: string;
  role: DashboardRole;
}

export function apiKeyRow(kind: "PUBLIC" | "SECRET", isLive: boolean, key: string, rolledBy: KeyRoller | null = null): ApiKeyWrite {
  // A secret key keeps only enough of itself to be recognised in a list.
  const prefix = kind === "PUBLIC" ? key : `${key.slice(0, 13)}…`;
  const creator = rolledBy === null ? {} : { createdByUserId: rolledBy.userId, createdByEmail: rolledBy.email, createdByRole: rolledBy.role };
  return { kind, isLive, prefix, keyHash: hashKey(key), ...creator };
}

export interface ApiKeyView {
  id: number;
  kind: ApiKeyKind;
  mode: Mode;
  /** A public key whole (it is public), a secret key's first characters. */
  prefix: string;
  createdAt: Date;
  /** When a rolled key stops working; null: no end. */
  expiresAt: Date | null;
  revokedAt: Date | null;
  /** `active` (no end), `expiring` (works until expiresAt), `expired` or `revoked`. */
  status: "active" | "expiring" | "expired" | "revoked";
}

export async function listApiKeys(deps: Pick<CoreDeps, "stores" | "clock">, merchantId: number): Promise<ApiKeyView[]> {
  const rows = await deps.stores.merchants.apiKeys(merchantId);
  if (!rows) throw errors.merchantNotFound(merchantId);
  const now = deps.clock.now();
  return rows.map((row) => ({
    id: row.id,
    kind: row.kind === "PUBLIC" ? "public" : "secret",
    mode: modeOf(row.isLive),
    prefix: row.prefix,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    revokedAt: row.revokedAt,
    status: row.revokedAt ? "revoked" : row.expiresAt === null ? "active" : row.expiresAt > now ? "expiring" : "expired",
  }));
}

export interface ApiKeyRollRequest {
  mode: Mode;
  kind: ApiKeyKind;
  /** How long the keys it replaces keep working: `now`, `1h` or `24h`. */
  oldExpires: OldKeyExpiry;
}

export interface RolledApiKey {
  mode: Mode;
  kind: ApiKeyKind;
  /** The new key, shown only now. */
  key: string;
  prefix: string;
  /** The keys it replaces (usually one), each with the moment it stops working. */
  replaced: { prefix: string; expiresAt: Date }[];
}

export async function rollApiKey(
  deps: Pick<CoreDeps, "stores" | "clock" | "credentials">,
  merchantId: number,
  request: ApiKeyRollRequest,
  by: ChangeAuthor = OPERATOR,
  rolledBy: KeyRoller | null = null,
): Promise<RolledApiKey> {
  const mode = checkedMode(request.mode);
  const kind = request.kind;
  if (kind !== "public" && kind !== "secret") throw errors.invalidMerchantSettings(`kind must be public or secret (got '${String(kind)}')`);
  if (!Object.hasOwn(OLD_KEY_OVERLAPS, request.oldExpires)) {
    throw errors.invalidMerchantSettings(
      `oldExpires must be one of ${Object.keys(OLD_KEY_OVERLAPS).join(", ")} (got '${String(request.oldExpires)}')`,
    );
  }
  const now = deps.clock.now();
  const key = kind === "public" ? newPublicKey(mode) : newSecretKey(mode);
  const row = apiKeyRow(kind === "public" ? "PUBLIC" : "SECRET", mode === "live", key, rolledBy);
  const ended = await deps.stores.merchants.rollApiKey(merchantId, {
    kind: row.kind,
    isLive: row.isLive,
    newKey: row,
    oldExpiresAt: new Date(now.getTime() + OLD_KEY_OVERLAPS[request.oldExpires]),
    now,
    // The new key's prefix, as the key list shows it (a secret key's first characters only).
    audit: auditEntry(by, merchantId, now, "api_key.roll", `${kind} ${mode} ${row.prefix} (old keys end ${request.oldExpires})`),
  });
  if (!ended) throw errors.merchantNotFound(merchantId);
  // This process forgets what it remembered of them at once; another instance within its cache time (PAYGATE_CREDENTIAL_CACHE_MS).
  for (const old of ended) deps.credentials.forgetKey(old.keyHash);
  return { mode, kind, key, prefix: row.prefix, replaced: ended.map(({ prefix, expiresAt }) => ({ prefix, expiresAt })) };
}
