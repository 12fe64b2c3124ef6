// The dashboard accounts context's façade: signing in (password, second factor, security keys, sign-in
// links), sessions and sudo mode, a user's own second factor and keys, the merchant's users and its
// audit log. A user's own account takes its DashboardActor; the merchant's objects a MerchantReach.
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/server";
import type { CoreDeps } from "../deps.ts";
import type { DashboardActor, MerchantReach } from "../access/roles.ts";
import { auditLogPage, type AuditLogPage } from "../access/audit-log.ts";
import {
  disableSecondFactor,
  reauthenticate,
  reauthenticationOptions,
  requireRecentAuthentication,
  type Reauthentication,
} from "../dashboard/reauthentication.ts";
import { beginEnrolment, confirmEnrolment, type SecondFactorProof, type TotpEnrolment } from "../dashboard/second-factor.ts";
import { listSecurityKeys, registerSecurityKey, registrationOptions, removeSecurityKey, type SecurityKeyView } from "../dashboard/security-keys.ts";
import {
  completeSignIn,
  type DashboardDeps,
  type DashboardSession,
  type DashboardUserView,
  type SecondFactorRequired,
  type SignedIn,
  sessionOf,
  signIn,
  signInSecurityKeyOptions,
  signOut,
  signOutEverywhere,
  useSignInLink,
} from "../dashboard/sessions.ts";
import { changeRole, type CreatedUser, inviteUser, listUsers, removeUser } from "../dashboard/users.ts";

export class DashboardAccounts {
  constructor(
    private readonly deps: Pick<CoreDeps, "stores">,
    private readonly dashboard: DashboardDeps,
  ) {}

  /**
   * Signs in with e-mail and password; throttled per e-mail and per client address (429). A user with
   * a second factor gets a challenge instead of a session, for completeSignIn.
   */
  signIn(input: { email: string; password: string; clientAddress: string }): Promise<SignedIn | SecondFactorRequired> {
    return signIn(this.dashboard, input);
  }

  /** The second step of a sign-in: the challenge with the app's code or a recovery code; wrong codes throttled per user (429). */
  completeSignIn(input: { challengeToken: unknown; clientAddress: string } & SecondFactorProof): Promise<SignedIn> {
    return completeSignIn(this.dashboard, input);
  }

  /** Uses a one-time sign-in link: sets the password, ends the user's other sessions, signs in. */
  useSignInLink(token: string, password: unknown, clientAddress: string | null = null): Promise<SignedIn> {
    return useSignInLink(this.dashboard, token, password, clientAddress);
  }

  /** The session a cookie names, with its actor (from `clientAddress`) and CSRF token; 401 session_required otherwise. */
  session(token: string | undefined, clientAddress: string | null = null): Promise<DashboardSession> {
    return sessionOf(this.dashboard, token, clientAddress);
  }

  /** Sudo mode: the password (and second factor) proved again; the session's sensitive changes are allowed for a few more minutes. */
  reauthenticate(token: string | undefined, clientAddress: string | null, input: Reauthentication): Promise<DashboardSession> {
    return reauthenticate(this.dashboard, token, clientAddress, input);
  }

  /** Starts setting up an authenticator app (sudo mode): the secret, its otpauth:// URI and QR code, shown once. */
  async beginSecondFactor(actor: DashboardActor): Promise<TotpEnrolment> {
    requireRecentAuthentication(this.dashboard, actor);
    return beginEnrolment(this.dashboard, actor);
  }

  /** The app's code turns the second factor on; the ten recovery codes are answered this once. */
  confirmSecondFactor(actor: DashboardActor, code: unknown): Promise<{ recoveryCodes: string[] }> {
    return confirmEnrolment(this.dashboard, actor, code);
  }

  /** Turns the actor's second factor off, with its password and a code. */
  disableSecondFactor(actor: DashboardActor, input: Reauthentication): Promise<void> {
    return disableSecondFactor(this.dashboard, actor, input);
  }

  /** The actor's WebAuthn security keys (never their public keys). */
  securityKeys(actor: DashboardActor): Promise<SecurityKeyView[]> {
    return listSecurityKeys(this.dashboard, actor);
  }

  /** Starts registering a security key (sudo mode): the options for navigator.credentials.create(). */
  async securityKeyRegistrationOptions(actor: DashboardActor): Promise<PublicKeyCredentialCreationOptionsJSON> {
    requireRecentAuthentication(this.dashboard, actor);
    return registrationOptions(this.dashboard, actor);
  }

  /** Registers the key the browser created for the last options, under a name; audited. */
  registerSecurityKey(actor: DashboardActor, input: { name: unknown; response: unknown }): Promise<SecurityKeyView> {
    return registerSecurityKey(this.dashboard, actor, input);
  }

  /** Removes one of the actor's security keys (sudo mode); audited. */
  async removeSecurityKey(actor: DashboardActor, id: string): Promise<void> {
    requireRecentAuthentication(this.dashboard, actor);
    return removeSecurityKey(this.dashboard, actor, id);
  }

  /** The options for navigator.credentials.get() that answer a sign-in challenge with a security key. */
  signInSecurityKeyOptions(challengeToken: unknown): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return signInSecurityKeyOptions(this.dashboard, challengeToken);
  }

  /** The options for navigator.credentials.get() that re-authenticate the session's user with a security key. */
  reauthenticationSecurityKeyOptions(token: string | undefined, clientAddress: string | null): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return reauthenticationOptions(this.dashboard, token, clientAddress);
  }

  signOut(token: string): Promise<void> {
    return signOut(this.dashboard, token);
  }

  signOutEverywhere(actor: DashboardActor): Promise<number> {
    return signOutEverywhere(this.dashboard, actor);
  }

  // ── The merchant's users and audit log ──

  inviteUser(actor: DashboardActor, input: { email: unknown; role: unknown }): Promise<CreatedUser> {
    return inviteUser(this.dashboard, actor, input);
  }

  listUsers(actor: DashboardActor): Promise<DashboardUserView[]> {
    return listUsers(this.dashboard, actor);
  }

  changeUserRole(actor: DashboardActor, userId: string, role: unknown): Promise<DashboardUserView> {
    return changeRole(this.dashboard, actor, userId, role);
  }

  removeUser(actor: DashboardActor, userId: string): Promise<DashboardUserView> {
    return removeUser(this.dashboard, actor, userId);
  }

  /** The merchant's audit log, newest first (read_audit_log: owners only). */
  auditLog(access: MerchantReach, params: Record<string, unknown>): Promise<AuditLogPage> {
    return auditLogPage(this.deps, access, params);
  }
}
