-- CreateEnum
CREATE TYPE "ReceiptStatus" AS ENUM ('SEEN', 'CONFIRMED', 'DROPPED');

-- DropIndex
DROP INDEX "transactions_status_idx";

-- AlterTable
ALTER TABLE "transactions" ADD COLUMN     "amount_unconfirmed" DECIMAL(38,18),
ADD COLUMN     "expires_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "payment_receipts" (
    "id" BIGSERIAL NOT NULL,
    "transaction_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "tx_hash" TEXT,
    "amount" DECIMAL(38,18) NOT NULL,
    "confirmations" INTEGER NOT NULL,
    "block_height" INTEGER,
    "status" "ReceiptStatus" NOT NULL,
    "source" TEXT NOT NULL,
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "payment_receipts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "payment_receipts_transaction_id_key_key" ON "payment_receipts"("transaction_id", "key");

-- CreateIndex
CREATE INDEX "transactions_status_expires_at_idx" ON "transactions"("status", "expires_at");

-- AddForeignKey
ALTER TABLE "payment_receipts" ADD CONSTRAINT "payment_receipts_transaction_id_fkey" FOREIGN KEY ("transaction_id") REFERENCES "transactions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
