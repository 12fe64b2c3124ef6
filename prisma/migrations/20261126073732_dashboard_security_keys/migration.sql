-- CreateTable
CREATE TABLE "dashboard_security_keys" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "credential_id" TEXT NOT NULL,
    "public_key" BYTEA NOT NULL,
    "counter" BIGINT NOT NULL,
    "transports" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "dashboard_security_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dashboard_webauthn_challenges" (
    "challenge_hash" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "dashboard_webauthn_challenges_pkey" PRIMARY KEY ("challenge_hash")
);

-- CreateIndex
CREATE UNIQUE INDEX "dashboard_security_keys_credential_id_key" ON "dashboard_security_keys"("credential_id");

-- CreateIndex
CREATE INDEX "dashboard_security_keys_user_id_idx" ON "dashboard_security_keys"("user_id");

-- CreateIndex
CREATE INDEX "dashboard_webauthn_challenges_user_id_idx" ON "dashboard_webauthn_challenges"("user_id");

-- AddForeignKey
ALTER TABLE "dashboard_security_keys" ADD CONSTRAINT "dashboard_security_keys_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "dashboard_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dashboard_webauthn_challenges" ADD CONSTRAINT "dashboard_webauthn_challenges_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "dashboard_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
