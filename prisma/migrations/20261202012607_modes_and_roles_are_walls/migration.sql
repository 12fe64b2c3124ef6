-- Modes and roles are walls (issue 41).

-- API keys remember who rolled them and that user's role: a key may do what its role may.
ALTER TABLE "api_keys" ADD COLUMN     "created_by_email" TEXT,
ADD COLUMN     "created_by_role" TEXT,
ADD COLUMN     "created_by_user_id" TEXT;

-- A change made with a secret key is audited as that key (its id and prefix), made by its creator.
ALTER TABLE "audit_log" ADD COLUMN     "actor_api_key_id" INTEGER,
ADD COLUMN     "actor_api_key_prefix" TEXT;

-- Test mode gets a signing secret of its own. Null: test mode still signs with the merchant's one
-- secret (as every merchant did until now, so receivers keep verifying as before). The first
-- test-mode change that would show or rotate it gives test mode a new one, and a rotation of live
-- mode's gives test mode the old one to keep: no test credential reads or rotates what signs live.
ALTER TABLE "merchants" ADD COLUMN     "test_previous_webhook_secret_enc" TEXT,
ADD COLUMN     "test_previous_webhook_secret_expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "test_webhook_secret_enc" TEXT,
ADD COLUMN     "test_webhook_secret_rotated_at" TIMESTAMPTZ(3);

-- The first endpoint of each mode mirrors that mode's URL and secret (migration 20261126125655 mirrored one secret into both).
CREATE OR REPLACE FUNCTION "paygate_mirror_primary_webhook_endpoints"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  mode_live boolean;
  mode_url text;
  mode_secret text;
  mode_rotated_at timestamptz;
  mode_previous text;
  mode_previous_expires_at timestamptz;
BEGIN
  FOREACH mode_live IN ARRAY ARRAY[false, true] LOOP
    IF mode_live OR NEW."test_webhook_secret_enc" IS NULL THEN
      mode_url := CASE WHEN mode_live THEN NEW."live_webhook_url" ELSE NEW."test_webhook_url" END;
      mode_secret := NEW."webhook_secret_enc";
      mode_rotated_at := NEW."webhook_secret_rotated_at";
      mode_previous := NEW."previous_webhook_secret_enc";
      mode_previous_expires_at := NEW."previous_webhook_secret_expires_at";
    ELSE
      mode_url := NEW."test_webhook_url";
      mode_secret := NEW."test_webhook_secret_enc";
      mode_rotated_at := NEW."test_webhook_secret_rotated_at";
      mode_previous := NEW."test_previous_webhook_secret_enc";
      mode_previous_expires_at := NEW."test_previous_webhook_secret_expires_at";
    END IF;
    IF mode_url IS NULL THEN
      DELETE FROM "webhook_endpoints" WHERE "merchant_id" = NEW."id" AND "is_live" = mode_live AND "is_primary";
    ELSE
      -- Only a row whose mode changed is written: a change of one mode leaves the other's row as it was.
      UPDATE "webhook_endpoints" SET "url" = mode_url, "secret_enc" = mode_secret, "secret_rotated_at" = mode_rotated_at,
        "previous_secret_enc" = mode_previous, "previous_secret_expires_at" = mode_previous_expires_at, "updated_at" = CURRENT_TIMESTAMP
      WHERE "merchant_id" = NEW."id" AND "is_live" = mode_live AND "is_primary"
        AND ("url", "secret_enc", "secret_rotated_at", "previous_secret_enc", "previous_secret_expires_at")
          IS DISTINCT FROM (mode_url, mode_secret, mode_rotated_at, mode_previous, mode_previous_expires_at);
      IF NOT FOUND AND NOT EXISTS (
        SELECT 1 FROM "webhook_endpoints" WHERE "merchant_id" = NEW."id" AND "is_live" = mode_live AND "is_primary") THEN
        INSERT INTO "webhook_endpoints" ("id", "merchant_id", "is_live", "is_primary", "url", "enabled_events", "secret_enc",
          "secret_rotated_at", "previous_secret_enc", "previous_secret_expires_at")
        VALUES ('we_' || replace(gen_random_uuid()::text, '-', ''), NEW."id", mode_live, true, mode_url, ARRAY['*'], mode_secret,
          mode_rotated_at, mode_previous, mode_previous_expires_at);
      END IF;
    END IF;
  END LOOP;
  RETURN NULL;
END
$$;

DROP TRIGGER "merchants_mirror_primary_webhook_endpoints" ON "merchants";

CREATE TRIGGER "merchants_mirror_primary_webhook_endpoints"
AFTER INSERT OR UPDATE OF "live_webhook_url", "test_webhook_url", "webhook_secret_enc", "webhook_secret_rotated_at",
  "previous_webhook_secret_enc", "previous_webhook_secret_expires_at", "test_webhook_secret_enc", "test_webhook_secret_rotated_at",
  "test_previous_webhook_secret_enc", "test_previous_webhook_secret_expires_at" ON "merchants"
FOR EACH ROW EXECUTE FUNCTION "paygate_mirror_primary_webhook_endpoints"();

-- The claim (migration 20261127030000) signs each event with its own mode's secrets.
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
    m.live_webhook_url, m.test_webhook_url,
    CASE WHEN w.is_live OR m.test_webhook_secret_enc IS NULL THEN m.webhook_secret_enc ELSE m.test_webhook_secret_enc END,
    CASE WHEN w.is_live OR m.test_webhook_secret_enc IS NULL THEN m.previous_webhook_secret_enc ELSE m.test_previous_webhook_secret_enc END,
    CASE WHEN w.is_live OR m.test_webhook_secret_enc IS NULL THEN m.previous_webhook_secret_expires_at ELSE m.test_previous_webhook_secret_expires_at END,
    w.created_at,
    (SELECT p.id FROM webhook_endpoints p WHERE p.merchant_id = w.merchant_id AND p.is_live = w.is_live AND p.is_primary LIMIT 1);
END
$$;

