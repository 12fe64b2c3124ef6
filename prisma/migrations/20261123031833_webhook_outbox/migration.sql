-- CreateEnum
CREATE TYPE "DeliveryState" AS ENUM ('PENDING', 'DELIVERED', 'FAILED', 'SKIPPED');

-- AlterTable: the one webhook URL becomes the live one (hand-edited from DROP + ADD, to keep the URLs)
ALTER TABLE "merchants" RENAME COLUMN "webhook_url" TO "live_webhook_url";
ALTER TABLE "merchants" ADD COLUMN     "test_webhook_url" TEXT;

-- CreateTable
CREATE TABLE "webhook_events" (
    "id" TEXT NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "transaction_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "is_live" BOOLEAN NOT NULL,
    "body" TEXT NOT NULL,
    "state" "DeliveryState" NOT NULL DEFAULT 'PENDING',
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL,
    "claim_token" TEXT,
    "delivered_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_delivery_attempts" (
    "id" BIGSERIAL NOT NULL,
    "event_id" TEXT NOT NULL,
    "attempted_at" TIMESTAMPTZ(3) NOT NULL,
    "url" TEXT NOT NULL,
    "status_code" INTEGER,
    "latency_ms" INTEGER NOT NULL,
    "response_body" TEXT,
    "error" TEXT,
    "succeeded" BOOLEAN NOT NULL,
    "trigger" TEXT NOT NULL,

    CONSTRAINT "webhook_delivery_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "webhook_events_seq_key" ON "webhook_events"("seq");

-- CreateIndex
CREATE INDEX "webhook_events_state_next_attempt_at_seq_idx" ON "webhook_events"("state", "next_attempt_at", "seq");

-- CreateIndex
CREATE INDEX "webhook_events_merchant_id_created_at_idx" ON "webhook_events"("merchant_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_events_transaction_id_type_key" ON "webhook_events"("transaction_id", "type");

-- CreateIndex
CREATE INDEX "webhook_delivery_attempts_event_id_attempted_at_idx" ON "webhook_delivery_attempts"("event_id", "attempted_at");

-- AddForeignKey
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_transaction_id_fkey" FOREIGN KEY ("transaction_id") REFERENCES "transactions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_delivery_attempts" ADD CONSTRAINT "webhook_delivery_attempts_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "webhook_events"("id") ON DELETE CASCADE ON UPDATE CASCADE;
