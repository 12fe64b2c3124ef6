-- AlterTable: the column is filled from customer_email before it becomes NOT NULL, so the migration
-- runs on a database that already holds transactions (e-mails are ASCII: lower() is what the
-- service's toLowerCase() writes for new rows).
ALTER TABLE "transactions" ADD COLUMN     "customer_email_key" TEXT;
UPDATE "transactions" SET "customer_email_key" = lower("customer_email");
ALTER TABLE "transactions" ALTER COLUMN "customer_email_key" SET NOT NULL;

-- CreateIndex
CREATE INDEX "transactions_merchant_id_is_live_customer_email_key_created_idx" ON "transactions"("merchant_id", "is_live", "customer_email_key", "created_at", "id");
