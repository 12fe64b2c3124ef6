// What the checkout says of an error the API answered, in the page's language. The API's message is
// English (src/core/errors.ts) and written for the merchant's developer, so the page never shows it:
// it says what the error's reason or code means to the customer, and for a code it does not know,
// a generic sentence naming the code.
import type { Messages } from "./locales/en.ts";

/** What the page reads of an API error (shared/graphql.ts's ApiError: the GraphQL extensions). */
export interface ApiErrorLike {
  code: string;
  reason: string | null;
  fields: readonly { field: string }[];
}

/**
 * The GraphQL codes of every core error (src/graphql/errors.ts maps src/core/errors.ts's codes to
 * these): each has a sentence in every language.
 */
export const API_ERROR_CODES = [
  "BAD_REQUEST",
  "BAD_USER_INPUT",
  "UNAUTHENTICATED",
  "FORBIDDEN",
  "NOT_FOUND",
  "INVALID_STATE",
  "KYB_REQUIRED",
  "UPSTREAM_UNAVAILABLE",
  "DATABASE_UNAVAILABLE",
  "IDEMPOTENCY_CONFLICT",
  "CONFLICT",
  "GONE",
  "RATE_LIMITED",
  "INTERNAL_SERVER_ERROR",
] as const;

/** Reasons of an initiate's refusal that say more to a customer than their code (src/core/transactions/initiate.ts). */
export const API_ERROR_REASONS = [
  "network_not_allowed",
  "processor_not_configured",
  "currency_not_supported",
  "merchant_inactive",
  "transaction_not_initiated",
  "transaction_closed",
  "wallet_busy",
  "address_unavailable",
] as const;

export type ApiErrorKey = (typeof API_ERROR_CODES)[number] | (typeof API_ERROR_REASONS)[number];

const isKey = (value: string): value is ApiErrorKey =>
  (API_ERROR_CODES as readonly string[]).includes(value) || (API_ERROR_REASONS as readonly string[]).includes(value);

/** The reason the page explains: a refused `network` field has none of its own (its reason is invalid_request). */
function reasonOf(error: ApiErrorLike): string | null {
  if (error.fields.some((f) => f.field === "network")) return "network_not_allowed";
  return error.reason;
}

/** The customer's sentence for an API error, in the language of `m`. */
export function apiErrorText(error: ApiErrorLike, m: Messages): string {
  const reason = reasonOf(error);
  if (reason !== null && isKey(reason)) return m.apiErrors[reason];
  if (isKey(error.code)) return m.apiErrors[error.code];
  return m.apiErrorUnknown(error.code);
}
