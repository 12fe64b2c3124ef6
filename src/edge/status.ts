// The one table from a core error's code to its HTTP status. GraphQL reports the same status in
// `extensions.status`, so a client sees one meaning for one failure on either API.
import type { ErrorCode } from "../core/errors.ts";

export const HTTP_STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  validation_error: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  idempotency_conflict: 409,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  invalid_state: 422,
  kyb_required: 422,
  rate_limited: 429,
  internal_error: 500,
  upstream_unavailable: 503,
  database_unavailable: 503,
};

/** Seconds a client should wait before retrying a 503 (sent as Retry-After). */
export const RETRY_AFTER_SECONDS = 5;
