-- An event is routed when it is written (issue 30). Whether an event goes to its mode's first endpoint
-- (the merchant's webhook URL of the mode) was decided only when it fell due: every event of a mode
-- without a URL was written PENDING, walked by the dispatcher's claims and then updated to SKIPPED, an
-- update that rewrites the row (its JSON body too) and all seven of the outbox's indexes. Such an
-- event is now written SKIPPED, as the dispatcher would have marked it. An event written while a URL
-- was set is written PENDING and checked again when it falls due (the URL may have gone since).

-- The rule, in one place: the event goes to its mode's first endpoint, enabled, whose filter takes its
-- type (the endpoint's row exists exactly while the merchant's URL for the mode is set). PL/pgSQL,
-- whose statement stays prepared for the session (a SQL-language function with a sub-select is not
-- inlined, and would be parsed and planned again in every transaction).
CREATE FUNCTION "paygate_first_endpoint_takes"(p_merchant_id integer, p_is_live boolean, p_type text)
RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN EXISTS (
    SELECT 1 FROM "webhook_endpoints" p
    WHERE p."merchant_id" = p_merchant_id AND p."is_live" = p_is_live AND p."is_primary" AND p."disabled_at" IS NULL
      AND ('*' = ANY(p."enabled_events") OR p_type = ANY(p."enabled_events")));
END
$$;

CREATE FUNCTION "paygate_route_webhook_event"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."state" = 'PENDING' AND NOT "paygate_first_endpoint_takes"(NEW."merchant_id", NEW."is_live", NEW."type") THEN
    NEW."state" := 'SKIPPED';
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER "webhook_events_route"
BEFORE INSERT ON "webhook_events"
FOR EACH ROW EXECUTE FUNCTION "paygate_route_webhook_event"();

-- The claim (migration 20261126200000) with the rule above in place of its own copy of it.
CREATE OR REPLACE FUNCTION "paygate_claim_due_webhook_events"(
  p_now timestamptz, p_lease_until timestamptz, p_limit integer, p_only text, p_token text)
RETURNS TABLE (
  "id" text, "merchantId" integer, "transactionId" text, "type" text, "isLive" boolean, "body" text,
  "attemptCount" integer, "liveWebhookUrl" text, "testWebhookUrl" text, "webhookSecretEnc" text,
  "previousWebhookSecretEnc" text, "previousWebhookSecretExpiresAt" timestamptz, "createdAt" timestamptz,
  "endpointId" text)
LANGUAGE plpgsql
SET enable_bitmapscan = off
SET enable_sort = off
AS $$
BEGIN
  RETURN QUERY
  WITH due AS (
    SELECT e.id FROM webhook_events e
    WHERE e.state = 'PENDING' AND e.next_attempt_at <= p_now
      AND (p_only IS NULL OR e.id = p_only)
      -- Inside an OR, so that it stays a look-up per due event in index order, not a join the planner reorders.
      AND (p_only IS NOT NULL OR paygate_first_endpoint_takes(e.merchant_id, e.is_live, e.type))
      -- `state NOT IN (…)` is PENDING in a form no index answers: the look-up goes through the transaction's own events.
      AND (p_only IS NOT NULL OR (
        SELECT 1 FROM webhook_events earlier
        WHERE earlier.transaction_id = e.transaction_id AND earlier.seq < e.seq
          AND earlier.state NOT IN ('DELIVERED', 'FAILED', 'SKIPPED') LIMIT 1) IS NULL)
    ORDER BY e.next_attempt_at, e.seq
    LIMIT p_limit
    FOR UPDATE OF e SKIP LOCKED)
  UPDATE webhook_events w
  SET claim_token = p_token, next_attempt_at = p_lease_until
  FROM due, merchants m
  WHERE w.id = due.id AND m.id = w.merchant_id
  RETURNING w.id, w.merchant_id, w.transaction_id, w.type, w.is_live, w.body, w.attempt_count,
    m.live_webhook_url, m.test_webhook_url, m.webhook_secret_enc, m.previous_webhook_secret_enc,
    m.previous_webhook_secret_expires_at, w.created_at,
    (SELECT p.id FROM webhook_endpoints p WHERE p.merchant_id = w.merchant_id AND p.is_live = w.is_live AND p.is_primary LIMIT 1);
END
$$;

-- The fan-out (migration 20261126125655) looks before it writes: most merchants have no endpoint but
-- the first, and an INSERT that adds no row still opens webhook_deliveries and its six indexes and
-- sets up its foreign keys for every event (about 0.1 ms of PostgreSQL's CPU per event in the
-- benchmark). What it writes when there are endpoints is unchanged.
CREATE OR REPLACE FUNCTION "paygate_fan_out_webhook_events"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM written e JOIN "webhook_endpoints" ep ON ep."merchant_id" = e."merchant_id" AND ep."is_live" = e."is_live"
    WHERE NOT ep."is_primary") THEN
    RETURN NULL;
  END IF;
  INSERT INTO "webhook_deliveries" ("id", "event_id", "endpoint_id", "transaction_id", "event_seq", "next_attempt_at", "created_at")
  SELECT 'wd_' || replace(gen_random_uuid()::text, '-', ''), e."id", ep."id", e."transaction_id", e."seq", e."next_attempt_at", e."created_at"
  FROM written e JOIN "webhook_endpoints" ep ON ep."merchant_id" = e."merchant_id" AND ep."is_live" = e."is_live"
  WHERE NOT ep."is_primary" AND ep."disabled_at" IS NULL AND ('*' = ANY(ep."enabled_events") OR e."type" = ANY(ep."enabled_events"))
  ORDER BY e."seq";
  RETURN NULL;
END
$$;
