-- AlterTable
ALTER TABLE "wallets" ADD COLUMN     "key_origin" TEXT;
