// Listing a merchant's transactions (GET /v1/transactions, GraphQL `transactions`): the filters and
// the cursor are parsed and checked here once, for every adapter; the store only runs the query.
import { z } from "zod";
import type { CoreDeps } from "../deps.ts";
import { errors } from "../errors.ts";
import { LIST_LIMIT_DEFAULT, limitParam, pageOf, parseListQuery, single } from "../lists.ts";
import { CRYPTO_ID_RANGE, CRYPTO_SLUG_LIST, cryptoById, cryptoBySlug, fiatBySlug } from "../money/currencies.ts";
import type { RefundsFilter, TransactionListQuery } from "../stores/transactions.ts";
import { isTransactionId } from "./record.ts";
import type { TransactionRecord } from "../records/transactions.ts";

const STATUSES = ["INITIATED", "PENDING", "SUCCESSFUL", "ABANDONED"] as const;

const instant = single.pipe(
  z.iso.datetime({ offset: true, error: "must be an ISO 8601 date-time with a time zone, e.g. 2026-11-01T00:00:00Z" }).transform((s) => new Date(s)),
);

/** The query of a list, as the adapters pass it (REST's query string, GraphQL's filter): every value a string. */
export const TransactionListParams = z.object({
  limit: limitParam.optional(),
  starting_after: single.refine(isTransactionId, "must be the id (a UUID) of a transaction of the previous page").optional(),
  status: single
    .transform((s) => s.toUpperCase())
    .pipe(z.enum(STATUSES, { error: `must be one of ${STATUSES.join(", ")}` }))
    .optional(),
  currency: single
    .transform((s) => fiatBySlug(s.toUpperCase())?.id)
    .refine((id) => id !== undefined, "must be a fiat currency: USD or NGN")
    .optional(),
  payment_currency: single
    .transform((s) => (/^\d+$/.test(s) ? cryptoById(Number(s))?.id : cryptoBySlug(s.toUpperCase())?.id))
    .refine((id) => id !== undefined, `must be a crypto currency id (${CRYPTO_ID_RANGE}) or slug (${CRYPTO_SLUG_LIST})`)
    .optional(),
  "created[gte]": instant.optional(),
  "created[lt]": instant.optional(),
  q: single
    .trim()
    .min(1, "must not be empty")
    .max(254, "must be at most 254 characters")
    // Text the database cannot hold matches nothing: refused here, naming the parameter.
    .refine((q) => !q.includes("\u0000"), "must not contain NUL characters")
    .optional(),
});

const REFUNDS_FILTERS = ["any", "pending", "succeeded"] as const satisfies readonly RefundsFilter[];

/** The dashboard's list and export also filter by refunds (`refunds=any|pending|succeeded`); the API's list does not (yet). */
export const DashboardTransactionListParams = TransactionListParams.extend({
  refunds: single.pipe(z.enum(REFUNDS_FILTERS, { error: `must be one of ${REFUNDS_FILTERS.join(", ")}` })).optional(),
});

/** The list's parameters, by the names of TransactionListParams. */
export type TransactionListParam = keyof typeof TransactionListParams.shape;

export interface TransactionPage {
  /** The caller's merchant (for the request log). */
  merchantId: number;
  transactions: TransactionRecord[];
  hasMore: boolean;
}

/** Whose transactions a list shows: one merchant, one mode (a secret key's, or a dashboard user's). */
export interface ListScope {
  merchantId: number;
  isLive: boolean;
  /** The dashboard's: its list also takes `refunds` (DashboardTransactionListParams). */
  dashboard?: boolean;
}

/**
 * The secret key's merchant's transactions of its mode (a public key or client secret is refused:
 * the list shows customers), newest first, `limit` after the transaction `starting_after`.
 */
export async function listTransactions(
  { stores, credentials }: Pick<CoreDeps, "stores" | "credentials">,
  bearerToken: string | undefined,
  params: Record<string, unknown>,
  /** What the adapter calls a parameter, for its messages (GraphQL's `first` is REST's `limit`); REST's names otherwise. */
  names: Partial<Record<TransactionListParam, string>> = {},
): Promise<TransactionPage> {
  const caller = await credentials.authenticateSecret(bearerToken);
  return listTransactionsOf(stores, { merchantId: caller.merchant.id, isLive: caller.isLive }, params, names);
}

/**
 * A page of one merchant's transactions in one mode, for whichever caller the adapter authenticated
 * (a secret key above, a dashboard user in src/core/dashboard/transactions.ts). The cursor is the
 * transaction `starting_after`'s (created_at, id), so inserts between pages shift nothing.
 */
export async function listTransactionsOf(
  stores: CoreDeps["stores"],
  scope: ListScope,
  params: Record<string, unknown>,
  names: Partial<Record<TransactionListParam, string>> = {},
): Promise<TransactionPage> {
  const query = parseListQuery(scope.dashboard ? DashboardTransactionListParams : TransactionListParams, params, names);
  let after: TransactionListQuery["after"] = null;
  if (query.starting_after !== undefined) {
    const cursor = await stores.transactions.findFor(query.starting_after.toLowerCase(), scope.merchantId, scope.isLive);
    if (!cursor) throw errors.unknownCursor(names.starting_after ?? "starting_after", query.starting_after);
    after = { createdAt: cursor.createdAt, id: cursor.id };
  }
  const limit = query.limit ?? LIST_LIMIT_DEFAULT;
  const rows = await stores.transactions.list({ ...filtersOf(scope, query), after, limit: limit + 1 });
  const page = pageOf(rows, limit);
  return { merchantId: scope.merchantId, transactions: page.items, hasMore: page.hasMore };
}

/** An export's query: the list's filters, without its page (an export is the whole filtered set). */
export const TransactionFilterParams = TransactionListParams.omit({ limit: true, starting_after: true });

/** The checked filters of an export (TransactionFilterParams), ready for `transactionsMatching`. */
export type TransactionFilters = Omit<TransactionListQuery, "after" | "limit">;

const DashboardTransactionFilterParams = DashboardTransactionListParams.omit({ limit: true, starting_after: true });

/** Checks an export's query once, before anything is read (so a bad filter is a 400, not a broken download). */
export function parseTransactionFilters(scope: ListScope, params: Record<string, unknown>): TransactionFilters {
  return filtersOf(scope, parseListQuery(scope.dashboard ? DashboardTransactionFilterParams : TransactionFilterParams, params));
}

/** Rows read from the database per query of an export. */
export const EXPORT_BATCH = 500;

/**
 * Every transaction matching `filters`, newest first, read in keyset pages of `batch` rows: the
 * next page starts after the last row of the one before, so memory holds one page at a time and
 * transactions made during the export (newer than its first row) are neither shown nor shift it.
 */
export async function* transactionsMatching(
  stores: CoreDeps["stores"],
  filters: TransactionFilters,
  batch: number = EXPORT_BATCH,
): AsyncGenerator<TransactionRecord> {
  for await (const rows of transactionPagesMatching(stores, filters, batch)) yield* rows;
}

/** transactionsMatching a page at a time (the export reads each page's refunds in one query). */
export async function* transactionPagesMatching(
  stores: CoreDeps["stores"],
  filters: TransactionFilters,
  batch: number = EXPORT_BATCH,
): AsyncGenerator<TransactionRecord[]> {
  let after: TransactionListQuery["after"] = null;
  for (;;) {
    const rows = await stores.transactions.list({ ...filters, after, limit: batch });
    if (rows.length > 0) yield rows;
    const last = rows.at(-1);
    if (!last || rows.length < batch) return;
    after = { createdAt: last.createdAt, id: last.id };
  }
}

function filtersOf(scope: ListScope, query: z.infer<typeof TransactionFilterParams> & { refunds?: RefundsFilter }): TransactionFilters {
  return {
    merchantId: scope.merchantId,
    isLive: scope.isLive,
    status: query.status ?? null,
    initializedCurrencyId: query.currency ?? null,
    paymentCurrencyId: query.payment_currency ?? null,
    createdGte: query["created[gte]"] ?? null,
    createdLt: query["created[lt]"] ?? null,
    search: query.q === undefined ? null : searchOf(query.q),
    refunds: query.refunds ?? null,
  };
}

/** `q` names one thing: a reference (bq_…), a transaction id, or else a customer's e-mail (any case). */
function searchOf(q: string): TransactionListQuery["search"] {
  if (q.startsWith("bq_")) return { reference: q };
  if (isTransactionId(q)) return { id: q.toLowerCase() };
  return { customerEmail: q };
}
