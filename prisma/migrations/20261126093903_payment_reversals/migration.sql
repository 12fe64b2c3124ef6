-- AlterEnum
ALTER TYPE "ReceiptStatus" ADD VALUE 'REVERSED';

-- AlterTable
ALTER TABLE "payment_receipts" ADD COLUMN     "replaceable" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "transactions" ADD COLUMN     "final_at" TIMESTAMPTZ(3),
ADD COLUMN     "reversed_at" TIMESTAMPTZ(3);

-- Transactions that succeeded before this migration were forgotten at SUCCESSFUL: they stay so (taken as
-- final), rather than all being read again at the first watcher pass.
UPDATE "transactions" SET "final_at" = "updated_at" WHERE "status" = 'SUCCESSFUL';
