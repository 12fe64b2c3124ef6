// Dashboard users: created by an operator (`paygate user create`) or invited by an owner, listed,
// given another role, removed. A merchant always keeps one owner. An e-mail has one account (a
// user with a password) across all merchants, so signing in needs only the e-mail
// (docs/dashboard.md). An owner's invitation says nothing about other merchants: one for an e-mail that
// has an account elsewhere is stored and answered like any other, and its link never signs in.
import { DuplicateKeyError, errors } from "../errors.ts";
import { hashKey, randomToken } from "../secrets.ts";
import type { DashboardUserRow, UserChange } from "../stores/dashboard.ts";
import { authorize, type DashboardActor } from "../access/roles.ts";
import { auditEntry, authorOf, OPERATOR, type ChangeAuthor } from "../access/audit-log.ts";
import { checkPassword, checkRole, normalEmail } from "./fields.ts";
import { hashPassword } from "./passwords.ts";
import { requireRecentAuthentication } from "./reauthentication.ts";
import { signInUrl, userView, type DashboardDeps, type DashboardUserView } from "./sessions.ts";

export interface CreatedUser {
  user: DashboardUserView;
  /** The one-time sign-in link, shown once; null when the user was given a password. */
  signInUrl: string | null;
  signInUrlExpiresAt: Date | null;
}

/** The operator's way in (no actor): a user with a password, or with a one-time sign-in link. */
export async function createUser(
  deps: DashboardDeps,
  input: { merchantId: number; email: unknown; role: unknown; password?: unknown },
  by: ChangeAuthor = OPERATOR,
): Promise<CreatedUser> {
  const email = normalEmail(input.email);
  const role = checkRole(input.role);
  const passwordHash = input.password === undefined ? null : await hashPassword(checkPassword(input.password));
  const merchant = await deps.store.merchant(input.merchantId);
  if (!merchant) throw errors.merchantNotFound(input.merchantId);
  // The operator sees every merchant: an e-mail any user has is taken. An owner learns only of its own users.
  const operator = by.kind === "operator";
  if (operator && (await deps.store.emailInUse(email))) throw errors.dashboardEmailTaken();
  const token = passwordHash === null ? randomToken(43) : null;
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + deps.policy.signInLinkMs);
  let row: DashboardUserRow;
  try {
    row = await deps.store.createUser(
      { id: `usr_${randomToken(20)}`, merchantId: input.merchantId, email, role, passwordHash },
      token ? { tokenHash: hashKey(token), createdAt: now, expiresAt } : null,
      auditEntry(by, input.merchantId, now, by.kind === "operator" ? "user.create" : "user.invite", `${email} (${role})`),
    );
  } catch (error) {
    if (error instanceof DuplicateKeyError) throw operator ? errors.dashboardEmailTaken() : errors.dashboardEmailTakenHere();
    throw error;
  }
  return { user: userView(row), signInUrl: token && signInUrl(deps.publicUrl, token), signInUrlExpiresAt: token ? expiresAt : null };
}

/**
 * The operator's way back in for a user who lost its password or never used its link (issue 46: a
 * sole owner was locked out): a new one-time sign-in link, shown once, valid as long as the first.
 * Using it sets a new password and ends the user's other sessions (useSignInLink); the old password
 * works until then. Audited as the operator's.
 */
export async function issueSignInLink(deps: DashboardDeps, email: unknown): Promise<CreatedUser> {
  const normal = normalEmail(email);
  const user = await deps.store.userToRecover(normal);
  if (!user) throw errors.dashboardEmailNotFound(normal);
  const token = randomToken(43);
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + deps.policy.signInLinkMs);
  const audit = auditEntry(OPERATOR, user.merchantId, now, "user.sign_in_link", `${user.email} (${user.role}): a new one-time sign-in link`);
  await deps.store.addSignInLink(user.id, { tokenHash: hashKey(token), createdAt: now, expiresAt }, audit);
  return { user: userView(user), signInUrl: signInUrl(deps.publicUrl, token), signInUrlExpiresAt: expiresAt };
}

/** An owner invites a user: it gets a one-time sign-in link, shown once, to pass on. */
export function inviteUser(deps: DashboardDeps, actor: DashboardActor, input: { email: unknown; role: unknown }): Promise<CreatedUser> {
  authorize(actor, "manage_users");
  requireRecentAuthentication(deps, actor);
  return createUser(deps, { merchantId: actor.merchantId, email: input.email, role: input.role }, authorOf(actor));
}

export async function listUsers(deps: DashboardDeps, actor: DashboardActor): Promise<DashboardUserView[]> {
  authorize(actor, "read");
  return (await deps.store.listUsers(actor.merchantId)).map(userView);
}

/**
 * Under the lock: the actor may still manage users (its role may have changed since its request
 * began: two owners demoting each other at once), and the merchant keeps an owner.
 */
function checked(deps: DashboardDeps, actor: DashboardActor, change: UserChange["change"]): UserChange {
  return {
    actorId: actor.userId,
    change,
    check(current, _user, ownersAfter) {
      if (!current) throw errors.sessionRequired();
      authorize({ ...actor, role: current.role }, "manage_users");
      if (ownersAfter === 0) throw errors.lastOwner();
    },
    audit: (user) =>
      change === "remove"
        ? auditEntry(authorOf(actor), actor.merchantId, deps.clock.now(), "user.remove", `${user.email} (${user.role})`)
        : auditEntry(authorOf(actor), actor.merchantId, deps.clock.now(), "user.role_change", `${user.email}: ${user.role} → ${change.role}`),
  };
}

export async function changeRole(deps: DashboardDeps, actor: DashboardActor, userId: string, role: unknown): Promise<DashboardUserView> {
  authorize(actor, "manage_users");
  requireRecentAuthentication(deps, actor);
  const row = await deps.store.changeUser(actor.merchantId, userId, checked(deps, actor, { role: checkRole(role) }));
  if (!row) throw errors.dashboardUserNotFound(userId);
  return userView(row);
}

/** Removes the user with its sessions (they end at once) and links. */
export async function removeUser(deps: DashboardDeps, actor: DashboardActor, userId: string): Promise<DashboardUserView> {
  authorize(actor, "manage_users");
  requireRecentAuthentication(deps, actor);
  const row = await deps.store.changeUser(actor.merchantId, userId, checked(deps, actor, "remove"));
  if (!row) throw errors.dashboardUserNotFound(userId);
  return userView(row);
}
