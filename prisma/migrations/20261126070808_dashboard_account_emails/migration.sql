-- An e-mail is unique among accounts (users with a password) and within a merchant, no longer across
-- every row: an owner's invitation of an e-mail that has an account at another merchant is stored and
-- answered like any other (its link never signs in), so inviting tells nothing about other merchants.

-- DropIndex
DROP INDEX "dashboard_users_email_key";

-- DropIndex
DROP INDEX "dashboard_users_merchant_id_idx";

-- CreateIndex
CREATE UNIQUE INDEX "dashboard_users_merchant_id_email_key" ON "dashboard_users"("merchant_id", "email");

-- CreateIndex
CREATE UNIQUE INDEX "dashboard_users_account_email_key" ON "dashboard_users"("email") WHERE (password_hash IS NOT NULL);
