// Initiate's group commit (group-commit.ts, issue 47): the moves to PENDING that arrive while one is
// being written are written together by the next statement. Each move keeps its own conditions (its
// lease still held, its address nobody else's, its transaction still INITIATED) and its own outcome;
// the moves that pass write their transaction, free their slot, and write their payment.pending
// event and announcement, as the statement of one move does (transactions.ts, moveStatement). Moves
// with an Idempotency-Key are never grouped: their key is written with the move.
//
// Two moves of one group for one transaction (racing initiates) move it once: an UPDATE changes a
// row once, and the other reads as not initiated, as it would after the first committed. Two for one
// address on two wallets of one key pass the `taken` check together (it reads the table as the
// statement began) and the unique index refuses the group: each then goes again alone, and the
// second hears address_taken.
import type { OutboxEvent } from "../../core/events/outbox-event.ts";
import type { PendingMove } from "../../core/stores/transactions.ts";
import { queryDirect } from "../direct-sql.ts";
import { Prisma } from "../generated/client.ts";
import { CHANGES_CHANNEL, changePayload } from "../notifications.ts";
import { insertEventRowsSql } from "../outbox.ts";
import type { Database } from "../types.ts";
import { GROUP_COMMIT, type GroupCommit, groupCommit, type GroupCommitOptions } from "./group-commit.ts";
import { FREE } from "./index-leases.ts";

/** One move as its statement writes it: the request's move, with what transactions.ts derives from it. */
export interface MoveWrite {
  move: PendingMove;
  /** The network recorded on the transaction (the coin's default when the move names none). */
  network: string;
  /** Whether the address is the key's at the leased index (not an own address, not a forwarder): the index is used. */
  atKeyIndex: boolean;
  event: OutboxEvent;
}

/** What the statement found for a move: 1 or 0 each (transactions.ts, moveOutcome). */
export interface MoveCounts {
  moved: number;
  held: number;
  taken: number;
}

export type MoveGroups = GroupCommit<MoveWrite, MoveCounts>;

/** `alone`: one move's own statement (transactions.ts). */
export function moveGroups(db: Database, alone: (write: MoveWrite) => Promise<MoveCounts>, options: GroupCommitOptions = GROUP_COMMIT): MoveGroups {
  return groupCommit(alone, async (writes) => queryDirect<MoveCounts>(db, moveGroupStatement(writes)), options);
}

const text = (value: string | null | undefined) => value ?? null;

/**
 * The moves in one statement whose text is the same for any number of them (each column an array,
 * `ord` a move's place from 0); one row per move, in their order, with its counts.
 */
export function moveGroupStatement(writes: readonly MoveWrite[]): Prisma.Sql {
  const column = <T>(of: (write: MoveWrite) => T) => writes.map(of);
  const ords = writes.map((_, i) => i);
  return Prisma.sql`
    WITH m AS (
      SELECT * FROM unnest(${ords}::int[], ${column((w) => w.move.transaction.id)}::text[], ${column((w) => w.move.transaction.merchantId)}::int[],
        ${column((w) => w.move.transaction.isLive)}::boolean[], ${column((w) => w.move.fields.paymentCurrencyId)}::int[], ${column((w) => w.network)}::text[],
        ${column((w) => w.move.lease.walletId)}::int[], ${column((w) => w.move.lease.slot)}::int[], ${column((w) => w.move.lease.index)}::int[],
        ${column((w) => w.move.lease.token)}::text[], ${column((w) => w.move.address)}::text[], ${column((w) => w.move.ownAddressIndex ?? null)}::int[],
        ${column((w) => w.atKeyIndex)}::boolean[], ${column((w) => w.move.fields.paymentAmount)}::numeric[], ${column((w) => w.move.fields.quoteRate)}::numeric[],
        ${column((w) => w.move.fields.quoteSource)}::text[], ${column((w) => w.move.fields.quotedAt.toISOString())}::timestamptz[],
        ${column((w) => (w.move.fields.quoteSources ? JSON.stringify(w.move.fields.quoteSources) : null))}::text[],
        ${column((w) => text(w.move.fields.quoteMarketRate))}::numeric[], ${column((w) => text(w.move.fields.quoteSpreadPercent))}::numeric[],
        ${column((w) => w.move.fields.refundAddress)}::text[], ${column((w) => w.move.fields.expiresAt.toISOString())}::timestamptz[],
        ${column((w) => w.move.now.toISOString())}::timestamptz[], ${column((w) => changePayload(w.move.transaction.id, true))}::text[])
        AS m(ord, id, merchant_id, is_live, currency_id, network, wallet_id, slot, idx, token, address, own, at_key_index, payment_amount,
          quote_rate, quote_source, quoted_at, quote_sources, quote_market_rate, quote_spread_percent, refund_address, expires_at, now, payload)),
    -- Each lease still held, on what is still the merchant's wallet for the coin; its slot locked, in one order for every statement.
    held AS (
      SELECT m.ord FROM m JOIN wallet_index_slots s
        ON s.wallet_id = m.wallet_id AND s.slot = m.slot AND s.derivation_index = m.idx AND s.token = m.token
      WHERE EXISTS (SELECT 1 FROM payment_processors p WHERE p.merchant_id = m.merchant_id AND p.currency_id = m.currency_id
        AND p.network = m.network AND p.is_live = m.is_live AND p.wallet_id = m.wallet_id)
      ORDER BY s.wallet_id, s.slot
      FOR UPDATE OF s),
    taken AS (
      SELECT m.ord FROM m WHERE m.own IS NULL AND EXISTS (SELECT 1 FROM transactions t WHERE t.is_live = m.is_live
        AND t.payment_currency_id = m.currency_id AND t.payment_address = m.address AND t.id <> m.id AND t.own_address_index IS NULL)),
    moved AS (
      UPDATE transactions t SET status = 'PENDING', payment_currency_id = m.currency_id, payment_network = m.network,
        payment_amount = m.payment_amount, quote_rate = m.quote_rate, quote_source = m.quote_source, quoted_at = m.quoted_at,
        quote_sources = m.quote_sources::jsonb, quote_market_rate = m.quote_market_rate, quote_spread_percent = m.quote_spread_percent,
        refund_address = m.refund_address, expires_at = m.expires_at, payment_address = m.address, wallet_id = m.wallet_id,
        derivation_index = CASE WHEN m.at_key_index THEN m.idx END, own_address_index = m.own, initiated_at = m.now, updated_at = m.now
      FROM m
      -- status as text, as in the statement of one move (transactions.ts).
      WHERE t.id = m.id AND t.status::text = 'INITIATED' AND m.ord IN (SELECT ord FROM held) AND m.ord NOT IN (SELECT ord FROM taken)
      RETURNING m.ord),
    used AS (
      UPDATE wallet_index_slots s SET derivation_index = CASE WHEN m.at_key_index THEN NULL ELSE s.derivation_index END, token = NULL,
        leased_until = ${FREE}
      FROM m WHERE s.wallet_id = m.wallet_id AND s.slot = m.slot AND s.token = m.token AND m.ord IN (SELECT ord FROM moved)),
    -- Counted, so that every announcement is made (a row source read through EXISTS would stop at its first).
    notified AS (
      SELECT count(*) AS announced FROM (SELECT pg_notify(${CHANGES_CHANNEL}, m.payload) FROM m WHERE m.ord IN (SELECT ord FROM moved)) AS each),
    evented AS (${insertEventRowsSql(
      writes.map((w) => w.event),
      { onlyIf: Prisma.sql`e.ord IN (SELECT ord FROM moved) AND EXISTS (SELECT 1 FROM notified)` },
    )})
    SELECT (m.ord IN (SELECT ord FROM moved))::int AS moved, (m.ord IN (SELECT ord FROM held))::int AS held,
      (m.ord IN (SELECT ord FROM taken))::int AS taken
    FROM m ORDER BY m.ord`;
}
