// Every failure the core reports, with the HTTP status and message the spec gives it (section 7).
// REST and GraphQL both map these; neither invents its own.

export type ErrorCode =
  | "validation_error"
  | "unauthenticated"
  | "not_found"
  | "invalid_state"
  | "kyb_required"
  | "upstream_unavailable"
  | "idempotency_conflict"
  | "unsupported_media_type"
  | "payload_too_large"
  | "internal_error";

export interface FieldError {
  /** Dotted path of the offending field, e.g. `customer.email`. */
  field: string;
  message: string;
}

export class PaygateError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly status: number,
    message: string,
    /** Narrower than `code`, for callers that branch on the cause (e.g. `merchant_inactive`). */
    readonly reason?: string,
    readonly errors: FieldError[] = [],
  ) {
    super(message);
    this.name = "PaygateError";
  }
}

// The messages the spec fixes.
export const MESSAGES = {
  initializeValidation: "Validation Error",
  invalidPublicKey: "Invalid Public Key",
  initiateValidation: "Missing or invalid payload fields",
  notInitiated: "The transaction is not initiated",
  internal: "Internal Server Error",
} as const;

export const errors = {
  initializeValidation: (fieldErrors: FieldError[]) =>
    new PaygateError("validation_error", 400, MESSAGES.initializeValidation, "invalid_request", fieldErrors),
  invalidPublicKey: (reason: string) => new PaygateError("not_found", 404, MESSAGES.invalidPublicKey, reason),
  kybRequired: (message: string, reason: string) => new PaygateError("kyb_required", 422, message, reason),
  initiateValidation: (fieldErrors: FieldError[]) =>
    new PaygateError("validation_error", 400, MESSAGES.initiateValidation, "invalid_request", fieldErrors),
  unauthenticated: (message: string) => new PaygateError("unauthenticated", 401, message, "invalid_secret_key"),
  transactionNotFound: (id: string) =>
    new PaygateError("not_found", 404, `No transaction with id '${id}'`, "transaction_not_found"),
  unsupportedCurrency: (currencyId: number, supported: string) =>
    new PaygateError("not_found", 404, `Currency ${currencyId} is not supported; use one of ${supported}`, "currency_not_supported"),
  processorNotConfigured: (slug: string, isLive: boolean) =>
    new PaygateError(
      "not_found",
      404,
      `No ${slug} wallet is configured for ${isLive ? "live" : "test"} mode; the merchant must add one (paygate merchant update --wallet ${slug}=EXTENDED_PUBLIC_KEY)`,
      "processor_not_configured",
    ),
  notInitiated: (reason: "transaction_not_initiated" | "merchant_inactive") =>
    new PaygateError("invalid_state", 422, MESSAGES.notInitiated, reason),
  transactionClosed: () =>
    new PaygateError("invalid_state", 422, "The transaction is no longer open: it has already ended", "transaction_closed"),
  testModeOnly: () =>
    new PaygateError(
      "not_found",
      404,
      "Test helpers exist in test mode only: use a test secret key (sec_test_…); live payments arrive on chain",
      "test_mode_only",
    ),
  upstreamUnavailable: (message: string, reason: string) =>
    new PaygateError("upstream_unavailable", 503, message, reason),
  internal: () => new PaygateError("internal_error", 500, MESSAGES.internal, "internal_error"),
};
