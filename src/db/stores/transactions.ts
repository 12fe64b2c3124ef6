// The TransactionStore on Prisma: initialize's one-statement insert, initiate's move, receipts and
// expiry. Every write of the transaction model passes the outbox hook (src/db/outbox.ts), so each
// state change writes its webhook event in the same database transaction.
import { Decimal } from "../../core/money/amounts.ts";
import type { IdempotencyRecord, NewTransaction, ReceiptTotals, TransactionStore } from "../../core/stores.ts";
import { Prisma, type Transaction } from "../generated/client.ts";
import { CHANGES_CHANNEL, changePayload } from "../notifications.ts";
import { outboxRow } from "../outbox.ts";
import type { Database } from "../types.ts";
import { rememberIdempotencyKey } from "./idempotency.ts";
import { emailKey, transactionInclude } from "./rows.ts";
import { listTransactions } from "./transaction-list.ts";

export function transactionStore(db: Database): TransactionStore {
  return {
    insertInitiated: (t, merchant, idempotency) => insertInitiatedTransaction(db, t, merchant, idempotency),

    findFor: (id, merchantId, isLive) => db.transaction.findFirst({ where: { id, merchantId, isLive }, include: transactionInclude }),

    async walletFor(merchantId, currencyId, isLive) {
      const processor = await db.paymentProcessor.findUnique({
        where: { merchantId_currencyId_isLive: { merchantId, currencyId, isLive } },
        select: { walletId: true },
      });
      return processor?.walletId ?? null;
    },

    async moveToPending(move) {
      try {
        return await db.$transaction(async (tx) => {
          // The key first: a concurrent request with the same key fails here, and replays ours.
          if (move.idempotency) await tx.$executeRaw(rememberIdempotencyKey(move.idempotency, Prisma.sql`${move.transactionId}`, move.now));
          // Taking the wallet's row lock serialises initiates on one wallet across every instance.
          const wallet = await tx.wallet.update({ where: { id: move.walletId }, data: { nextIndex: { increment: 1 } } });
          const index = wallet.nextIndex - 1;
          const address = move.addressAt(wallet.extendedPublicKey, index);
          // The state condition makes the move happen once, however many initiates race.
          const [row] = await tx.transaction.updateManyAndReturn({
            where: { id: move.transactionId, status: "INITIATED" },
            data: { status: "PENDING", ...move.fields, paymentAddress: address, walletId: wallet.id, derivationIndex: index, initiatedAt: move.now },
            include: transactionInclude,
          });
          if (!row) throw new NotMoved(); // rolls back the index and the key
          return row;
        });
      } catch (error) {
        if (error instanceof NotMoved) return null;
        throw error;
      }
    },

    recordReceipts: (transactionId, receipts, now, completes) =>
      db.$transaction(async (tx) => {
        // Serialises everything that changes one transaction's payment (watchers, helpers, expiry).
        await tx.$queryRaw`SELECT id FROM transactions WHERE id = ${transactionId} FOR UPDATE`;
        for (const r of receipts.rows) {
          const fields = {
            txHash: r.txHash,
            amount: r.amount.toFixed(),
            confirmations: r.confirmations,
            blockHeight: r.blockHeight,
            status: r.confirmed ? ("CONFIRMED" as const) : ("SEEN" as const),
            updatedAt: now,
          };
          await tx.paymentReceipt.upsert({
            where: { transactionId_key: { transactionId, key: r.key } },
            create: { transactionId, key: r.key, source: receipts.source, firstSeenAt: now, ...fields },
            update: fields,
          });
        }
        if (receipts.dropOthers) {
          await tx.paymentReceipt.updateMany({
            where: { transactionId, source: receipts.source, status: { not: "DROPPED" }, key: { notIn: receipts.rows.map((r) => r.key) } },
            data: { status: "DROPPED", updatedAt: now },
          });
        }
        const sums = await tx.paymentReceipt.groupBy({
          by: ["status"],
          where: { transactionId, status: { not: "DROPPED" } },
          _sum: { amount: true },
          _min: { confirmations: true },
        });
        const sum = (status: "SEEN" | "CONFIRMED") => new Decimal(sums.find((s) => s.status === status)?._sum.amount?.toString() ?? 0);
        const current = await tx.transaction.findUniqueOrThrow({ where: { id: transactionId }, select: { status: true, paymentAmount: true } });
        const totals: ReceiptTotals = {
          status: current.status,
          paymentAmount: current.paymentAmount === null ? null : new Decimal(current.paymentAmount.toString()),
          confirmed: sum("CONFIRMED"),
          unconfirmed: sum("SEEN"),
        };
        const [row] = await tx.transaction.updateManyAndReturn({
          where: { id: transactionId },
          data: {
            amountPaid: totals.confirmed.isZero() ? null : totals.confirmed.toFixed(),
            amountUnconfirmed: totals.unconfirmed.isZero() ? null : totals.unconfirmed.toFixed(),
            confirmations: sums.find((s) => s.status === "SEEN")?._min.confirmations ?? null,
            requiredConfirmations: receipts.requiredConfirmations,
            ...(completes(totals) ? { status: "SUCCESSFUL" as const } : {}),
          },
          include: transactionInclude,
        });
        if (!row) throw new Error(`Transaction ${transactionId} vanished while recording a payment`);
        return row;
      }),

    openPastDue: (now, limit, after) =>
      db.transaction.findMany({
        where: {
          status: { in: ["INITIATED", "PENDING"] },
          expiresAt: { lte: now },
          ...(after ? { OR: [{ expiresAt: { gt: after.expiresAt } }, { expiresAt: after.expiresAt, id: { gt: after.id } }] } : {}),
        },
        orderBy: [{ expiresAt: "asc" }, { id: "asc" }],
        take: limit,
        select: { id: true, status: true, paymentAmount: true, amountPaid: true, amountUnconfirmed: true, expiresAt: true },
      }),

    abandon: (ids, closedAt) =>
      db.transaction.updateManyAndReturn({
        where: { id: { in: ids }, status: { in: ["INITIATED", "PENDING"] } },
        data: { status: "ABANDONED", ...(closedAt ? { expiresAt: closedAt } : {}) },
        include: transactionInclude,
      }),

    watchList: (lateSince, limit) =>
      db.transaction.findMany({
        where: {
          paymentAddress: { not: null },
          OR: [{ status: "PENDING" }, { status: "ABANDONED", expiresAt: { gt: lateSince } }],
        },
        select: {
          id: true,
          isLive: true,
          paymentCurrencyId: true,
          paymentAddress: true,
          initiatedAt: true,
          receipts: {
            where: { source: "chain", status: { not: "DROPPED" } },
            select: { key: true, amount: true, status: true, confirmations: true },
          },
        },
        orderBy: { expiresAt: "asc" },
        take: limit,
      }),

    async keepClientSecret(transactionId, sealed) {
      // Raw SQL: not a state change, so the outbox hook must not see it (it would add an event).
      await db.$executeRaw`UPDATE transactions SET client_secret_enc = ${sealed} WHERE id = ${transactionId} AND client_secret_enc IS NULL`;
      const row = await db.transaction.findUniqueOrThrow({ where: { id: transactionId }, select: { clientSecretEnc: true } });
      if (row.clientSecretEnc === null) throw new Error(`Transaction ${transactionId} kept no client secret`);
      return row.clientSecretEnc;
    },

    list: (query) => listTransactions(db, query),

    receipts: (transactionId) => db.paymentReceipt.findMany({ where: { transactionId }, orderBy: [{ firstSeenAt: "asc" }, { id: "asc" }] }),

    async walletCurrencies(merchantId, isLive) {
      const rows = await db.paymentProcessor.findMany({
        where: { merchantId, isLive },
        select: { currencyId: true },
        orderBy: { currencyId: "asc" },
      });
      return rows.map((r) => r.currencyId);
    },
  };
}

/** Thrown inside moveToPending's database transaction to roll it back when the transaction was not INITIATED. */
class NotMoved extends Error {}

/**
 * Initialize is the hot path of the API. Prisma's `create` spends about 0.9 ms of CPU per row
 * building and reading back the query; this one statement spends about 0.35 ms (README, Benchmark).
 * It writes the transaction and its payment.initiated event together, and announces the change
 * (NOTIFY), as the outbox hook would: one statement is one database transaction. The returned row is typed as Prisma's model, so a column
 * added to the schema fails to compile here.
 */
export async function insertInitiatedTransaction(
  db: Database,
  t: NewTransaction,
  merchant: { name: string },
  idempotency: IdempotencyRecord | null,
): Promise<Transaction> {
  const row: Transaction = {
    ...t,
    customerEmailKey: emailKey(t.customerEmail),
    status: "INITIATED",
    initializedAmount: new Prisma.Decimal(t.initializedAmount),
    requestMeta: t.requestMeta as Prisma.JsonObject,
    paymentCurrencyId: null,
    paymentAmount: null,
    amountPaid: null,
    amountUnconfirmed: null,
    confirmations: null,
    requiredConfirmations: null,
    paymentAddress: null,
    walletId: null,
    derivationIndex: null,
    refundAddress: null,
    quoteRate: null,
    quoteSource: null,
    quotedAt: null,
    initiatedAt: null,
    updatedAt: t.createdAt,
  };
  const event = outboxRow({ ...row, merchant }, t.createdAt);
  const meta = JSON.stringify(t.requestMeta);
  // A key already taken fails the whole statement (primary key), so nothing is created twice.
  const remembered = idempotency
    ? Prisma.sql`, remembered AS (${rememberIdempotencyKey(idempotency, Prisma.sql`created.id`, t.createdAt)} FROM created)`
    : Prisma.empty;
  await db.$executeRaw`
    WITH created AS (
      INSERT INTO transactions (id, reference, merchant_id, customer_email, customer_email_key, customer_name, payment_link_id, is_live,
        status, description, initialized_amount, initialized_currency_id, request_meta, created_at, updated_at, expires_at,
        client_secret_enc, return_url)
      VALUES (${t.id}, ${t.reference}, ${t.merchantId}, ${t.customerEmail}, ${row.customerEmailKey}, ${t.customerName}, ${t.paymentLinkId}, ${t.isLive},
        'INITIATED', ${t.description}, ${t.initializedAmount}::numeric, ${t.initializedCurrencyId}, ${meta}::jsonb,
        ${t.createdAt}, ${t.createdAt}, ${t.expiresAt}, ${t.clientSecretEnc}, ${t.returnUrl})
      RETURNING id)${remembered},
    notified AS (SELECT pg_notify(${CHANGES_CHANNEL}, ${changePayload(t.id, true)}) FROM created)
    INSERT INTO webhook_events (id, merchant_id, transaction_id, type, is_live, body, next_attempt_at, created_at)
    SELECT ${event.id}, ${event.merchantId}, created.id, ${event.type}, ${event.isLive}, ${event.body}, ${event.nextAttemptAt}, ${event.createdAt}
    FROM created CROSS JOIN notified`;
  return row;
}
