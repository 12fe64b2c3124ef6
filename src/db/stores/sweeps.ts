// Recorded sweeps on Prisma (src/core/stores/sweeps.ts, SweepStore). A hash is recorded once per network
// and mode (a unique index): two requests posting it at once end with one sweep and one event.
import { Decimal } from "../../core/money/amounts.ts";
import type { SweepRecord } from "../../core/records/sweeps.ts";
import type { SweepStore } from "../../core/stores/sweeps.ts";
import { Prisma } from "../generated/client.ts";
import { insertEventsSql } from "../outbox.ts";
import type { Database } from "../types.ts";

type Numeric = { toString(): string };
type SweepRow = Omit<SweepRecord, "amount" | "fee" | "topUpAmount" | "topUpFee"> & {
  amount: Numeric;
  fee: Numeric;
  topUpAmount: Numeric | null;
  topUpFee: Numeric | null;
};

const decimal = (value: Numeric | null) => (value === null ? null : new Decimal(value.toString()));
const prismaDecimal = (value: Decimal | null) => (value === null ? null : new Prisma.Decimal(value.toFixed()));

const recordOf = (row: SweepRow): SweepRecord => ({
  ...row,
  amount: new Decimal(row.amount.toString()),
  fee: new Decimal(row.fee.toString()),
  topUpAmount: decimal(row.topUpAmount),
  topUpFee: decimal(row.topUpFee),
});

export function sweepStore(db: Database): SweepStore {
  return {
    async paymentAt(q) {
      const coins = q.defaultCoinIds.length > 0 ? q.defaultCoinIds : [-1];
      const rows = await db.$queryRaw<{ id: string; address: string }[]>`
        SELECT t.id, t.payment_address AS address FROM transactions t
         WHERE t.merchant_id = ${q.merchantId} AND t.is_live = ${q.isLive} AND lower(t.payment_address) = ${q.address.toLowerCase()}
           AND (t.payment_network = ${q.network} OR (t.payment_network IS NULL AND t.payment_currency_id IN (${Prisma.join([...coins])})))
         ORDER BY t.created_at DESC, t.id DESC
         LIMIT 1`;
      const row = rows[0];
      return row === undefined ? null : { transactionId: row.id, address: row.address };
    },

    async findByHashes(network, isLive, txHashes) {
      if (txHashes.length === 0) return [];
      const hashes = [...txHashes];
      const rows = await db.sweep.findMany({ where: { network, isLive, OR: [{ txHash: { in: hashes } }, { topUpTxHash: { in: hashes } }] } });
      return rows.map(recordOf);
    },

    record: (sweeps, eventOf) =>
      db.$transaction(async (tx) => {
        const created = await tx.sweep.createManyAndReturn({
          data: sweeps.map((s) => ({
            ...s,
            amount: new Prisma.Decimal(s.amount.toFixed()),
            fee: new Prisma.Decimal(s.fee.toFixed()),
            topUpAmount: prismaDecimal(s.topUpAmount),
            topUpFee: prismaDecimal(s.topUpFee),
          })),
          skipDuplicates: true,
        });
        const records = created.map(recordOf);
        if (records.length > 0) await tx.$executeRaw(insertEventsSql(records.map(eventOf)));
        return records;
      }),

    async findFor(id, merchantId, isLive) {
      const row = await db.sweep.findFirst({ where: { id, merchantId, isLive } });
      return row === null ? null : recordOf(row);
    },

    async page(q) {
      const rows = await db.sweep.findMany({
        where: {
          merchantId: q.merchantId,
          isLive: q.isLive,
          ...(q.network === null ? {} : { network: q.network }),
          ...(q.after === null ? {} : { OR: [{ createdAt: { lt: q.after.createdAt } }, { createdAt: q.after.createdAt, id: { lt: q.after.id } }] }),
        },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: q.limit,
      });
      return rows.map(recordOf);
    },
  };
}
