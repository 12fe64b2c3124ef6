// Who acts on a merchant, resolved once per request by the door it came through: the operator (the
// CLI, which holds the database and the encryption key already), a secret key (REST, GraphQL) or a
// signed-in dashboard user. Every façade use case then states what it needs on this one object (a
// permission, a recent password, a live key for a live setting), so each rule is written once per
// use case whichever door called it, and no door can skip it.
import { authorize, type DashboardActor, type MerchantReach } from "../access/roles.ts";
import { authorOf, OPERATOR, type ChangeAuthor } from "../access/audit-log.ts";
import { requireRecentAuthentication } from "../dashboard/reauthentication.ts";
import type { DashboardDeps } from "../dashboard/sessions.ts";
import type { Caller } from "../credentials.ts";
import { authorizeKey, keyAuthor, requireLiveKey } from "../merchants/key-access.ts";

/** `isLive`: the mode reached, a key's own, the mode the dashboard shows, the CLI's `--mode` (test unless said). */
export interface MerchantAccess extends MerchantReach {
  /** Who, in the audit log. */
  readonly by: ChangeAuthor;
  /** The signed-in user behind a dashboard request (a key it rolls names it); null through the other doors. */
  readonly user: DashboardActor | null;
  /** Sudo mode: a dashboard session must have proved its password recently (401 reauthentication_required). */
  requireRecentProof(): void;
  /** A merchant-wide setting live payments use: refused (403 test_key_live_setting) to a test-mode key. */
  requireLiveSetting(setting: string): void;
}

const nothingToCheck = () => {};

/** The CLI's access: any change, audited as the operator. */
export function operatorAccess(merchantId: number, isLive = false): MerchantAccess {
  return {
    merchantId,
    isLive,
    by: OPERATOR,
    user: null,
    require: nothingToCheck,
    requireRecentProof: nothingToCheck,
    requireLiveSetting: nothingToCheck,
  };
}

/** A dashboard user's access to its merchant in the mode the dashboard shows; its role and session decide. */
export function dashboardAccess(sessions: Pick<DashboardDeps, "clock" | "policy">, actor: DashboardActor, isLive = false): MerchantAccess {
  return {
    merchantId: actor.merchantId,
    isLive,
    by: authorOf(actor),
    user: actor,
    require: (permission) => authorize(actor, permission),
    requireRecentProof: () => requireRecentAuthentication(sessions, actor),
    requireLiveSetting: nothingToCheck,
  };
}

/**
 * An authenticated secret key's access: its merchant and mode; what it may change follows the role of
 * whoever rolled it, and each change is audited as the key from `clientAddress` (key-access.ts).
 */
export function keyAccess(caller: Caller, clientAddress: string | null): MerchantAccess {
  return {
    merchantId: caller.merchant.id,
    isLive: caller.isLive,
    get by() {
      return keyAuthor(caller, clientAddress);
    },
    user: null,
    require: (permission) => authorizeKey(caller, permission),
    requireRecentProof: nothingToCheck,
    requireLiveSetting: (setting) => requireLiveKey(caller, setting),
  };
}
