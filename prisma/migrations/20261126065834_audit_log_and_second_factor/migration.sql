-- AlterTable (edited: sessions made before this migration were authenticated when they were made)
ALTER TABLE "dashboard_sessions" ADD COLUMN     "authenticated_at" TIMESTAMPTZ(3);
UPDATE "dashboard_sessions" SET "authenticated_at" = "created_at";
ALTER TABLE "dashboard_sessions" ALTER COLUMN "authenticated_at" SET NOT NULL;

-- AlterTable
ALTER TABLE "dashboard_users" ADD COLUMN     "totp_enabled_at" TIMESTAMPTZ(3),
ADD COLUMN     "totp_last_step" INTEGER,
ADD COLUMN     "totp_secret_enc" TEXT;

-- CreateTable
CREATE TABLE "dashboard_recovery_codes" (
    "user_id" TEXT NOT NULL,
    "code_hash" TEXT NOT NULL,
    "used_at" TIMESTAMPTZ(3),

    CONSTRAINT "dashboard_recovery_codes_pkey" PRIMARY KEY ("user_id","code_hash")
);

-- CreateTable
CREATE TABLE "dashboard_sign_in_challenges" (
    "token_hash" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "dashboard_sign_in_challenges_pkey" PRIMARY KEY ("token_hash")
);

-- CreateTable
CREATE TABLE "audit_log" (
    "id" SERIAL NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "actor_kind" TEXT NOT NULL,
    "actor_user_id" TEXT,
    "actor_email" TEXT,
    "action" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "client_address" TEXT,

    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "dashboard_sign_in_challenges_user_id_idx" ON "dashboard_sign_in_challenges"("user_id");

-- CreateIndex
CREATE INDEX "audit_log_merchant_id_id_idx" ON "audit_log"("merchant_id", "id");

-- AddForeignKey
ALTER TABLE "dashboard_recovery_codes" ADD CONSTRAINT "dashboard_recovery_codes_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "dashboard_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dashboard_sign_in_challenges" ADD CONSTRAINT "dashboard_sign_in_challenges_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "dashboard_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
