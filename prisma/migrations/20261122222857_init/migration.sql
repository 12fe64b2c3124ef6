-- CreateEnum
CREATE TYPE "KybStatus" AS ENUM ('NONE', 'PENDING', 'VERIFIED', 'REJECTED');

-- CreateEnum
CREATE TYPE "ApiKeyKind" AS ENUM ('PUBLIC', 'SECRET');

-- CreateEnum
CREATE TYPE "CurrencyKind" AS ENUM ('FIAT', 'CRYPTO');

-- CreateEnum
CREATE TYPE "TransactionStatus" AS ENUM ('INITIATED', 'PENDING', 'SUCCESSFUL', 'ABANDONED');

-- CreateTable
CREATE TABLE "merchants" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "kyb_status" "KybStatus" NOT NULL DEFAULT 'NONE',
    "webhook_url" TEXT,
    "webhook_secret_enc" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "merchants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" SERIAL NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "kind" "ApiKeyKind" NOT NULL,
    "is_live" BOOLEAN NOT NULL,
    "prefix" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "payment_links" (
    "id" SERIAL NOT NULL,
    "slug" TEXT NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "is_live" BOOLEAN NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "payment_links_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "currencies" (
    "id" INTEGER NOT NULL,
    "kind" "CurrencyKind" NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "decimals" INTEGER NOT NULL,

    CONSTRAINT "currencies_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "payment_processors" (
    "id" SERIAL NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "currency_id" INTEGER NOT NULL,
    "is_live" BOOLEAN NOT NULL,
    "wallet_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "payment_processors_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "wallets" (
    "id" SERIAL NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "currency_id" INTEGER NOT NULL,
    "is_live" BOOLEAN NOT NULL,
    "extended_public_key" TEXT NOT NULL,
    "next_index" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "wallets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "transactions" (
    "id" TEXT NOT NULL,
    "reference" TEXT NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "customer_email" TEXT NOT NULL,
    "customer_name" TEXT,
    "payment_link_id" INTEGER,
    "is_live" BOOLEAN NOT NULL,
    "status" "TransactionStatus" NOT NULL DEFAULT 'INITIATED',
    "description" TEXT,
    "initialized_amount" DECIMAL(30,2) NOT NULL,
    "initialized_currency_id" INTEGER NOT NULL,
    "request_meta" JSONB NOT NULL DEFAULT '{}',
    "payment_currency_id" INTEGER,
    "payment_amount" DECIMAL(38,18),
    "amount_paid" DECIMAL(38,18),
    "payment_address" TEXT,
    "wallet_id" INTEGER,
    "derivation_index" INTEGER,
    "refund_address" TEXT,
    "quote_rate" DECIMAL(38,18),
    "quote_source" TEXT,
    "quoted_at" TIMESTAMPTZ(3),
    "initiated_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "transactions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "test_rates" (
    "crypto_slug" TEXT NOT NULL,
    "fiat_slug" TEXT NOT NULL,
    "rate" DECIMAL(38,18) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "test_rates_pkey" PRIMARY KEY ("crypto_slug","fiat_slug")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

-- CreateIndex
CREATE INDEX "api_keys_merchant_id_idx" ON "api_keys"("merchant_id");

-- CreateIndex
CREATE UNIQUE INDEX "payment_links_slug_key" ON "payment_links"("slug");

-- CreateIndex
CREATE INDEX "payment_links_merchant_id_idx" ON "payment_links"("merchant_id");

-- CreateIndex
CREATE UNIQUE INDEX "currencies_slug_key" ON "currencies"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "payment_processors_merchant_id_currency_id_is_live_key" ON "payment_processors"("merchant_id", "currency_id", "is_live");

-- CreateIndex
CREATE INDEX "wallets_merchant_id_idx" ON "wallets"("merchant_id");

-- CreateIndex
CREATE UNIQUE INDEX "wallets_currency_id_is_live_extended_public_key_key" ON "wallets"("currency_id", "is_live", "extended_public_key");

-- CreateIndex
CREATE UNIQUE INDEX "transactions_reference_key" ON "transactions"("reference");

-- CreateIndex
CREATE INDEX "transactions_merchant_id_created_at_idx" ON "transactions"("merchant_id", "created_at");

-- CreateIndex
CREATE INDEX "transactions_merchant_id_customer_email_idx" ON "transactions"("merchant_id", "customer_email");

-- CreateIndex
CREATE INDEX "transactions_status_idx" ON "transactions"("status");

-- CreateIndex
CREATE UNIQUE INDEX "transactions_wallet_id_derivation_index_key" ON "transactions"("wallet_id", "derivation_index");

-- CreateIndex
CREATE UNIQUE INDEX "transactions_is_live_payment_currency_id_payment_address_key" ON "transactions"("is_live", "payment_currency_id", "payment_address");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payment_links" ADD CONSTRAINT "payment_links_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payment_processors" ADD CONSTRAINT "payment_processors_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payment_processors" ADD CONSTRAINT "payment_processors_currency_id_fkey" FOREIGN KEY ("currency_id") REFERENCES "currencies"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payment_processors" ADD CONSTRAINT "payment_processors_wallet_id_fkey" FOREIGN KEY ("wallet_id") REFERENCES "wallets"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "wallets" ADD CONSTRAINT "wallets_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "wallets" ADD CONSTRAINT "wallets_currency_id_fkey" FOREIGN KEY ("currency_id") REFERENCES "currencies"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_payment_link_id_fkey" FOREIGN KEY ("payment_link_id") REFERENCES "payment_links"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_initialized_currency_id_fkey" FOREIGN KEY ("initialized_currency_id") REFERENCES "currencies"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_payment_currency_id_fkey" FOREIGN KEY ("payment_currency_id") REFERENCES "currencies"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_wallet_id_fkey" FOREIGN KEY ("wallet_id") REFERENCES "wallets"("id") ON DELETE SET NULL ON UPDATE CASCADE;
