// Dashboard users, their one-time sign-in links and their sessions. Tokens are stored as their
// SHA-256 only (the core hashes them); a removed user takes its sessions and links with it (cascade).
import type { DashboardStore, DashboardUserRow } from "../../core/stores.ts";
import type { Database } from "../types.ts";
import { merchantIdentity } from "./rows.ts";

const user = { id: true, merchantId: true, email: true, role: true, passwordHash: true, createdAt: true } as const;

export function dashboardStore(db: Database): DashboardStore {
  return {
    merchant: (id) => db.merchant.findUnique({ where: { id }, ...merchantIdentity }),

    createUser: (row, link) => db.dashboardUser.create({ data: { ...row, ...(link ? { signInLinks: { create: link } } : {}) }, select: user }),

    userByEmail: (email) => db.dashboardUser.findUnique({ where: { email }, select: user }),

    userOf: (merchantId, id) => db.dashboardUser.findFirst({ where: { id, merchantId }, select: user }),

    listUsers: (merchantId) => db.dashboardUser.findMany({ where: { merchantId }, select: user, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),

    changeUser: (merchantId, id, { actorId, change, check }) =>
      db.$transaction(async (tx): Promise<DashboardUserRow | null> => {
        // The merchant's row lock serialises every change to its users: the owner count read below stays true until commit.
        await tx.$queryRaw`SELECT id FROM merchants WHERE id = ${merchantId} FOR UPDATE`;
        const users = await tx.dashboardUser.findMany({ where: { merchantId }, select: user });
        const target = users.find((u) => u.id === id);
        if (!target) return null;
        const roleAfter = change === "remove" ? null : change.role;
        const ownersAfter = users.filter((u) => (u.id === id ? roleAfter === "owner" : u.role === "owner")).length;
        check(users.find((u) => u.id === actorId) ?? null, target, ownersAfter);
        if (change === "remove") {
          await tx.dashboardUser.delete({ where: { id } });
          return target;
        }
        return tx.dashboardUser.update({ where: { id }, data: { role: change.role }, select: user });
      }),

    async useSignInLink(tokenHash, now) {
      // One statement: of two uses at once, one marks it and the other finds it used.
      const used = await db.dashboardSignInLink.updateMany({ where: { tokenHash, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
      if (used.count === 0) return null;
      const link = await db.dashboardSignInLink.findUnique({ where: { tokenHash }, select: { user: { select: user } } });
      return link?.user ?? null;
    },

    async setPassword(id, passwordHash) {
      await db.dashboardUser.update({ where: { id }, data: { passwordHash } });
    },

    async createSession(session) {
      await db.dashboardSession.create({ data: { ...session, lastSeenAt: session.createdAt } });
    },

    async sessionByHash(tokenHash) {
      const row = await db.dashboardSession.findUnique({
        where: { tokenHash },
        select: { tokenHash: true, createdAt: true, lastSeenAt: true, expiresAt: true, user: { select: { ...user, merchant: merchantIdentity } } },
      });
      if (!row) return null;
      const { merchant, ...owner } = row.user;
      return { ...row, user: owner, merchant };
    },

    async touchSession(tokenHash, now) {
      await db.dashboardSession.updateMany({ where: { tokenHash }, data: { lastSeenAt: now } });
    },

    deleteSession: async (tokenHash) => (await db.dashboardSession.deleteMany({ where: { tokenHash } })).count,

    deleteSessionsOf: async (userId) => (await db.dashboardSession.deleteMany({ where: { userId } })).count,

    async prune(now, idleBefore) {
      const sessions = await db.dashboardSession.deleteMany({ where: { OR: [{ expiresAt: { lte: now } }, { lastSeenAt: { lt: idleBefore } }] } });
      const links = await db.dashboardSignInLink.deleteMany({ where: { expiresAt: { lte: now } } });
      return sessions.count + links.count;
    },
  };
}
