-- AlterTable
ALTER TABLE "transactions" ADD COLUMN     "confirmations" INTEGER,
ADD COLUMN     "required_confirmations" INTEGER;
