// The TransactionStore on Prisma: initialize's one-statement insert, initiate's move, receipts and
// expiry. Every write of the transaction model passes the outbox hook (src/db/outbox.ts), so each
// state change writes its webhook event in the same database transaction.
import { networkOfWallet } from "./merchants.ts";
import { DuplicateKeyError } from "../../core/errors.ts";
import { Decimal } from "../../core/money/amounts.ts";
import { randomUUID } from "node:crypto";
import type { IdempotencyRecord } from "../../core/stores/idempotency.ts";
import type {
  InitiateCoin,
  LeaseWindow,
  NewTransaction,
  PendingMove,
  LockedPayment,
  LockedPaymentRow,
  TransactionStore,
} from "../../core/stores/transactions.ts";
import type { TransactionRecord } from "../../core/records/transactions.ts";
import { Prisma, type Transaction } from "../generated/client.ts";
import { CHANGES_CHANNEL, changePayload } from "../notifications.ts";
import { queryDirect } from "../direct-sql.ts";
import { eventPolicyOf, insertEventsSql } from "../outbox.ts";
import { paymentOutboxEvent } from "../../core/events/outbox-event.ts";
import { transactionSnapshot } from "../../core/events/payment-events.ts";
import type { LifecyclePolicy } from "../../core/policies.ts";
import type { Database, DatabaseTransaction } from "../types.ts";
import { idempotencyStore, rememberIdempotencyKey } from "./idempotency.ts";
import { emailKey, receiptsOf, transactionInclude } from "./rows.ts";
import { listTransactions } from "./transaction-list.ts";
import type { InitiateMemory } from "./initiate-memory.ts";
import { initializeGroups, type InitializeWrite } from "./initialize-groups.ts";
import { type MoveCounts, moveGroups, type MoveWrite } from "./move-groups.ts";
import { FREE, leaseOf, leasePool, leaseStatement, leaseSteps, type LeaseRow, releaseLeases } from "./index-leases.ts";

/** `memory`: what this process remembers for initiate (initiate-memory.ts); null: every initiate reads. */
export function transactionStore(db: Database, memory: InitiateMemory | null = null): TransactionStore {
  const pool = memory && leasePool(db, memory);
  const groups = initializeGroups(db, (write) => insertInitialized(db, write, null));
  const moves = moveGroups(db, async (write) => (await moveAlone(db, write))[0] ?? { moved: 0, held: 0, taken: 0 });
  return {
    async insertInitiated(t, merchant, idempotency) {
      const write = initializedWrite(db, t, merchant);
      // A request with an Idempotency-Key writes its key with its row, in a statement of its own.
      if (idempotency) await insertInitialized(db, write, idempotency);
      else await groups.write(write);
      memory?.rememberInitialized(write.row);
      return write.row;
    },

    findFor: (id, merchantId, isLive) => db.transaction.findFirst({ where: { id, merchantId, isLive }, include: transactionInclude }),

    async findRowFor(id, merchantId, isLive) {
      const [row] = await queryDirect<Transaction>(db, Prisma.sql`WITH ${ownTransaction(id, merchantId, isLive)} SELECT * FROM t`);
      return row ?? null;
    },

    async findForInitiate(id, merchantId, isLive, coin, lease) {
      // The wallet a lease would be on, when known before the read: the network named, else the remembered default.
      const remembered = coin && memory ? memory.settingsFor(merchantId, coin.currencyId, isLive) : null;
      // Past the settings' time, the default last read still says which pool a read's lease may come from.
      const defaultNetwork = remembered ? remembered.defaultNetwork : coin && memory?.lastDefaultNetwork(merchantId, coin.currencyId, isLive);
      const network =
        coin?.network ?? (coin && defaultNetwork !== undefined ? (defaultNetwork ?? networkOfWallet(coin.currencyId, undefined)) : null);
      const wallet = coin && network ? { merchantId, currencyId: coin.currencyId, isLive, network } : null;
      const walletNetwork = wallet && networkOfWallet(wallet.currencyId, wallet.network);
      const row = memory?.initialized(id, merchantId, isLive) ?? null;
      // This process initialized it and knows the merchant's settings: no read (the move checks what it must).
      if (row && remembered && wallet && lease && pool) {
        const leased = await pool.take(wallet, lease.now, lease.until);
        return { row, lease: leased, leasedOn: leased && walletNetwork, ...remembered };
      }
      // A pooled lease if there is one; else the read leases one, as without memory (the pool fills only on the way above).
      const pooled = wallet && lease && pool ? pool.pooled(wallet, lease.now, lease.until) : null;
      const token = randomUUID();
      const [found] = await queryDirect<InitiateRow>(db, initiateReadStatement(id, merchantId, isLive, coin, pooled ? null : lease, token));
      const pooledOn = pooled && walletNetwork;
      if (!found) return { row: null, lease: pooled, leasedOn: pooledOn, pricing: null, defaultNetwork: null };
      const { leased, settings_found, settings_spread, settings_sources, settings_default_network, ...read } = found;
      const pricing = settings_found ? { spreadPercent: settings_spread, sources: settings_sources ?? [] } : null;
      if (memory && coin && settings_found)
        memory.rememberSettings(merchantId, coin.currencyId, isLive, { pricing, defaultNetwork: settings_default_network });
      return {
        row: read,
        lease: pooled ?? (leased && leaseOf(leased, token)),
        leasedOn: pooledOn || (leased?.network ?? null),
        pricing,
        defaultNetwork: settings_default_network,
      };
    },

    async leaseIndex(wallet, now, until, slots) {
      const network = networkOfWallet(wallet.currencyId, wallet.network);
      const pooledWallet = { merchantId: wallet.merchantId, currencyId: wallet.currencyId, isLive: wallet.isLive, network };
      const taken = pool && (await pool.take(pooledWallet, now, until));
      if (taken) return taken;
      const token = randomUUID();
      for (;;) {
        const [row] = await queryDirect<LeaseRow>(db, leaseStatement(wallet, now, until, token));
        if (row) return leaseOf(row, token);
        // No slot free: the wallet's first initiate makes its slots (then try again), else it is full.
        const made = await db.$executeRaw`
          INSERT INTO wallet_index_slots (wallet_id, slot, derivation_index, token, leased_until)
          SELECT p.wallet_id, slot, NULL, NULL, ${FREE} FROM payment_processors p CROSS JOIN generate_series(0, ${slots}::int - 1) AS slot
          WHERE p.merchant_id = ${wallet.merchantId} AND p.currency_id = ${wallet.currencyId} AND p.is_live = ${wallet.isLive}
            AND p.network = ${networkOfWallet(wallet.currencyId, wallet.network)}
            AND p.wallet_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM wallet_index_slots WHERE wallet_id = p.wallet_id)
          ON CONFLICT DO NOTHING`;
        if (made > 0) continue;
        const processor = await db.paymentProcessor.findUnique({
          where: {
            merchantId_currencyId_network_isLive: {
              merchantId: wallet.merchantId,
              currencyId: wallet.currencyId,
              network: networkOfWallet(wallet.currencyId, wallet.network),
              isLive: wallet.isLive,
            },
          },
          select: { walletId: true },
        });
        return processor?.walletId ? "full" : null;
      }
    },

    async releaseIndex(lease) {
      if (pool) await pool.giveBack(lease);
      else await releaseLeases(db, [lease]);
    },

    async moveToPending(move) {
      let outcome: ReturnType<typeof moveOutcome>;
      try {
        const write = moveWriteOf(move, eventPolicyOf(db));
        // A move with an Idempotency-Key writes its key with it, in a statement of its own.
        outcome = moveOutcome(move, move.idempotency ? await moveAlone(db, write) : [await moves.write(write)]);
      } finally {
        memory?.forgetTransaction(move.transaction.id);
      }
      // Used: no longer lent. Not moved: the lease is still held, and the release the initiate makes returns it to the pool.
      if (typeof outcome === "object") memory?.used(move.lease);
      // A lease found lost may be one of several the pool took together, or its wallet was replaced: none is kept.
      if (outcome === "lease_lost" && pool) await pool.drop(move.lease);
      // Not moved because a concurrent request with the same key moved it first (this one waited for its
      // row lock): the key is taken now, and that request's answer is this one's.
      const key = move.idempotency;
      if (outcome === "not_initiated" && key && (await idempotencyStore(db).find(key.merchantId, key.isLive, key.key))) {
        throw new DuplicateKeyError(`Idempotency-Key ${key.key} was taken by a concurrent request`);
      }
      return outcome;
    },

    withLockedPayment: (transactionId, work) =>
      db.$transaction(async (tx) => {
        // Serialises everything that changes one transaction's payment (watchers, helpers, expiry).
        await tx.$queryRaw`SELECT id FROM transactions WHERE id = ${transactionId} FOR UPDATE`;
        const row = await tx.transaction.findUniqueOrThrow({
          where: { id: transactionId },
          select: { status: true, paymentAmount: true, reversedAt: true, finalAt: true, policyUnderpaymentTolerance: true },
        });
        return work(lockedPayment(tx, transactionId, row));
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
        select: {
          id: true,
          status: true,
          paymentAmount: true,
          amountPaid: true,
          amountUnconfirmed: true,
          expiresAt: true,
          policyUnderpaymentTolerance: true,
        },
      }),

    async settleLatePayment(transactionId, decision, accept) {
      const [row] = await db.transaction.updateManyAndReturn({
        where: { id: transactionId, status: "ABANDONED", latePayment: { equals: Prisma.DbNull } },
        data: { latePayment: { ...decision }, ...(accept ? { status: "SUCCESSFUL" as const } : {}) },
        include: transactionInclude,
      });
      return row ?? null;
    },

    abandon: (ids, closedAt) =>
      db.transaction.updateManyAndReturn({
        where: { id: { in: ids }, status: { in: ["INITIATED", "PENDING"] } },
        data: { status: "ABANDONED", ...(closedAt ? { expiresAt: closedAt } : {}) },
        include: transactionInclude,
      }),

    async watchList(lateSince, limit, share, finalitySince = lateSince) {
      const open = {
        paymentAddress: { not: null },
        OR: [
          { status: "PENDING" as const },
          { status: "ABANDONED" as const, expiresAt: { gt: lateSince } },
          // Paid, watched until final (lifecycle.ts), within a bound for a node that never tells.
          { status: "SUCCESSFUL" as const, finalAt: null, expiresAt: { gt: finalitySince } },
        ],
      };
      // One share of several: the ids by a hash of the address (Prisma has no word for it), then the rows.
      const ids =
        share.of === 1
          ? null
          : (
              await db.$queryRaw<{ id: string }[]>`
                SELECT id FROM transactions
                 WHERE payment_address IS NOT NULL
                   AND (status = 'PENDING' OR (status = 'ABANDONED' AND expires_at > ${lateSince})
                        OR (status = 'SUCCESSFUL' AND final_at IS NULL AND expires_at > ${finalitySince}))
                   AND mod(abs(hashtext(payment_address)::bigint), ${share.of}) = ${share.index}
                 ORDER BY expires_at LIMIT ${limit}`
            ).map((row) => row.id);
      return db.transaction.findMany({
        where: ids === null ? open : { id: { in: ids } },
        select: {
          id: true,
          isLive: true,
          paymentCurrencyId: true,
          paymentNetwork: true,
          paymentAddress: true,
          initiatedAt: true,
          status: true,
          reversedAt: true,
          ownAddressIndex: true,
          paymentAmount: true,
          merchantId: true,
          policyConfirmations: true,
          receipts: {
            where: { source: "chain", status: { in: ["SEEN", "CONFIRMED"] } },
            select: { key: true, amount: true, status: true, confirmations: true, replaceable: true },
          },
        },
        orderBy: { expiresAt: "asc" },
        take: limit,
      });
    },

    async keepClientSecret(transactionId, sealed) {
      // Raw SQL: not a state change, so the outbox hook must not see it (it would add an event).
      await db.$executeRaw`UPDATE transactions SET client_secret_enc = ${sealed} WHERE id = ${transactionId} AND client_secret_enc IS NULL`;
      const row = await db.transaction.findUniqueOrThrow({ where: { id: transactionId }, select: { clientSecretEnc: true } });
      if (row.clientSecretEnc === null) throw new Error(`Transaction ${transactionId} kept no client secret`);
      return row.clientSecretEnc;
    },

    list: (query) => listTransactions(db, query),

    receipts: (transactionId) => db.paymentReceipt.findMany({ where: { transactionId }, orderBy: [{ firstSeenAt: "asc" }, { id: "asc" }] }),

    receiptsOf: (transactionIds) => receiptsOf(db, transactionIds),

    async walletCurrencies(merchantId, isLive) {
      const rows = await db.paymentProcessor.findMany({
        where: { merchantId, isLive },
        select: { currencyId: true, network: true },
        orderBy: [{ currencyId: "asc" }, { network: "asc" }],
      });
      return rows;
    },

    async handedOutAddresses(merchantId, isLive, { network, limit }) {
      const rows = await db.transaction.findMany({
        where: {
          merchantId,
          isLive,
          paymentAddress: { not: null },
          paymentCurrencyId: { not: null },
          // A payment made before networks has none: the core reads it as its coin's default network.
          ...(network === undefined ? {} : { OR: [{ paymentNetwork: network }, { paymentNetwork: null }] }),
        },
        select: { id: true, paymentAddress: true, paymentCurrencyId: true, paymentNetwork: true, initiatedAt: true, status: true },
        orderBy: [{ initiatedAt: "desc" }, { id: "desc" }],
        take: limit,
      });
      return rows.map((row) => ({
        transactionId: row.id,
        address: row.paymentAddress as string,
        currencyId: row.paymentCurrencyId as number,
        network: row.paymentNetwork,
        initiatedAt: row.initiatedAt,
        status: row.status,
      }));
    },
  };
}

/**
 * Every column of the transaction model under its field's name, for reads in raw SQL: what every poll
 * and initiate reads costs about half the CPU of Prisma's findFirst (docs/benchmarks.md). Typed by the
 * model, so a field added to the schema fails to compile here until it is read too.
 */
const TRANSACTION_FIELDS: Record<keyof Transaction, string> = {
  id: "id",
  reference: "reference",
  merchantId: "merchant_id",
  customerEmail: "customer_email",
  customerEmailKey: "customer_email_key",
  customerName: "customer_name",
  paymentLinkId: "payment_link_id",
  isLive: "is_live",
  status: "status",
  description: "description",
  initializedAmount: "initialized_amount",
  initializedCurrencyId: "initialized_currency_id",
  requestMeta: "request_meta",
  paymentCurrencyId: "payment_currency_id",
  paymentNetwork: "payment_network",
  paymentAmount: "payment_amount",
  amountPaid: "amount_paid",
  amountUnconfirmed: "amount_unconfirmed",
  confirmations: "confirmations",
  requiredConfirmations: "required_confirmations",
  paymentAddress: "payment_address",
  walletId: "wallet_id",
  derivationIndex: "derivation_index",
  ownAddressIndex: "own_address_index",
  refundAddress: "refund_address",
  quoteRate: "quote_rate",
  quoteSource: "quote_source",
  quotedAt: "quoted_at",
  quoteSources: "quote_sources",
  quoteMarketRate: "quote_market_rate",
  quoteSpreadPercent: "quote_spread_percent",
  initiatedAt: "initiated_at",
  expiresAt: "expires_at",
  clientSecretEnc: "client_secret_enc",
  returnUrl: "return_url",
  cancelUrl: "cancel_url",
  locale: "locale",
  policyExpiresIn: "policy_expires_in",
  policyUnderpaymentTolerance: "policy_underpayment_tolerance",
  policyConfirmations: "policy_confirmations",
  policyLatePaymentPercent: "policy_late_payment_percent",
  latePayment: "late_payment",
  reversedAt: "reversed_at",
  finalAt: "final_at",
  createdAt: "created_at",
  updatedAt: "updated_at",
};

const TRANSACTION_COLUMNS = Prisma.raw(
  Object.entries(TRANSACTION_FIELDS)
    .map(([field, column]) => `${column} AS "${field}"`)
    .join(", "),
);

/**
 * The steps of a WITH that end in `t`: the transaction `id` if it is the merchant's, in the mode. Looked
 * up by its primary key alone, then checked: given all three conditions at once, a planner without
 * statistics (a new table) may take the (merchant_id, is_live, …, id) index instead, and a prepared
 * statement keeps that plan, which reads every entry of the merchant's mode for one row (issue 30).
 */
function ownTransaction(id: string, merchantId: number, isLive: boolean): Prisma.Sql {
  return Prisma.sql`
    by_id AS MATERIALIZED (SELECT ${TRANSACTION_COLUMNS} FROM transactions WHERE id = ${id}),
    t AS (SELECT * FROM by_id WHERE "merchantId" = ${merchantId} AND "isLive" = ${isLive})`;
}

/**
 * Initiate's read (TransactionStore.findForInitiate): the transaction's row; the merchant's pricing and
 * its default network for the coin in the mode; and an index leased, in the same statement, if the
 * transaction is INITIATED and a slot is free, on the network asked for, else the merchant's default
 * for the coin, else the coin's own: the lease's row as one JSON column, null without one.
 */
function initiateReadStatement(
  id: string,
  merchantId: number,
  isLive: boolean,
  coin: InitiateCoin | null,
  lease: LeaseWindow | null,
  token: string,
): Prisma.Sql {
  const currencyId = coin?.currencyId ?? null;
  const wallet = { merchantId, currencyId: currencyId ?? 0, isLive };
  const network = Prisma.sql`COALESCE(${coin?.network ?? null}::text, (SELECT default_network FROM settings), ${currencyId === null ? "" : networkOfWallet(currencyId, undefined)})`;
  const initiated = Prisma.sql`${lease !== null && coin !== null} AND EXISTS (SELECT 1 FROM t WHERE t.status = 'INITIATED')`;
  const now = lease?.now ?? new Date(0);
  return Prisma.sql`
    WITH ${ownTransaction(id, merchantId, isLive)},
    settings AS (
      SELECT m.price_spread_percent AS spread, m.price_sources AS sources,
        (SELECT d.network FROM merchant_default_networks d
         WHERE d.merchant_id = m.id AND d.currency_id = ${currencyId}::int AND d.is_live = ${isLive}) AS default_network
      FROM merchants m WHERE m.id = ${merchantId}),
    ${leaseSteps(wallet, network, initiated, now, lease?.until ?? now, token, 1)}
    SELECT t.*, to_jsonb(leased) AS leased, settings.spread AS settings_spread, settings.sources AS settings_sources,
      settings.default_network AS settings_default_network, EXISTS (SELECT 1 FROM settings) AS settings_found
    FROM t LEFT JOIN leased ON TRUE LEFT JOIN settings ON TRUE`;
}

type InitiateRow = Transaction & {
  leased: LeaseRow | null;
  settings_found: boolean;
  settings_spread: { toString(): string } | null;
  settings_sources: string[] | null;
  settings_default_network: string | null;
};

/** A move as its statement writes it (alone or in a group: move-groups.ts). */
export function moveWriteOf(move: PendingMove, policy: LifecyclePolicy): MoveWrite {
  const after = moved(move);
  // A transaction just initiated has had no address to pay to: no receipts.
  const event = paymentOutboxEvent(transactionSnapshot(after, after.merchant, []), move.now, policy);
  const network = networkOfWallet(move.fields.paymentCurrencyId, move.fields.paymentNetwork);
  return { move, network, atKeyIndex: usesLeasedIndex(move), event };
}

/** One move in its own statement (with its Idempotency-Key, when it has one): its counts. */
export function moveAlone(db: Database, write: MoveWrite): Promise<MoveCounts[]> {
  return queryDirect<MoveCounts>(db, moveStatement(write));
}

/**
 * Initiate's write in one statement, as initialize's is (no row lock held between round trips):
 * INITIATED → PENDING only while the lease is held, its slot emptied with it, the payment.pending
 * event and the NOTIFY, as the outbox hook would write them. `held` locks the slot's row: a lease
 * that ran out and was taken again meanwhile is seen as lost, and none can take it during the move.
 * The event is made from the transaction as read before: what it tells (reference, customer, order,
 * meta) does not change after initialize, and the rest is what this statement writes. The
 * Idempotency-Key, if any, is written with the move and only with it: a key already taken fails the
 * statement (DuplicateKeyError), which moves nothing.
 */
function moveStatement({ move, network, atKeyIndex, event }: MoveWrite): Prisma.Sql {
  const { transaction: t, lease, fields, now } = move;
  const own = move.ownAddressIndex ?? null;
  const keyed = move.idempotency
    ? Prisma.sql`keyed AS (${rememberIdempotencyKey(move.idempotency, Prisma.sql`moved.id`, now)} FROM moved),`
    : Prisma.empty;
  return Prisma.sql`
    WITH held AS (
      SELECT 1 FROM wallet_index_slots
      WHERE wallet_id = ${lease.walletId} AND slot = ${lease.slot} AND derivation_index = ${lease.index} AND token = ${lease.token}
        -- Still the merchant's wallet for the coin: a lease kept by a process (index-leases.ts) may outlive a change of wallet.
        AND EXISTS (SELECT 1 FROM payment_processors WHERE merchant_id = ${t.merchantId} AND currency_id = ${fields.paymentCurrencyId}
          AND network = ${network} AND is_live = ${t.isLive} AND wallet_id = ${lease.walletId})
      FOR UPDATE OF wallet_index_slots),
    -- The address already another transaction's in this coin and mode (two wallets on one key): the
    -- unique index would refuse the move with a 500, and the next try would lease the same index.
    taken AS (
      SELECT 1 FROM transactions WHERE is_live = ${t.isLive} AND payment_currency_id = ${fields.paymentCurrencyId}
        AND payment_address = ${move.address} AND id <> ${t.id} AND own_address_index IS NULL AND ${own === null}),
    moved AS (
      UPDATE transactions SET status = 'PENDING', payment_currency_id = ${fields.paymentCurrencyId}, payment_network = ${network},
        payment_amount = ${fields.paymentAmount}::numeric, quote_rate = ${fields.quoteRate}::numeric, quote_source = ${fields.quoteSource},
        quoted_at = ${fields.quotedAt}, quote_sources = ${fields.quoteSources ? JSON.stringify(fields.quoteSources) : null}::jsonb,
        quote_market_rate = ${fields.quoteMarketRate ?? null}::numeric, quote_spread_percent = ${fields.quoteSpreadPercent ?? null}::numeric, refund_address = ${fields.refundAddress}, expires_at = ${fields.expiresAt},
        payment_address = ${move.address}, wallet_id = ${lease.walletId}, derivation_index = ${atKeyIndex ? lease.index : null}::int,
        own_address_index = ${own}::int,
        initiated_at = ${now}, updated_at = ${now}
      -- status as text: not a condition the (status, expires_at) index answers. Without statistics (a new
      -- table) the planner ties that index with the primary key and may pick it, then walks every
      -- INITIATED entry, dead ones included, for the one id (docs/benchmarks.md, issue 30).
      WHERE id = ${t.id} AND status::text = 'INITIATED' AND EXISTS (SELECT 1 FROM held) AND NOT EXISTS (SELECT 1 FROM taken)
      RETURNING id),
    -- An own address (TRON own-address mode) or a deposit forwarder takes no index of the key: the slot keeps it for the next payment.
    used AS (
      UPDATE wallet_index_slots SET derivation_index = CASE WHEN ${atKeyIndex} THEN NULL ELSE derivation_index END, token = NULL, leased_until = ${FREE}
      WHERE wallet_id = ${lease.walletId} AND slot = ${lease.slot} AND token = ${lease.token} AND EXISTS (SELECT 1 FROM moved)),
    notified AS (SELECT pg_notify(${CHANGES_CHANNEL}, ${changePayload(t.id, true)}) FROM moved),
    ${keyed}
    evented AS (${insertEventsSql([event], { onlyIf: Prisma.sql`moved CROSS JOIN notified`, firstOfItsKind: true })})
    SELECT (SELECT count(*) FROM moved)::int AS moved, (SELECT count(*) FROM held)::int AS held, (SELECT count(*) FROM taken)::int AS taken`;
}

/** Whether the address handed out is the key's at the leased index (not an own address, not a forwarder). */
const usesLeasedIndex = (move: PendingMove) => (move.ownAddressIndex ?? null) === null && move.forwarder !== true;

/** The transaction as the move leaves it. */
function moved(move: PendingMove): TransactionRecord {
  const { fields, now } = move;
  // spread: overrides only; every key below and in `fields` is a column the record already has.
  return {
    ...move.transaction,
    ...fields,
    paymentNetwork: networkOfWallet(fields.paymentCurrencyId, fields.paymentNetwork),
    status: "PENDING",
    paymentAmount: new Prisma.Decimal(fields.paymentAmount),
    quoteRate: new Prisma.Decimal(fields.quoteRate),
    quoteSources: fields.quoteSources ?? null,
    quoteMarketRate: fields.quoteMarketRate == null ? null : new Prisma.Decimal(fields.quoteMarketRate),
    quoteSpreadPercent: fields.quoteSpreadPercent == null ? null : new Prisma.Decimal(fields.quoteSpreadPercent),
    paymentAddress: move.address,
    walletId: move.lease.walletId,
    derivationIndex: usesLeasedIndex(move) ? move.lease.index : null,
    ownAddressIndex: move.ownAddressIndex ?? null,
    initiatedAt: now,
    updatedAt: now,
  };
}

function moveOutcome(move: PendingMove, rows: MoveCounts[]): { moved: TransactionRecord } | "not_initiated" | "lease_lost" | "address_taken" {
  const [counts] = rows;
  if (counts && counts.moved > 0) return { moved: moved(move) };
  if (counts && counts.held > 0 && counts.taken > 0) return "address_taken";
  return counts && counts.held > 0 ? "not_initiated" : "lease_lost";
}

/**
 * What initialize writes: the row, typed as Prisma's model (a column added to the schema fails to
 * compile here), and its payment.initiated event. Written by insertInitialized's statement, or with
 * others by initialize-groups.ts.
 */
export function initializedWrite(db: Database, t: NewTransaction, merchant: { name: string }): InitializeWrite {
  // Every column written out, none spread from `t`: on Node 20's V8 each key added to a spread copy costs
  // about 1.7 µs and a new hidden class; this row took 78 µs that way (docs/benchmarks.md, issue 47).
  const row: Transaction = {
    id: t.id,
    reference: t.reference,
    merchantId: t.merchantId,
    customerEmail: t.customerEmail,
    customerEmailKey: emailKey(t.customerEmail),
    customerName: t.customerName,
    paymentLinkId: t.paymentLinkId,
    isLive: t.isLive,
    status: "INITIATED",
    description: t.description,
    initializedAmount: new Prisma.Decimal(t.initializedAmount),
    initializedCurrencyId: t.initializedCurrencyId,
    requestMeta: t.requestMeta as Prisma.JsonObject,
    paymentCurrencyId: null,
    paymentNetwork: null,
    paymentAmount: null,
    amountPaid: null,
    amountUnconfirmed: null,
    confirmations: null,
    requiredConfirmations: null,
    paymentAddress: null,
    walletId: null,
    derivationIndex: null,
    ownAddressIndex: null,
    refundAddress: null,
    quoteRate: null,
    quoteSource: null,
    quotedAt: null,
    quoteSources: null,
    quoteMarketRate: null,
    quoteSpreadPercent: null,
    initiatedAt: null,
    expiresAt: t.expiresAt,
    clientSecretEnc: t.clientSecretEnc,
    returnUrl: t.returnUrl,
    cancelUrl: t.cancelUrl,
    locale: t.locale,
    policyExpiresIn: t.policyExpiresIn,
    policyUnderpaymentTolerance: t.policyUnderpaymentTolerance === null ? null : new Prisma.Decimal(t.policyUnderpaymentTolerance),
    policyConfirmations: t.policyConfirmations,
    policyLatePaymentPercent: t.policyLatePaymentPercent === null ? null : new Prisma.Decimal(t.policyLatePaymentPercent),
    latePayment: null,
    reversedAt: null,
    finalAt: null,
    createdAt: t.createdAt,
    updatedAt: t.createdAt,
  };
  const event = paymentOutboxEvent(transactionSnapshot(row, merchant, []), t.createdAt, eventPolicyOf(db));
  return { row, event };
}

/**
 * One initialize's statement. Initialize is the hot path of the API: Prisma's `create` spends about
 * 0.9 ms of CPU per row building and reading back the query; this one statement about 0.35 ms
 * (docs/benchmarks.md). It writes the transaction and its event together, and announces the change
 * (NOTIFY), as the outbox hook would: one statement is one database transaction. With its
 * idempotency key when it has one.
 */
export async function insertInitialized(db: Database, { row: t, event }: InitializeWrite, idempotency: IdempotencyRecord | null): Promise<void> {
  const meta = JSON.stringify(t.requestMeta);
  // A key already taken fails the whole statement (primary key), so nothing is created twice.
  const remembered = idempotency
    ? Prisma.sql`, remembered AS (${rememberIdempotencyKey(idempotency, Prisma.sql`created.id`, t.createdAt)} FROM created)`
    : Prisma.empty;
  await queryDirect(
    db,
    Prisma.sql`
    WITH created AS (
      INSERT INTO transactions (id, reference, merchant_id, customer_email, customer_email_key, customer_name, payment_link_id, is_live,
        status, description, initialized_amount, initialized_currency_id, request_meta, created_at, updated_at, expires_at,
        client_secret_enc, return_url, cancel_url, locale, policy_expires_in, policy_underpayment_tolerance, policy_confirmations,
        policy_late_payment_percent)
      VALUES (${t.id}, ${t.reference}, ${t.merchantId}, ${t.customerEmail}, ${t.customerEmailKey}, ${t.customerName}, ${t.paymentLinkId}, ${t.isLive},
        'INITIATED', ${t.description}, ${t.initializedAmount}::numeric, ${t.initializedCurrencyId}, ${meta}::jsonb,
        ${t.createdAt}, ${t.createdAt}, ${t.expiresAt}, ${t.clientSecretEnc}, ${t.returnUrl}, ${t.cancelUrl}, ${t.locale},
        ${t.policyExpiresIn}, ${t.policyUnderpaymentTolerance}::numeric, ${t.policyConfirmations === null ? null : JSON.stringify(t.policyConfirmations)}::jsonb,
        ${t.policyLatePaymentPercent}::numeric)
      RETURNING id)${remembered},
    notified AS (SELECT pg_notify(${CHANGES_CHANNEL}, ${changePayload(t.id, true)}) FROM created)
    ${insertEventsSql([event], { onlyIf: Prisma.sql`created CROSS JOIN notified`, firstOfItsKind: true })}`,
  );
}

/** The receipts and row of one transaction, read and written inside the transaction that holds its row lock. */
function lockedPayment(tx: DatabaseTransaction, transactionId: string, row: LockedPaymentRow): LockedPayment {
  const decimal = (value: { toString(): string } | null) => (value === null ? null : new Decimal(value.toString()));
  const onChain = { transactionId, status: { in: ["SEEN" as const, "CONFIRMED" as const] } };
  return {
    // spread: the watcher's locked write, not a request's path.
    current: { ...row, paymentAmount: decimal(row.paymentAmount), policyUnderpaymentTolerance: decimal(row.policyUnderpaymentTolerance) },
    async upsertReceipts(source, rows, now) {
      for (const r of rows) {
        const fields = {
          txHash: r.txHash,
          amount: r.amount.toFixed(),
          confirmations: r.confirmations,
          blockHeight: r.blockHeight,
          status: r.confirmed ? ("CONFIRMED" as const) : ("SEEN" as const),
          replaceable: r.replaceable,
          updatedAt: now,
        };
        await tx.paymentReceipt.upsert({
          where: { transactionId_key: { transactionId, key: r.key } },
          create: { transactionId, key: r.key, source, firstSeenAt: now, ...fields },
          update: fields,
        });
      }
    },
    onChainExcept: (source, kept) =>
      // spread: the watcher's locked write, not a request's path.
      tx.paymentReceipt.findMany({ where: { ...onChain, source, key: { notIn: [...kept] } }, select: { key: true, status: true } }),
    async markReceipts(keys, state, now) {
      await tx.paymentReceipt.updateMany({ where: { transactionId, key: { in: [...keys] } }, data: { status: state, updatedAt: now } });
    },
    async sums() {
      const sums = await tx.paymentReceipt.groupBy({ by: ["status"], where: onChain, _sum: { amount: true }, _min: { confirmations: true } });
      // spread: the watcher's locked write, not a request's path.
      const least = await tx.paymentReceipt.aggregate({ where: { ...onChain, source: "chain" }, _min: { confirmations: true } });
      const sum = (status: "SEEN" | "CONFIRMED") => new Decimal(sums.find((s) => s.status === status)?._sum.amount?.toString() ?? 0);
      return {
        confirmed: sum("CONFIRMED"),
        unconfirmed: sum("SEEN"),
        leastUnconfirmedConfirmations: sums.find((s) => s.status === "SEEN")?._min.confirmations ?? null,
        leastChainConfirmations: least._min.confirmations,
      };
    },
    async write(change) {
      const [written] = await tx.transaction.updateManyAndReturn({
        where: { id: transactionId },
        data: {
          amountPaid: change.amountPaid === null ? null : change.amountPaid.toFixed(),
          amountUnconfirmed: change.amountUnconfirmed === null ? null : change.amountUnconfirmed.toFixed(),
          confirmations: change.confirmations,
          requiredConfirmations: change.requiredConfirmations,
          ...(change.status ? { status: change.status } : {}),
          ...(change.reversedAt ? { reversedAt: change.reversedAt } : {}),
          ...(change.finalAt ? { finalAt: change.finalAt } : {}),
        },
        include: transactionInclude,
      });
      if (!written) throw new Error(`Transaction ${transactionId} vanished while recording a payment`);
      return written;
    },
  };
}
