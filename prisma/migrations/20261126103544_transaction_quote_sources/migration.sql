-- AlterTable
ALTER TABLE "transactions" ADD COLUMN     "quote_sources" JSONB;
