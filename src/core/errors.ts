// Every failure the core reports, with the message the spec gives it (section 7). The error's
// `code` decides its HTTP status, in one table of the HTTP layer (src/edge/status.ts); REST and
// GraphQL both map these, and neither invents its own.

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

export const errors = {
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
  // ── Requests and credentials (src/edge, src/http/body.ts, credentials.ts); src/http/openapi.ts shows these as examples ──
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
  // ── Webhook endpoints (issue 27; src/core/webhook-endpoints) ──
  /** Refused endpoint fields: the message names each, nothing changed. */
  webhookEndpointValidation: (fieldErrors: FieldError[]) =>
    new PaygateError(
      "validation_error",
      `Invalid webhook endpoint: ${fieldErrors.map((e) => `${e.field} ${e.message}`).join("; ")}`,
      "invalid_webhook_endpoint",
      fieldErrors,
    ),
  /** The same for an unknown id and another merchant's or mode's endpoint. */
  webhookEndpointNotFound: (id: string) =>
    new PaygateError("not_found", `No webhook endpoint with id '${printable(id)}'`, "webhook_endpoint_not_found"),
  webhookEndpointLimit: (max: number, mode: "test" | "live") =>
    new PaygateError(
      "conflict",
      `This merchant already has ${max} ${mode}-mode webhook endpoints, the most allowed (PAYGATE_WEBHOOK_ENDPOINTS_MAX); delete one first`,
      "webhook_endpoint_limit",
    ),
  /** The same for an unknown id and another merchant's or mode's delivery. */
  webhookDeliveryNotFound: (id: string) =>
    new PaygateError("not_found", `No webhook delivery with id '${printable(id)}'`, "webhook_delivery_not_found"),
  webhookEventNotFound: (id: string) =>
    new PaygateError("not_found", `No webhook event with id ${printable(id)}; list them with: paygate webhooks list`, "webhook_event_not_found"),
  // ── Refunds (issue 26; src/core/refunds) ──
  refundValidation: (fieldErrors: FieldError[]) =>
    new PaygateError("validation_error", "Missing or invalid refund fields", "invalid_refund_request", fieldErrors),
  /** The same for an unknown id and another merchant's or mode's refund. */
  refundNotFound: (id: string) => new PaygateError("not_found", `No refund with id '${printable(id)}'`, "refund_not_found"),
  /** The dashboard's PSBT download of a refund that has none (not BTC/LTC, no destination yet, closed, or no rails). */
  refundPsbtNotFound: (id: string) =>
    new PaygateError(
      "not_found",
      `Refund ${printable(id)} has no PSBT to sign: only a pending BTC or LTC refund with a destination has one`,
      "refund_psbt_not_found",
    ),
  nothingReceived: () =>
    new PaygateError("invalid_state", "Nothing can be refunded: no confirmed payment has arrived on this transaction", "nothing_received"),
  /** `left`: what can still be refunded, with its coin ("0.0004 BTC"). */
  refundOverLimit: (left: string, reason: "over_refundable" | "nothing_overpaid" = "over_refundable") =>
    new PaygateError(
      "invalid_state",
      reason === "nothing_overpaid"
        ? `Nothing was overpaid on this transaction; ${left} can still be refunded`
        : `The refund is more than what is left to refund: ${left} can still be refunded`,
      reason,
    ),
  refundNotPending: (state: string) =>
    new PaygateError("conflict", `The refund is ${state}, not pending: only a pending refund can change`, "refund_not_pending"),
  /** An unknown or mistyped claim link: the same for both, nothing says which links exist. */
  refundClaimNotFound: () => new PaygateError("not_found", "This refund link is not valid; ask the merchant for a new one", "refund_claim_not_found"),
  refundClaimUsed: () =>
    new PaygateError("gone", "This refund link was already used: the refund has its address; contact the merchant to change it", "refund_claim_used"),
  refundClaimExpired: () => new PaygateError("gone", "This refund link has expired; ask the merchant for a new one", "refund_claim_expired"),
  refundClaimClosed: () => new PaygateError("gone", "This refund was canceled or already paid; nothing more to do here", "refund_claim_closed"),
  // Refund rails (src/rails/refunds): the unsigned transaction a merchant signs.
  /** `toCustomer`, `fee`, `dust`: amounts with their coin ("0.00000100 LTC"); `nothing`: the fee takes it all. */
  refundBelowDust: (toCustomer: string, fee: string, dust: string, nothing: boolean) =>
    new PaygateError(
      "invalid_state",
      nothing
        ? `The network fee of ${fee} takes all of this refund: nothing would reach the customer; refund more, or choose a lower fee_rate`
        : `After its network fee of ${fee}, the refund would pay the customer ${toCustomer}, below the dust limit of ${dust} that nodes relay; refund more, or choose a lower fee_rate`,
      "refund_below_dust",
    ),
  /** The payment's receipts cannot be spent by a refund transaction (`why` says what is missing). */
  refundNotSpendable: (why: string) => new PaygateError("invalid_state", `No refund transaction can be built: ${why}`, "refund_not_spendable"),
  // ── The dashboard ─────────────────────────────────────────────────────────────────────────────
  /** The same for an unknown e-mail, a wrong password and a user without one: no account enumeration. */
  signInFailed: () => new PaygateError("unauthenticated", "E-mail or password is incorrect", "sign_in_failed"),
  sessionRequired: () =>
    new PaygateError("unauthenticated", "Sign in to the dashboard: this request has no session, or its session has ended", "session_required"),
  /** An API key on the dashboard's API: the two never mix (docs/dashboard.md). */
  apiKeyOnDashboard: () =>
    new PaygateError(
      "unauthenticated",
      "The dashboard API takes no API key: sign in at /dashboard and send the session cookie; API keys work on /v1 and /graphql",
      "api_key_not_accepted",
    ),
  signInLinkInvalid: () =>
    new PaygateError(
      "unauthenticated",
      "This sign-in link is not valid: it was used already, has expired or was never issued, or its e-mail already signs in to another merchant's dashboard. Ask an owner of your merchant for a new invitation",
      "sign_in_link_invalid",
    ),
  csrfRejected: (message: string) => new PaygateError("forbidden", message, "csrf_rejected"),
  invalidDashboardUser: (fieldErrors: FieldError[]) =>
    new PaygateError("validation_error", fieldErrors.map((e) => `${e.field} ${e.message}`).join("; "), "invalid_dashboard_user", fieldErrors),
  dashboardEmailTaken: () =>
    new PaygateError(
      "validation_error",
      "email is taken: a dashboard user with this e-mail exists already (an e-mail belongs to one merchant's dashboard)",
      "email_taken",
      [{ field: "email", message: "is taken" }],
    ),
  /** Any dashboard change of a deactivated merchant (reads still work). */
  dashboardReadOnly: () =>
    new PaygateError(
      "forbidden",
      "This merchant is deactivated, so its dashboard is read-only: nothing can be changed until the operator reactivates it (paygate merchant update ID --active true)",
      "merchant_inactive",
    ),
  /** An owner's invitation of an e-mail one of its own users has (other merchants' users are never mentioned). */
  dashboardEmailTakenHere: () =>
    new PaygateError("validation_error", "email is taken: a user of this merchant has this e-mail already", "email_taken", [
      { field: "email", message: "is taken" },
    ]),
  dashboardUserNotFound: (id: string) =>
    new PaygateError("not_found", `No dashboard user with id '${printable(id)}' at this merchant`, "dashboard_user_not_found"),
  lastOwner: () =>
    new PaygateError(
      "invalid_state",
      "A merchant needs at least one owner: make another user owner first, then change or remove this one",
      "last_owner",
    ),
  // ── The dashboard: second factors and re-authentication (src/core/dashboard/second-factor.ts, reauthentication.ts) ──
  /** A wrong authenticator code or recovery code: the same for both, so a guess learns nothing of which is wrong. */
  secondFactorFailed: () =>
    new PaygateError(
      "unauthenticated",
      "The authentication code is incorrect: enter the 6-digit code your authenticator app shows now, or one of your recovery codes",
      "second_factor_failed",
    ),
  /** A right code of a time step already used (RFC 6238 §5.2: each code is accepted once). */
  secondFactorCodeReused: () =>
    new PaygateError(
      "unauthenticated",
      "This authentication code was used already: wait for your authenticator app to show the next code, and enter that one",
      "second_factor_code_reused",
    ),
  signInChallengeInvalid: () =>
    new PaygateError(
      "unauthenticated",
      "This sign-in has expired or was completed already: sign in again with your e-mail and password",
      "sign_in_challenge_invalid",
    ),
  secondFactorEnrolmentRequired: () =>
    new PaygateError(
      "forbidden",
      "This service requires a second factor for owners and developers: set up an authenticator app or a security key on the Security page (/dashboard/security) first; until then nothing else is allowed",
      "second_factor_enrolment_required",
    ),
  secondFactorEnabledAlready: () =>
    new PaygateError(
      "invalid_state",
      "Your second factor is on already: turn it off first (with your password and a code) to set up another authenticator app",
      "second_factor_enabled",
    ),
  /** A test payment recorded on a transaction that has no coin or address yet (the spec's "not initiated" says the opposite). */
  testPaymentBeforeInitiate: () =>
    new PaygateError(
      "invalid_state",
      "This transaction has no coin or payment address yet: initiate it first (POST /v1/transaction/:id/pay with a currency_id), then record its test payment",
      "transaction_not_initiated",
    ),
  // ── Who may change what with an API key (issue 41: src/core/merchants/key-access.ts) ──
  /** A test-mode key asked to change a setting live mode uses: a test key is handed to a test environment. */
  testKeyForLiveSetting: (setting: string) =>
    new PaygateError(
      "forbidden",
      `A test-mode key cannot change the merchant's ${setting}, which live payments use: use the live secret key (sec_live_…) or the dashboard`,
      "test_key_live_setting",
    ),
  /** The key was rolled by a dashboard user whose role lacks the permission: a key does what its role may, whatever the door. */
  keyRoleForbidden: (role: string, permission: string) =>
    new PaygateError(
      "forbidden",
      `This key was rolled by a ${role}, and that role cannot ${permission.replaceAll("_", " ")}: use a key rolled by an owner, or ask an owner of this merchant`,
      "key_role_forbidden",
    ),
  secondFactorNotEnabled: () => new PaygateError("invalid_state", "This account has no second factor to turn off", "second_factor_not_enabled"),
  dashboardEmailNotFound: (email: string) =>
    new PaygateError("not_found", `No dashboard user has the e-mail '${printable(email)}'`, "dashboard_user_not_found"),
  secondFactorEnrolmentMissing: () =>
    new PaygateError(
      "invalid_state",
      "No authenticator app is being set up: start again with POST /dashboard/api/second-factor (Security page, Set up)",
      "second_factor_enrolment_missing",
    ),
  /** The code that confirms an enrolment is wrong: nothing turned on, the enrolment stays open. */
  secondFactorCodeInvalid: () =>
    new PaygateError(
      "validation_error",
      "code is not the one your authenticator app shows for this secret: check that the app added the account, then enter its current 6-digit code",
      "second_factor_code_invalid",
      [{ field: "code", message: "is not the current code of this secret" }],
    ),
  reauthenticationRequired: (minutes: number) =>
    new PaygateError(
      "forbidden",
      `This change needs your password again (and your authentication code, if you have a second factor): you last confirmed it more than ${minutes} minutes ago. Confirm it (POST /dashboard/api/session/reauthenticate), then retry; nothing was changed`,
      "reauthentication_required",
    ),
  /** A wrong password when re-authenticating (the session stays; only the proof failed). */
  reauthenticationFailed: () => new PaygateError("unauthenticated", "The password is incorrect", "reauthentication_failed"),
  // ── WebAuthn security keys (src/core/dashboard/security-keys.ts) ──
  /** An assertion whose signature, origin or site does not verify against the key (or names no key of this account). */
  securityKeyFailed: (why: string) =>
    new PaygateError(
      "unauthenticated",
      `The security key's answer was refused: ${why}. Try again, or use another second factor`,
      "security_key_failed",
    ),
  /** The assertion's challenge is unknown, used already or expired: each is accepted once, for a few minutes. */
  securityKeyChallengeInvalid: () =>
    new PaygateError(
      "unauthenticated",
      "This security key request has expired or was used already: ask for a new one and touch your key again",
      "security_key_challenge_invalid",
    ),
  /** The key's signature counter did not go up: the same key signed elsewhere since, as a cloned key would. */
  securityKeyCounterBackwards: (name: string, counter: number, stored: number) =>
    new PaygateError(
      "unauthenticated",
      `The security key "${printable(name)}" answered with signature counter ${counter}, not above its last one (${stored}): it may have been cloned. It was refused; sign in with another factor and remove it`,
      "security_key_counter_backwards",
    ),
  securityKeyRegistrationInvalid: (why: string) =>
    new PaygateError("validation_error", `The security key could not be registered: ${why}`, "security_key_registration_invalid"),
  securityKeyRegistrationExpired: () =>
    new PaygateError(
      "invalid_state",
      "This security key registration has expired or was completed already: start again (Security page, Add a security key)",
      "security_key_registration_expired",
    ),
  securityKeyRegisteredAlready: () =>
    new PaygateError("invalid_state", "This security key is registered already (to this or another account)", "security_key_registered_already"),
  securityKeyLimit: (max: number) =>
    new PaygateError("invalid_state", `An account can register at most ${max} security keys: remove one first`, "security_key_limit"),
  securityKeyNotFound: () => new PaygateError("not_found", "This account has no such security key", "security_key_not_found"),
  noSecurityKey: () =>
    new PaygateError("invalid_state", "This account has no security key: use your authenticator app's code instead", "security_key_none"),
  // ── Several mutations in one GraphQL request (src/graphql/mutation-limits.ts) ──
  /** A mutation that moves money or hands out a one-time secret shares its request: refused before anything runs. */
  sensitiveMutationsBatched: (fields: string) =>
    new PaygateError(
      "bad_request",
      `A mutation that moves money or hands out a one-time secret must be the only mutation in its request; this one holds ${fields}. Send each in its own request; nothing was run`,
      "sensitive_mutations_batched",
    ),
  // ── Initialize: the merchant's rules (issue 41; src/core/transactions/initialize.ts) ──
  /** A customer's credential (a public key, a payment link: both ship in browsers) sent fields only the merchant's secret key sets. */
  merchantRuleNeedsSecretKey: (fields: string[]) => {
    const one = fields.length === 1;
    const names = one ? fields[0] : `${fields.slice(0, -1).join(", ")} and ${fields.at(-1)}`;
    return new PaygateError(
      "forbidden",
      `${names} ${one ? "is the merchant's rule" : "are the merchant's rules"}, not the customer's: a public key or a payment link cannot set ${one ? "it" : "them"}; send ${one ? "it" : "them"} from your server with your secret key in Authorization: Bearer sec_… and your public key in the body's public_key (GraphQL: input.publicKey)`,
      "merchant_rule_needs_secret_key",
      fields.map((field) => ({ field, message: `${field} is the merchant's rule: send it with the secret key` })),
    );
  },
  /** The secret key sent with a public key to prove the merchant is another merchant's, or of the other mode. */
  secretKeyMismatch: (message: string) =>
    new PaygateError("validation_error", MESSAGES.initializeValidation, "secret_key_mismatch", [{ field: "public_key", message }]),
  /** mark_paid with a chain transaction that already closed another refund (issue 42): one transaction closes one refund. */
  refundTxHashTaken: (hash: string) =>
    new PaygateError(
      "conflict",
      `The transaction ${printable(hash)} already closed another refund: one chain transaction closes one refund; pay this refund with a transaction of its own`,
      "refund_tx_hash_taken",
    ),
};

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
function printable(text: string): string {
  const cut = text.length > 80 ? `${text.slice(0, 80)}…` : text;
  return cut.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
