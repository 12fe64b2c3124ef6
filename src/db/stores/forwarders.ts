// Deposit forwarders on Prisma (src/core/stores/forwarders.ts, ForwarderStore). A payment's forwarder
// is in one sending or confirmed flush at most: the partial unique index on forwarder_flush_items
// (transaction_id) WHERE active refuses a second, so two instances at once cannot both flush it.
import { Decimal } from "../../core/money/amounts.ts";
import type {
  FlushRecord,
  FlushRuleRecord,
  FlushState,
  ForwarderDepositRecord,
  ForwarderSettingRecord,
  MovedAmount,
} from "../../core/records/forwarders.ts";
import type { ForwarderStore } from "../../core/stores/forwarders.ts";
import { Prisma } from "../generated/client.ts";
import type { Database } from "../types.ts";
import { insertEventsSql } from "../outbox.ts";
import { auditRow } from "./audit-log.ts";

const include = { items: { orderBy: { id: "asc" } } } as const;

interface FlushRow {
  id: string;
  merchantId: number;
  isLive: boolean;
  network: string;
  state: string;
  factory: string;
  feePayer: string;
  nonce: bigint;
  txHash: string;
  rawTx: string;
  gasUsed: bigint | null;
  fee: { toString(): string } | null;
  createdAt: Date;
  confirmedAt: Date | null;
  blockNumber: bigint | null;
  blockHash: string | null;
  finalAt: Date | null;
  reorganizations: number;
  items: { transactionId: string; forwarder: string; moved: Prisma.JsonValue | null }[];
}

function flushOf(row: FlushRow): FlushRecord {
  return {
    ...row,
    state: row.state as FlushState,
    fee: row.fee === null ? null : new Decimal(row.fee.toString()),
    items: row.items.map((i) => ({ transactionId: i.transactionId, forwarder: i.forwarder, moved: (i.moved as MovedAmount[] | null) ?? null })),
  };
}

interface FlushRuleRow extends Omit<FlushRuleRecord, "minValue"> {
  minValue: { toString(): string } | null;
}

const ruleOf = (row: FlushRuleRow): FlushRuleRecord => ({ ...row, minValue: row.minValue === null ? null : new Decimal(row.minValue.toString()) });

const settingOf = (row: Omit<ForwarderSettingRecord, "mode"> & { mode: string }): ForwarderSettingRecord => ({ ...row, mode: "forwarder" });

export function forwarderStore(db: Database): ForwarderStore {
  return {
    async setting(merchantId, network, isLive) {
      const row = await db.settlementSetting.findUnique({ where: { merchantId_network_isLive: { merchantId, network, isLive } } });
      // A TRON own-address setting shares the table (mode own_addresses): not a forwarder's.
      return row === null || row.mode !== "forwarder" ? null : settingOf(row);
    },

    settings: async (merchantId, isLive) =>
      (await db.settlementSetting.findMany({ where: { merchantId, isLive, mode: "forwarder" }, orderBy: { network: "asc" } })).map(settingOf),

    putSetting: (setting, audit) =>
      db.$transaction(async (tx) => {
        const key = { merchantId: setting.merchantId, network: setting.network, isLive: setting.isLive };
        const row = await tx.settlementSetting.upsert({
          where: { merchantId_network_isLive: key },
          create: setting,
          update: { mode: setting.mode, destination: setting.destination, updatedAt: setting.updatedAt },
        });
        if (audit) await tx.auditLogEntry.create({ data: auditRow(audit) });
        return settingOf(row);
      }),

    removeSetting: (merchantId, network, isLive, audit) =>
      db.$transaction(async (tx) => {
        const removed = await tx.settlementSetting.deleteMany({ where: { merchantId, network, isLive } });
        if (removed.count > 0 && audit) await tx.auditLogEntry.create({ data: auditRow(audit) });
        return removed.count > 0;
      }),

    flushRules: async (merchantId, isLive) =>
      (await db.flushRule.findMany({ where: { merchantId, isLive }, orderBy: { network: "asc" } })).map(ruleOf),

    putFlushRule: (rule, audit) =>
      db.$transaction(async (tx) => {
        const { merchantId, network, isLive, ...thresholds } = rule;
        const data = { ...thresholds, minValue: thresholds.minValue?.toFixed() ?? null };
        const row = await tx.flushRule.upsert({
          where: { merchantId_network_isLive: { merchantId, network, isLive } },
          create: { merchantId, network, isLive, ...data },
          update: data,
        });
        if (audit) await tx.auditLogEntry.create({ data: auditRow(audit) });
        return ruleOf(row);
      }),

    removeFlushRule: (merchantId, network, isLive, audit) =>
      db.$transaction(async (tx) => {
        const removed = await tx.flushRule.deleteMany({ where: { merchantId, network, isLive } });
        if (removed.count > 0 && audit) await tx.auditLogEntry.create({ data: auditRow(audit) });
        return removed.count > 0;
      }),

    async recordDeposit(deposit) {
      const { transactionId, ...rest } = deposit;
      await db.forwarderDeposit.upsert({ where: { transactionId }, create: deposit, update: rest });
    },

    depositsOf: async (transactionIds): Promise<ForwarderDepositRecord[]> =>
      db.forwarderDeposit.findMany({ where: { transactionId: { in: [...transactionIds] } } }),

    async flushable(merchantId, isLive, network, limit) {
      const rows = await db.$queryRaw<(ForwarderDepositRecord & { finalAt: Date })[]>`
        SELECT d.transaction_id AS "transactionId", d.merchant_id AS "merchantId", d.is_live AS "isLive", d.network,
               d.factory, d.destination, d.salt, d.address, d.created_at AS "createdAt", t.final_at AS "finalAt"
        FROM forwarder_deposits d JOIN transactions t ON t.id = d.transaction_id
        WHERE d.merchant_id = ${merchantId} AND d.is_live = ${isLive} AND d.network = ${network}
          AND t.payment_address = d.address AND t.status = 'SUCCESSFUL' AND t.final_at IS NOT NULL AND t.reversed_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM forwarder_flush_items i WHERE i.transaction_id = d.transaction_id AND i.active)
        ORDER BY t.final_at, d.transaction_id
        LIMIT ${limit}`;
      return rows;
    },

    async backlog() {
      // Each backlog with the merchant's rule, and its payments' order amounts in the rule's value fiat.
      const rows = await db.$queryRaw<
        {
          merchant_id: number;
          is_live: boolean;
          network: string;
          count: bigint;
          oldest: Date;
          value: string;
          min_payments: number | null;
          min_value: string | null;
          value_currency_id: number | null;
          max_age_hours: number | null;
          updated_at: Date | null;
        }[]
      >`
        SELECT d.merchant_id, d.is_live, d.network, count(*) AS count, min(t.final_at) AS oldest,
               COALESCE(sum(CASE WHEN t.initialized_currency_id = r.value_currency_id THEN t.initialized_amount END), 0)::text AS value,
               r.min_payments, r.min_value::text AS min_value, r.value_currency_id, r.max_age_hours, r.updated_at
        FROM forwarder_deposits d JOIN transactions t ON t.id = d.transaction_id
        LEFT JOIN flush_rules r ON r.merchant_id = d.merchant_id AND r.network = d.network AND r.is_live = d.is_live
        WHERE t.payment_address = d.address AND t.status = 'SUCCESSFUL' AND t.final_at IS NOT NULL AND t.reversed_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM forwarder_flush_items i WHERE i.transaction_id = d.transaction_id AND i.active)
        GROUP BY d.merchant_id, d.is_live, d.network, r.min_payments, r.min_value, r.value_currency_id, r.max_age_hours, r.updated_at
        ORDER BY oldest`;
      return rows.map((r) => ({
        merchantId: r.merchant_id,
        isLive: r.is_live,
        network: r.network,
        count: Number(r.count),
        oldestFinalAt: r.oldest,
        value: new Decimal(r.value),
        rule:
          r.updated_at === null
            ? null
            : {
                merchantId: r.merchant_id,
                network: r.network,
                isLive: r.is_live,
                minPayments: r.min_payments,
                minValue: r.min_value === null ? null : new Decimal(r.min_value),
                valueCurrencyId: r.value_currency_id,
                maxAgeHours: r.max_age_hours,
                updatedAt: r.updated_at,
              },
      }));
    },

    createFlush: (flush, audit) =>
      db.$transaction(async (tx) => {
        const { items, ...columns } = flush;
        const row = await tx.forwarderFlush.create({
          data: {
            ...columns,
            state: "sending",
            items: { create: items.map((i) => ({ transactionId: i.transactionId, forwarder: i.forwarder })) },
          },
          include,
        });
        if (audit) await tx.auditLogEntry.create({ data: auditRow(audit) });
        return flushOf(row);
      }),

    finishFlush: (id, result, at, eventOf) =>
      db.$transaction(async (tx) => {
        const moved = await tx.forwarderFlush.updateMany({
          where: { id, state: "sending" },
          data: {
            state: result.state,
            gasUsed: result.gasUsed,
            fee: result.fee?.toFixed() ?? null,
            blockNumber: result.block?.number ?? null,
            blockHash: result.block?.hash ?? null,
            ...(result.state === "confirmed" ? { confirmedAt: at } : {}),
          },
        });
        if (moved.count === 0) return null;
        if (result.state === "failed") await tx.forwarderFlushItem.updateMany({ where: { flushId: id }, data: { active: false } });
        for (const [transactionId, amounts] of result.moved) {
          await tx.forwarderFlushItem.updateMany({ where: { flushId: id, transactionId }, data: { moved: amounts.map((a) => ({ ...a })) } });
        }
        const record = flushOf(await tx.forwarderFlush.findUniqueOrThrow({ where: { id }, include }));
        const event = eventOf(record);
        if (event) await tx.$executeRaw(insertEventsSql([event]));
        return record;
      }),

    async findFlush(id, merchantId, isLive) {
      const row = await db.forwarderFlush.findFirst({ where: { id, merchantId, isLive }, include });
      return row === null ? null : flushOf(row);
    },

    flushPage: async (query) =>
      (
        await db.forwarderFlush.findMany({
          where: {
            merchantId: query.merchantId,
            isLive: query.isLive,
            ...(query.after === null
              ? {}
              : { OR: [{ createdAt: { lt: query.after.createdAt } }, { createdAt: query.after.createdAt, id: { lt: query.after.id } }] }),
          },
          include,
          orderBy: [{ createdAt: "desc" }, { id: "desc" }],
          take: query.limit,
        })
      ).map(flushOf),

    sending: async (limit) =>
      (await db.forwarderFlush.findMany({ where: { state: "sending" }, include, orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: limit })).map(
        flushOf,
      ),

    confirmedNotFinal: async (limit) =>
      (
        await db.forwarderFlush.findMany({
          where: { state: "confirmed", finalAt: null, blockHash: { not: null } },
          include,
          orderBy: [{ createdAt: "asc" }, { id: "asc" }],
          take: limit,
        })
      ).map(flushOf),

    async flushFinal(id, at) {
      await db.forwarderFlush.updateMany({ where: { id, state: "confirmed", finalAt: null }, data: { finalAt: at } });
    },

    async flushBlockMoved(id, block) {
      await db.forwarderFlush.updateMany({ where: { id, state: "confirmed" }, data: { blockNumber: block.number, blockHash: block.hash } });
    },

    reorganizeFlush: (id, blockHash, eventOf) =>
      db.$transaction(async (tx) => {
        const moved = await tx.forwarderFlush.updateMany({
          where: { id, state: "confirmed", blockHash, finalAt: null },
          data: {
            state: "sending",
            gasUsed: null,
            fee: null,
            confirmedAt: null,
            blockNumber: null,
            blockHash: null,
            reorganizations: { increment: 1 },
          },
        });
        if (moved.count === 0) return null;
        await tx.forwarderFlushItem.updateMany({ where: { flushId: id }, data: { moved: Prisma.DbNull } });
        const record = flushOf(await tx.forwarderFlush.findUniqueOrThrow({ where: { id }, include }));
        await tx.$executeRaw(insertEventsSql([eventOf(record)]));
        return record;
      }),
  };
}
