// Failures of requests, credentials, payments, merchants' settings and lists (spec 7 and beyond).
import { type FieldError, MESSAGES, PaygateError, printable, RetryLaterError } from "./base.ts";

export const requestErrors = {
  initializeValidation: (fieldErrors: FieldError[]) =>
    new PaygateError("validation_error", MESSAGES.initializeValidation, "invalid_request", fieldErrors),
  invalidPublicKey: (reason: string) => new PaygateError("not_found", MESSAGES.invalidPublicKey, reason),
  kybRequired: (message: string, reason: string) => new PaygateError("kyb_required", message, reason),
  initiateValidation: (fieldErrors: FieldError[]) =>
    new PaygateError("validation_error", MESSAGES.initiateValidation, "invalid_request", fieldErrors),
  unauthenticated: (message: string) => new PaygateError("unauthenticated", message, "invalid_secret_key"),
  /** The same for an unknown transaction and a wrong secret: neither says which transactions exist. */
  invalidClientSecret: () =>
    new PaygateError(
      "unauthenticated",
      "Invalid client secret: use the client_secret that initialize returned for this transaction",
      "invalid_client_secret",
    ),
  transactionNotFound: (id: string) => new PaygateError("not_found", `No transaction with id '${printable(id)}'`, "transaction_not_found"),
  unsupportedCurrency: (currencyId: number, supported: string) =>
    new PaygateError("not_found", `Currency ${currencyId} is not supported; use one of ${supported}`, "currency_not_supported"),
  /** `network`: named when it is not the coin's default (a wallet for the default network is set as before). */
  processorNotConfigured: (slug: string, isLive: boolean, network?: string) =>
    new PaygateError(
      "not_found",
      network === undefined
        ? `No ${slug} wallet is configured for ${isLive ? "live" : "test"} mode; the merchant must add one (paygate merchant update --wallet ${slug}=EXTENDED_PUBLIC_KEY)`
        : `No ${slug} wallet on ${network} is configured for ${isLive ? "live" : "test"} mode; the merchant must add one (the dashboard's Wallets page)`,
      "processor_not_configured",
    ),
  notInitiated: (reason: "transaction_not_initiated" | "merchant_inactive") => new PaygateError("invalid_state", MESSAGES.notInitiated, reason),
  merchantInactive: () => new PaygateError("invalid_state", "The merchant account is not active; its transactions cannot move", "merchant_inactive"),
  nothingOwed: () =>
    new PaygateError(
      "invalid_state",
      "Nothing is owed on this transaction: it is paid in full. Send amount to record a further payment",
      "nothing_owed",
    ),
  transactionClosed: () => new PaygateError("invalid_state", "The transaction is no longer open: it has already ended", "transaction_closed"),
  testModeOnly: () =>
    new PaygateError(
      "not_found",
      "Test helpers exist in test mode only: use a test secret key (sec_test_…); live payments arrive on chain",
      "test_mode_only",
    ),
  upstreamUnavailable: (message: string, reason: string) => new PaygateError("upstream_unavailable", message, reason),
  /** The database did not answer, or its schema is not this version's: nothing changed, retry. */
  databaseUnavailable: (reason: "database_unreachable" | "database_not_migrated") =>
    new PaygateError(
      "database_unavailable",
      reason === "database_unreachable"
        ? "The database is unavailable right now; nothing was changed, retry in a few seconds"
        : "The database schema is not the one this version needs; nothing was changed, retry once the operator has migrated it",
      reason,
    ),
  /** This instance is shutting down: a new long-lived stream is refused so that it can stop (another instance answers). */
  serviceStopping: () => new PaygateError("upstream_unavailable", "This instance is stopping; reconnect in a moment", "service_stopping"),
  /** GET /v1/events/stream: this secret key holds the most open streams allowed (a cap frees as soon as one closes). */
  tooManyEventStreams: (limit: number, retryAfterSeconds: number) =>
    new RetryLaterError(
      `Too many event streams: this secret key has ${limit} open, the most allowed (PAYGATE_EVENT_STREAM_MAX_PER_KEY); close one (another \`paygate listen\`?) or retry after ${retryAfterSeconds} s`,
      "too_many_event_streams",
      retryAfterSeconds,
    ),
  /** GET /v1/events/stream: this instance serves the most open streams it holds. */
  eventStreamsFull: (limit: number) =>
    new PaygateError(
      "upstream_unavailable",
      `This instance serves ${limit} event streams, the most it holds (PAYGATE_EVENT_STREAM_MAX_TOTAL); retry in a few seconds`,
      "event_streams_full",
    ),
  /** A value passed validation but the database cannot store it: refused, nothing changed. */
  unstorableValue: () =>
    new PaygateError(
      "validation_error",
      "A value in the request cannot be stored (text with NUL characters or broken Unicode, or a number out of range)",
      "unstorable_value",
    ),
  badRequest: (message: string, reason: string) => new PaygateError("bad_request", message, reason),
  /** A credential that is valid, or may be, refused where it was used (a secret key from a browser: src/edge/cors.ts). */
  forbidden: (message: string, reason: string) => new PaygateError("forbidden", message, reason),
  unsupportedMediaType: (message: string) => new PaygateError("unsupported_media_type", message, "unsupported_media_type"),
  payloadTooLarge: (limit: string) => new PaygateError("payload_too_large", `Request body is too large (limit ${limit})`, "payload_too_large"),
  routeNotFound: (method: string, path: string) => new PaygateError("not_found", `No route for ${method} ${printable(path)}`, "route_not_found"),
  internal: () => new PaygateError("internal_error", MESSAGES.internal, "internal_error"),
  // ── Requests and credentials (src/edge, src/http/body.ts, merchants/credentials.ts); src/http/openapi.ts shows these as examples ──
  /** Two Authorization headers are ambiguous: refused rather than guessing which the client meant. */
  ambiguousCredential: (count: number) =>
    new PaygateError("bad_request", `Send one Authorization header; this request has ${count}`, "ambiguous_credential"),
  /** `kind`: the credential's kind (secret_key): reason `secret_key_in_browser`. */
  credentialInBrowser: (kind: string) => new PaygateError("forbidden", MESSAGES.secretKeyInBrowser, `${kind}_in_browser`),
  malformedPath: () =>
    new PaygateError(
      "bad_request",
      "The request path is not valid percent-encoding (a % must be followed by two hex digits of UTF-8)",
      "malformed_path",
    ),
  unreadableBody: () =>
    new PaygateError(
      "bad_request",
      "The request body could not be read: a corrupt or truncated compressed body, or a wrong Content-Length",
      "unreadable_body",
    ),
  notJson: () => new PaygateError("unsupported_media_type", "Content-Type must be application/json", "unsupported_media_type"),
  invalidSecretKey: () => new PaygateError("unauthenticated", "Invalid Secret Key", "invalid_secret_key"),
  /** A public key or a client secret where only a secret key will do. */
  secretKeyRequired: () => new PaygateError("unauthenticated", "Invalid Secret Key: this operation needs a secret key (sec_…)", "invalid_secret_key"),
  invalidApiKey: () => new PaygateError("unauthenticated", "Invalid API Key", "invalid_secret_key"),
  idempotencyConflict: () =>
    new PaygateError(
      "idempotency_conflict",
      "This Idempotency-Key was already used with other parameters; send a new key for a new request",
      "idempotency_key_reused",
    ),
  /** Every node of the network (in the caller's mode) is set aside: nothing can watch a payment there now. */
  nodesUnavailable: (network: string) =>
    new PaygateError("upstream_unavailable", `No node of ${network} answers right now; retry shortly, or pay on another network`, "node_unavailable"),
  /** `why`: which providers were asked and why none could set the price (QuoteRefusedError), when known. */
  quoteUnavailable: (crypto: string, fiat: string, why?: string) =>
    new PaygateError(
      "upstream_unavailable",
      `No price quote for ${crypto}/${fiat} is available right now${why ? ` (${why})` : ""}; retry shortly`,
      "quote_unavailable",
    ),
  /** A merchant's settings that the rules refuse (a name, a webhook URL, a wallet key): nothing changed. */
  invalidMerchantSettings: (message: string) => new PaygateError("validation_error", message, "invalid_merchant_settings"),
  /** A merchant's pricing (spread, providers): the message names every refused field. */
  invalidPricing: (fieldErrors: FieldError[]) =>
    new PaygateError("validation_error", fieldErrors.map((e) => e.message).join("; "), "invalid_pricing", fieldErrors),
  merchantNotFound: (id: number) => new PaygateError("not_found", `No merchant with id ${id}`, "merchant_not_found"),
  invalidTestRate: (message: string) => new PaygateError("validation_error", message, "invalid_test_rate"),
  /** GET /v1/events/:id: the same for an unknown id and another merchant's or mode's event. */
  eventNotFound: (id: string) => new PaygateError("not_found", `No event with id '${printable(id)}'`, "event_not_found"),
  /** A list's query (GET /v1/transactions, /v1/events): the message names every refused parameter. */
  invalidListParameters: (fieldErrors: FieldError[]) =>
    new PaygateError(
      "validation_error",
      `Invalid query parameter${fieldErrors.length > 1 ? "s" : ""}: ${fieldErrors.map((e) => `${e.field} ${e.message}`).join("; ")}`,
      "invalid_list_parameter",
      fieldErrors,
    ),
  /** A cursor that names nothing this caller can see (Stripe answers 400 too: the request, not a resource, is wrong). */
  unknownCursor: (parameter: string, id: string) =>
    new PaygateError(
      "validation_error",
      `Invalid query parameter: ${parameter} names no object of this merchant and mode ('${printable(id)}'); pass the id of the last object of the previous page`,
      "unknown_cursor",
      [{ field: parameter, message: "names no object of this merchant and mode" }],
    ),
  /** A test event for a mode without a webhook URL: nothing was sent. */
  webhookUrlMissing: (mode: "test" | "live") =>
    new PaygateError(
      "invalid_state",
      `No ${mode} webhook URL is set, so there is nowhere to send a test event; set the ${mode} webhook URL first`,
      "webhook_url_missing",
    ),
  /** The same for an unknown slug and another merchant's link. */
  paymentLinkNotFound: (slug: string) =>
    new PaygateError("not_found", `This merchant has no payment link '${printable(slug)}'`, "payment_link_not_found"),
};
