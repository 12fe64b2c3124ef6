-- CreateIndex
CREATE INDEX "transactions_merchant_id_is_live_created_at_id_idx" ON "transactions"("merchant_id", "is_live", "created_at", "id");
