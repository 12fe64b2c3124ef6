-- AlterTable
ALTER TABLE "transactions" ADD COLUMN     "client_secret_enc" TEXT,
ADD COLUMN     "return_url" TEXT;
