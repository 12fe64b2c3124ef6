-- CreateIndex
CREATE INDEX "webhook_events_merchant_id_is_live_seq_idx" ON "webhook_events"("merchant_id", "is_live", "seq");

-- CreateIndex
CREATE INDEX "webhook_events_created_at_idx" ON "webhook_events"("created_at");
