-- CreateTable
CREATE TABLE "invoices" (
    "id" TEXT NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "is_live" BOOLEAN NOT NULL,
    "state" TEXT NOT NULL,
    "sequence" INTEGER,
    "customer_email" TEXT NOT NULL,
    "customer_name" TEXT,
    "currency_id" INTEGER NOT NULL,
    "items" JSONB NOT NULL,
    "taxes" JSONB NOT NULL,
    "subtotal" DECIMAL(30,2) NOT NULL,
    "tax_total" DECIMAL(30,2) NOT NULL,
    "total" DECIMAL(30,2) NOT NULL,
    "memo" TEXT,
    "due_date" DATE,
    "allow_partial_payments" BOOLEAN NOT NULL,
    "token" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "finalized_at" TIMESTAMPTZ(3),
    "voided_at" TIMESTAMPTZ(3),

    CONSTRAINT "invoices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "invoice_numbers" (
    "merchant_id" INTEGER NOT NULL,
    "is_live" BOOLEAN NOT NULL,
    "last" INTEGER NOT NULL,

    CONSTRAINT "invoice_numbers_pkey" PRIMARY KEY ("merchant_id","is_live")
);

-- CreateTable
CREATE TABLE "invoice_payments" (
    "transaction_id" TEXT NOT NULL,
    "invoice_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "invoice_payments_pkey" PRIMARY KEY ("transaction_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "invoices_token_key" ON "invoices"("token");

-- CreateIndex
CREATE INDEX "invoices_merchant_id_is_live_created_at_idx" ON "invoices"("merchant_id", "is_live", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "invoices_merchant_id_is_live_sequence_key" ON "invoices"("merchant_id", "is_live", "sequence");

-- CreateIndex
CREATE INDEX "invoice_payments_invoice_id_idx" ON "invoice_payments"("invoice_id");

-- AddForeignKey
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "invoice_payments" ADD CONSTRAINT "invoice_payments_invoice_id_fkey" FOREIGN KEY ("invoice_id") REFERENCES "invoices"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "invoice_payments" ADD CONSTRAINT "invoice_payments_transaction_id_fkey" FOREIGN KEY ("transaction_id") REFERENCES "transactions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
