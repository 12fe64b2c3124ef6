// The ledger on PostgreSQL/PGlite (src/core/stores/ledger.ts, LedgerStore): entries derived at query
// time from what is already recorded, never a second copy: confirmed receipts (payment_receipts),
// succeeded refunds, confirmed consolidations, what confirmed flushes moved (one row per forwarder
// and coin) and recorded sweeps, as one UNION ALL of the merchant's mode.
import { Decimal } from "../../core/money/amounts.ts";
import { CRYPTO_CURRENCIES } from "../../core/money/currencies.ts";
import { defaultNetworkOf } from "../../core/networks.ts";
import type { LedgerEntryRecord, LedgerKind, LedgerSumRecord } from "../../core/records/ledger.ts";
import type { LedgerFilters, LedgerStore } from "../../core/stores/ledger.ts";
import { Prisma } from "../generated/client.ts";
import type { Database } from "../types.ts";

/** A transaction's network: rows from before networks have none and were paid on the coin's default (constants from the catalogue). */
const NETWORK = Prisma.raw(
  `COALESCE(t.payment_network, CASE t.payment_currency_id ${CRYPTO_CURRENCIES.map((c) => `WHEN ${c.id} THEN '${defaultNetworkOf(c.slug)}'`).join(" ")} END)`,
);

/** One entry's source by its primary key (a list's cursor), each other branch empty; none: every entry. */
function sourceOf(id: string | null): Record<LedgerKind, Prisma.Sql> {
  if (id === null) return { receipt: Prisma.empty, refund: Prisma.empty, consolidation: Prisma.empty, flush: Prisma.empty, sweep: Prisma.empty };
  const [kind, source = ""] = id.split(/:(.*)/s);
  const none = Prisma.sql`AND FALSE`;
  return {
    receipt: kind === "receipt" && /^\d{1,18}$/.test(source) ? Prisma.sql`AND r.id = ${BigInt(source)}` : none,
    refund: kind === "refund" ? Prisma.sql`AND f.id = ${source}` : none,
    consolidation: kind === "consolidation" ? Prisma.sql`AND k.id = ${source}` : none,
    flush: kind === "flush" && /^\d{1,18}:/.test(source) ? Prisma.sql`AND i.id = ${BigInt(source.split(":")[0] ?? "0")}` : none,
    sweep: kind === "sweep" ? Prisma.sql`AND s.id = ${source}` : none,
  };
}

/** Every entry of one merchant and mode (or the one `id` names), in the record's columns. */
function entriesOf(merchantId: number, isLive: boolean, id: string | null = null): Prisma.Sql {
  const only = sourceOf(id);
  return Prisma.sql`
    SELECT 'receipt' AS kind, 'receipt:' || r.id::text AS id, t.is_live, r.first_seen_at AS occurred_at, c.slug AS coin, ${NETWORK} AS network,
           r.amount, NULL::numeric AS fee, r.tx_hash, t.payment_address AS address, t.id AS transaction_id, t.reference, t.description,
           t.initialized_currency_id AS fiat_currency_id, t.quote_rate AS locked_rate, NULL::numeric AS rate_at_time,
           NULL::text AS top_up_tx_hash, NULL::numeric AS top_up_fee
      FROM payment_receipts r
      JOIN transactions t ON t.id = r.transaction_id
      JOIN currencies c ON c.id = t.payment_currency_id
     WHERE r.status = 'CONFIRMED' AND t.merchant_id = ${merchantId} AND t.is_live = ${isLive} ${only.receipt}
    UNION ALL
    SELECT 'refund', 'refund:' || f.id, f.is_live, f.succeeded_at, c.slug, ${NETWORK},
           f.amount_to_customer, f.network_fee, f.tx_hash, f.destination, t.id, t.reference, t.description,
           t.initialized_currency_id, t.quote_rate, CASE WHEN f.fiat_currency_id = t.initialized_currency_id THEN f.rate END, NULL, NULL
      FROM refunds f
      JOIN transactions t ON t.id = f.transaction_id
      JOIN currencies c ON c.id = t.payment_currency_id
     WHERE f.state = 'succeeded' AND f.succeeded_at IS NOT NULL AND f.merchant_id = ${merchantId} AND f.is_live = ${isLive} ${only.refund}
    UNION ALL
    SELECT 'consolidation', 'consolidation:' || k.id, k.is_live, k.confirmed_at, k.coin, k.network,
           k.amount_to_receive, k.network_fee, k.tx_hash, k.destination, NULL, NULL, NULL,
           NULL::integer, NULL::numeric, NULL::numeric, NULL, NULL
      FROM consolidations k
     WHERE k.state = 'confirmed' AND k.confirmed_at IS NOT NULL AND k.merchant_id = ${merchantId} AND k.is_live = ${isLive} ${only.consolidation}
    UNION ALL
    SELECT 'flush', 'flush:' || i.id::text || ':' || (m.value ->> 'coin'), l.is_live, l.confirmed_at, m.value ->> 'coin', l.network,
           (m.value ->> 'amount')::numeric, NULL::numeric, l.tx_hash, d.destination, t.id, t.reference, t.description,
           t.initialized_currency_id, CASE WHEN c.slug = m.value ->> 'coin' THEN t.quote_rate END, NULL::numeric, NULL, NULL
      FROM forwarder_flushes l
      JOIN forwarder_flush_items i ON i.flush_id = l.id
      JOIN forwarder_deposits d ON d.transaction_id = i.transaction_id
      JOIN transactions t ON t.id = i.transaction_id
      JOIN currencies c ON c.id = t.payment_currency_id
      CROSS JOIN LATERAL jsonb_array_elements(i.moved) m
     WHERE l.state = 'confirmed' AND l.confirmed_at IS NOT NULL AND i.moved IS NOT NULL AND (m.value ->> 'amount')::numeric > 0
       AND l.merchant_id = ${merchantId} AND l.is_live = ${isLive} ${only.flush}
    UNION ALL
    SELECT 'sweep', 'sweep:' || s.id, s.is_live, s.mined_at, s.coin, s.network,
           s.amount, s.fee, s.tx_hash, s.destination, t.id, t.reference, t.description,
           t.initialized_currency_id, CASE WHEN c.slug = s.coin THEN t.quote_rate END, NULL::numeric, s.top_up_tx_hash, s.top_up_fee
      FROM sweeps s
      LEFT JOIN transactions t ON t.id = s.transaction_id
      LEFT JOIN currencies c ON c.id = t.payment_currency_id
     WHERE s.merchant_id = ${merchantId} AND s.is_live = ${isLive} ${only.sweep}`;
}

/** The filters beside the merchant and mode, as a WHERE clause on the derived entries `e`. */
function whereOf(f: LedgerFilters): Prisma.Sql {
  const parts = [Prisma.sql`TRUE`];
  if (f.from !== null) parts.push(Prisma.sql`e.occurred_at >= ${f.from}`);
  if (f.to !== null) parts.push(Prisma.sql`e.occurred_at < ${f.to}`);
  if (f.coin !== null) parts.push(Prisma.sql`e.coin = ${f.coin}`);
  if (f.network !== null) parts.push(Prisma.sql`e.network = ${f.network}`);
  if (f.kind !== null) parts.push(Prisma.sql`e.kind = ${f.kind}`);
  return Prisma.join(parts, " AND ");
}

const COLUMNS = Prisma.sql`e.kind, e.id, e.is_live, e.occurred_at, e.coin, e.network, e.amount::text AS amount, e.fee::text AS fee, e.tx_hash,
  e.address, e.transaction_id, e.reference, e.description, e.fiat_currency_id, e.locked_rate::text AS locked_rate, e.rate_at_time::text AS rate_at_time,
  e.top_up_tx_hash, e.top_up_fee::text AS top_up_fee`;

interface Row {
  kind: string;
  id: string;
  is_live: boolean;
  occurred_at: Date;
  coin: string;
  network: string;
  amount: string;
  fee: string | null;
  tx_hash: string | null;
  address: string | null;
  transaction_id: string | null;
  reference: string | null;
  description: string | null;
  fiat_currency_id: number | null;
  locked_rate: string | null;
  rate_at_time: string | null;
  top_up_tx_hash: string | null;
  top_up_fee: string | null;
}

const decimal = (value: string | null) => (value === null ? null : new Decimal(value));

function recordOf(row: Row): LedgerEntryRecord {
  return {
    kind: row.kind as LedgerKind,
    id: row.id,
    isLive: row.is_live,
    occurredAt: row.occurred_at,
    coin: row.coin,
    network: row.network,
    amount: new Decimal(row.amount),
    fee: decimal(row.fee),
    txHash: row.tx_hash,
    address: row.address,
    transactionId: row.transaction_id,
    reference: row.reference,
    description: row.description,
    fiatCurrencyId: row.fiat_currency_id === null ? null : Number(row.fiat_currency_id),
    lockedRate: decimal(row.locked_rate),
    rateAtTime: decimal(row.rate_at_time),
    topUpTxHash: row.top_up_tx_hash,
    topUpFee: decimal(row.top_up_fee),
  };
}

export function ledgerStore(db: Database): LedgerStore {
  return {
    async entries(query) {
      const after = query.after === null ? Prisma.empty : Prisma.sql`AND (e.occurred_at, e.id) < (${query.after.occurredAt}, ${query.after.id})`;
      const rows = await db.$queryRaw<Row[]>`
        SELECT ${COLUMNS} FROM (${entriesOf(query.merchantId, query.isLive)}) e
         WHERE ${whereOf(query)} ${after}
         ORDER BY e.occurred_at DESC, e.id DESC
         LIMIT ${query.limit}`;
      return rows.map(recordOf);
    },

    async entry(id, merchantId, isLive) {
      const rows = await db.$queryRaw<Row[]>`SELECT ${COLUMNS} FROM (${entriesOf(merchantId, isLive, id)}) e WHERE e.id = ${id}`;
      return rows[0] === undefined ? null : recordOf(rows[0]);
    },

    async sums(filters) {
      const rows = await db.$queryRaw<
        { kind: string; coin: string; network: string; count: number; amount: string; fee: string; top_up_fee: string }[]
      >`
        SELECT e.kind, e.coin, e.network, count(*)::integer AS count,
               COALESCE(sum(e.amount), 0)::text AS amount, COALESCE(sum(e.fee), 0)::text AS fee,
               COALESCE(sum(e.top_up_fee), 0)::text AS top_up_fee
          FROM (${entriesOf(filters.merchantId, filters.isLive)}) e
         WHERE ${whereOf(filters)}
         GROUP BY e.kind, e.coin, e.network`;
      return rows.map(
        (r): LedgerSumRecord => ({
          kind: r.kind as LedgerKind,
          coin: r.coin,
          network: r.network,
          count: Number(r.count),
          amount: new Decimal(r.amount),
          fee: new Decimal(r.fee),
          topUpFee: new Decimal(r.top_up_fee),
        }),
      );
    },
  };
}
