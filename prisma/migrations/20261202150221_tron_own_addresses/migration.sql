-- DropIndex
DROP INDEX "transactions_is_live_payment_currency_id_payment_address_key";

-- AlterTable
ALTER TABLE "settlement_settings" ADD COLUMN     "address_count" INTEGER;

-- AlterTable
ALTER TABLE "transactions" ADD COLUMN     "own_address_index" INTEGER;

-- CreateTable
CREATE TABLE "amount_reservations" (
    "id" BIGSERIAL NOT NULL,
    "network" TEXT NOT NULL,
    "is_live" BOOLEAN NOT NULL,
    "address" TEXT NOT NULL,
    "currency_id" INTEGER NOT NULL,
    "amount" DECIMAL(38,18) NOT NULL,
    "transaction_id" TEXT NOT NULL,
    "held_until" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "amount_reservations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "unmatched_receipts" (
    "id" TEXT NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "is_live" BOOLEAN NOT NULL,
    "network" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "currency_id" INTEGER NOT NULL,
    "amount" DECIMAL(38,18) NOT NULL,
    "key" TEXT NOT NULL,
    "tx_hash" TEXT,
    "log_index" INTEGER,
    "block_height" INTEGER,
    "confirmations" INTEGER NOT NULL,
    "seen_at" TIMESTAMPTZ(3) NOT NULL,
    "state" TEXT NOT NULL,
    "transaction_id" TEXT,
    "refund_tx_hash" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "unmatched_receipts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "amount_reservations_transaction_id_idx" ON "amount_reservations"("transaction_id");

-- CreateIndex
CREATE UNIQUE INDEX "amount_reservations_network_is_live_address_currency_id_amo_key" ON "amount_reservations"("network", "is_live", "address", "currency_id", "amount");

-- CreateIndex
CREATE INDEX "unmatched_receipts_merchant_id_is_live_seen_at_id_idx" ON "unmatched_receipts"("merchant_id", "is_live", "seen_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "unmatched_receipts_network_is_live_address_key_key" ON "unmatched_receipts"("network", "is_live", "address", "key");

-- CreateIndex
CREATE UNIQUE INDEX "transactions_is_live_payment_currency_id_payment_address_key" ON "transactions"("is_live", "payment_currency_id", "payment_address") WHERE (own_address_index IS NULL);
