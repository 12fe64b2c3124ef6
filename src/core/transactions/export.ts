// The CSV export of a merchant's transactions (the dashboard's "Export CSV"): one header row, then one
// row per transaction of the filtered set, newest first, read from the database a page at a time
// (transactionsMatching), so an export of any size holds one page in memory.
//
// Rows are written by csv-stringify (RFC 4180: a cell holding a comma, a double quote, CR or LF is
// enclosed in double quotes, its quotes doubled; rows end in CRLF). Spreadsheets run a cell that
// starts with = + - @ (or their full-width forms, a tab or CR) as a formula, and the customer's
// e-mail, name and description and the reference are whatever a customer or integrator typed:
// csv-stringify's escape_formulas prefixes such a cell with a single quote (') so it is shown as
// text (OWASP's "CSV injection" advice). `defused` adds what it does not check: white space or a
// control character (LF, space, NBSP...) before a formula character, and a formula character after
// a separator some spreadsheet splits at (, ; | tab CR LF), which would start a cell of its own there;
// cells holding ; or | are quoted too. No column the gateway writes itself (ids, amounts, times,
// addresses) has those forms, so only typed text is ever changed.
import { stringify } from "csv-stringify/sync";
import { cryptoById, fiatById } from "../money/currencies.ts";
import type { CoreDeps } from "../deps.ts";
import { transactionPagesMatching, type TransactionFilters } from "./list.ts";
import type { TransactionRecord } from "../records/transactions.ts";

type Amount = { toFixed(): string } | null;

const decimal = (value: Amount) => (value === null ? "" : value.toFixed());
const time = (value: Date | null) => (value === null ? "" : value.toISOString());

/** What a row reads besides its transaction: the sum of its pending and succeeded refunds (absent: none). */
type Extra = { refunded: Amount | undefined };

/**
 * The columns, in order: a header and how each row's cell is made. Amounts are plain decimal strings,
 * times ISO 8601 in UTC. New columns go at the end: spreadsheets read them by position.
 */
const COLUMNS: readonly [string, (t: TransactionRecord, extra: Extra) => string][] = [
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
  // Issue 26: in the payment currency, what its pending and succeeded refunds take back; empty with none.
  ["refunded", (_t, extra) => decimal(extra.refunded ?? null)],
];

export const CSV_HEADER = COLUMNS.map(([name]) => name);

/** The characters a spreadsheet starts a formula with (csv-stringify's list: = + - @ and their full-width forms). */
const FORMULA = "=+\\-@\uFF1D\uFF0B\uFF0D\uFF20";
/** White space, control and format characters (LF, space, NBSP, zero-width space, BOM...): trimmed or skipped by some spreadsheets. */
const BLANK = "\\s\\p{Cc}\\p{Cf}";
/** A cell that starts with blanks before a formula character, or with LF (csv-stringify checks CR and tab only). */
const BLANK_THEN_FORMULA = new RegExp(`^(?:[${BLANK}]+[${FORMULA}]|\\n)`, "u");
/** A separator (, ; | tab CR LF) and blanks before a formula character: where a spreadsheet splitting there would start a cell. */
const SEPARATOR_THEN_FORMULA = new RegExp(`([,;|\\t\\r\\n][${BLANK}]*)(?=[${FORMULA}])`, "gu");

/**
 * What csv-stringify's escape_formulas leaves: a quote before a formula character that follows a
 * separator (and blanks), and before a cell that starts with blanks then a formula character, or LF.
 */
export function defused(value: string): string {
  const inner = value.replace(SEPARATOR_THEN_FORMULA, "$1'");
  return BLANK_THEN_FORMULA.test(inner) ? `'${inner}` : inner;
}

const CSV_OPTIONS = {
  escape_formulas: true,
  record_delimiter: "windows",
  // A lone LF or CR is quoted as well (csv-stringify quotes only its record delimiter once one is set).
  quote_record_delimiter: true,
  // A spreadsheet that splits at ; or | keeps a quoted cell whole.
  quoted_match: /[;|]/,
} as const;

/** One CRLF-terminated row: each cell defused, then formula-escaped and quoted by csv-stringify. */
export function csvRow(cells: readonly string[]): string {
  return stringify([cells.map(defused)], CSV_OPTIONS);
}

/** One cell as a row holds it. */
export function csvCell(value: string): string {
  return csvRow([value]).slice(0, -2);
}

/** The export: the header row, then a row per matching transaction (each string one CRLF-terminated row). */
export async function* transactionsCsv(stores: CoreDeps["stores"], filters: TransactionFilters, batch?: number): AsyncGenerator<string> {
  yield csvRow(CSV_HEADER);
  for await (const rows of transactionPagesMatching(stores, filters, batch)) {
    const refunded = await stores.refunds.refundedAmounts(rows.map((t) => t.id));
    for (const t of rows) {
      const extra = { refunded: refunded.get(t.id) };
      yield csvRow(COLUMNS.map(([, cell]) => cell(t, extra)));
    }
  }
}
