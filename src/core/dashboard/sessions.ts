// Dashboard sessions: signing in (e-mail and password, then a second factor's code when the user has
// one; or a one-time link), the session a cookie names, signing out here or everywhere. A session
// token is 256 bits from a CSPRNG, kept by the browser in an HttpOnly cookie and stored as its
// SHA-256; a session ends when idle too long or at its absolute end, whichever comes first. The
// CSRF token is derived from the session token, so it needs no storage and an attacker without the
// cookie cannot compute it.
import { createHash } from "node:crypto";
import { DuplicateKeyError, errors, PaygateError } from "../errors.ts";
import { isKybStatus, type KybStatus } from "../records/kyb.ts";
import type { Clock } from "../ports.ts";
import { hashKey, randomToken } from "../secrets.ts";
import type { AuditLogStore } from "../stores/audit-log.ts";
import type { DashboardStore, DashboardUserRow } from "../stores/dashboard.ts";
import type { DashboardActor } from "../access/roles.ts";
import type { DashboardRole } from "../records/dashboard.ts";
import { auditEntry, type ChangeAuthor } from "../access/audit-log.ts";
import { hashPassword, verifyNothing, verifyPassword } from "./passwords.ts";
import {
  hasSecondFactor,
  requireProof,
  secondFactorMethods,
  useSecondFactor,
  type SecondFactorDeps,
  type SecondFactorMethod,
  type SecondFactorProof,
} from "./second-factor.ts";
import { authenticationOptions } from "./security-keys.ts";
import type { SignInThrottle } from "./throttle.ts";
import { checkPassword } from "./fields.ts";

export interface SessionPolicy {
  /** A session unused this long has ended. */
  idleMs: number;
  /** A session ends this long after sign-in, however active. */
  absoluteMs: number;
  /** How long a one-time sign-in link stays usable. */
  signInLinkMs: number;
  /** Sensitive changes need the password (and second factor) proved within this long (sudo mode, reauthentication.ts). */
  reauthenticationMs: number;
  /** How long a sign-in whose password was right waits for its second factor. */
  challengeMs: number;
}

/** 12 hours idle, 7 days in all, links for 24 hours; sensitive changes within 10 minutes of a proof (GitHub's sudo mode); 5 minutes for a second factor. */
export const DEFAULT_SESSION_POLICY: SessionPolicy = {
  idleMs: 12 * 3_600_000,
  absoluteMs: 7 * 86_400_000,
  signInLinkMs: 86_400_000,
  reauthenticationMs: 10 * 60_000,
  challengeMs: 5 * 60_000,
};

/** `last_seen_at` is written at most this often per session: a page's burst of requests costs one write. */
const TOUCH_EVERY_MS = 60_000;

export interface DashboardDeps extends SecondFactorDeps {
  store: DashboardStore;
  clock: Clock;
  throttle: SignInThrottle;
  policy: SessionPolicy;
  /** PAYGATE_PUBLIC_URL, for sign-in links. */
  publicUrl: string;
  /** PAYGATE_DASHBOARD_REQUIRE_2FA: owners and developers without a second factor may only enrol one. */
  requireSecondFactor: boolean;
  /** Sign-ins and wrong second-factor codes are written to the merchant's audit log (changes write theirs with the change). */
  audit: AuditLogStore;
}

/** A user as the dashboard shows it: never its password hash. */
export interface DashboardUserView {
  id: string;
  email: string;
  role: DashboardRole;
  createdAt: Date;
  hasPassword: boolean;
  hasSecondFactor: boolean;
  /** Its authenticator app is on. */
  hasAuthenticatorApp: boolean;
  securityKeyCount: number;
}

export const userView = (row: DashboardUserRow): DashboardUserView => ({
  id: row.id,
  email: row.email,
  role: row.role,
  createdAt: row.createdAt,
  hasPassword: row.passwordHash !== null,
  hasSecondFactor: hasSecondFactor(row),
  hasAuthenticatorApp: row.totpEnabledAt !== null,
  securityKeyCount: row.securityKeyCount,
});

/** A new session: the token goes into the cookie, and nowhere else. */
export interface SignedIn {
  kind: "signed_in";
  token: string;
  expiresAt: Date;
  user: DashboardUserView;
}

/** The password was right and the user has a second factor: no session yet, a short-lived challenge to answer with a code. */
export interface SecondFactorRequired {
  kind: "second_factor_required";
  challengeToken: string;
  expiresAt: Date;
  /** What the user can answer it with. */
  methods: SecondFactorMethod[];
}

/** The session a request carries, with who it is. */
export interface DashboardSession {
  actor: DashboardActor;
  user: DashboardUserView;
  merchant: { id: number; name: string; kybStatus: KybStatus; active: boolean };
  /** Changes must carry it (X-CSRF-Token). */
  csrfToken: string;
  expiresAt: Date;
  /** Until when sensitive changes need no re-authentication (sudo mode). */
  reauthenticateAfter: Date;
}

export async function signIn(
  deps: DashboardDeps,
  input: { email: string; password: string; clientAddress: string },
): Promise<SignedIn | SecondFactorRequired> {
  const email = input.email.trim().toLowerCase();
  const admission = await deps.throttle.admit(email, input.clientAddress);
  const user = await deps.store.userByEmail(email);
  const ok = user?.passwordHash ? await verifyPassword(input.password, user.passwordHash) : await verifyNothing(input.password);
  if (!user || !ok) throw errors.signInFailed(); // the attempt stays counted against the e-mail
  await deps.throttle.succeeded(admission);
  return hasSecondFactor(user) ? challenge(deps, user) : startSession(deps, user, signInAudit(deps, user, input.clientAddress, "password"));
}

/** Uses a one-time link: sets the user's password, ends its other sessions, and signs it in. */
export async function useSignInLink(deps: DashboardDeps, token: string, password: unknown, clientAddress: string | null = null): Promise<SignedIn> {
  // The password's form is checked first, so a refused one leaves the link usable; it is hashed
  // only once the link is taken, so a made-up token costs no scrypt time.
  const checked = checkPassword(password);
  const user = await deps.store.useSignInLink(hashKey(token), deps.clock.now());
  if (!user) throw errors.signInLinkInvalid();
  const passwordHash = await hashPassword(checked);
  // Another invitation of the same e-mail (at another merchant) used at the same moment got the account.
  await deps.store.setPassword(user.id, passwordHash).catch((error: unknown) => {
    throw error instanceof DuplicateKeyError ? errors.signInLinkInvalid() : error;
  });
  await deps.store.deleteSessionsOf(user.id);
  return startSession(deps, { ...user, passwordHash }, signInAudit(deps, user, clientAddress, "one-time sign-in link"));
}

/** The audit entry of a sign-in: the user, from where, and with what it proved itself. */
function signInAudit(deps: DashboardDeps, user: DashboardUserRow, clientAddress: string | null, proof: string) {
  const by: ChangeAuthor = { kind: "user", userId: user.id, email: user.email, clientAddress };
  return auditEntry(by, user.merchantId, deps.clock.now(), "sign_in", proof);
}

async function startSession(deps: DashboardDeps, user: DashboardUserRow, audit: ReturnType<typeof signInAudit>): Promise<SignedIn> {
  const token = randomToken(43);
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + deps.policy.absoluteMs);
  await deps.store.createSession({ tokenHash: hashKey(token), userId: user.id, createdAt: now, expiresAt, audit });
  return { kind: "signed_in", token, expiresAt, user: userView(user) };
}

/** A password proved for a user with a second factor: a challenge token (256 bits, stored hashed) that a code turns into a session. */
async function challenge(deps: DashboardDeps, user: DashboardUserRow): Promise<SecondFactorRequired> {
  const challengeToken = randomToken(43);
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + deps.policy.challengeMs);
  await deps.secondFactors.createChallenge({ tokenHash: hashKey(challengeToken), userId: user.id, createdAt: now, expiresAt });
  return { kind: "second_factor_required", challengeToken, expiresAt, methods: secondFactorMethods(user) };
}

/**
 * The second step of a sign-in: the challenge and the app's code (or a recovery code) make the
 * session. A wrong code keeps the challenge (until its end) and is counted against the user; the
 * challenge is used once.
 */
/** The user a sign-in challenge belongs to, while it lasts; 401 otherwise. */
async function challengedUser(deps: DashboardDeps, challengeToken: unknown): Promise<{ tokenHash: string; user: DashboardUserRow }> {
  const tokenHash = typeof challengeToken === "string" && challengeToken !== "" ? hashKey(challengeToken) : null;
  const user = tokenHash && (await deps.secondFactors.challenge(tokenHash, deps.clock.now()));
  if (!tokenHash || !user) throw errors.signInChallengeInvalid();
  return { tokenHash, user };
}

/** The WebAuthn options to answer a sign-in challenge with a security key of its user. */
export async function signInSecurityKeyOptions(deps: DashboardDeps, challengeToken: unknown) {
  const { user } = await challengedUser(deps, challengeToken);
  return authenticationOptions(deps, user.id);
}

export async function completeSignIn(
  deps: DashboardDeps,
  input: { challengeToken: unknown; clientAddress: string } & SecondFactorProof,
): Promise<SignedIn> {
  const { tokenHash, user } = await challengedUser(deps, input.challengeToken);
  requireProof(input);
  await deps.secondFactorThrottle.admit(user.id);
  let proof: string;
  try {
    proof = await useSecondFactor(deps, user.id, input);
  } catch (error) {
    if (error instanceof PaygateError && error.code === "unauthenticated") {
      const what = FAILED_PROOFS[error.reason] ?? "a wrong code";
      await deps.audit.append({ ...signInAudit(deps, user, input.clientAddress, what), action: "sign_in.second_factor_failed" });
    }
    throw error;
  }
  if (!(await deps.secondFactors.endChallenge(tokenHash))) throw errors.signInChallengeInvalid();
  await deps.secondFactorThrottle.succeeded(user.id);
  return startSession(deps, user, signInAudit(deps, user, input.clientAddress, `password and ${proof}`));
}

/** How a refused second factor is named in the audit log. */
const FAILED_PROOFS: Record<string, string> = {
  second_factor_code_reused: "a code used already",
  security_key_failed: "a security key answer that did not verify",
  security_key_challenge_invalid: "a security key answer to an unknown or used challenge",
  security_key_counter_backwards: "a security key whose counter went backwards (cloned?)",
};

/** The session a cookie's token names; 401 session_required when there is none or it has ended. */
export async function sessionOf(deps: DashboardDeps, token: string | undefined, clientAddress: string | null = null): Promise<DashboardSession> {
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
  const mustEnrolSecondFactor = deps.requireSecondFactor && user.role !== "viewer" && !hasSecondFactor(user);
  return {
    actor: {
      userId: user.id,
      merchantId: user.merchantId,
      role: user.role,
      merchantActive: merchant.active,
      email: user.email,
      authenticatedAt: row.authenticatedAt,
      clientAddress,
      mustEnrolSecondFactor,
    },
    user: userView(user),
    merchant: {
      id: merchant.id,
      name: merchant.name,
      kybStatus: isKybStatus(merchant.kybStatus) ? merchant.kybStatus : "NONE",
      active: merchant.active,
    },
    csrfToken: csrfTokenOf(token),
    expiresAt: new Date(Math.min(row.expiresAt.getTime(), now + deps.policy.idleMs)),
    reauthenticateAfter: new Date(row.authenticatedAt.getTime() + deps.policy.reauthenticationMs),
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
export async function pruneSessions(deps: DashboardDeps): Promise<number> {
  const now = deps.clock.now();
  const challenges = await deps.securityKeys.pruneChallenges(now);
  return challenges + (await deps.store.prune(now, new Date(now.getTime() - deps.policy.idleMs)));
}

/** The page a one-time link opens: the token travels in the fragment, which browsers never send to a server or in a Referer. */
export function signInUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/dashboard/welcome#${token}`;
}
