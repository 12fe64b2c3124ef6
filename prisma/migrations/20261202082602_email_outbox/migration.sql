-- CreateEnum
CREATE TYPE "email_state" AS ENUM ('QUEUED', 'SENDING', 'SENT', 'FAILED', 'SKIPPED');

-- AlterTable
ALTER TABLE "refunds" ADD COLUMN     "claim_token_enc" TEXT;

-- CreateTable
CREATE TABLE "email_messages" (
    "id" TEXT NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "transaction_id" TEXT NOT NULL,
    "refund_id" TEXT,
    "source" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "recipient" TEXT NOT NULL,
    "locale" TEXT NOT NULL,
    "is_live" BOOLEAN NOT NULL,
    "state" "email_state" NOT NULL DEFAULT 'QUEUED',
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL,
    "claim_token" TEXT,
    "claimed_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "facts" JSONB NOT NULL DEFAULT '{}',
    "sent_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "email_messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "email_cursors" (
    "name" TEXT NOT NULL,
    "read_until" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "email_cursors_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE INDEX "email_messages_queued_next_attempt_at_idx" ON "email_messages"("next_attempt_at") WHERE (state = 'QUEUED');

-- CreateIndex
CREATE INDEX "email_messages_merchant_id_is_live_created_at_idx" ON "email_messages"("merchant_id", "is_live", "created_at");

-- CreateIndex
CREATE INDEX "email_messages_sending_claimed_at_idx" ON "email_messages"("claimed_at") WHERE (state = 'SENDING');

-- CreateIndex
CREATE INDEX "email_messages_transaction_id_idx" ON "email_messages"("transaction_id");

-- CreateIndex
CREATE UNIQUE INDEX "email_messages_source_kind_recipient_key" ON "email_messages"("source", "kind", "recipient");

-- AddForeignKey
ALTER TABLE "email_messages" ADD CONSTRAINT "email_messages_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "email_messages" ADD CONSTRAINT "email_messages_transaction_id_fkey" FOREIGN KEY ("transaction_id") REFERENCES "transactions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
