// Consolidations on Prisma (src/core/stores/settlement.ts, SettlementStore). An output is in one
// open, seen or confirmed consolidation at most: the partial unique index on consolidation_inputs
// (is_live, outpoint) WHERE active refuses a second, so two instances at once cannot both take it.
import { Decimal } from "../../core/money/amounts.ts";
import { COUNTED_REFUND_STATES } from "../../core/refunds/rules.ts";
import type { ConsolidationRecord, ConsolidationState } from "../../core/records/settlement.ts";
import type { SettlementStore } from "../../core/stores/settlement.ts";
import { Prisma } from "../generated/client.ts";
import type { Database } from "../types.ts";
import { auditRow } from "./audit-log.ts";
import { insertEventsSql } from "../outbox.ts";

const include = { inputs: { orderBy: { id: "asc" } } } as const;

interface Row {
  id: string;
  merchantId: number;
  isLive: boolean;
  coin: string;
  network: string;
  state: string;
  destination: string;
  feeRate: { toString(): string };
  total: { toString(): string };
  networkFee: { toString(): string };
  amountToReceive: { toString(): string };
  psbt: string;
  txHash: string;
  createdAt: Date;
  updatedAt: Date;
  seenAt: Date | null;
  confirmedAt: Date | null;
  canceledAt: Date | null;
  inputs: { transactionId: string; outpoint: string; amount: { toString(): string } }[];
}

function recordOf(row: Row): ConsolidationRecord {
  return {
    ...row,
    state: row.state as ConsolidationState,
    feeRate: new Decimal(row.feeRate.toString()),
    total: new Decimal(row.total.toString()),
    networkFee: new Decimal(row.networkFee.toString()),
    amountToReceive: new Decimal(row.amountToReceive.toString()),
    inputs: row.inputs.map((i) => ({ transactionId: i.transactionId, outpoint: i.outpoint, amount: new Decimal(i.amount.toString()) })),
  };
}

/** When each state is reached. */
const STAMP: Record<ConsolidationState, "seenAt" | "confirmedAt" | "canceledAt" | null> = {
  open: null,
  seen: "seenAt",
  confirmed: "confirmedAt",
  canceled: "canceledAt",
};

export function settlementStore(db: Database): SettlementStore {
  return {
    async settledOutputs(query) {
      const rows = await db.$queryRaw<{ transaction_id: string; wallet_id: number; derivation_index: number; outpoint: string; amount: string }[]>`
        SELECT t.id AS transaction_id, t.wallet_id, t.derivation_index, r.key AS outpoint, r.amount::text AS amount
        FROM payment_receipts r JOIN transactions t ON t.id = r.transaction_id
        WHERE t.merchant_id = ${query.merchantId} AND t.is_live = ${query.isLive} AND t.payment_currency_id = ${query.coinId}
          AND (t.payment_network = ${query.network} OR (${query.isDefaultNetwork} AND t.payment_network IS NULL))
          AND t.status = 'SUCCESSFUL' AND t.final_at IS NOT NULL AND t.reversed_at IS NULL
          AND t.wallet_id IS NOT NULL AND t.derivation_index IS NOT NULL
          AND r.status = 'CONFIRMED' AND r.source = 'chain' AND r.key ~ '^[0-9a-f]{64}:[0-9]+$'
          AND NOT EXISTS (SELECT 1 FROM consolidation_inputs c WHERE c.is_live = t.is_live AND c.outpoint = r.key AND c.active)
          AND NOT EXISTS (SELECT 1 FROM refunds f WHERE f.transaction_id = t.id AND f.state IN (${Prisma.join([...COUNTED_REFUND_STATES])}))
        ORDER BY t.final_at, r.id
        LIMIT ${query.limit}`;
      return rows.map((row) => ({
        transactionId: row.transaction_id,
        walletId: row.wallet_id,
        derivationIndex: row.derivation_index,
        outpoint: row.outpoint,
        amount: new Decimal(row.amount),
      }));
    },

    create: (consolidation, audit) =>
      db.$transaction(async (tx) => {
        const { inputs, ...columns } = consolidation;
        const row = await tx.consolidation.create({
          data: {
            ...columns,
            updatedAt: consolidation.createdAt,
            inputs: {
              create: inputs.map((i) => ({
                transactionId: i.transactionId,
                outpoint: i.outpoint,
                amount: i.amount.toFixed(),
                isLive: consolidation.isLive,
              })),
            },
          },
          include,
        });
        if (audit) await tx.auditLogEntry.create({ data: auditRow(audit) });
        return recordOf(row);
      }),

    async sweepCandidates(query) {
      const coins = query.defaultCoinIds.length > 0 ? query.defaultCoinIds : [-1];
      const after =
        query.after === null
          ? Prisma.sql`TRUE`
          : Prisma.sql`(t.final_at, t.id) > (SELECT c.final_at, c.id FROM transactions c WHERE c.id = ${query.after} AND c.final_at IS NOT NULL)`;
      const rows = await db.$queryRaw<
        { id: string; address: string; currency_id: number; derivation_index: number; xpub: string; key_origin: string | null; final_at: Date }[]
      >`
        SELECT t.id, t.payment_address AS address, t.payment_currency_id AS currency_id, t.derivation_index,
               w.extended_public_key AS xpub, w.key_origin, t.final_at
        FROM transactions t JOIN wallets w ON w.id = t.wallet_id
        WHERE t.merchant_id = ${query.merchantId} AND t.is_live = ${query.isLive}
          AND (t.payment_network = ${query.network} OR (t.payment_network IS NULL AND t.payment_currency_id IN (${Prisma.join([...coins])})))
          AND t.status = 'SUCCESSFUL' AND t.final_at IS NOT NULL AND t.reversed_at IS NULL
          AND t.payment_address IS NOT NULL AND t.derivation_index IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM forwarder_deposits d WHERE d.transaction_id = t.id AND d.address = t.payment_address)
          AND ${after}
        ORDER BY t.final_at, t.id
        LIMIT ${query.limit}`;
      return rows.map((r) => ({
        transactionId: r.id,
        address: r.address,
        currencyId: r.currency_id,
        derivationIndex: r.derivation_index,
        extendedPublicKey: r.xpub,
        keyOrigin: r.key_origin,
        finalAt: r.final_at,
      }));
    },

    findFor: async (id, merchantId, isLive) => {
      const row = await db.consolidation.findFirst({ where: { id, merchantId, isLive }, include });
      return row === null ? null : recordOf(row);
    },

    async page(query) {
      const after = query.after;
      const rows = await db.consolidation.findMany({
        where: {
          merchantId: query.merchantId,
          isLive: query.isLive,
          ...(after === null ? {} : { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }),
        },
        include,
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: query.limit,
      });
      return rows.map(recordOf);
    },

    move: (id, from, to, at, audit, eventOf) =>
      db.$transaction(async (tx) => {
        const stamp = STAMP[to];
        // Reached at once without a seen pass (mined between two passes): it was seen then too.
        const seen = to === "confirmed" && from === "open" ? { seenAt: at } : {};
        const moved = await tx.consolidation.updateMany({
          where: { id, state: from },
          data: { state: to, ...(stamp ? { [stamp]: at } : {}), ...seen },
        });
        if (moved.count === 0) return null;
        // A canceled consolidation gives its outputs back: they may be offered again.
        if (to === "canceled") await tx.consolidationInput.updateMany({ where: { consolidationId: id }, data: { active: false } });
        if (audit) await tx.auditLogEntry.create({ data: auditRow(audit) });
        const record = recordOf(await tx.consolidation.findUniqueOrThrow({ where: { id }, include }));
        const event = eventOf(record);
        if (event) await tx.$executeRaw(insertEventsSql([event]));
        return record;
      }),

    toWatch: async (limit) =>
      (
        await db.consolidation.findMany({
          where: { state: { in: ["open", "seen"] } },
          include,
          orderBy: [{ createdAt: "asc" }, { id: "asc" }],
          take: limit,
        })
      ).map(recordOf),
  };
}
