-- The outbox's indexes hold only the rows they are read for (issue 30). Every event was written with an
-- entry in each of webhook_events' seven indexes, though most are written SKIPPED (a mode without a
-- URL) or end DELIVERED. Only the claim, the backlog and the skip read the (state, next_attempt_at,
-- seq) index, and only for PENDING events: it becomes partial. Only refund events have a refund_id,
-- and a payment event's NULL entry in the (refund_id, type) unique index constrains nothing (NULLs are
-- distinct): it becomes partial too. seq is read only beside a transaction or a merchant and mode,
-- through the indexes that start with those. The operator's list of every merchant's events, the one
-- read that ordered by seq alone, orders by created_at (its index) and then seq, so seq's own unique
-- index goes (the sequence behind it still makes each seq unique). An event written SKIPPED now
-- writes four index entries, a pending one five. (No semicolon in these comments: the migration
-- runner splits statements on them.)

-- DropIndex
DROP INDEX "webhook_events_refund_id_type_key";

-- DropIndex
DROP INDEX "webhook_events_seq_key";

-- DropIndex
DROP INDEX "webhook_events_state_next_attempt_at_seq_idx";

-- CreateIndex
CREATE INDEX "webhook_events_pending_next_attempt_at_seq_idx" ON "webhook_events"("next_attempt_at", "seq") WHERE (state = 'PENDING');

-- CreateIndex
CREATE UNIQUE INDEX "webhook_events_refund_id_type_key" ON "webhook_events"("refund_id", "type") WHERE (refund_id IS NOT NULL);
