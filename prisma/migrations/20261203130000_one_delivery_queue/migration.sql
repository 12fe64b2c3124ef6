-- One delivery model (issue 45). The first endpoint of a mode (the webhook URL its merchant set for the mode) is an
-- ordinary endpoint, and its deliveries are ordinary rows whose id is wd_ and the event id. The event row keeps
-- only the event: one claim, one settle, one backlog and one dispatcher loop serve every endpoint.

-- A removed endpoint keeps its deliveries and their attempts (the event history): its endpoint becomes null.
-- The first endpoint goes with its URL, and its history stayed on the event before, so it stays now too.
ALTER TABLE "webhook_deliveries" ALTER COLUMN "endpoint_id" DROP NOT NULL;
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_endpoint_id_fkey";
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id")
  REFERENCES "webhook_endpoints"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Backfill: each event the first endpoint took (not skipped, or skipped after an attempt) becomes its delivery,
-- with its state, schedule, lease and last attempt. A pending event whose mode has no taking first endpoint
-- now is skipped, as the dispatcher would have marked it.
INSERT INTO "webhook_deliveries" ("id", "event_id", "endpoint_id", "transaction_id", "event_seq", "state", "attempt_count",
  "next_attempt_at", "claim_token", "delivered_at", "last_attempt_at", "last_status_code", "last_latency_ms", "created_at")
SELECT 'wd_' || e."id", e."id", p."id", e."transaction_id", e."seq",
  CASE WHEN e."state" = 'PENDING' AND NOT "paygate_first_endpoint_takes"(e."merchant_id", e."is_live", e."type")
    THEN 'SKIPPED'::"DeliveryState" ELSE e."state" END,
  e."attempt_count", e."next_attempt_at",
  CASE WHEN e."state" = 'PENDING' AND NOT "paygate_first_endpoint_takes"(e."merchant_id", e."is_live", e."type")
    THEN NULL ELSE e."claim_token" END,
  e."delivered_at", a."attempted_at", a."status_code", a."latency_ms", e."created_at"
FROM "webhook_events" e
LEFT JOIN "webhook_endpoints" p ON p."merchant_id" = e."merchant_id" AND p."is_live" = e."is_live" AND p."is_primary"
LEFT JOIN LATERAL (
  SELECT x."attempted_at", x."status_code", x."latency_ms" FROM "webhook_delivery_attempts" x
  WHERE x."event_id" = e."id" AND x."delivery_id" IS NULL ORDER BY x."id" DESC LIMIT 1) a ON true
WHERE e."state" <> 'SKIPPED' OR a."attempted_at" IS NOT NULL
ORDER BY e."seq";

-- Every attempt belongs to a delivery now.
UPDATE "webhook_delivery_attempts" SET "delivery_id" = 'wd_' || "event_id" WHERE "delivery_id" IS NULL;
ALTER TABLE "webhook_delivery_attempts" ALTER COLUMN "delivery_id" SET NOT NULL;

-- The fan-out takes every enabled endpoint whose filter takes the type, the first one too (its delivery id is
-- wd_ and the event id). It still looks before it writes: a mode without an endpoint writes nothing, and
-- its events are not sent to anyone (the Events API shows them skipped).
CREATE OR REPLACE FUNCTION "paygate_fan_out_webhook_events"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM written e JOIN "webhook_endpoints" ep ON ep."merchant_id" = e."merchant_id" AND ep."is_live" = e."is_live"
    WHERE ep."disabled_at" IS NULL AND ('*' = ANY(ep."enabled_events") OR e."type" = ANY(ep."enabled_events"))) THEN
    RETURN NULL;
  END IF;
  INSERT INTO "webhook_deliveries" ("id", "event_id", "endpoint_id", "transaction_id", "event_seq", "next_attempt_at", "created_at")
  SELECT CASE WHEN ep."is_primary" THEN 'wd_' || e."id" ELSE 'wd_' || replace(gen_random_uuid()::text, '-', '') END,
    e."id", ep."id", e."transaction_id", e."seq", e."created_at", e."created_at"
  FROM written e JOIN "webhook_endpoints" ep ON ep."merchant_id" = e."merchant_id" AND ep."is_live" = e."is_live"
  WHERE ep."disabled_at" IS NULL AND ('*' = ANY(ep."enabled_events") OR e."type" = ANY(ep."enabled_events"))
  ORDER BY e."seq", ep."is_primary" DESC;
  RETURN NULL;
END
$$;

-- A removed endpoint (the first one goes with its URL) leaves nothing waiting: what was pending is skipped,
-- as the dispatcher skipped a first endpoint event whose URL had gone.
CREATE FUNCTION "paygate_skip_deliveries_of_removed_endpoint"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "webhook_deliveries" SET "state" = 'SKIPPED', "claim_token" = NULL WHERE "endpoint_id" = OLD."id" AND "state" = 'PENDING';
  RETURN OLD;
END
$$;

CREATE TRIGGER "webhook_endpoints_skip_removed"
BEFORE DELETE ON "webhook_endpoints"
FOR EACH ROW EXECUTE FUNCTION "paygate_skip_deliveries_of_removed_endpoint"();

-- The routing on the event row, its wake-up and its claim go: the fan-out and the deliveries do their work now.
DROP TRIGGER "webhook_events_route" ON "webhook_events";
DROP FUNCTION "paygate_route_webhook_event"();
DROP TRIGGER "webhook_events_due_again" ON "webhook_events";
DROP FUNCTION "paygate_claim_due_webhook_events"(timestamptz, timestamptz, integer, text, text);
DROP FUNCTION "paygate_first_endpoint_takes"(integer, boolean, text);

-- The event keeps only the event.
DROP INDEX "webhook_events_pending_next_attempt_at_seq_idx";
ALTER TABLE "webhook_events" DROP COLUMN "state", DROP COLUMN "attempt_count", DROP COLUMN "next_attempt_at",
  DROP COLUMN "claim_token", DROP COLUMN "delivered_at";

-- The deliveries are the whole queue: their indexes hold only the rows they are read for (as migration
-- 20261127104014 did for the events). The log reads seq through (endpoint_id, seq), and the sequence keeps it unique.
DROP INDEX "webhook_deliveries_seq_key";
DROP INDEX "webhook_deliveries_state_next_attempt_at_seq_idx";
CREATE INDEX "webhook_deliveries_pending_next_attempt_at_seq_idx" ON "webhook_deliveries"("next_attempt_at", "seq") WHERE ("state" = 'PENDING');
DROP INDEX "webhook_deliveries_endpoint_id_transaction_id_event_seq_idx";
CREATE INDEX "webhook_deliveries_pending_order_idx" ON "webhook_deliveries"("endpoint_id", "transaction_id", "event_seq") WHERE ("state" = 'PENDING');

-- The one claim: up to p_limit due deliveries of enabled endpoints, held until p_lease_until. Only the oldest
-- undelivered delivery of a transaction to an endpoint is due, so each endpoint gets a transaction in order.
-- p_only is an operator redelivery of one delivery, taken regardless of order and of the endpoint state.
-- Due rows are read in (next_attempt_at, seq) order straight from the partial index, the scan stops at the
-- limit, and each row costs two indexed look-ups: the planner may neither sort the backlog nor bitmap-scan it.
CREATE FUNCTION "paygate_claim_due_webhook_deliveries"(
  p_now timestamptz, p_lease_until timestamptz, p_limit integer, p_only text, p_token text)
RETURNS TABLE ("id" text, "eventId" text, "endpointId" text, "merchantId" integer, "type" text, "isLive" boolean,
  "body" text, "attemptCount" integer, "url" text, "secretEnc" text, "previousSecretEnc" text,
  "previousSecretExpiresAt" timestamptz, "createdAt" timestamptz)
LANGUAGE plpgsql
SET enable_bitmapscan = off
SET enable_sort = off
AS $$
BEGIN
  RETURN QUERY
  WITH due AS (
    SELECT d.id AS due_id FROM webhook_deliveries d
    WHERE d.state = 'PENDING' AND d.next_attempt_at <= p_now
      AND (p_only IS NULL OR d.id = p_only)
      -- Inside an OR, so that it stays a look-up per due delivery in index order.
      AND (p_only IS NOT NULL OR EXISTS (
        SELECT 1 FROM webhook_endpoints ep WHERE ep.id = d.endpoint_id AND ep.disabled_at IS NULL))
      AND (p_only IS NOT NULL OR d.transaction_id IS NULL OR NOT EXISTS (
        SELECT 1 FROM webhook_deliveries earlier
        WHERE earlier.endpoint_id = d.endpoint_id AND earlier.transaction_id = d.transaction_id
          AND earlier.event_seq < d.event_seq AND earlier.state = 'PENDING'))
    ORDER BY d.next_attempt_at, d.seq
    LIMIT p_limit
    FOR UPDATE OF d SKIP LOCKED),
  claimed AS (
    UPDATE webhook_deliveries w SET claim_token = p_token, next_attempt_at = p_lease_until
    FROM due WHERE w.id = due.due_id
    RETURNING w.id AS claimed_id, w.event_id AS claimed_event_id, w.endpoint_id AS claimed_endpoint_id,
      w.attempt_count AS claimed_attempt_count)
  SELECT c.claimed_id, c.claimed_event_id, c.claimed_endpoint_id, e.merchant_id, e.type, e.is_live, e.body,
    c.claimed_attempt_count, ep.url, ep.secret_enc, ep.previous_secret_enc, ep.previous_secret_expires_at, e.created_at
  FROM claimed c JOIN webhook_events e ON e.id = c.claimed_event_id LEFT JOIN webhook_endpoints ep ON ep.id = c.claimed_endpoint_id;
END
$$;
