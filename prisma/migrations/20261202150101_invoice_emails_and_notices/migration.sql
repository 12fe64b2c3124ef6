-- AlterTable
ALTER TABLE "dashboard_users" ADD COLUMN     "email_notices" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "email_messages" ADD COLUMN     "invoice_id" TEXT,
ALTER COLUMN "transaction_id" DROP NOT NULL;

-- CreateIndex
CREATE INDEX "email_messages_invoice_id_idx" ON "email_messages"("invoice_id");

-- CreateIndex
CREATE INDEX "invoices_open_due_date_idx" ON "invoices"("due_date") WHERE (state = 'open' AND due_date IS NOT NULL);

-- AddForeignKey
ALTER TABLE "email_messages" ADD CONSTRAINT "email_messages_invoice_id_fkey" FOREIGN KEY ("invoice_id") REFERENCES "invoices"("id") ON DELETE CASCADE ON UPDATE CASCADE;
