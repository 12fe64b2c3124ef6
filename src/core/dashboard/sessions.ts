// Dashboard sessions: signing in (e-mail and password, or a one-time link), the session a cookie
// names, signing out here or everywhere. A session token is 256 bits from a CSPRNG, kept by the
// browser in an HttpOnly cookie and stored as its SHA-256; a session ends when idle too long or at
// its absolute end, whichever comes first. The CSRF token is derived from the session token, so
// it needs no storage and an attacker without the cookie cannot compute it.
import { createHash } from "node:crypto";
import { errors } from "../errors.ts";
import { isKybStatus, type KybStatus } from "../merchants/kyb.ts";
import type { Clock } from "../ports.ts";
import { hashKey, randomToken } from "../secrets.ts";
import type { DashboardStore, DashboardUserRow } from "../stores.ts";
import type { DashboardActor, DashboardRole } from "./access.ts";
import { hashPassword, verifyNothing, verifyPassword } from "./passwords.ts";
import type { SignInThrottle } from "./throttle.ts";
import { checkPassword } from "./fields.ts";

export interface SessionPolicy {
  /** A session unused this long has ended. */
  idleMs: number;
  /** A session ends this long after sign-in, however active. */
  absoluteMs: number;
  /** How long a one-time sign-in link stays usable. */
  signInLinkMs: number;
}

/** 12 hours idle, 7 days in all, links for 24 hours. */
export const DEFAULT_SESSION_POLICY: SessionPolicy = { idleMs: 12 * 3_600_000, absoluteMs: 7 * 86_400_000, signInLinkMs: 86_400_000 };

/** `last_seen_at` is written at most this often per session: a page's burst of requests costs one write. */
const TOUCH_EVERY_MS = 60_000;

export interface DashboardDeps {
  store: DashboardStore;
  clock: Clock;
  throttle: SignInThrottle;
  policy: SessionPolicy;
  /** PAYGATE_PUBLIC_URL, for sign-in links. */
  publicUrl: string;
}

/** A user as the dashboard shows it: never its password hash. */
export interface DashboardUserView {
  id: string;
  email: string;
  role: DashboardRole;
  createdAt: Date;
  hasPassword: boolean;
}

export const userView = (row: DashboardUserRow): DashboardUserView => ({
  id: row.id,
  email: row.email,
  role: row.role,
  createdAt: row.createdAt,
  hasPassword: row.passwordHash !== null,
});

/** A new session: the token goes into the cookie, and nowhere else. */
export interface SignedIn {
  token: string;
  expiresAt: Date;
  user: DashboardUserView;
}

/** The session a request carries, with who it is. */
export interface DashboardSession {
  actor: DashboardActor;
  user: DashboardUserView;
  merchant: { id: number; name: string; kybStatus: KybStatus; active: boolean };
  /** Changes must carry it (X-CSRF-Token). */
  csrfToken: string;
  expiresAt: Date;
}

export async function signIn(deps: DashboardDeps, input: { email: string; password: string; clientAddress: string }): Promise<SignedIn> {
  const email = input.email.trim().toLowerCase();
  await deps.throttle.admit(email, input.clientAddress);
  const user = await deps.store.userByEmail(email);
  const ok = user?.passwordHash ? await verifyPassword(input.password, user.passwordHash) : await verifyNothing(input.password);
  if (!user || !ok) {
    await deps.throttle.failed(email);
    throw errors.signInFailed();
  }
  return startSession(deps, user);
}

/** Uses a one-time link: sets the user's password, ends its other sessions, and signs it in. */
export async function useSignInLink(deps: DashboardDeps, token: string, password: unknown): Promise<SignedIn> {
  // The password's form is checked first, so a refused one leaves the link usable; it is hashed
  // only once the link is taken, so a made-up token costs no scrypt time.
  const checked = checkPassword(password);
  const user = await deps.store.useSignInLink(hashKey(token), deps.clock.now());
  if (!user) throw errors.signInLinkInvalid();
  const passwordHash = await hashPassword(checked);
  await deps.store.setPassword(user.id, passwordHash);
  await deps.store.deleteSessionsOf(user.id);
  return startSession(deps, { ...user, passwordHash });
}

async function startSession(deps: DashboardDeps, user: DashboardUserRow): Promise<SignedIn> {
  const token = randomToken(43);
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + deps.policy.absoluteMs);
  await deps.store.createSession({ tokenHash: hashKey(token), userId: user.id, createdAt: now, expiresAt });
  return { token, expiresAt, user: userView(user) };
}

/** The session a cookie's token names; 401 session_required when there is none or it has ended. */
export async function sessionOf(deps: DashboardDeps, token: string | undefined): Promise<DashboardSession> {
  if (!token) throw errors.sessionRequired();
  const tokenHash = hashKey(token);
  const row = await deps.store.sessionByHash(tokenHash);
  if (!row) throw errors.sessionRequired();
  const now = deps.clock.now().getTime();
  const idle = now - row.lastSeenAt.getTime();
  if (now >= row.expiresAt.getTime() || idle >= deps.policy.idleMs) {
    await deps.store.deleteSession(tokenHash);
    throw errors.sessionRequired();
  }
  if (idle >= TOUCH_EVERY_MS) await deps.store.touchSession(tokenHash, new Date(now));
  const { user, merchant } = row;
  return {
    actor: { userId: user.id, merchantId: user.merchantId, role: user.role },
    user: userView(user),
    merchant: {
      id: merchant.id,
      name: merchant.name,
      kybStatus: isKybStatus(merchant.kybStatus) ? merchant.kybStatus : "NONE",
      active: merchant.active,
    },
    csrfToken: csrfTokenOf(token),
    expiresAt: new Date(Math.min(row.expiresAt.getTime(), now + deps.policy.idleMs)),
  };
}

/** The CSRF token of a session: a keyed digest of its token (never the token itself, which only the cookie carries). */
export function csrfTokenOf(sessionToken: string): string {
  return createHash("sha256").update(`paygate csrf\0${sessionToken}`, "utf8").digest("base64url");
}

/** Ends this session; unknown tokens end nothing. */
export async function signOut(deps: DashboardDeps, token: string): Promise<void> {
  await deps.store.deleteSession(hashKey(token));
}

/** Ends every session of the actor's user, this one included; returns how many. */
export function signOutEverywhere(deps: DashboardDeps, actor: DashboardActor): Promise<number> {
  return deps.store.deleteSessionsOf(actor.userId);
}

/** Deletes ended sessions and expired links (the expiry job's tick). */
export function pruneSessions(deps: DashboardDeps): Promise<number> {
  const now = deps.clock.now();
  return deps.store.prune(now, new Date(now.getTime() - deps.policy.idleMs));
}

/** The page a one-time link opens: the token travels in the fragment, which browsers never send to a server or in a Referer. */
export function signInUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/dashboard/welcome#${token}`;
}
