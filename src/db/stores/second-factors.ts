// Dashboard users' second factors: the sealed TOTP secret and the last time step used (on the
// user's row), recovery codes and sign-in challenges (hashes only: the core hashes them). The
// one-time rules are single statements, so two requests with one code cannot both succeed.
import type { SecondFactorStore } from "../../core/stores/second-factors.ts";
import type { Database } from "../types.ts";
import { auditRow } from "./audit-log.ts";
import { dashboardUserFields, userRow } from "./dashboard.ts";

export function secondFactorStore(db: Database): SecondFactorStore {
  return {
    of: (userId) =>
      db.dashboardUser
        .findUnique({
          where: { id: userId },
          select: { id: true, totpSecretEnc: true, totpEnabledAt: true, totpLastStep: true },
        })
        .then((row) => row && { userId: row.id, totpSecretEnc: row.totpSecretEnc, totpEnabledAt: row.totpEnabledAt, totpLastStep: row.totpLastStep }),

    async beginTotp(userId, sealedSecret) {
      const changed = await db.dashboardUser.updateMany({ where: { id: userId, totpEnabledAt: null }, data: { totpSecretEnc: sealedSecret } });
      return changed.count === 1;
    },

    enableTotp: (userId, sealedSecret, step, recoveryCodeHashes, now, audit) =>
      db.$transaction(async (tx) => {
        const changed = await tx.dashboardUser.updateMany({
          where: { id: userId, totpEnabledAt: null, totpSecretEnc: sealedSecret },
          data: { totpEnabledAt: now, totpLastStep: step },
        });
        if (changed.count === 0) return false;
        await tx.dashboardRecoveryCode.deleteMany({ where: { userId } });
        await tx.dashboardRecoveryCode.createMany({ data: recoveryCodeHashes.map((codeHash) => ({ userId, codeHash })) });
        await tx.auditLogEntry.create({ data: auditRow(audit) });
        return true;
      }),

    disableTotp: (userId, audit) =>
      db.$transaction(async (tx) => {
        const changed = await tx.dashboardUser.updateMany({
          where: { id: userId, totpEnabledAt: { not: null } },
          data: { totpSecretEnc: null, totpEnabledAt: null, totpLastStep: null },
        });
        if (changed.count === 0) return false;
        await tx.dashboardRecoveryCode.deleteMany({ where: { userId } });
        await tx.auditLogEntry.create({ data: auditRow(audit) });
        return true;
      }),

    async useTotpStep(userId, step) {
      const changed = await db.dashboardUser.updateMany({
        where: { id: userId, totpEnabledAt: { not: null }, OR: [{ totpLastStep: null }, { totpLastStep: { lt: step } }] },
        data: { totpLastStep: step },
      });
      return changed.count === 1;
    },

    async useRecoveryCode(userId, codeHash, now) {
      const used = await db.dashboardRecoveryCode.updateMany({ where: { userId, codeHash, usedAt: null }, data: { usedAt: now } });
      if (used.count === 0) return null;
      return db.dashboardRecoveryCode.count({ where: { userId, usedAt: null } });
    },

    recoveryCodesLeft: (userId) => db.dashboardRecoveryCode.count({ where: { userId, usedAt: null } }),

    async createChallenge(challenge) {
      await db.dashboardSignInChallenge.create({ data: challenge });
    },

    async challenge(tokenHash, now) {
      const row = await db.dashboardSignInChallenge.findUnique({
        where: { tokenHash },
        select: { expiresAt: true, user: { select: dashboardUserFields } },
      });
      return row && row.expiresAt > now ? userRow(row.user) : null;
    },

    endChallenge: async (tokenHash) => (await db.dashboardSignInChallenge.deleteMany({ where: { tokenHash } })).count === 1,
  };
}
