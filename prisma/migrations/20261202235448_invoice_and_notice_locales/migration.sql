-- AlterTable
ALTER TABLE "dashboard_users" ADD COLUMN     "notice_locale" TEXT NOT NULL DEFAULT 'en';

-- AlterTable
ALTER TABLE "invoices" ADD COLUMN     "locale" TEXT;
