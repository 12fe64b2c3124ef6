// TRON own-address mode on Prisma (src/core/stores/own-addresses.ts, OwnAddressStore). A unique amount is
// taken in one statement: the first free `base + n × unit` on one of the addresses, inserted or taken
// over from a reservation whose hold ran out; the unique index on (network, is_live, address,
// currency_id, amount) makes two instances that pick the same amount at once end with one holder.
import { Decimal } from "../../core/money/amounts.ts";
import type { OwnAddressSettingRecord, UnmatchedReceiptRecord, UnmatchedReceiptState } from "../../core/records/own-addresses.ts";
import type { OwnAddressStore } from "../../core/stores/own-addresses.ts";
import { Prisma } from "../generated/client.ts";
import type { Database } from "../types.ts";
import { insertEventsSql } from "../outbox.ts";
import { auditRow } from "./audit-log.ts";

const MODE = "own_addresses";

const settingOf = (row: {
  merchantId: number;
  network: string;
  isLive: boolean;
  addressCount: number | null;
  updatedAt: Date;
  turnedOnAt: Date | null;
  scannedFrom: Date | null;
}): OwnAddressSettingRecord => ({
  merchantId: row.merchantId,
  network: row.network,
  isLive: row.isLive,
  addressCount: row.addressCount ?? 1,
  updatedAt: row.updatedAt,
  // A row written without them (by hand, or by an older version) is taken as turned on at its last change.
  turnedOnAt: row.turnedOnAt ?? row.updatedAt,
  scannedFrom: row.scannedFrom ?? row.turnedOnAt ?? row.updatedAt,
});

type UnmatchedRow = Omit<UnmatchedReceiptRecord, "amount" | "state"> & { amount: { toString(): string }; state: string };

const unmatchedOf = (row: UnmatchedRow): UnmatchedReceiptRecord => ({
  ...row,
  amount: new Decimal(row.amount.toString()),
  state: row.state as UnmatchedReceiptState,
});

export function ownAddressStore(db: Database): OwnAddressStore {
  return {
    async setting(merchantId, network, isLive) {
      const row = await db.settlementSetting.findFirst({ where: { merchantId, network, isLive, mode: MODE } });
      return row === null ? null : settingOf(row);
    },

    settings: async (merchantId, isLive) =>
      (await db.settlementSetting.findMany({ where: { merchantId, isLive, mode: MODE }, orderBy: { network: "asc" } })).map(settingOf),

    putSetting: (setting, audit) =>
      db.$transaction(async (tx) => {
        const key = { merchantId: setting.merchantId, network: setting.network, isLive: setting.isLive };
        const row = await tx.settlementSetting.upsert({
          where: { merchantId_network_isLive: key },
          create: {
            ...key,
            mode: MODE,
            destination: "",
            addressCount: setting.addressCount,
            updatedAt: setting.updatedAt,
            turnedOnAt: setting.updatedAt,
            scannedFrom: setting.updatedAt,
          },
          // A change of k keeps when the mode was turned on and how far it was scanned.
          update: { mode: MODE, destination: "", addressCount: setting.addressCount, updatedAt: setting.updatedAt },
        });
        if (audit) await tx.auditLogEntry.create({ data: auditRow(audit) });
        return settingOf(row);
      }),

    allSettings: async () =>
      (await db.settlementSetting.findMany({ where: { mode: MODE }, orderBy: [{ merchantId: "asc" }, { network: "asc" }, { isLive: "asc" }] })).map(
        settingOf,
      ),

    async advanceScan(merchantId, network, isLive, to) {
      await db.settlementSetting.updateMany({
        where: { merchantId, network, isLive, mode: MODE, OR: [{ scannedFrom: null }, { scannedFrom: { lt: to } }] },
        data: { scannedFrom: to },
      });
    },

    removeSetting: (merchantId, network, isLive, audit) =>
      db.$transaction(async (tx) => {
        const removed = await tx.settlementSetting.deleteMany({ where: { merchantId, network, isLive, mode: MODE } });
        if (removed.count > 0 && audit) await tx.auditLogEntry.create({ data: auditRow(audit) });
        return removed.count > 0;
      }),

    async walletKey(merchantId, currencyId, network, isLive) {
      const processor = await db.paymentProcessor.findFirst({
        where: { merchantId, currencyId, network, isLive },
        select: { wallet: { select: { extendedPublicKey: true } } },
      });
      return processor?.wallet?.extendedPublicKey ?? null;
    },

    async reserve(r) {
      const rows = await db.$queryRaw<{ found: number; address: string | null; amount: string | null }[]>`
        WITH candidates AS (
          SELECT a.address, (${r.base}::numeric + n * ${r.unit}::numeric) AS amount
          FROM unnest(${[...r.addresses]}::text[]) AS a(address), generate_series(1, ${r.maxExtraUnits}::int) AS n
          WHERE NOT EXISTS (
            SELECT 1 FROM amount_reservations h
            WHERE h.network = ${r.network} AND h.is_live = ${r.isLive} AND h.address = a.address AND h.currency_id = ${r.currencyId}::int
              AND h.amount = ${r.base}::numeric + n * ${r.unit}::numeric AND h.held_until > ${r.now})
          ORDER BY random() LIMIT 1),
        taken AS (
          INSERT INTO amount_reservations (network, is_live, address, currency_id, amount, transaction_id, held_until)
          SELECT ${r.network}, ${r.isLive}, address, ${r.currencyId}::int, amount, ${r.transactionId}, ${r.heldUntil} FROM candidates
          ON CONFLICT (network, is_live, address, currency_id, amount) DO UPDATE
            SET transaction_id = EXCLUDED.transaction_id, held_until = EXCLUDED.held_until
            WHERE amount_reservations.held_until <= ${r.now}
          RETURNING address, amount::text AS amount)
        SELECT (SELECT count(*) FROM candidates)::int AS found, (SELECT address FROM taken) AS address, (SELECT amount FROM taken) AS amount`;
      const [row] = rows;
      if (row?.address != null && row.amount != null) return { held: true, address: row.address, amount: new Decimal(row.amount).toFixed() };
      return { held: false, reason: row !== undefined && row.found > 0 ? "conflict" : "full" };
    },

    async release(transactionId) {
      await db.$executeRaw`UPDATE amount_reservations SET held_until = to_timestamp(0) WHERE transaction_id = ${transactionId}`;
    },

    async view(transactionId, address, keys, now) {
      const [holding, assigned, taken] = await Promise.all([
        db.amountReservation.count({ where: { transactionId, heldUntil: { gt: now } } }),
        db.unmatchedReceipt.findMany({ where: { transactionId, state: "assigned" }, select: { key: true } }),
        keys.length === 0
          ? Promise.resolve([])
          : db.paymentReceipt.findMany({
              where: {
                key: { in: [...keys] },
                status: { in: ["SEEN", "CONFIRMED"] },
                transactionId: { not: transactionId },
                transaction: { paymentAddress: address },
              },
              select: { key: true },
            }),
      ]);
      return { holding: holding > 0, assigned: new Set(assigned.map((a) => a.key)), takenElsewhere: new Set(taken.map((t) => t.key)) };
    },

    recordUnmatched: (receipt, now, event) =>
      db.$transaction(async (tx) => {
        const where = { network: receipt.network, isLive: receipt.isLive, address: receipt.address, key: receipt.key };
        const known = await tx.unmatchedReceipt.findUnique({ where: { network_isLive_address_key: where } });
        if (known !== null) {
          if (known.confirmations !== receipt.confirmations || known.blockHeight !== receipt.blockHeight)
            await tx.unmatchedReceipt.update({
              where: { id: known.id },
              data: { confirmations: receipt.confirmations, blockHeight: receipt.blockHeight },
            });
          return null;
        }
        // An open amount of the address takes it (its payment's read records it), as does a payment that recorded it.
        const held = await tx.amountReservation.count({
          where: {
            network: receipt.network,
            isLive: receipt.isLive,
            address: receipt.address,
            currencyId: receipt.currencyId,
            amount: new Prisma.Decimal(receipt.amount.toFixed()),
            heldUntil: { gt: now },
          },
        });
        const recorded = await tx.paymentReceipt.count({
          where: {
            key: receipt.key,
            status: { in: ["SEEN", "CONFIRMED"] },
            transaction: { paymentAddress: receipt.address, isLive: receipt.isLive },
          },
        });
        if (held > 0 || recorded > 0) return null;
        // Two writers (the idle scan and a payment's read, or two instances) may record one transfer at
        // once: the unique index keeps the first, and the second finds it known (ON CONFLICT DO NOTHING
        // rather than a caught violation, which would abort this database transaction).
        const inserted = await tx.unmatchedReceipt.createMany({
          data: [{ ...receipt, amount: new Prisma.Decimal(receipt.amount.toFixed()) }],
          skipDuplicates: true,
        });
        if (inserted.count === 0) return null;
        const created = unmatchedOf(await tx.unmatchedReceipt.findUniqueOrThrow({ where: { id: receipt.id } }));
        await tx.$executeRaw(insertEventsSql([event(created)]));
        return created;
      }),

    async findUnmatched(id, merchantId, isLive) {
      const row = await db.unmatchedReceipt.findFirst({ where: { id, merchantId, isLive } });
      return row === null ? null : unmatchedOf(row);
    },

    async unmatchedPage(q) {
      const rows = await db.unmatchedReceipt.findMany({
        where: {
          merchantId: q.merchantId,
          isLive: q.isLive,
          ...(q.state === null ? {} : { state: q.state }),
          ...(q.after === null ? {} : { OR: [{ seenAt: { lt: q.after.seenAt } }, { seenAt: q.after.seenAt, id: { lt: q.after.id } }] }),
        },
        orderBy: [{ seenAt: "desc" }, { id: "desc" }],
        take: q.limit,
      });
      return rows.map(unmatchedOf);
    },

    settleUnmatched: (id, change, now, audit) =>
      db.$transaction(async (tx) => {
        const data =
          change.state === "assigned"
            ? { state: "assigned", transactionId: change.transactionId, updatedAt: now }
            : { state: "refunded", refundTxHash: change.refundTxHash, updatedAt: now };
        const moved = await tx.unmatchedReceipt.updateMany({ where: { id, state: "open" }, data });
        if (moved.count === 0) return null;
        if (audit) await tx.auditLogEntry.create({ data: auditRow(audit) });
        return unmatchedOf(await tx.unmatchedReceipt.findUniqueOrThrow({ where: { id } }));
      }),
  };
}
