-- CreateTable
CREATE TABLE "wallet_index_slots" (
    "wallet_id" INTEGER NOT NULL,
    "slot" INTEGER NOT NULL,
    "derivation_index" INTEGER,
    "token" TEXT,
    "leased_until" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "wallet_index_slots_pkey" PRIMARY KEY ("wallet_id","slot")
);

-- AddForeignKey
ALTER TABLE "wallet_index_slots" ADD CONSTRAINT "wallet_index_slots_wallet_id_fkey" FOREIGN KEY ("wallet_id") REFERENCES "wallets"("id") ON DELETE CASCADE ON UPDATE CASCADE;
