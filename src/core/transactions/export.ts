// The CSV export of a merchant's transactions (the dashboard's "Export CSV"): one header row, then one
// row per transaction of the filtered set, newest first, read from the database a page at a time
// (transactionsMatching), so an export of any size holds one page in memory.
//
// Cells are quoted as RFC 4180 says (a cell holding a comma, a double quote, CR or LF is enclosed in
// double quotes, its quotes doubled; rows end in CRLF). Spreadsheets run a cell that starts with
// = + - @ (or a tab or CR) as a formula, and the customer's e-mail, name and description are
// whatever a customer or integrator typed: such a cell is prefixed with a single quote (') so it is
// shown as text (OWASP's "CSV injection" advice). No column the gateway writes itself (ids, amounts,
// times) starts with those characters, so only typed text is ever changed.
import { cryptoById, fiatById } from "../money/currencies.ts";
import type { CoreDeps } from "../deps.ts";
import { transactionsMatching, type TransactionFilters } from "./list.ts";
import type { TransactionRecord } from "./record.ts";

type Amount = { toFixed(): string } | null;

const decimal = (value: Amount) => (value === null ? "" : value.toFixed());
const time = (value: Date | null) => (value === null ? "" : value.toISOString());

/** The columns, in order: a header and how each row's cell is made. Amounts are plain decimal strings, times ISO 8601 in UTC. */
const COLUMNS: readonly [string, (t: TransactionRecord) => string][] = [
  ["id", (t) => t.id],
  ["reference", (t) => t.reference],
  ["created_at", (t) => time(t.createdAt)],
  ["status", (t) => t.status],
  ["mode", (t) => (t.isLive ? "live" : "test")],
  ["amount", (t) => decimal(t.initializedAmount)],
  ["currency", (t) => fiatById(t.initializedCurrencyId)?.slug ?? String(t.initializedCurrencyId)],
  ["payment_amount", (t) => decimal(t.paymentAmount)],
  ["payment_currency", (t) => (t.paymentCurrencyId === null ? "" : (cryptoById(t.paymentCurrencyId)?.slug ?? String(t.paymentCurrencyId)))],
  ["amount_paid", (t) => decimal(t.amountPaid)],
  ["amount_unconfirmed", (t) => decimal(t.amountUnconfirmed)],
  ["customer_email", (t) => t.customerEmail],
  ["customer_name", (t) => t.customerName ?? ""],
  ["description", (t) => t.description ?? ""],
  ["payment_address", (t) => t.paymentAddress ?? ""],
  ["quote_rate", (t) => decimal(t.quoteRate)],
  ["quote_source", (t) => t.quoteSource ?? ""],
  ["quoted_at", (t) => time(t.quotedAt)],
  ["initiated_at", (t) => time(t.initiatedAt)],
  ["expires_at", (t) => time(t.expiresAt)],
  ["updated_at", (t) => time(t.updatedAt)],
];

export const CSV_HEADER = COLUMNS.map(([name]) => name);

/** One cell: the formula guard, then RFC 4180 quoting. */
export function csvCell(value: string): string {
  const guarded = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
}

export function csvRow(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}

/** The export: the header row, then a row per matching transaction (each string one CRLF-terminated row). */
export async function* transactionsCsv(stores: CoreDeps["stores"], filters: TransactionFilters, batch?: number): AsyncGenerator<string> {
  yield csvRow(CSV_HEADER);
  for await (const t of transactionsMatching(stores, filters, batch)) yield csvRow(COLUMNS.map(([, cell]) => cell(t)));
}
