-- AlterTable
ALTER TABLE "transactions" ADD COLUMN     "policy_confirmations" JSONB,
ADD COLUMN     "policy_expires_in" INTEGER,
ADD COLUMN     "policy_underpayment_tolerance" DECIMAL(7,4);
