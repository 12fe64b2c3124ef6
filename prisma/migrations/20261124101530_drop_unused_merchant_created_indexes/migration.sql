-- No query reads these: every read by merchant is also by mode, through (merchant_id, is_live, ...)
-- indexes, which also serve the cascades from merchants. Each cost every initialize (two inserts) and
-- every initiate (an update of the transaction that moves it in every index, and an event's insert).
-- DropIndex
DROP INDEX "transactions_merchant_id_created_at_idx";

-- DropIndex
DROP INDEX "webhook_events_merchant_id_created_at_idx";
