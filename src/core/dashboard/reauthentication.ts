// Sudo mode (GitHub's): a change that redirects money or events, or hands out access (a wallet, a
// webhook URL or secret, an API key, users, a second factor), needs the password (and the second
// factor, when the user has one) proved within the last few minutes (SessionPolicy.reauthenticationMs,
// 10 by default), whatever the session's age. Signing in proves it; so does a re-authentication,
// which refreshes the session's `authenticatedAt`. Wrong passwords and codes here are throttled per
// user like second-factor codes, so a stolen session cookie cannot be used to guess the password.
import { errors } from "../errors.ts";
import { hashKey } from "../secrets.ts";
import type { DashboardActor } from "../access/roles.ts";
import { auditEntry, authorOf, OPERATOR } from "../access/audit-log.ts";
import { normalEmail } from "./fields.ts";
import { verifyNothing, verifyPassword } from "./passwords.ts";
import { authenticationOptions } from "./security-keys.ts";
import { hasSecondFactor, requireProof, useSecondFactor, type SecondFactorProof } from "./second-factor.ts";
import { sessionOf, type DashboardDeps, type DashboardSession } from "./sessions.ts";

/** What a re-authentication (or turning the second factor off) sends: the password, and a proof of the second factor when it is on. */
export type Reauthentication = { password: unknown } & SecondFactorProof;

/** Refuses (403 `reauthentication_required`, nothing changed) an actor whose last proof is older than the policy allows. */
export function requireRecentAuthentication(deps: Pick<DashboardDeps, "clock" | "policy">, actor: Pick<DashboardActor, "authenticatedAt">): void {
  if (deps.clock.now().getTime() - actor.authenticatedAt.getTime() < deps.policy.reauthenticationMs) return;
  throw errors.reauthenticationRequired(Math.round(deps.policy.reauthenticationMs / 60_000));
}

/** Proves the password (and second factor) again: the session's sensitive changes are allowed for another few minutes. */
export async function reauthenticate(
  deps: DashboardDeps,
  token: string | undefined,
  clientAddress: string | null,
  input: Reauthentication,
): Promise<DashboardSession> {
  const session = await sessionOf(deps, token, clientAddress);
  await proveAgain(deps, session.actor, input);
  if (!token || !(await deps.store.reauthenticated(hashKey(token), deps.clock.now()))) throw errors.sessionRequired();
  return sessionOf(deps, token, clientAddress);
}

/** Turns the user's own second factor off: always with its password and a code (a re-authentication in itself). */
export async function disableSecondFactor(deps: DashboardDeps, actor: DashboardActor, input: Reauthentication): Promise<void> {
  const factor = await deps.secondFactors.of(actor.userId);
  if (!factor?.totpEnabledAt) throw errors.secondFactorNotEnabled();
  await proveAgain(deps, actor, input);
  const audit = auditEntry(authorOf(actor), actor.merchantId, deps.clock.now(), "second_factor.disable", "authenticator app and recovery codes");
  if (!(await deps.secondFactors.disableTotp(actor.userId, audit))) throw errors.secondFactorNotEnabled();
}

/** The WebAuthn options to re-authenticate with one of the session's user's security keys. */
export async function reauthenticationOptions(deps: DashboardDeps, token: string | undefined, clientAddress: string | null) {
  const session = await sessionOf(deps, token, clientAddress);
  return authenticationOptions(deps, session.actor.userId);
}

/**
 * The operator's way back in for a user who lost its authenticator app and recovery codes (or its
 * security keys) (`paygate user reset-second-factor`): every factor is turned off, audited as the
 * operator's; the user signs in with its password and can set up a new one.
 */
export async function resetSecondFactor(deps: DashboardDeps, email: unknown): Promise<{ userId: string; email: string; merchantId: number }> {
  const user = await deps.store.userByEmail(normalEmail(email));
  if (!user) throw errors.dashboardEmailNotFound(String(email));
  const audit = auditEntry(
    OPERATOR,
    user.merchantId,
    deps.clock.now(),
    "second_factor.disable",
    `${user.email}: authenticator app and recovery codes (reset by the operator)`,
  );
  const app = await deps.secondFactors.disableTotp(user.id, audit);
  const keysAudit = { ...audit, action: "security_key.remove" as const, target: `${user.email}: every security key (reset by the operator)` };
  const keys = await deps.securityKeys.removeAllOf(user.id, keysAudit);
  if (!app && keys === 0) throw errors.secondFactorNotEnabled();
  return { userId: user.id, email: user.email, merchantId: user.merchantId };
}

/** The actor's password, then (with a factor on) its code or a recovery code; counted against the user (429 past the limit). */
async function proveAgain(deps: DashboardDeps, actor: DashboardActor, input: Reauthentication): Promise<void> {
  if (typeof input.password !== "string" || input.password === "") {
    throw errors.invalidDashboardUser([{ field: "password", message: "is required: your dashboard password" }]);
  }
  const user = await deps.store.userOf(actor.merchantId, actor.userId);
  if (!user) throw errors.sessionRequired();
  if (hasSecondFactor(user)) requireProof(input);
  await deps.secondFactorThrottle.admit(user.id);
  const ok = user.passwordHash ? await verifyPassword(input.password, user.passwordHash) : await verifyNothing(input.password);
  if (!ok) throw errors.reauthenticationFailed();
  if (hasSecondFactor(user)) await useSecondFactor(deps, user.id, input);
  await deps.secondFactorThrottle.succeeded(user.id);
}
