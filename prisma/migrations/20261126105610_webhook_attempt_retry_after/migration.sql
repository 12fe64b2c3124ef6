-- AlterTable
ALTER TABLE "webhook_delivery_attempts" ADD COLUMN     "retry_after" TEXT;
