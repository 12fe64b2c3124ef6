-- CreateTable
CREATE TABLE "consolidations" (
    "id" TEXT NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "is_live" BOOLEAN NOT NULL,
    "coin" TEXT NOT NULL,
    "network" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "destination" TEXT NOT NULL,
    "fee_rate" DECIMAL(20,3) NOT NULL,
    "total" DECIMAL(38,18) NOT NULL,
    "network_fee" DECIMAL(38,18) NOT NULL,
    "amount_to_receive" DECIMAL(38,18) NOT NULL,
    "psbt" TEXT NOT NULL,
    "tx_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "seen_at" TIMESTAMPTZ(3),
    "confirmed_at" TIMESTAMPTZ(3),
    "canceled_at" TIMESTAMPTZ(3),

    CONSTRAINT "consolidations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "consolidation_inputs" (
    "id" BIGSERIAL NOT NULL,
    "consolidation_id" TEXT NOT NULL,
    "transaction_id" TEXT NOT NULL,
    "is_live" BOOLEAN NOT NULL,
    "outpoint" TEXT NOT NULL,
    "amount" DECIMAL(38,18) NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "consolidation_inputs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "consolidations_merchant_id_is_live_created_at_id_idx" ON "consolidations"("merchant_id", "is_live", "created_at", "id");

-- CreateIndex
CREATE INDEX "consolidations_state_idx" ON "consolidations"("state");

-- CreateIndex
CREATE INDEX "consolidation_inputs_consolidation_id_idx" ON "consolidation_inputs"("consolidation_id");

-- CreateIndex
CREATE INDEX "consolidation_inputs_transaction_id_idx" ON "consolidation_inputs"("transaction_id");

-- CreateIndex
CREATE UNIQUE INDEX "consolidation_inputs_active_outpoint_key" ON "consolidation_inputs"("is_live", "outpoint") WHERE (active);

-- AddForeignKey
ALTER TABLE "consolidations" ADD CONSTRAINT "consolidations_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "consolidation_inputs" ADD CONSTRAINT "consolidation_inputs_consolidation_id_fkey" FOREIGN KEY ("consolidation_id") REFERENCES "consolidations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "consolidation_inputs" ADD CONSTRAINT "consolidation_inputs_transaction_id_fkey" FOREIGN KEY ("transaction_id") REFERENCES "transactions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
