-- AlterTable
ALTER TABLE "transactions" ADD COLUMN     "cancel_url" TEXT,
ADD COLUMN     "locale" TEXT;
