// What every list of the API shares (GET /v1/transactions, /v1/events, GraphQL `transactions`):
// page sizes, and the checking of a query whose values arrive as strings, once for every list.
import { z } from "zod";
import { errors, type FieldError } from "./errors.ts";

export const LIST_LIMIT_DEFAULT = 10;
export const LIST_LIMIT_MAX = 100;

/** One query value: a repeated parameter arrives as an array, and is refused rather than guessed at. */
export const single = z.string({ error: "must be given once, as a single value" });

/** `limit`: items per page. */
export const limitParam = single
  .regex(/^\d{1,3}$/, `must be an integer from 1 to ${LIST_LIMIT_MAX}`)
  .transform(Number)
  .refine((n) => n >= 1 && n <= LIST_LIMIT_MAX, `must be an integer from 1 to ${LIST_LIMIT_MAX}`);

/**
 * The query checked against a list's schema: an unknown parameter is refused too (a typo must not
 * silently widen the list). One 400 names every refused parameter, in the adapter's words (`names`).
 */
export function parseListQuery<S extends z.ZodObject>(
  schema: S,
  params: Record<string, unknown>,
  names: Partial<Record<string, string>> = {},
): z.infer<S> {
  const named = (field: string) => names[field] ?? field;
  const fieldErrors: FieldError[] = Object.keys(params)
    .filter((key) => !(key in schema.shape))
    .map((field) => ({ field: named(field), message: "is not a parameter of this list" }));
  const parsed = schema.safeParse(params);
  if (!parsed.success) fieldErrors.push(...parsed.error.issues.map((i) => ({ field: named(String(i.path[0] ?? "query")), message: i.message })));
  if (fieldErrors.length > 0 || !parsed.success) throw errors.invalidListParameters(fieldErrors);
  return parsed.data;
}

/** A page of `limit` items: ask the store for one more, which tells whether another page follows. */
export function pageOf<T>(rows: T[], limit: number): { items: T[]; hasMore: boolean } {
  return { items: rows.slice(0, limit), hasMore: rows.length > limit };
}

/**
 * The row a list's `starting_after` names, looked up among the caller's own (`find`): none asked, null; one the caller
 * has no such row of, the list's 400 naming the parameter.
 */
export async function startingAfter<C>(id: string | undefined, find: (id: string) => Promise<C | null | undefined>): Promise<C | null> {
  if (id === undefined) return null;
  const cursor = await find(id);
  if (!cursor) throw errors.unknownCursor("starting_after", id);
  return cursor;
}
