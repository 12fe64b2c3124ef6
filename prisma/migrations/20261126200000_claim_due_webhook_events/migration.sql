-- The webhook dispatcher's claim of due events (src/db/stores/webhook-events.ts, claimDueEvents) as
-- one statement. Only the oldest undelivered event of each transaction is due, so a transaction's
-- events arrive in order; SKIP LOCKED lets dispatchers on one database share the work; the claimed
-- events are held until `p_lease_until` under `p_token`. `p_only`: an operator's redelivery of one
-- event, which skips the order rule and is taken even without a URL (so that it can say so).
--
-- The cost must not grow with the backlog: the due events are read in index order and the scan stops
-- at `p_limit`, each checked by two indexed look-ups. The planner, whose statistics see few PENDING
-- rows, would rather bitmap-scan and sort the whole backlog (10 ms a claim at 1,500 due, growing with
-- it), so the function forbids bitmap scans and sorts while its query is planned and run: its own
-- settings, where a transaction of four statements (BEGIN, set_config, the claim, COMMIT) set them before.
-- PL/pgSQL, which keeps its statement prepared (a SQL function's body is parsed and planned on every call).
CREATE FUNCTION "paygate_claim_due_webhook_events"(
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
      -- The event's mode has a first endpoint (the merchant's URL), enabled, whose filter takes its type.
      -- Inside an OR, so that it stays a look-up per due event in index order, not a join the planner reorders.
      AND (p_only IS NOT NULL OR EXISTS (
        SELECT 1 FROM webhook_endpoints p
        WHERE p.merchant_id = e.merchant_id AND p.is_live = e.is_live AND p.is_primary AND p.disabled_at IS NULL
          AND ('*' = ANY(p.enabled_events) OR e.type = ANY(p.enabled_events))))
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

