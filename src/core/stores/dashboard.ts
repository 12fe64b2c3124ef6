// Dashboard users, sign-in links and sessions. src/db/stores/dashboard.ts implements it.
import type { DashboardRole } from "../records/dashboard.ts";
import type { AuditWrite } from "./audit-log.ts";
import type { MerchantIdentity } from "./credentials.ts";

export interface DashboardUserRow {
  id: string;
  merchantId: number;
  /** Lower-cased. */
  email: string;
  role: DashboardRole;
  passwordHash: string | null;
  createdAt: Date;
  /** When its TOTP second factor was turned on; null: none. */
  totpEnabledAt: Date | null;
  /** How many WebAuthn security keys it has registered (a second factor too). */
  securityKeyCount: number;
}

/** A one-time sign-in link as stored: the token's SHA-256 only. */
export interface SignInLinkWrite {
  tokenHash: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface SessionWrite {
  tokenHash: string;
  userId: string;
  createdAt: Date;
  expiresAt: Date;
  /** The audit log's entry of the sign-in, written with the session. */
  audit?: AuditWrite;
}

/** A session with its user and the user's merchant, as every dashboard request reads it. */
export interface SessionRow {
  tokenHash: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  /** When the session last proved its password (and second factor): sudo mode reads it. */
  authenticatedAt: Date;
  user: DashboardUserRow;
  merchant: MerchantIdentity;
}

/**
 * A change to one user by another (or itself); `check` sees, under the lock, the actor as it is now
 * (null when removed meanwhile), the user, and how many owners the merchant has after the change,
 * and throws to refuse it.
 */
export interface UserChange {
  actorId: string;
  change: { role: DashboardRole } | "remove";
  check(actor: DashboardUserRow | null, user: DashboardUserRow, ownersAfter: number): void;
  /** The audit log's entry of the change (it names the user as it was), written in its database transaction. */
  audit?(user: DashboardUserRow): AuditWrite;
}

export interface DashboardStore {
  /** The merchant, or null: a user is made for an existing one only. */
  merchant(merchantId: number): Promise<MerchantIdentity | null>;
  /**
   * The user and (when given) its sign-in link together; fails with DuplicateKeyError when the merchant
   * has a user with this e-mail, or the user has a password and the e-mail has an account (a user with
   * a password) at any merchant. A user without one (an invitation) may share an e-mail across merchants.
   */
  createUser(
    user: Omit<DashboardUserRow, "createdAt" | "totpEnabledAt" | "securityKeyCount">,
    link: SignInLinkWrite | null,
    audit?: AuditWrite,
  ): Promise<DashboardUserRow>;
  /** The account (the user with a password) of the e-mail at any merchant, or null. */
  userByEmail(email: string): Promise<DashboardUserRow | null>;
  /** The e-mail's account (the user with a password), else its newest user; null: no user has it. */
  userToRecover(email: string): Promise<DashboardUserRow | null>;
  /** A new one-time sign-in link for the user, with its audit entry. */
  addSignInLink(userId: string, link: SignInLinkWrite, audit: AuditWrite): Promise<void>;
  /** Whether any merchant has a user with this e-mail, with a password or not. */
  emailInUse(email: string): Promise<boolean>;
  /** The user of this merchant, or null. */
  userOf(merchantId: number, userId: string): Promise<DashboardUserRow | null>;
  /** Oldest first. */
  listUsers(merchantId: number): Promise<DashboardUserRow[]>;
  /**
   * Under a lock on the merchant's users (so two owners cannot demote each other at once): calls
   * `check`, then applies the change. Null when the merchant has no such user.
   */
  changeUser(merchantId: number, userId: string, change: UserChange): Promise<DashboardUserRow | null>;
  /**
   * Marks an unused, unexpired link used and returns its user; null otherwise (used, expired, unknown,
   * or its user's e-mail has an account at another merchant).
   */
  useSignInLink(tokenHash: string, now: Date): Promise<DashboardUserRow | null>;
  /** DuplicateKeyError when the user's e-mail got an account at another merchant meanwhile. */
  setPassword(userId: string, passwordHash: string): Promise<void>;
  createSession(session: SessionWrite): Promise<void>;
  sessionByHash(tokenHash: string): Promise<SessionRow | null>;
  touchSession(tokenHash: string, now: Date): Promise<void>;
  /** The session proved its password (and second factor) again at `now` (sudo mode); false when it is gone. */
  reauthenticated(tokenHash: string, now: Date): Promise<boolean>;
  /** Returns how many were deleted (0 or 1). */
  deleteSession(tokenHash: string): Promise<number>;
  /** Every session of the user; returns how many. */
  deleteSessionsOf(userId: string): Promise<number>;
  /** Sessions past their absolute end or idle since before `idleBefore`, links and sign-in challenges past their end; returns how many. */
  prune(now: Date, idleBefore: Date): Promise<number>;
}
