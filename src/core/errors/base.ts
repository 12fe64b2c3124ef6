// The error type the core throws, the codes that decide an HTTP status (src/edge/status.ts), the
// messages the spec fixes, and the few error classes adapters recognise. The catalogue of every
// failure, by context, is in the files beside this one; src/core/errors.ts composes it.
export type ErrorCode =
  | "bad_request"
  | "validation_error"
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "invalid_state"
  | "kyb_required"
  | "upstream_unavailable"
  | "database_unavailable"
  | "idempotency_conflict"
  /** The object is not in a state that allows the change (a refund no longer pending). */
  | "conflict"
  /** Something that existed and is used up or expired for good (a refund claim link). */
  | "gone"
  | "unsupported_media_type"
  | "payload_too_large"
  | "rate_limited"
  | "internal_error";

export interface FieldError {
  /** Dotted path of the offending field, e.g. `customer.email`. */
  field: string;
  message: string;
}

export class PaygateError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Narrower than `code`, for callers that branch on the cause (e.g. `merchant_inactive`). */
    readonly reason: string = code,
    readonly errors: FieldError[] = [],
    /**
     * What the caller most likely got wrong and how to mend it, where the message cannot say it (the
     * spec fixes "Invalid Public Key"): an extension field of the error body, absent when there is none.
     */
    readonly hint: string | null = null,
  ) {
    super(message);
    this.name = "PaygateError";
  }

  /** The same error with a hint (see `hint`). */
  withHint(hint: string): PaygateError {
    return new PaygateError(this.code, this.message, this.reason, this.errors, hint);
  }
}

// The messages the spec fixes.
export const MESSAGES = {
  initializeValidation: "Validation Error",
  invalidPublicKey: "Invalid Public Key",
  initiateValidation: "Missing or invalid payload fields",
  notInitiated: "The transaction is not initiated",
  internal: "Internal Server Error",
  /** A server-only credential from a browser (src/edge/cors.ts): said the same on REST, GraphQL and subscriptions. */
  secretKeyInBrowser: "Secret keys belong on your server; from a browser use the public key (pub_…)",
} as const;

/** A refusal the client may retry after a wait (sent as Retry-After): sign-in throttling. */
export class RetryLaterError extends PaygateError {
  constructor(
    message: string,
    reason: string,
    readonly retryAfterSeconds: number,
  ) {
    super("rate_limited", message, reason);
  }
}

/**
 * A write refused by a unique index: another request got there first. The database layer raises it
 * (src/db/failures.ts), so the core never reads driver codes.
 */
export class DuplicateKeyError extends Error {
  constructor(override readonly cause: unknown) {
    super("A unique index refused the write");
    this.name = "DuplicateKeyError";
  }
}

/** Whether the failure is a database outage, which the database layer logs once for everyone (src/db/failures.ts). */
export function isDatabaseOutage(error: unknown): boolean {
  return error instanceof PaygateError && error.code === "database_unavailable";
}

/** Echoed input, cut short and with control characters shown as escapes, so a message stays one clean line. */
export function printable(text: string): string {
  const cut = text.length > 80 ? `${text.slice(0, 80)}…` : text;
  return cut.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
