-- CreateTable
CREATE TABLE "merchant_default_networks" (
    "merchant_id" INTEGER NOT NULL,
    "currency_id" INTEGER NOT NULL,
    "is_live" BOOLEAN NOT NULL,
    "network" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "merchant_default_networks_pkey" PRIMARY KEY ("merchant_id","currency_id","is_live")
);

-- AddForeignKey
ALTER TABLE "merchant_default_networks" ADD CONSTRAINT "merchant_default_networks_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
