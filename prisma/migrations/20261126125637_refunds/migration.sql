-- Refunds (issue 26): the refund record, its events in the outbox (one of each type per refund, while
-- payment events stay one of each type per transaction) and the Idempotency-Key of a refund request.

-- AlterTable
ALTER TABLE "idempotency_keys" ADD COLUMN     "refund_id" TEXT;

-- AlterTable
ALTER TABLE "webhook_events" ADD COLUMN     "refund_id" TEXT;

-- DropIndex
DROP INDEX "webhook_events_transaction_id_type_key";

-- CreateTable
CREATE TABLE "refunds" (
    "id" TEXT NOT NULL,
    "transaction_id" TEXT NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "is_live" BOOLEAN NOT NULL,
    "state" TEXT NOT NULL,
    "amount_kind" TEXT NOT NULL,
    "amount" DECIMAL(38,18) NOT NULL,
    "fiat_amount" DECIMAL(30,2) NOT NULL,
    "fiat_currency_id" INTEGER NOT NULL,
    "valuation" TEXT NOT NULL,
    "rate" DECIMAL(38,18) NOT NULL,
    "deduct_network_fee" BOOLEAN NOT NULL,
    "network_fee" DECIMAL(38,18),
    "amount_to_customer" DECIMAL(38,18) NOT NULL,
    "fee_rate" DECIMAL(20,3),
    "destination" TEXT,
    "claim_token_hash" TEXT,
    "claim_expires_at" TIMESTAMPTZ(3),
    "claimed_at" TIMESTAMPTZ(3),
    "tx_hash" TEXT,
    "paid_by" TEXT,
    "verification" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "succeeded_at" TIMESTAMPTZ(3),
    "canceled_at" TIMESTAMPTZ(3),

    CONSTRAINT "refunds_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "refunds_claim_token_hash_key" ON "refunds"("claim_token_hash");

-- CreateIndex
CREATE INDEX "refunds_merchant_id_is_live_created_at_id_idx" ON "refunds"("merchant_id", "is_live", "created_at", "id");

-- CreateIndex
CREATE INDEX "refunds_transaction_id_created_at_idx" ON "refunds"("transaction_id", "created_at");

-- CreateIndex
CREATE INDEX "refunds_state_idx" ON "refunds"("state");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_events_transaction_id_type_key" ON "webhook_events"("transaction_id", "type") WHERE (refund_id IS NULL);

-- CreateIndex
CREATE UNIQUE INDEX "webhook_events_refund_id_type_key" ON "webhook_events"("refund_id", "type");

-- AddForeignKey
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_refund_id_fkey" FOREIGN KEY ("refund_id") REFERENCES "refunds"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_transaction_id_fkey" FOREIGN KEY ("transaction_id") REFERENCES "transactions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
