// Dashboard users' WebAuthn security keys (public keys and signature counters: no secret) and the
// WebAuthn challenges handed to browsers (their SHA-256 only: the core hashes them). Using a
// challenge or moving a counter is one statement, so one assertion cannot pass twice.
import type { SecurityKeyRow, SecurityKeyStore } from "../../core/stores/security-keys.ts";
import type { Database } from "../types.ts";
import { auditRow } from "./audit-log.ts";

interface StoredKey extends Omit<SecurityKeyRow, "counter"> {
  counter: bigint;
}

const keyOf = (row: StoredKey): SecurityKeyRow => ({ ...row, publicKey: new Uint8Array(row.publicKey), counter: Number(row.counter) });

export function securityKeyStore(db: Database): SecurityKeyStore {
  return {
    listOf: async (userId) =>
      (await db.dashboardSecurityKey.findMany({ where: { userId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] })).map(keyOf),

    byCredentialId: async (credentialId) => {
      const row = await db.dashboardSecurityKey.findUnique({ where: { credentialId } });
      return row && keyOf(row);
    },

    async add(key, audit) {
      await db.$transaction([
        db.dashboardSecurityKey.create({ data: { ...key, publicKey: Buffer.from(key.publicKey), counter: BigInt(key.counter) } }),
        db.auditLogEntry.create({ data: auditRow(audit) }),
      ]);
    },

    remove: (userId, id, audit) =>
      db.$transaction(async (tx) => {
        const row = await tx.dashboardSecurityKey.findFirst({ where: { id, userId } });
        if (!row) return null;
        const key = keyOf(row);
        if ((await tx.dashboardSecurityKey.deleteMany({ where: { id, userId } })).count === 0) return null;
        await tx.auditLogEntry.create({ data: auditRow(audit(key)) });
        return key;
      }),

    removeAllOf: (userId, audit) =>
      db.$transaction(async (tx) => {
        const removed = (await tx.dashboardSecurityKey.deleteMany({ where: { userId } })).count;
        if (removed > 0) await tx.auditLogEntry.create({ data: auditRow(audit) });
        return removed;
      }),

    async useCounter(id, from, to, now) {
      const moved = await db.dashboardSecurityKey.updateMany({
        where: { id, counter: BigInt(from) },
        data: { counter: BigInt(to), lastUsedAt: now },
      });
      return moved.count === 1;
    },

    async createChallenge(challenge) {
      await db.dashboardWebAuthnChallenge.create({ data: challenge });
    },

    async useChallenge(challengeHash, userId, purpose, now) {
      const used = await db.dashboardWebAuthnChallenge.deleteMany({ where: { challengeHash, userId, purpose, expiresAt: { gt: now } } });
      return used.count === 1;
    },

    pruneChallenges: async (now) => (await db.dashboardWebAuthnChallenge.deleteMany({ where: { expiresAt: { lte: now } } })).count,
  };
}
