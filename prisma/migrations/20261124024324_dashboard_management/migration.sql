-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "expires_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "merchants" ADD COLUMN     "previous_webhook_secret_enc" TEXT,
ADD COLUMN     "previous_webhook_secret_expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "webhook_secret_rotated_at" TIMESTAMPTZ(3);
