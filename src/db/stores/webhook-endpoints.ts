// Webhook endpoints and their deliveries (issue 27) on Prisma: what the API changes and lists, what
// the dispatcher claims and settles: one queue for every endpoint, the mode's first included (issue 45).
// The fan-out (one delivery per event and endpoint that takes it) and the mode's first endpoint (the
// merchant's URL and secret) are kept by triggers: see the webhook_endpoints and one_delivery_queue migrations.
import { randomUUID } from "node:crypto";
import type {
  BacklogOf,
  ClaimedDelivery,
  DeliveryLogEntry,
  DeliveryPageQuery,
  DeliverySettlement,
  DisabledEndpoint,
  EndpointPatch,
  WebhookBacklog,
  WebhookEndpointStore,
} from "../../core/stores/webhook-endpoints.ts";
import { Prisma } from "../generated/client.ts";
import { queryDirect } from "../direct-sql.ts";
import type { Database } from "../types.ts";
import { auditRow } from "./audit-log.ts";

export function webhookEndpointStore(db: Database): WebhookEndpointStore {
  return {
    create: (row, max, audit) =>
      db.$transaction(async (tx) => {
        // Serialises creations of one merchant, so two at once cannot both pass the limit.
        await tx.$queryRaw`SELECT id FROM merchants WHERE id = ${row.merchantId} FOR UPDATE`;
        const count = await tx.webhookEndpoint.count({ where: { merchantId: row.merchantId, isLive: row.isLive } });
        if (count >= max) return null;
        const created = await tx.webhookEndpoint.create({ data: row });
        if (audit) await tx.auditLogEntry.create({ data: auditRow(audit) });
        return created;
      }),
    createFirst: (first, audit) =>
      db.$transaction(async (tx) => {
        // The lock `create` takes too: a creation that waits here sees the first endpoint once it is made.
        const [merchant] = await tx.$queryRaw<{ url: string | null }[]>`
          SELECT CASE WHEN ${first.isLive} THEN live_webhook_url ELSE test_webhook_url END AS url
          FROM merchants WHERE id = ${first.merchantId} FOR UPDATE`;
        if (!merchant || merchant.url !== null) return null;
        // The merchants trigger makes the endpoint row (migration 20261126125655).
        await tx.merchant.update({
          where: { id: first.merchantId },
          data: first.isLive ? { liveWebhookUrl: first.url } : { testWebhookUrl: first.url },
        });
        const primary = await tx.webhookEndpoint.findFirstOrThrow({ where: { merchantId: first.merchantId, isLive: first.isLive, isPrimary: true } });
        const row = await tx.webhookEndpoint.update({
          where: { id: primary.id },
          data: { enabledEvents: first.enabledEvents, description: first.description },
        });
        await tx.auditLogEntry.createMany({ data: audit(row).map(auditRow) });
        return row;
      }),
    list: (merchantId, isLive) =>
      db.webhookEndpoint.findMany({ where: { merchantId, isLive }, orderBy: [{ isPrimary: "desc" }, { createdAt: "asc" }, { id: "asc" }] }),
    find: (id, merchantId, isLive) => db.webhookEndpoint.findFirst({ where: { id, merchantId, isLive } }),
    update: (id, patch, audit) =>
      db.$transaction(async (tx) => {
        const updated = await tx.webhookEndpoint.update({ where: { id }, data: endpointChanges(patch) });
        if (audit) await tx.auditLogEntry.create({ data: auditRow(audit) });
        return updated;
      }),
    async delete(id, audit) {
      await db.$transaction(async (tx) => {
        await tx.webhookEndpoint.delete({ where: { id } });
        if (audit) await tx.auditLogEntry.create({ data: auditRow(audit) });
      });
    },
    claimDue: (now, leaseUntil, limit, onlyId) => claimDueDeliveries(db, now, leaseUntil, limit, onlyId),
    settle: (settlements) => settleDeliveries(db, settlements),
    recordHealth: async (changes, now, disableBefore) => {
      if (changes.length === 0) return [];
      const ids = changes.map((c) => c.endpointId);
      await db.$executeRaw`
        UPDATE webhook_endpoints ep SET failing_since = next.since
        FROM (
          SELECT c.id, CASE c.change WHEN 'clear' THEN NULL WHEN 'start' THEN c.at::timestamptz ELSE COALESCE(ep2.failing_since, c.at::timestamptz) END AS since
          FROM unnest(${ids}::text[], ${changes.map((c) => c.change)}::text[], ${changes.map((c) => c.at.toISOString())}::text[]) AS c(id, change, at)
          JOIN webhook_endpoints ep2 ON ep2.id = c.id) next
        WHERE ep.id = next.id AND ep.failing_since IS DISTINCT FROM next.since`;
      const failing = changes.filter((c) => c.change !== "clear").map((c) => c.endpointId);
      if (failing.length === 0) return [];
      return db.$queryRaw<DisabledEndpoint[]>`
        UPDATE webhook_endpoints SET disabled_at = ${now}, disabled_reason = 'failing', updated_at = ${now}
        WHERE id = ANY(${failing}::text[]) AND disabled_at IS NULL AND failing_since <= ${disableBefore}
        RETURNING id, merchant_id AS "merchantId", is_live AS "isLive", url, failing_since AS "failingSince"`;
    },
    page: (query) => deliveryPage(db, query),
    findDelivery: (id, merchantId, isLive) => findDelivery(db, id, merchantId, isLive),
    async requeueDelivery(id, now) {
      await db.webhookDelivery.updateMany({
        where: { id },
        data: { state: "PENDING", attemptCount: 0, nextAttemptAt: now, claimToken: null, deliveredAt: null },
      });
    },
    requeueSince: (endpoint, since, now, includeMissed) => requeueSince(db, endpoint, since, now, includeMissed),
    async skipPending(endpointId) {
      await db.webhookDelivery.updateMany({ where: { endpointId, state: "PENDING" }, data: { state: "SKIPPED", claimToken: null } });
    },
    requeueFirst: (eventId, now) => requeueFirst(db, eventId, now),
    backlog: (now, of) => deliveriesBacklog(db, now, of),
  };
}

/** An update's columns: a field left out of the patch is kept. */
function endpointChanges(patch: EndpointPatch) {
  return {
    ...(patch.url === undefined ? {} : { url: patch.url }),
    ...(patch.description === undefined ? {} : { description: patch.description }),
    ...(patch.enabledEvents === undefined ? {} : { enabledEvents: patch.enabledEvents }),
    ...(patch.disabled === undefined
      ? {}
      : patch.disabled === null
        ? { disabledAt: null, disabledReason: null, failingSince: null }
        : { disabledAt: patch.disabled.at, disabledReason: patch.disabled.reason }),
    ...(patch.secret === undefined
      ? {}
      : {
          secretEnc: patch.secret.secretEnc,
          secretRotatedAt: patch.secret.rotatedAt,
          previousSecretEnc: patch.secret.previousSecretEnc,
          previousSecretExpiresAt: patch.secret.previousSecretExpiresAt,
        }),
  };
}

type ClaimedRow = Omit<ClaimedDelivery, "claimToken">;

/**
 * Takes up to `limit` due deliveries of enabled endpoints and holds them until `leaseUntil`. Only the
 * oldest undelivered delivery of a transaction to an endpoint is due, so each endpoint gets a
 * transaction's events in order; each delivery has its own schedule, so a failing endpoint holds
 * back none of the others. SKIP LOCKED shares the work between dispatchers. The statement, and why it
 * forbids the planner bitmap scans and sorts, is its migration's (paygate_claim_due_webhook_deliveries).
 */
async function claimDueDeliveries(db: Database, now: Date, leaseUntil: Date, limit: number, onlyId?: string): Promise<ClaimedDelivery[]> {
  const claimToken = randomUUID();
  const rows = await queryDirect<ClaimedRow>(
    db,
    Prisma.sql`SELECT * FROM paygate_claim_due_webhook_deliveries(${now}, ${leaseUntil}, ${limit}::int, ${onlyId ?? null}::text, ${claimToken})`,
  );
  return rows.map((row) => ({ ...row, claimToken }));
}

/**
 * Records the attempts (where one was made) and the deliveries' new states in one statement: the
 * dispatcher settles the attempts that end together as one batch, so a busy dispatcher spends one
 * round trip on many deliveries. A holder whose lease ran out (another dispatcher took the delivery over)
 * still logs its attempt but leaves the state alone. Arrays go in as text and are cast, so both
 * drivers pass them the same way.
 */
async function settleDeliveries(db: Database, settlements: readonly DeliverySettlement[]): Promise<void> {
  if (settlements.length === 0) return;
  const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);
  const states = settlements.map(({ delivery, outcome, attempt }) => ({
    id: delivery.id,
    token: delivery.claimToken,
    state: outcome.state,
    nextAt: iso(outcome.state === "PENDING" ? outcome.nextAttemptAt : null),
    deliveredAt: iso(outcome.state === "DELIVERED" ? outcome.at : null),
    attempted: attempt ? 1 : 0,
    attemptedAt: iso(attempt?.attemptedAt),
    statusCode: attempt?.statusCode ?? null,
    latencyMs: attempt?.latencyMs ?? null,
  }));
  const attempts = settlements.flatMap(({ delivery, attempt }) =>
    attempt ? [{ deliveryId: delivery.id, eventId: delivery.eventId, ...attempt, retryAfter: attempt.retryAfter ?? null }] : [],
  );
  const column = <T, K extends keyof T>(rows: T[], key: K) => rows.map((row) => row[key]);
  await queryDirect(
    db,
    Prisma.sql`
    WITH input AS (
      SELECT * FROM unnest(${column(states, "id")}::text[], ${column(states, "token")}::text[], ${column(states, "state")}::text[],
        ${column(states, "nextAt")}::text[], ${column(states, "deliveredAt")}::text[], ${column(states, "attempted")}::int[],
        ${column(states, "attemptedAt")}::text[], ${column(states, "statusCode")}::int[], ${column(states, "latencyMs")}::int[])
        AS t(id, token, state, next_at, delivered_at, attempted, attempted_at, status_code, latency_ms)),
    settled AS (
      UPDATE webhook_deliveries w SET
        state = i.state::"DeliveryState",
        claim_token = NULL,
        attempt_count = w.attempt_count + i.attempted,
        delivered_at = CASE WHEN i.state = 'DELIVERED' THEN i.delivered_at::timestamptz ELSE w.delivered_at END,
        next_attempt_at = CASE WHEN i.state = 'PENDING' THEN i.next_at::timestamptz ELSE w.next_attempt_at END,
        last_attempt_at = COALESCE(i.attempted_at::timestamptz, w.last_attempt_at),
        last_status_code = CASE WHEN i.attempted = 1 THEN i.status_code ELSE w.last_status_code END,
        last_latency_ms = COALESCE(i.latency_ms, w.last_latency_ms)
      FROM input i WHERE w.id = i.id AND w.claim_token = i.token)
    INSERT INTO webhook_delivery_attempts (event_id, delivery_id, attempted_at, url, status_code, latency_ms, response_body, error, succeeded, trigger, retry_after)
    SELECT event_id, delivery_id, attempted_at::timestamptz, url, status_code, latency_ms, response_body, error, succeeded, trigger, retry_after
    FROM unnest(${column(attempts, "eventId")}::text[], ${column(attempts, "deliveryId")}::text[],
      ${attempts.map((a) => a.attemptedAt.toISOString())}::text[],
      ${column(attempts, "url")}::text[], ${column(attempts, "statusCode")}::int[], ${column(attempts, "latencyMs")}::int[],
      ${column(attempts, "responseBody")}::text[], ${column(attempts, "error")}::text[], ${column(attempts, "succeeded")}::boolean[],
      ${column(attempts, "trigger")}::text[], ${column(attempts, "retryAfter")}::text[])
      AS a(event_id, delivery_id, attempted_at, url, status_code, latency_ms, response_body, error, succeeded, trigger, retry_after)`,
  );
}

type LogRow = Omit<DeliveryLogEntry, "state"> & { state: DeliveryLogEntry["state"] };

/** failed: given up, or its last attempt failed and it waits for a retry; succeeded: delivered; pending: not yet tried. */
function statusCondition(status: DeliveryPageQuery["status"]): string {
  switch (status) {
    case "failed":
      return "(x.state = 'FAILED' OR (x.state = 'PENDING' AND x.attempt_count > 0))";
    case "succeeded":
      return "x.state = 'DELIVERED'";
    case "pending":
      return "(x.state = 'PENDING' AND x.attempt_count = 0)";
    default:
      return "true";
  }
}

async function deliveryPage(db: Database, query: DeliveryPageQuery): Promise<DeliveryLogEntry[]> {
  const { endpoint } = query;
  const status = statusCondition(query.status);
  const after = query.afterSeq === null ? null : query.afterSeq.toString();
  return db
    .$queryRawUnsafe<LogRow[]>(
      `SELECT * FROM (
      SELECT d.id, d.seq, d.endpoint_id AS "endpointId", d.event_id AS "eventId", e.type AS "eventType", d.state::text AS state,
        d.attempt_count, d.attempt_count AS "attemptCount", CASE WHEN d.state = 'PENDING' THEN d.next_attempt_at END AS "nextAttemptAt",
        d.delivered_at AS "deliveredAt", d.last_attempt_at AS "lastAttemptAt", d.last_status_code AS "lastStatusCode",
        d.last_latency_ms AS "lastLatencyMs", d.created_at AS "createdAt"
      FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
      WHERE d.endpoint_id = $1 AND ($2::bigint IS NULL OR d.seq < $2::bigint)) x
    WHERE ${status} ORDER BY x.seq DESC LIMIT $3`,
      endpoint.id,
      after,
      query.limit,
    )
    .then(strip);
}

/** Drops the helper column the status filter reads. */
function strip(rows: (LogRow & { attempt_count?: number })[]): DeliveryLogEntry[] {
  return rows.map(({ attempt_count: _, ...row }) => row);
}

async function findDelivery(db: Database, id: string, merchantId: number, isLive: boolean): Promise<DeliveryLogEntry | null> {
  const delivery = await db.webhookDelivery.findFirst({ where: { id, endpoint: { merchantId, isLive } } });
  if (!delivery?.endpointId) return null;
  const [entry] = await deliveryPage(db, { endpoint: { id: delivery.endpointId }, status: null, afterSeq: delivery.seq + 1n, limit: 1 });
  return entry?.id === id ? entry : null;
}

/**
 * Queues again, due now with a fresh schedule: the endpoint's failed deliveries of events written since
 * `since`; with `includeMissed` (re-enabling) also the skipped ones and those never made while it was
 * disabled (its filter decides which events). Returns how many.
 */
async function requeueSince(db: Database, endpoint: { id: string }, since: Date, now: Date, includeMissed: boolean): Promise<number> {
  if (!includeMissed) {
    return db.$executeRaw`
      UPDATE webhook_deliveries SET state = 'PENDING', attempt_count = 0, next_attempt_at = ${now}, claim_token = NULL, delivered_at = NULL
      WHERE endpoint_id = ${endpoint.id} AND created_at >= ${since} AND state = 'FAILED'`;
  }
  return db.$transaction(async (tx) => {
    // What waited or was given up in the failing streak, due now with a fresh schedule…
    const requeued = await tx.$executeRaw`
      UPDATE webhook_deliveries SET state = 'PENDING', attempt_count = 0, next_attempt_at = ${now}, claim_token = NULL, delivered_at = NULL
      WHERE endpoint_id = ${endpoint.id}
        AND (state IN ('PENDING', 'SKIPPED') OR (state = 'FAILED' AND (last_attempt_at >= ${since} OR created_at >= ${since})))`;
    // …and the events never fanned out to it while it was disabled (to the first endpoint with the id the fan-out gives).
    const made = await tx.$executeRaw`
      INSERT INTO webhook_deliveries (id, event_id, endpoint_id, transaction_id, event_seq, next_attempt_at, created_at)
      SELECT CASE WHEN ep.is_primary THEN 'wd_' || e.id ELSE 'wd_' || replace(gen_random_uuid()::text, '-', '') END,
        e.id, ep.id, e.transaction_id, e.seq, ${now}, e.created_at
      FROM webhook_events e JOIN webhook_endpoints ep ON ep.id = ${endpoint.id}
      WHERE e.merchant_id = ep.merchant_id AND e.is_live = ep.is_live AND e.created_at >= ${since}
        AND ('*' = ANY(ep.enabled_events) OR e.type = ANY(ep.enabled_events))
      ORDER BY e.seq
      ON CONFLICT DO NOTHING`;
    return requeued + made;
  });
}

/**
 * Puts the event's delivery to its mode's current first endpoint back in the queue (an operator's
 * redelivery goes to the URL of now): made when the endpoint never took the event, pointed at the current
 * first endpoint when the delivery's endpoint was removed since. One statement.
 */
async function requeueFirst(db: Database, eventId: string, now: Date): Promise<{ type: string; deliveryId: string | null } | null> {
  const [row] = await db.$queryRaw<{ type: string; deliveryId: string | null }[]>`
    WITH e AS (SELECT id, type, merchant_id, is_live, transaction_id, seq, created_at FROM webhook_events WHERE id = ${eventId}),
    made AS (
      INSERT INTO webhook_deliveries (id, event_id, endpoint_id, transaction_id, event_seq, next_attempt_at, created_at)
      SELECT 'wd_' || e.id, e.id, p.id, e.transaction_id, e.seq, ${now}, e.created_at
      FROM e JOIN webhook_endpoints p ON p.merchant_id = e.merchant_id AND p.is_live = e.is_live AND p.is_primary
      ON CONFLICT (id) DO UPDATE SET state = 'PENDING', attempt_count = 0, next_attempt_at = EXCLUDED.next_attempt_at,
        claim_token = NULL, delivered_at = NULL, endpoint_id = EXCLUDED.endpoint_id
      RETURNING id)
    SELECT e.type, (SELECT id FROM made) AS "deliveryId" FROM e`;
  return row ?? null;
}

/**
 * The backlog of the enabled first endpoints or of the others: one statement over the partial (next_attempt_at,
 * seq) index of pending deliveries, the endpoint's row and, per due delivery, the order rule's indexed look-up,
 * as the claim reads them.
 */
function deliveriesBacklog(db: Database, now: Date, of: BacklogOf): Promise<WebhookBacklog> {
  return backlogOf(
    db,
    Prisma.sql`
      SELECT d.next_attempt_at, CASE WHEN d.next_attempt_at <= ${now} THEN d.transaction_id IS NULL OR NOT EXISTS (
          SELECT 1 FROM webhook_deliveries earlier
          WHERE earlier.endpoint_id = d.endpoint_id AND earlier.transaction_id = d.transaction_id
            AND earlier.event_seq < d.event_seq AND earlier.state = 'PENDING')
        ELSE false END AS due
      FROM webhook_deliveries d
      JOIN webhook_endpoints ep ON ep.id = d.endpoint_id AND ep.disabled_at IS NULL AND ep.is_primary = ${of === "first"}
      WHERE d.state = 'PENDING'`,
  );
}

/**
 * A backlog counted from `pendingRows`: one row per pending delivery, its `next_attempt_at` and `due`
 * (due now and not held back by the order rule).
 */
async function backlogOf(db: Database, pendingRows: Prisma.Sql): Promise<WebhookBacklog> {
  const [row] = await db.$queryRaw<{ pending: number; due: number; oldestDueAt: Date | null }[]>`
    SELECT count(*)::int AS pending, (count(*) FILTER (WHERE due))::int AS due,
      min(next_attempt_at) FILTER (WHERE due) AS "oldestDueAt"
    FROM (${pendingRows}) pending_rows`;
  return { pending: row?.pending ?? 0, due: row?.due ?? 0, oldestDueAt: row?.oldestDueAt ?? null };
}
