-- CreateTable
CREATE TABLE "sweeps" (
    "id" TEXT NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "is_live" BOOLEAN NOT NULL,
    "network" TEXT NOT NULL,
    "tx_hash" TEXT NOT NULL,
    "from_address" TEXT NOT NULL,
    "transaction_id" TEXT,
    "destination" TEXT NOT NULL,
    "coin" TEXT NOT NULL,
    "amount" DECIMAL(38,18) NOT NULL,
    "fee" DECIMAL(38,18) NOT NULL,
    "block_number" BIGINT NOT NULL,
    "block_hash" TEXT NOT NULL,
    "mined_at" TIMESTAMPTZ(3) NOT NULL,
    "top_up_tx_hash" TEXT,
    "top_up_from" TEXT,
    "top_up_amount" DECIMAL(38,18),
    "top_up_fee" DECIMAL(38,18),
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sweeps_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "sweeps_merchant_id_is_live_created_at_id_idx" ON "sweeps"("merchant_id", "is_live", "created_at", "id");

-- CreateIndex
CREATE INDEX "sweeps_transaction_id_idx" ON "sweeps"("transaction_id");

-- CreateIndex
CREATE UNIQUE INDEX "sweeps_network_is_live_tx_hash_key" ON "sweeps"("network", "is_live", "tx_hash");

-- CreateIndex
CREATE UNIQUE INDEX "sweeps_network_is_live_top_up_tx_hash_key" ON "sweeps"("network", "is_live", "top_up_tx_hash");

-- AddForeignKey
ALTER TABLE "sweeps" ADD CONSTRAINT "sweeps_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sweeps" ADD CONSTRAINT "sweeps_transaction_id_fkey" FOREIGN KEY ("transaction_id") REFERENCES "transactions"("id") ON DELETE SET NULL ON UPDATE CASCADE;
