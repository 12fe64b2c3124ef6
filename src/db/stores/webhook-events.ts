// The outbox (webhook_events) and the attempt log on Prisma: what the dispatcher claims and settles,
// what an operator lists and redelivers, and what /metrics reads.
import { randomUUID } from "node:crypto";
import type { ClaimedEvent, EventFilter, Settlement, WebhookBacklog, WebhookEventStore } from "../../core/stores/webhook-events.ts";
import { Prisma } from "../generated/client.ts";
import { queryDirect } from "../direct-sql.ts";
import type { Database } from "../types.ts";

export function webhookEventStore(db: Database): WebhookEventStore {
  return {
    claimDue: (now, leaseUntil, limit, onlyId) => claimDueEvents(db, now, leaseUntil, limit, onlyId),
    skipUnroutable: (now, limit) => skipUnroutableEvents(db, now, limit),
    settle: (settlements) => settleEvents(db, settlements),
    requeue: (id, now) => requeueEvent(db, id, now),
    list: (filter) => listEvents(db, filter),
    findFor: (id, merchantId, isLive) => db.webhookEvent.findFirst({ where: { id, merchantId, isLive } }),
    page: (q) =>
      db.webhookEvent.findMany({
        where: {
          merchantId: q.merchantId,
          isLive: q.isLive,
          ...(q.type === null ? {} : { type: q.type }),
          ...(q.transactionId === null ? {} : { transactionId: q.transactionId }),
          ...(q.afterSeq === null ? {} : { seq: { lt: q.afterSeq } }),
        },
        orderBy: { seq: "desc" },
        take: q.limit,
      }),
    since: (q) =>
      db.webhookEvent.findMany({
        where: { merchantId: q.merchantId, isLive: q.isLive, seq: { gt: q.afterSeq } },
        orderBy: { seq: "asc" },
        take: q.limit,
      }),
    async pruneBefore(before) {
      const { count } = await db.webhookEvent.deleteMany({ where: { createdAt: { lt: before } } });
      return count;
    },
    backlog: (now) => webhookBacklog(db, now),
  };
}

interface ClaimedRow extends Omit<ClaimedEvent, "claimToken"> {}

/**
 * The event `e` goes to its mode's first endpoint (the merchant's webhook URL of the mode, issue 27):
 * the rule is the database's (paygate_first_endpoint_takes, migration 20261127030000), which also
 * routes each event as it is written and guards the claim.
 */
const FIRST_ENDPOINT_TAKES = Prisma.sql`paygate_first_endpoint_takes(e.merchant_id, e.is_live, e.type)`;

/**
 * Takes up to `limit` due events and holds them until `leaseUntil`: a dispatcher that dies holding
 * one lets it fall due again then. The statement, its order rule and why it forbids the planner
 * bitmap scans and sorts are in its migration (paygate_claim_due_webhook_events): one statement on
 * the driver where a batch transaction of four ran through Prisma (issue 30).
 */
async function claimDueEvents(db: Database, now: Date, leaseUntil: Date, limit: number, onlyId?: string): Promise<ClaimedEvent[]> {
  const claimToken = randomUUID();
  const rows = await queryDirect<ClaimedRow>(
    db,
    Prisma.sql`SELECT * FROM paygate_claim_due_webhook_events(${now}, ${leaseUntil}, ${limit}::int, ${onlyId ?? null}::text, ${claimToken})`,
  );
  return rows.map((row) => ({ ...row, claimToken }));
}

/**
 * Marks due events whose merchant has no URL for their mode as skipped, up to `limit` in one
 * statement, and returns how many: nothing is sent and nothing retried. An event written while its
 * mode had no URL is written SKIPPED (the route trigger); these are the ones whose URL went after
 * they were written, in bulk, because a merchant may produce events as fast as the API takes requests.
 */
async function skipUnroutableEvents(db: Database, now: Date, limit: number): Promise<number> {
  const [row] = await queryDirect<{ skipped: number }>(
    db,
    Prisma.sql`
    WITH unroutable AS (
      SELECT e.id FROM webhook_events e
      WHERE e.state = 'PENDING' AND e.next_attempt_at <= ${now}
        AND NOT ${FIRST_ENDPOINT_TAKES}
      ORDER BY e.next_attempt_at, e.seq
      LIMIT ${limit}
      FOR UPDATE OF e SKIP LOCKED),
    skipped AS (
      UPDATE webhook_events w SET state = 'SKIPPED', claim_token = NULL
      FROM unroutable WHERE w.id = unroutable.id RETURNING 1)
    SELECT count(*)::int AS skipped FROM skipped`,
  );
  return row?.skipped ?? 0;
}

/**
 * Records the attempts (where one was made) and the events' new states in one statement: the
 * dispatcher settles the attempts that end together as one batch, so a busy dispatcher spends one
 * round trip on many events. A holder whose lease ran out (another dispatcher took the event over)
 * still logs its attempt but leaves the state alone. Arrays go in as text and are cast, so both
 * drivers pass them the same way.
 */
async function settleEvents(db: Database, settlements: readonly Settlement[]): Promise<void> {
  if (settlements.length === 0) return;
  const iso = (date: Date | null) => (date === null ? null : date.toISOString());
  const states = settlements.map(({ event, outcome, attempt }) => ({
    id: event.id,
    token: event.claimToken,
    state: outcome.state,
    nextAt: iso(outcome.state === "PENDING" ? outcome.nextAttemptAt : null),
    deliveredAt: iso(outcome.state === "DELIVERED" ? outcome.at : null),
    attempted: attempt ? 1 : 0,
  }));
  const attempts = settlements.flatMap(({ event, attempt }) =>
    attempt ? [{ eventId: event.id, ...attempt, retryAfter: attempt.retryAfter ?? null }] : [],
  );
  const column = <T, K extends keyof T>(rows: T[], key: K) => rows.map((row) => row[key]);
  await queryDirect(
    db,
    Prisma.sql`
    WITH input AS (
      SELECT * FROM unnest(${column(states, "id")}::text[], ${column(states, "token")}::text[], ${column(states, "state")}::text[],
        ${column(states, "nextAt")}::text[], ${column(states, "deliveredAt")}::text[], ${column(states, "attempted")}::int[])
        AS t(id, token, state, next_at, delivered_at, attempted)),
    settled AS (
      UPDATE webhook_events w SET
        state = i.state::"DeliveryState",
        claim_token = NULL,
        attempt_count = w.attempt_count + i.attempted,
        delivered_at = CASE WHEN i.state = 'DELIVERED' THEN i.delivered_at::timestamptz ELSE w.delivered_at END,
        next_attempt_at = CASE WHEN i.state = 'PENDING' THEN i.next_at::timestamptz ELSE w.next_attempt_at END
      FROM input i WHERE w.id = i.id AND w.claim_token = i.token)
    INSERT INTO webhook_delivery_attempts (event_id, attempted_at, url, status_code, latency_ms, response_body, error, succeeded, trigger, retry_after)
    SELECT event_id, attempted_at::timestamptz, url, status_code, latency_ms, response_body, error, succeeded, trigger, retry_after
    FROM unnest(${column(attempts, "eventId")}::text[], ${attempts.map((a) => a.attemptedAt.toISOString())}::text[],
      ${column(attempts, "url")}::text[], ${column(attempts, "statusCode")}::int[], ${column(attempts, "latencyMs")}::int[],
      ${column(attempts, "responseBody")}::text[], ${column(attempts, "error")}::text[], ${column(attempts, "succeeded")}::boolean[],
      ${column(attempts, "trigger")}::text[], ${column(attempts, "retryAfter")}::text[])
      AS a(event_id, attempted_at, url, status_code, latency_ms, response_body, error, succeeded, trigger, retry_after)`,
  );
}

/** Puts an event back in the queue, due now, with a fresh retry schedule. Null when there is no such event. */
async function requeueEvent(db: Database, id: string, now: Date) {
  const rows = await db.webhookEvent.updateManyAndReturn({
    where: { id },
    data: { state: "PENDING", attemptCount: 0, nextAttemptAt: now, claimToken: null, deliveredAt: null },
  });
  return rows[0] ?? null;
}

/** Newest first, each with its attempts (newest first). */
function listEvents(db: Database, filter: EventFilter = {}) {
  return db.webhookEvent.findMany({
    where: {
      ...(filter.merchantId === undefined ? {} : { merchantId: filter.merchantId }),
      ...(filter.state === undefined ? {} : { state: filter.state }),
      ...(filter.transactionId === undefined ? {} : { transactionId: filter.transactionId }),
    },
    // Newest first through the created_at index (seq has none); seq orders the events of one instant.
    orderBy: [{ createdAt: "desc" }, { seq: "desc" }],
    take: filter.limit ?? 50,
    include: { attempts: { orderBy: { id: "desc" } }, transaction: { select: { reference: true } } },
  });
}

/**
 * One statement over the partial (next_attempt_at, seq) index of PENDING events, plus an indexed
 * look-up per pending event for the order rule ((transaction_id, type) index), as the claim does.
 */
function webhookBacklog(db: Database, now: Date): Promise<WebhookBacklog> {
  return backlogOf(
    db,
    Prisma.sql`
      SELECT e.next_attempt_at, CASE WHEN e.next_attempt_at <= ${now} THEN NOT EXISTS (
          SELECT 1 FROM webhook_events earlier
          WHERE earlier.transaction_id = e.transaction_id AND earlier.seq < e.seq AND earlier.state = 'PENDING')
        ELSE false END AS due
      FROM webhook_events e WHERE e.state = 'PENDING'`,
  );
}

/**
 * A backlog counted from `pendingRows`: one row per pending delivery, its `next_attempt_at` and `due`
 * (due now and not held back by the order rule). The events' outbox and the endpoints' deliveries share it.
 */
export async function backlogOf(db: Database, pendingRows: Prisma.Sql): Promise<WebhookBacklog> {
  const [row] = await db.$queryRaw<{ pending: number; due: number; oldestDueAt: Date | null }[]>`
    SELECT count(*)::int AS pending, (count(*) FILTER (WHERE due))::int AS due,
      min(next_attempt_at) FILTER (WHERE due) AS "oldestDueAt"
    FROM (${pendingRows}) pending_rows`;
  return { pending: row?.pending ?? 0, due: row?.due ?? 0, oldestDueAt: row?.oldestDueAt ?? null };
}
