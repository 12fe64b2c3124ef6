// The transactions export's header as merchants' spreadsheets rely on it (docs/dashboard.md, Export CSV):
// written out here rather than read from src/core/transactions/export.ts, so that a renamed, dropped or
// reordered column fails the tests instead of changing what they expect.
export const EXPORT_CSV_HEADER = [
  "id",
  "reference",
  "created_at",
  "status",
  "mode",
  "amount",
  "currency",
  "payment_amount",
  "payment_currency",
  "amount_paid",
  "amount_unconfirmed",
  "customer_email",
  "customer_name",
  "description",
  "payment_address",
  "quote_rate",
  "quote_source",
  "quoted_at",
  "initiated_at",
  "expires_at",
  "updated_at",
  "refunded",
];
