-- CreateTable
CREATE TABLE "settlement_settings" (
    "merchant_id" INTEGER NOT NULL,
    "network" TEXT NOT NULL,
    "is_live" BOOLEAN NOT NULL,
    "mode" TEXT NOT NULL,
    "destination" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "settlement_settings_pkey" PRIMARY KEY ("merchant_id","network","is_live")
);

-- CreateTable
CREATE TABLE "forwarder_deposits" (
    "transaction_id" TEXT NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "is_live" BOOLEAN NOT NULL,
    "network" TEXT NOT NULL,
    "factory" TEXT NOT NULL,
    "destination" TEXT NOT NULL,
    "salt" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "forwarder_deposits_pkey" PRIMARY KEY ("transaction_id")
);

-- CreateTable
CREATE TABLE "forwarder_flushes" (
    "id" TEXT NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "is_live" BOOLEAN NOT NULL,
    "network" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "factory" TEXT NOT NULL,
    "fee_payer" TEXT NOT NULL,
    "nonce" BIGINT NOT NULL,
    "tx_hash" TEXT NOT NULL,
    "raw_tx" TEXT NOT NULL,
    "gas_used" BIGINT,
    "fee" DECIMAL(38,18),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "confirmed_at" TIMESTAMPTZ(3),

    CONSTRAINT "forwarder_flushes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "forwarder_flush_items" (
    "id" BIGSERIAL NOT NULL,
    "flush_id" TEXT NOT NULL,
    "transaction_id" TEXT NOT NULL,
    "forwarder" TEXT NOT NULL,
    "moved" JSONB,
    "active" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "forwarder_flush_items_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "forwarder_deposits_merchant_id_is_live_network_idx" ON "forwarder_deposits"("merchant_id", "is_live", "network");

-- CreateIndex
CREATE INDEX "forwarder_flushes_merchant_id_is_live_created_at_id_idx" ON "forwarder_flushes"("merchant_id", "is_live", "created_at", "id");

-- CreateIndex
CREATE INDEX "forwarder_flushes_state_idx" ON "forwarder_flushes"("state");

-- CreateIndex
CREATE INDEX "forwarder_flush_items_flush_id_idx" ON "forwarder_flush_items"("flush_id");

-- CreateIndex
CREATE UNIQUE INDEX "forwarder_flush_items_active_transaction_key" ON "forwarder_flush_items"("transaction_id") WHERE (active);

-- AddForeignKey
ALTER TABLE "settlement_settings" ADD CONSTRAINT "settlement_settings_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "forwarder_deposits" ADD CONSTRAINT "forwarder_deposits_transaction_id_fkey" FOREIGN KEY ("transaction_id") REFERENCES "transactions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "forwarder_flushes" ADD CONSTRAINT "forwarder_flushes_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "forwarder_flush_items" ADD CONSTRAINT "forwarder_flush_items_flush_id_fkey" FOREIGN KEY ("flush_id") REFERENCES "forwarder_flushes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "forwarder_flush_items" ADD CONSTRAINT "forwarder_flush_items_transaction_id_fkey" FOREIGN KEY ("transaction_id") REFERENCES "transactions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
