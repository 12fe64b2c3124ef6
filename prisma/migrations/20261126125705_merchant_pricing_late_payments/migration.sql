-- AlterTable
ALTER TABLE "merchants" ADD COLUMN     "price_sources" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "price_spread_percent" DECIMAL(6,4);

-- AlterTable
ALTER TABLE "transactions" ADD COLUMN     "late_payment" JSONB,
ADD COLUMN     "policy_late_payment_percent" DECIMAL(7,4),
ADD COLUMN     "quote_market_rate" DECIMAL(38,18),
ADD COLUMN     "quote_spread_percent" DECIMAL(6,4);
