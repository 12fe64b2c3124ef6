-- AlterTable
ALTER TABLE "settlement_settings" ADD COLUMN     "scanned_from" TIMESTAMPTZ(3),
ADD COLUMN     "turned_on_at" TIMESTAMPTZ(3);

-- Settings already on: the idle scan starts from their last change, the nearest time known to when the mode was turned on
UPDATE "settlement_settings" SET "turned_on_at" = "updated_at", "scanned_from" = "updated_at" WHERE "mode" = 'own_addresses';
