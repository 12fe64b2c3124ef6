-- Events about something other than a transaction (issue 40, a consolidation): no
-- transaction, the id of their subject instead. The claims keep the events of a transaction in order through
-- transaction_id, and events without one are not held behind each other (their bodies carry the state of the subject,
-- docs/webhooks.md).

-- AlterTable
ALTER TABLE "webhook_deliveries" ALTER COLUMN "transaction_id" DROP NOT NULL;

-- AlterTable
ALTER TABLE "webhook_events" ADD COLUMN     "subject_id" TEXT,
ALTER COLUMN "transaction_id" DROP NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "webhook_events_subject_id_type_key" ON "webhook_events"("subject_id", "type") WHERE (subject_id IS NOT NULL);
