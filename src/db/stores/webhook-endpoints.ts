// Webhook endpoints and their deliveries (issue 27) on Prisma: what the API changes and lists, what
// the dispatcher claims and settles. The fan-out (one delivery per event and endpoint) and the mode's
// first endpoint (the merchant's URL and secret) are kept by triggers: see the webhook_endpoints migration.
import { randomUUID } from "node:crypto";
import type {
  ClaimedDelivery,
  DeliveryLogEntry,
  DeliveryPageQuery,
  DeliverySettlement,
  DisabledEndpoint,
  EndpointPatch,
  WebhookEndpointStore,
} from "../../core/stores/webhook-endpoints.ts";
import type { WebhookBacklog } from "../../core/stores/webhook-events.ts";
import { Prisma } from "../generated/client.ts";
import { queryDirect } from "../direct-sql.ts";
import type { Database } from "../types.ts";
import { auditRow } from "./audit-log.ts";
import { backlogOf } from "./webhook-events.ts";

/** Deliveries to a mode's first endpoint are its events' own state: their id is `wd_` and the event's. */
const PRIMARY_DELIVERY = "wd_evt_";

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
      if (id.startsWith(PRIMARY_DELIVERY)) {
        await db.webhookEvent.updateMany({
          where: { id: id.slice(3) },
          data: { state: "PENDING", attemptCount: 0, nextAttemptAt: now, claimToken: null, deliveredAt: null },
        });
        return;
      }
      await db.webhookDelivery.updateMany({
        where: { id },
        data: { state: "PENDING", attemptCount: 0, nextAttemptAt: now, claimToken: null, deliveredAt: null },
      });
    },
    requeueSince: (endpoint, since, now, includeMissed) => requeueSince(db, endpoint, since, now, includeMissed),
    async skipPending(endpointId) {
      await db.webhookDelivery.updateMany({ where: { endpointId, state: "PENDING" }, data: { state: "SKIPPED", claimToken: null } });
    },
    backlog: (now) => deliveriesBacklog(db, now),
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
 * back none of the others. SKIP LOCKED shares the work between dispatchers.
 */
async function claimDueDeliveries(db: Database, now: Date, leaseUntil: Date, limit: number, onlyId?: string): Promise<ClaimedDelivery[]> {
  const claimToken = randomUUID();
  const only = onlyId ?? null;
  const rows = await queryDirect<ClaimedRow>(
    db,
    Prisma.sql`
    WITH due AS (
      SELECT d.id FROM webhook_deliveries d
      WHERE d.state = 'PENDING' AND d.next_attempt_at <= ${now}
        AND (${only}::text IS NULL OR d.id = ${only}::text)
        AND (${only}::text IS NOT NULL OR EXISTS (
          SELECT 1 FROM webhook_endpoints ep WHERE ep.id = d.endpoint_id AND ep.disabled_at IS NULL))
        AND (${only}::text IS NOT NULL OR NOT EXISTS (
          SELECT 1 FROM webhook_deliveries earlier
          WHERE earlier.endpoint_id = d.endpoint_id AND earlier.transaction_id = d.transaction_id
            AND earlier.event_seq < d.event_seq AND earlier.state = 'PENDING'))
      ORDER BY d.next_attempt_at, d.seq
      LIMIT ${limit}
      FOR UPDATE OF d SKIP LOCKED)
    UPDATE webhook_deliveries w
    SET claim_token = ${claimToken}, next_attempt_at = ${leaseUntil}
    FROM due, webhook_events e, webhook_endpoints ep
    WHERE w.id = due.id AND e.id = w.event_id AND ep.id = w.endpoint_id
    RETURNING w.id, w.event_id AS "eventId", w.endpoint_id AS "endpointId", e.merchant_id AS "merchantId", e.type,
      e.is_live AS "isLive", e.body, w.attempt_count AS "attemptCount", ep.url, ep.secret_enc AS "secretEnc",
      ep.previous_secret_enc AS "previousSecretEnc", ep.previous_secret_expires_at AS "previousSecretExpiresAt",
      e.created_at AS "createdAt"`,
  );
  return rows.map((row) => ({ ...row, claimToken }));
}

/** Records the attempts and the deliveries' new states in one statement (as the outbox's settle does). */
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
  await db.$executeRaw`
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
      AS a(event_id, delivery_id, attempted_at, url, status_code, latency_ms, response_body, error, succeeded, trigger, retry_after)`;
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
  if (endpoint.isPrimary) {
    // The first endpoint's deliveries are the mode's events, with their last attempt (made for no other endpoint).
    return db
      .$queryRawUnsafe<LogRow[]>(
        `SELECT * FROM (
        SELECT 'wd_' || e.id AS id, e.seq, $1::text AS "endpointId", e.id AS "eventId", e.type AS "eventType", e.state::text AS state,
          e.attempt_count, e.attempt_count AS "attemptCount", CASE WHEN e.state = 'PENDING' THEN e.next_attempt_at END AS "nextAttemptAt",
          e.delivered_at AS "deliveredAt", a.attempted_at AS "lastAttemptAt", a.status_code AS "lastStatusCode", a.latency_ms AS "lastLatencyMs",
          e.created_at AS "createdAt"
        FROM webhook_events e
        LEFT JOIN LATERAL (SELECT attempted_at, status_code, latency_ms FROM webhook_delivery_attempts
          WHERE event_id = e.id AND delivery_id IS NULL ORDER BY id DESC LIMIT 1) a ON true
        WHERE e.merchant_id = $2 AND e.is_live = $3 AND ($4::bigint IS NULL OR e.seq < $4::bigint)) x
      WHERE ${status} ORDER BY x.seq DESC LIMIT $5`,
        endpoint.id,
        endpoint.merchantId,
        endpoint.isLive,
        after,
        query.limit,
      )
      .then(strip);
  }
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
  if (id.startsWith(PRIMARY_DELIVERY)) {
    const primary = await db.webhookEndpoint.findFirst({ where: { merchantId, isLive, isPrimary: true } });
    const event = await db.webhookEvent.findFirst({ where: { id: id.slice(3), merchantId, isLive } });
    if (!primary || !event) return null;
    const [entry] = await deliveryPage(db, { endpoint: primary, status: null, afterSeq: event.seq + 1n, limit: 1 });
    return entry?.eventId === event.id ? entry : null;
  }
  const delivery = await db.webhookDelivery.findFirst({ where: { id, endpoint: { merchantId, isLive } }, include: { endpoint: true } });
  if (!delivery) return null;
  const [entry] = await deliveryPage(db, { endpoint: delivery.endpoint, status: null, afterSeq: delivery.seq + 1n, limit: 1 });
  return entry?.id === id ? entry : null;
}

/**
 * Queues again, due now with a fresh schedule: the endpoint's failed deliveries of events written since
 * `since`; with `includeMissed` (re-enabling) also the skipped ones and those never made while it was
 * disabled (its filter decides which events). Returns how many.
 */
async function requeueSince(
  db: Database,
  endpoint: { id: string; merchantId: number; isLive: boolean; isPrimary: boolean; enabledEvents: string[] },
  since: Date,
  now: Date,
  includeMissed: boolean,
): Promise<number> {
  const states = includeMissed ? ["FAILED", "SKIPPED"] : ["FAILED"];
  if (endpoint.isPrimary) {
    return db.$executeRaw`
      UPDATE webhook_events SET state = 'PENDING', attempt_count = 0, next_attempt_at = ${now}, claim_token = NULL, delivered_at = NULL
      WHERE merchant_id = ${endpoint.merchantId} AND is_live = ${endpoint.isLive} AND state::text = ANY(${states}::text[])
        AND (created_at >= ${since} OR EXISTS (
          SELECT 1 FROM webhook_delivery_attempts a
          WHERE a.event_id = webhook_events.id AND a.delivery_id IS NULL AND a.attempted_at >= ${since}))`;
  }
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
    // …and the events never fanned out to it while it was disabled.
    const made = await tx.$executeRaw`
      INSERT INTO webhook_deliveries (id, event_id, endpoint_id, transaction_id, event_seq, next_attempt_at, created_at)
      SELECT 'wd_' || replace(gen_random_uuid()::text, '-', ''), e.id, ep.id, e.transaction_id, e.seq, ${now}, e.created_at
      FROM webhook_events e JOIN webhook_endpoints ep ON ep.id = ${endpoint.id}
      WHERE e.merchant_id = ep.merchant_id AND e.is_live = ep.is_live AND e.created_at >= ${since}
        AND ('*' = ANY(ep.enabled_events) OR e.type = ANY(ep.enabled_events))
      ORDER BY e.seq
      ON CONFLICT (event_id, endpoint_id) DO NOTHING`;
    return requeued + made;
  });
}

/**
 * The outbox's backlog (webhook-events.ts) for the other endpoints: one statement over the PENDING range of
 * the deliveries' (state, next_attempt_at, seq) index, the endpoint's row and, per due delivery, the order rule's
 * indexed look-up ((endpoint_id, transaction_id, event_seq)), as the claim reads them.
 */
function deliveriesBacklog(db: Database, now: Date): Promise<WebhookBacklog> {
  return backlogOf(
    db,
    Prisma.sql`
      SELECT d.next_attempt_at, CASE WHEN d.next_attempt_at <= ${now} THEN NOT EXISTS (
          SELECT 1 FROM webhook_deliveries earlier
          WHERE earlier.endpoint_id = d.endpoint_id AND earlier.transaction_id = d.transaction_id
            AND earlier.event_seq < d.event_seq AND earlier.state = 'PENDING')
        ELSE false END AS due
      FROM webhook_deliveries d JOIN webhook_endpoints ep ON ep.id = d.endpoint_id AND ep.disabled_at IS NULL
      WHERE d.state = 'PENDING'`,
  );
}
