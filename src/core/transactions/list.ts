// Listing a merchant's transactions (GET /v1/transactions, GraphQL `transactions`): the filters and
// the cursor are parsed and checked here once, for every adapter; the store only runs the query.
import { z } from "zod";
import type { CoreDeps } from "../deps.ts";
import { errors } from "../errors.ts";
import { LIST_LIMIT_DEFAULT, limitParam, pageOf, parseListQuery, single } from "../lists.ts";
import { cryptoById, cryptoBySlug, fiatBySlug } from "../money/currencies.ts";
import type { TransactionListQuery } from "../stores.ts";
import { isTransactionId, type TransactionRecord } from "./record.ts";

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
    .refine((id) => id !== undefined, "must be a crypto currency id (3–7) or slug (USDT, BTC, BNB, ETH, LTC)")
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

/** The list's parameters, by the names of TransactionListParams. */
export type TransactionListParam = keyof typeof TransactionListParams.shape;

export interface TransactionPage {
  /** The caller's merchant (for the request log). */
  merchantId: number;
  transactions: TransactionRecord[];
  hasMore: boolean;
}

/**
 * The secret key's merchant's transactions of its mode (a public key or client secret is refused:
 * the list shows customers), newest first, `limit` after the transaction `starting_after`. The
 * cursor is that transaction's (created_at, id), so inserts between pages shift nothing.
 */
export async function listTransactions(
  { stores, credentials }: Pick<CoreDeps, "stores" | "credentials">,
  bearerToken: string | undefined,
  params: Record<string, unknown>,
  /** What the adapter calls a parameter, for its messages (GraphQL's `first` is REST's `limit`); REST's names otherwise. */
  names: Partial<Record<TransactionListParam, string>> = {},
): Promise<TransactionPage> {
  const caller = await credentials.authenticateSecret(bearerToken);
  const query = parseListQuery(TransactionListParams, params, names);
  let after: TransactionListQuery["after"] = null;
  if (query.starting_after !== undefined) {
    const cursor = await stores.transactions.findFor(query.starting_after.toLowerCase(), caller.merchant.id, caller.isLive);
    if (!cursor) throw errors.unknownCursor(names.starting_after ?? "starting_after", query.starting_after);
    after = { createdAt: cursor.createdAt, id: cursor.id };
  }
  const limit = query.limit ?? LIST_LIMIT_DEFAULT;
  const rows = await stores.transactions.list({
    merchantId: caller.merchant.id,
    isLive: caller.isLive,
    status: query.status ?? null,
    initializedCurrencyId: query.currency ?? null,
    paymentCurrencyId: query.payment_currency ?? null,
    createdGte: query["created[gte]"] ?? null,
    createdLt: query["created[lt]"] ?? null,
    search: query.q === undefined ? null : searchOf(query.q),
    after,
    limit: limit + 1,
  });
  const page = pageOf(rows, limit);
  return { merchantId: caller.merchant.id, transactions: page.items, hasMore: page.hasMore };
}

/** `q` names one thing: a reference (bq_…), a transaction id, or else a customer's e-mail (any case). */
function searchOf(q: string): TransactionListQuery["search"] {
  if (q.startsWith("bq_")) return { reference: q };
  if (isTransactionId(q)) return { id: q.toLowerCase() };
  return { customerEmail: q };
}
