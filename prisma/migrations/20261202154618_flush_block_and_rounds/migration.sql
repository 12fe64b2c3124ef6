-- DropIndex
DROP INDEX "webhook_events_subject_id_type_key";

-- AlterTable
ALTER TABLE "forwarder_flushes" ADD COLUMN     "block_hash" TEXT,
ADD COLUMN     "block_number" BIGINT,
ADD COLUMN     "final_at" TIMESTAMPTZ(3),
ADD COLUMN     "reorganizations" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "webhook_events" ADD COLUMN     "subject_round" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE UNIQUE INDEX "webhook_events_subject_id_type_subject_round_key" ON "webhook_events"("subject_id", "type", "subject_round") WHERE (subject_id IS NOT NULL);
