// Dashboard users, their one-time sign-in links and their sessions. Tokens are stored as their
// SHA-256 only (the core hashes them); a removed user takes its sessions and links with it (cascade).
// A change's audit entry (audit-log.ts) is written in the change's database transaction.
import type { DashboardStore, DashboardUserRow } from "../../core/stores/dashboard.ts";
import type { Database } from "../types.ts";
import { auditRow } from "./audit-log.ts";
import { merchantIdentity } from "./rows.ts";

/** A DashboardUserRow's columns. */
export const dashboardUserFields = {
  id: true,
  merchantId: true,
  email: true,
  role: true,
  passwordHash: true,
  createdAt: true,
  totpEnabledAt: true,
  _count: { select: { securityKeys: true } },
} as const;
const user = dashboardUserFields;

/** A row read with dashboardUserFields as the core's DashboardUserRow (its security keys counted). */
export const userRow = <T extends { _count: { securityKeys: number } }>({ _count, ...row }: T) => ({ ...row, securityKeyCount: _count.securityKeys });

export function dashboardStore(db: Database): DashboardStore {
  return {
    merchant: (id) => db.merchant.findUnique({ where: { id }, ...merchantIdentity }),

    createUser: (row, link, audit) =>
      db.$transaction(async (tx) => {
        const created = await tx.dashboardUser.create({ data: { ...row, ...(link ? { signInLinks: { create: link } } : {}) }, select: user });
        if (audit) await tx.auditLogEntry.create({ data: auditRow(audit) });
        return userRow(created);
      }),

    // At most one row of an e-mail has a password (the partial unique index dashboard_users_account_email_key).
    userByEmail: async (email) => {
      const row = await db.dashboardUser.findFirst({ where: { email, passwordHash: { not: null } }, select: user });
      return row && userRow(row);
    },

    userToRecover: async (email) => {
      const row = await db.dashboardUser.findFirst({
        where: { email },
        select: user,
        // The account (a password set) first, else the newest invitation.
        orderBy: [{ passwordHash: { sort: "asc", nulls: "last" } }, { createdAt: "desc" }, { id: "desc" }],
      });
      return row && userRow(row);
    },

    addSignInLink: (userId, link, audit) =>
      db.$transaction(async (tx) => {
        await tx.dashboardSignInLink.create({ data: { ...link, userId } });
        await tx.auditLogEntry.create({ data: auditRow(audit) });
      }),

    emailInUse: async (email) => (await db.dashboardUser.count({ where: { email } })) > 0,

    userOf: async (merchantId, id) => {
      const row = await db.dashboardUser.findFirst({ where: { id, merchantId }, select: user });
      return row && userRow(row);
    },

    listUsers: async (merchantId) =>
      (await db.dashboardUser.findMany({ where: { merchantId }, select: user, orderBy: [{ createdAt: "asc" }, { id: "asc" }] })).map(userRow),

    changeUser: (merchantId, id, { actorId, change, check, audit }) =>
      db.$transaction(async (tx): Promise<DashboardUserRow | null> => {
        // The merchant's row lock serialises every change to its users: the owner count read below stays true until commit.
        await tx.$queryRaw`SELECT id FROM merchants WHERE id = ${merchantId} FOR UPDATE`;
        const users = (await tx.dashboardUser.findMany({ where: { merchantId }, select: user })).map(userRow);
        const target = users.find((u) => u.id === id);
        if (!target) return null;
        const roleAfter = change === "remove" ? null : change.role;
        const ownersAfter = users.filter((u) => (u.id === id ? roleAfter === "owner" : u.role === "owner")).length;
        check(users.find((u) => u.id === actorId) ?? null, target, ownersAfter);
        if (audit) await tx.auditLogEntry.create({ data: auditRow(audit(target)) });
        if (change === "remove") {
          await tx.dashboardUser.delete({ where: { id } });
          return target;
        }
        return userRow(await tx.dashboardUser.update({ where: { id }, data: { role: change.role }, select: user }));
      }),

    async useSignInLink(tokenHash, now) {
      // One statement: of two uses at once, one marks it and the other finds it used. An invitation
      // whose e-mail has an account at another merchant is never used (left as it is).
      const used = await db.$executeRaw`
        UPDATE dashboard_sign_in_links l SET used_at = ${now}
        FROM dashboard_users u
        WHERE l.token_hash = ${tokenHash} AND l.used_at IS NULL AND l.expires_at > ${now} AND u.id = l.user_id
          AND NOT EXISTS (SELECT 1 FROM dashboard_users o WHERE o.email = u.email AND o.id <> u.id AND o.password_hash IS NOT NULL)`;
      if (used === 0) return null;
      const link = await db.dashboardSignInLink.findUnique({ where: { tokenHash }, select: { user: { select: user } } });
      return link ? userRow(link.user) : null;
    },

    async setPassword(id, passwordHash) {
      await db.dashboardUser.update({ where: { id }, data: { passwordHash } });
    },

    async createSession({ audit, ...session }) {
      const create = db.dashboardSession.create({ data: { ...session, lastSeenAt: session.createdAt, authenticatedAt: session.createdAt } });
      if (audit) await db.$transaction([create, db.auditLogEntry.create({ data: auditRow(audit) })]);
      else await create;
    },

    async sessionByHash(tokenHash) {
      const row = await db.dashboardSession.findUnique({
        where: { tokenHash },
        select: {
          tokenHash: true,
          createdAt: true,
          lastSeenAt: true,
          expiresAt: true,
          authenticatedAt: true,
          user: { select: { ...user, merchant: merchantIdentity } },
        },
      });
      if (!row) return null;
      const { merchant, ...owner } = row.user;
      return { ...row, user: userRow(owner), merchant };
    },

    async touchSession(tokenHash, now) {
      await db.dashboardSession.updateMany({ where: { tokenHash }, data: { lastSeenAt: now } });
    },

    reauthenticated: async (tokenHash, now) =>
      (await db.dashboardSession.updateMany({ where: { tokenHash }, data: { authenticatedAt: now, lastSeenAt: now } })).count === 1,

    deleteSession: async (tokenHash) => (await db.dashboardSession.deleteMany({ where: { tokenHash } })).count,

    deleteSessionsOf: async (userId) => (await db.dashboardSession.deleteMany({ where: { userId } })).count,

    async prune(now, idleBefore) {
      const sessions = await db.dashboardSession.deleteMany({ where: { OR: [{ expiresAt: { lte: now } }, { lastSeenAt: { lt: idleBefore } }] } });
      const links = await db.dashboardSignInLink.deleteMany({ where: { expiresAt: { lte: now } } });
      const challenges = await db.dashboardSignInChallenge.deleteMany({ where: { expiresAt: { lte: now } } });
      return sessions.count + links.count + challenges.count;
    },
  };
}
