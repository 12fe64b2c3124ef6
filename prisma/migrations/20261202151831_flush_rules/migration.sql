-- CreateTable
CREATE TABLE "flush_rules" (
    "merchant_id" INTEGER NOT NULL,
    "network" TEXT NOT NULL,
    "is_live" BOOLEAN NOT NULL,
    "min_payments" INTEGER,
    "min_value" DECIMAL(30,2),
    "value_currency_id" INTEGER,
    "max_age_hours" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "flush_rules_pkey" PRIMARY KEY ("merchant_id","network","is_live")
);

-- AddForeignKey
ALTER TABLE "flush_rules" ADD CONSTRAINT "flush_rules_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
