-- Webhook endpoints (issue 27): several receivers per merchant and mode, each with its event filter and
-- signing secret, and one delivery per event and endpoint, retried on its own schedule.
-- AlterTable
ALTER TABLE "webhook_delivery_attempts" ADD COLUMN     "delivery_id" TEXT;

-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "id" TEXT NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "is_live" BOOLEAN NOT NULL,
    "is_primary" BOOLEAN NOT NULL DEFAULT false,
    "url" TEXT NOT NULL,
    "description" TEXT,
    "enabled_events" TEXT[],
    "disabled_at" TIMESTAMPTZ(3),
    "disabled_reason" TEXT,
    "failing_since" TIMESTAMPTZ(3),
    "secret_enc" TEXT NOT NULL,
    "secret_rotated_at" TIMESTAMPTZ(3),
    "previous_secret_enc" TEXT,
    "previous_secret_expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" TEXT NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "event_id" TEXT NOT NULL,
    "endpoint_id" TEXT NOT NULL,
    "transaction_id" TEXT NOT NULL,
    "event_seq" BIGINT NOT NULL,
    "state" "DeliveryState" NOT NULL DEFAULT 'PENDING',
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL,
    "claim_token" TEXT,
    "delivered_at" TIMESTAMPTZ(3),
    "last_attempt_at" TIMESTAMPTZ(3),
    "last_status_code" INTEGER,
    "last_latency_ms" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhook_endpoints_merchant_id_is_live_idx" ON "webhook_endpoints"("merchant_id", "is_live");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_seq_key" ON "webhook_deliveries"("seq");

-- CreateIndex
CREATE INDEX "webhook_deliveries_state_next_attempt_at_seq_idx" ON "webhook_deliveries"("state", "next_attempt_at", "seq");

-- CreateIndex
CREATE INDEX "webhook_deliveries_endpoint_id_seq_idx" ON "webhook_deliveries"("endpoint_id", "seq");

-- CreateIndex
CREATE INDEX "webhook_deliveries_endpoint_id_transaction_id_event_seq_idx" ON "webhook_deliveries"("endpoint_id", "transaction_id", "event_seq");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_event_id_endpoint_id_key" ON "webhook_deliveries"("event_id", "endpoint_id");

-- CreateIndex
CREATE INDEX "webhook_delivery_attempts_delivery_id_idx" ON "webhook_delivery_attempts"("delivery_id");

-- AddForeignKey
ALTER TABLE "webhook_delivery_attempts" ADD CONSTRAINT "webhook_delivery_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "webhook_events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Each merchant's webhook URL of a mode, with its signing secret (and a rotation's previous one),
-- becomes that mode's first endpoint, receiving every event.
INSERT INTO "webhook_endpoints" ("id", "merchant_id", "is_live", "is_primary", "url", "enabled_events", "secret_enc",
  "secret_rotated_at", "previous_secret_enc", "previous_secret_expires_at", "created_at", "updated_at")
SELECT 'we_' || replace(gen_random_uuid()::text, '-', ''), m."id", mode.is_live, true,
  CASE WHEN mode.is_live THEN m."live_webhook_url" ELSE m."test_webhook_url" END, ARRAY['*'], m."webhook_secret_enc",
  m."webhook_secret_rotated_at", m."previous_webhook_secret_enc", m."previous_webhook_secret_expires_at", m."created_at", CURRENT_TIMESTAMP
FROM "merchants" m CROSS JOIN (VALUES (false), (true)) AS mode(is_live)
WHERE (CASE WHEN mode.is_live THEN m."live_webhook_url" ELSE m."test_webhook_url" END) IS NOT NULL;

-- The first endpoint of a mode stays the merchant's webhook URL and secret, however they are written
-- (merchant create and update, the dashboard, a rotation): its URL set makes it, its URL removed deletes it.
CREATE FUNCTION "paygate_mirror_primary_webhook_endpoints"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  mode_live boolean;
  mode_url text;
BEGIN
  FOREACH mode_live IN ARRAY ARRAY[false, true] LOOP
    mode_url := CASE WHEN mode_live THEN NEW."live_webhook_url" ELSE NEW."test_webhook_url" END;
    IF mode_url IS NULL THEN
      DELETE FROM "webhook_endpoints" WHERE "merchant_id" = NEW."id" AND "is_live" = mode_live AND "is_primary";
    ELSE
      UPDATE "webhook_endpoints" SET "url" = mode_url, "secret_enc" = NEW."webhook_secret_enc",
        "secret_rotated_at" = NEW."webhook_secret_rotated_at", "previous_secret_enc" = NEW."previous_webhook_secret_enc",
        "previous_secret_expires_at" = NEW."previous_webhook_secret_expires_at", "updated_at" = CURRENT_TIMESTAMP
      WHERE "merchant_id" = NEW."id" AND "is_live" = mode_live AND "is_primary";
      IF NOT FOUND THEN
        INSERT INTO "webhook_endpoints" ("id", "merchant_id", "is_live", "is_primary", "url", "enabled_events", "secret_enc",
          "secret_rotated_at", "previous_secret_enc", "previous_secret_expires_at")
        VALUES ('we_' || replace(gen_random_uuid()::text, '-', ''), NEW."id", mode_live, true, mode_url, ARRAY['*'], NEW."webhook_secret_enc",
          NEW."webhook_secret_rotated_at", NEW."previous_webhook_secret_enc", NEW."previous_webhook_secret_expires_at");
      END IF;
    END IF;
  END LOOP;
  RETURN NULL;
END
$$;

CREATE TRIGGER "merchants_mirror_primary_webhook_endpoints"
AFTER INSERT OR UPDATE OF "live_webhook_url", "test_webhook_url", "webhook_secret_enc", "webhook_secret_rotated_at",
  "previous_webhook_secret_enc", "previous_webhook_secret_expires_at" ON "merchants"
FOR EACH ROW EXECUTE FUNCTION "paygate_mirror_primary_webhook_endpoints"();

-- The fan-out: every event written (by any statement: the outbox hook, initialize's insert, refunds)
-- gets one delivery per enabled endpoint of its merchant and mode other than the first, whose filter
-- takes its type, in the same database transaction. The first endpoint's delivery is the event's own state.
CREATE FUNCTION "paygate_fan_out_webhook_events"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "webhook_deliveries" ("id", "event_id", "endpoint_id", "transaction_id", "event_seq", "next_attempt_at", "created_at")
  SELECT 'wd_' || replace(gen_random_uuid()::text, '-', ''), e."id", ep."id", e."transaction_id", e."seq", e."next_attempt_at", e."created_at"
  FROM written e JOIN "webhook_endpoints" ep ON ep."merchant_id" = e."merchant_id" AND ep."is_live" = e."is_live"
  WHERE NOT ep."is_primary" AND ep."disabled_at" IS NULL AND ('*' = ANY(ep."enabled_events") OR e."type" = ANY(ep."enabled_events"))
  ORDER BY e."seq";
  RETURN NULL;
END
$$;

CREATE TRIGGER "webhook_events_fan_out"
AFTER INSERT ON "webhook_events" REFERENCING NEW TABLE AS written
FOR EACH STATEMENT EXECUTE FUNCTION "paygate_fan_out_webhook_events"();
