-- The list searches e-mails through customer_email_key (any case). This index served nothing and cost every insert.
-- DropIndex
DROP INDEX "transactions_merchant_id_customer_email_idx";
