-- Networks per coin (src/core/networks.ts): wallets, payment processors and initiated transactions
-- name the network the coin is paid on. Every existing row is on its coin's network of before:
-- USDT (3) and ETH (6) on ethereum, BTC (4) on bitcoin, BNB (5) on bsc, LTC (7) on litecoin.

-- DropIndex
DROP INDEX "payment_processors_merchant_id_currency_id_is_live_key";

-- DropIndex
DROP INDEX "wallets_currency_id_is_live_extended_public_key_key";

-- AlterTable
ALTER TABLE "payment_processors" ADD COLUMN     "network" TEXT;
UPDATE "payment_processors" SET "network" = CASE "currency_id" WHEN 4 THEN 'bitcoin' WHEN 5 THEN 'bsc' WHEN 7 THEN 'litecoin' ELSE 'ethereum' END;
ALTER TABLE "payment_processors" ALTER COLUMN "network" SET NOT NULL;

-- AlterTable
ALTER TABLE "transactions" ADD COLUMN     "payment_network" TEXT;
UPDATE "transactions" SET "payment_network" = CASE "payment_currency_id" WHEN 4 THEN 'bitcoin' WHEN 5 THEN 'bsc' WHEN 7 THEN 'litecoin' ELSE 'ethereum' END
  WHERE "payment_currency_id" IS NOT NULL;

-- AlterTable
ALTER TABLE "wallets" ADD COLUMN     "network" TEXT;
UPDATE "wallets" SET "network" = CASE "currency_id" WHEN 4 THEN 'bitcoin' WHEN 5 THEN 'bsc' WHEN 7 THEN 'litecoin' ELSE 'ethereum' END;
ALTER TABLE "wallets" ALTER COLUMN "network" SET NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "payment_processors_merchant_id_currency_id_network_is_live_key" ON "payment_processors"("merchant_id", "currency_id", "network", "is_live");

-- CreateIndex
CREATE UNIQUE INDEX "wallets_currency_id_network_is_live_extended_public_key_key" ON "wallets"("currency_id", "network", "is_live", "extended_public_key");
