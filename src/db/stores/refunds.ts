// Refunds on Prisma (src/core/stores/refunds.ts). Every change writes its outbox event (with refund_id)
// and announces it (NOTIFY, for live updates and event streams) in the same database transaction; the
// delivery the fan-out writes for each endpoint that takes the event wakes the dispatchers.
import type { Decimal } from "../../core/money/amounts.ts";
import { Decimal as CoreDecimal } from "../../core/money/amounts.ts";
import { COUNTED_REFUND_STATES } from "../../core/refunds/rules.ts";
import type { RefundRecord } from "../../core/records/refunds.ts";
import type { RefundEventRow, RefundStore } from "../../core/stores/refunds.ts";
import { Prisma } from "../generated/client.ts";
import { notifySql } from "../notifications.ts";
import { insertEventsSql } from "../outbox.ts";
import { refundOutboxEvent } from "../../core/events/outbox-event.ts";
import type { Database, DatabaseTransaction } from "../types.ts";
import { auditRow } from "./audit-log.ts";
import { transactionInclude } from "./rows.ts";

const refundInclude = { transaction: { include: transactionInclude } } as const;
const COUNTED_STATES = [...COUNTED_REFUND_STATES];

/** Prisma's row typed as the core's record: state, kind and valuation are the values the core wrote. */
const asRecord = (row: unknown) => row as RefundRecord;

async function writeEvent(tx: DatabaseTransaction, refund: RefundRecord, event: RefundEventRow, now: Date): Promise<void> {
  const [written] = await tx.$queryRaw<{ transactionId: string }[]>(insertEventsSql([refundOutboxEvent(refund, event, now)]));
  // A refund enters each state once: a second event of one type is a fault, as the unique index made it before.
  if (!written) throw new Error(`Refund ${refund.id} already has its ${event.type} event`);
  await tx.$executeRaw(notifySql([{ transactionId: refund.transactionId, eventWritten: true }]));
}

export function refundStore(db: Database): RefundStore {
  return {
    create: (refund, check, event, idempotency, audit) =>
      db.$transaction(async (tx) => {
        // The transaction's row lock: two refunds at once cannot both take what is left.
        await tx.$queryRaw`SELECT id FROM transactions WHERE id = ${refund.transactionId} FOR UPDATE`;
        const [sum] = await tx.$queryRaw<{ total: string | null }[]>`
          SELECT SUM(amount)::text AS total FROM refunds
          WHERE transaction_id = ${refund.transactionId} AND state IN (${Prisma.join(COUNTED_STATES)})`;
        check(new CoreDecimal(sum?.total ?? 0));
        const row = asRecord(await tx.refund.create({ data: { ...refund, updatedAt: refund.createdAt }, include: refundInclude }));
        await writeEvent(tx, row, event(row), refund.createdAt);
        if (idempotency) {
          await tx.idempotencyKey.create({
            data: { ...idempotency, transactionId: refund.transactionId, refundId: refund.id, createdAt: refund.createdAt },
          });
        }
        if (audit) await tx.auditLogEntry.create({ data: auditRow(audit) });
        return row;
      }),

    findFor: async (id, merchantId, isLive) => asRecord(await db.refund.findFirst({ where: { id, merchantId, isLive }, include: refundInclude })),

    findByClaimHash: async (hash) => asRecord(await db.refund.findUnique({ where: { claimTokenHash: hash }, include: refundInclude })),

    listForTransactions: async (transactionIds) =>
      transactionIds.length === 0
        ? []
        : (
            await db.refund.findMany({
              where: { transactionId: { in: [...transactionIds] } },
              include: refundInclude,
              orderBy: [{ createdAt: "asc" }, { id: "asc" }],
            })
          ).map(asRecord),

    async refundedAmounts(transactionIds) {
      const totals = new Map<string, Decimal>();
      if (transactionIds.length === 0) return totals;
      const rows = await db.$queryRaw<{ transaction_id: string; total: string }[]>`
        SELECT transaction_id, SUM(amount)::text AS total FROM refunds
        WHERE transaction_id IN (${Prisma.join([...transactionIds])}) AND state IN (${Prisma.join(COUNTED_STATES)})
        GROUP BY transaction_id`;
      for (const row of rows) totals.set(row.transaction_id, new CoreDecimal(row.total));
      return totals;
    },

    async page(query) {
      const after = query.after;
      const rows = await db.refund.findMany({
        where: {
          merchantId: query.merchantId,
          isLive: query.isLive,
          ...(query.transactionId === null ? {} : { transactionId: query.transactionId }),
          ...(after === null ? {} : { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }),
        },
        include: refundInclude,
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: query.limit,
      });
      return rows.map(asRecord);
    },

    change: (id, from, change, event, unclaimed = false, audit = null) =>
      db.$transaction(async (tx) => {
        const now = new Date();
        const rows = await tx.refund.updateManyAndReturn({
          where: { id, state: from, ...(unclaimed ? { destination: null, claimedAt: null } : {}) },
          data: change,
          select: { id: true },
        });
        if (rows.length === 0) return null;
        const row = asRecord(await tx.refund.findUniqueOrThrow({ where: { id }, include: refundInclude }));
        if (event) await writeEvent(tx, row, event(row), now);
        if (audit) await tx.auditLogEntry.create({ data: auditRow(audit) });
        return row;
      }),

    openWithDestination: async (limit) =>
      (
        await db.refund.findMany({
          where: { state: "pending", destination: { not: null } },
          include: refundInclude,
          orderBy: [{ createdAt: "asc" }, { id: "asc" }],
          take: limit,
        })
      ).map(asRecord),

    async closingTxHashes(isLive, hashes) {
      if (hashes.length === 0) return new Set();
      const rows = await db.refund.findMany({
        where: { isLive, state: "succeeded", txHash: { in: [...hashes] } },
        select: { txHash: true },
      });
      return new Set(rows.flatMap((row) => (row.txHash === null ? [] : [row.txHash])));
    },
  };
}
