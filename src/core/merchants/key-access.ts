// Who may change what with an API key (issue 41). A key reaches one mode of one merchant; within it:
// - what a key may change follows the role of the dashboard user who rolled it, as it would in the
//   dashboard (a developer cannot manage pricing there, so a key a developer rolled cannot either);
//   a key the operator made (merchant create, `paygate keys roll`) may do all a secret key does;
// - a test-mode key changes nothing live mode uses (merchant-wide settings such as pricing);
// - each change is audited as the key (its id and prefix, who rolled it) from the request's address.
import { isDashboardRole, roleGrants, type DashboardPermission } from "../access/roles.ts";
import type { ChangeAuthor } from "../access/audit-log.ts";
import { errors } from "../errors.ts";
import type { Caller } from "../credentials.ts";

/** Refuses (403 key_role_forbidden) a key whose rolled-by role lacks the permission; an unknown role is refused too. */
export function authorizeKey(caller: Pick<Caller, "key">, permission: DashboardPermission): void {
  const role = caller.key?.createdByRole ?? null;
  if (role === null) return;
  if (isDashboardRole(role) && roleGrants(role, permission)) return;
  throw errors.keyRoleForbidden(role, permission);
}

/** Refuses (403 test_key_live_setting) a test-mode key's change of a setting that live mode uses. */
export function requireLiveKey(caller: Pick<Caller, "isLive">, setting: string): void {
  if (!caller.isLive) throw errors.testKeyForLiveSetting(setting);
}

/** Whom the audit log names for a key's change: the key, who rolled it, and the request's address. */
export function keyAuthor(caller: Pick<Caller, "key">, clientAddress: string | null): ChangeAuthor {
  const key = caller.key;
  if (key === null) throw new Error("Only a change made with an API key is audited as one");
  return {
    kind: "api_key",
    keyId: key.id,
    keyPrefix: key.prefix,
    createdByUserId: key.createdByUserId,
    createdByEmail: key.createdByEmail,
    clientAddress,
  };
}
