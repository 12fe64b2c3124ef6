// The OpenAPI 3.1 document of the REST API, generated from the zod schemas that validate the
// requests (the core's) and type the responses (schemas.ts), so it cannot drift from the service:
// the test suite also checks every response it receives against it.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import type { ErrorCode } from "../core/errors.ts";
import { InitializeBody, InitiateBody } from "../core/transactions/requests.ts";
import { TestPaymentBody } from "../core/transactions/test-helpers.ts";
import { SECRET_KEY_IN_BROWSER } from "./cors.ts";
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from "../core/lists.ts";
import {
  ErrorResponse,
  EventListResponse,
  EventResponse,
  HealthResponse,
  InitializeResponse,
  TransactionListResponse,
  TransactionResponse,
  TransactionStatus,
} from "./schemas.ts";
import { PAYMENT_EVENT_TYPES } from "../core/events/payment-events.ts";
import { HTTP_STATUS } from "./status.ts";

interface ErrorCase {
  code: ErrorCode;
  reason: string;
  message: string;
  when: string;
}

const integerHeader = (description: string) => ({ description, schema: { type: "integer" as const, minimum: 0 } });

/** The IETF RateLimit headers (draft 6) of the request's bucket (README "Rate limits"). */
const RATE_LIMIT_HEADERS = {
  "RateLimit-Limit": integerHeader("Requests the bucket (this API key, or this address without one) may make per window."),
  "RateLimit-Remaining": integerHeader("Requests left in the window under way."),
  "RateLimit-Reset": integerHeader("Seconds until the window ends."),
  "RateLimit-Policy": { description: "The limit and its window in seconds: `100;w=1`.", schema: { type: "string" as const } },
};

const RETRY_AFTER = { "Retry-After": integerHeader("Seconds to wait before retrying.") };

/** Extra headers of an error status. */
function errorHeaders(status: number) {
  if (status === 503) return { headers: RETRY_AFTER };
  if (status === 429) return { headers: { ...RETRY_AFTER, ...RATE_LIMIT_HEADERS } };
  return {};
}

/** Responses of one route's failures, grouped by status, with an example per cause. */
function errorResponses(cases: ErrorCase[]) {
  const byStatus = new Map<number, ErrorCase[]>();
  for (const c of cases) {
    const status = HTTP_STATUS[c.code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), c]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      status,
      {
        description: list.map((c) => `\`${c.reason}\`: ${c.when}`).join("; "),
        ...errorHeaders(status),
        content: {
          "application/json": {
            schema: ErrorResponse,
            examples: Object.fromEntries(
              list.map((c) => [c.reason, { value: { status: "error", message: c.message, code: c.code, reason: c.reason, errors: [] } }]),
            ),
          },
        },
      },
    ]),
  );
}

// Failures every route can answer with.
const ANY: ErrorCase[] = [
  {
    code: "bad_request",
    reason: "ambiguous_credential",
    message: "Send one Authorization header; this request has 2",
    when: "two Authorization headers",
  },
  {
    code: "forbidden",
    reason: "secret_key_in_browser",
    message: SECRET_KEY_IN_BROWSER,
    when: "a secret key on a request with an `Origin` header (a browser), refused before anything else and without CORS headers (README, Browsers and CORS)",
  },
  {
    code: "rate_limited",
    reason: "rate_limited",
    message: "Too many requests: requests with this test API key are limited to 25 per second; retry after 1 s",
    when: "the API key (or, without one, the client address) made more requests than its limit in the window under way",
  },
  {
    code: "rate_limited",
    reason: "too_many_failed_authentications",
    message: "Too many failed authentications from this address (20 per minute); retry after 37 s",
    when: "the client address failed to authenticate too often in the window under way: every request from it is refused until the window ends",
  },
  {
    code: "database_unavailable",
    reason: "database_unreachable",
    message: "The database is unavailable right now; nothing was changed, retry in a few seconds",
    when: "the database does not answer",
  },
  {
    code: "internal_error",
    reason: "internal_error",
    message: "Internal Server Error",
    when: "a bug; the stack is in the log under the X-Request-Id",
  },
];
const WITH_PATH: ErrorCase[] = [
  {
    code: "bad_request",
    reason: "malformed_path",
    message: "The request path is not valid percent-encoding (a % must be followed by two hex digits of UTF-8)",
    when: "a malformed path",
  },
];
const WITH_BODY: ErrorCase[] = [
  {
    code: "bad_request",
    reason: "unreadable_body",
    message: "The request body could not be read: a corrupt or truncated compressed body, or a wrong Content-Length",
    when: "a corrupt compressed body",
  },
  {
    code: "unsupported_media_type",
    reason: "unsupported_media_type",
    message: "Content-Type must be application/json",
    when: "another media type, charset or Content-Encoding",
  },
  { code: "payload_too_large", reason: "payload_too_large", message: "Request body is too large (limit 64 KB)", when: "a body over 64 KB" },
];
const SECRET: ErrorCase[] = [
  {
    code: "unauthenticated",
    reason: "invalid_secret_key",
    message: "Invalid Secret Key",
    when: "no key, a public key, or an unknown or revoked secret key",
  },
  {
    code: "not_found",
    reason: "transaction_not_found",
    message: "No transaction with id '…'",
    when: "an unknown id, another merchant's or the other mode's transaction",
  },
];
const INITIATE_VALIDATION: ErrorCase = {
  code: "validation_error",
  reason: "invalid_request",
  message: "Missing or invalid payload fields",
  when: "missing or invalid fields, or invalid JSON",
};

const transactionId = z.object({
  transaction_id: z
    .string()
    .meta({ param: { name: "transaction_id", in: "path" }, description: "The transaction's `data.id` (a UUID), not its `bq_` reference." }),
});
const idempotencyKey = z.object({
  "Idempotency-Key": z
    .string()
    .optional()
    .meta({
      param: { name: "Idempotency-Key", in: "header" },
      description: "1–255 visible ASCII characters; a retry with the same key answers as the first request did (README, Requests).",
    }),
});
const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
/** A success of a rate-limited route: its body, and the bucket's RateLimit headers. */
const limited = <T extends z.ZodType>(schema: T, description: string) => ({ ...json(schema, description), headers: RATE_LIMIT_HEADERS });

export function openApiDocument(): ReturnType<OpenApiGeneratorV31["generateDocument"]> {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "`pub_test_…`/`pub_live_…` (public), `sec_test_…`/`sec_live_…` (secret). The key's mode decides test or live.",
  });
  const publicKey = [{ [bearer.name]: [] }, {}];
  const secretKey = [{ [bearer.name]: [] }];

  registry.registerPath({
    method: "post",
    path: "/v1/transaction",
    operationId: "initializeTransaction",
    summary: "Initialize a transaction",
    description:
      "Spec 4.1. Credential: a public key (Authorization header or body `public_key`) or a payment link (body `payment_link`). Creates an `INITIATED` transaction and its `payment.initiated` event.",
    security: publicKey,
    request: { headers: idempotencyKey, body: json(InitializeBody, "The order: customer, fiat currency and amount.") },
    responses: {
      201: limited(InitializeResponse, "The transaction (table 2.1)."),
      ...errorResponses([
        {
          code: "validation_error",
          reason: "invalid_request",
          message: "Validation Error",
          when: "missing or invalid fields, invalid JSON, no credential, a key and a link",
        },
        {
          code: "not_found",
          reason: "invalid_public_key",
          message: "Invalid Public Key",
          when: "an unknown or revoked key or link, an inactive merchant, a fiat other than USD or NGN",
        },
        {
          code: "kyb_required",
          reason: "kyb_none",
          message: "Live mode needs a verified business (KYB)…",
          when: "a live key of a merchant whose KYB is not verified",
        },
        {
          code: "idempotency_conflict",
          reason: "idempotency_key_reused",
          message: "This Idempotency-Key was already used with other parameters; send a new key for a new request",
          when: "a reused Idempotency-Key",
        },
        ...WITH_BODY,
        ...ANY,
      ]),
    },
  });

  registry.registerPath({
    method: "post",
    path: "/v1/transaction/{transaction_id}/pay",
    operationId: "initiatePayment",
    summary: "Initiate the payment: choose the coin",
    description:
      "Spec 4.2. Locks the rate, hands out a fresh address and moves the transaction to `PENDING` (event `payment.pending`). Only an `INITIATED` transaction can be initiated.",
    security: secretKey,
    request: {
      params: transactionId,
      headers: idempotencyKey,
      body: json(InitiateBody, "The chosen crypto currency, and an optional refund address."),
    },
    responses: {
      200: limited(TransactionResponse, "The transaction (table 2.2)."),
      ...errorResponses([
        INITIATE_VALIDATION,
        ...SECRET,
        {
          code: "not_found",
          reason: "currency_not_supported",
          message: "Currency 9 is not supported; use one of 3 (USDT), 4 (BTC), 5 (BNB), 6 (ETH), 7 (LTC)",
          when: "a currency_id outside 3–7",
        },
        {
          code: "not_found",
          reason: "processor_not_configured",
          message: "No BTC wallet is configured for live mode…",
          when: "no wallet for that currency and mode",
        },
        {
          code: "invalid_state",
          reason: "transaction_not_initiated",
          message: "The transaction is not initiated",
          when: "not INITIATED, or the merchant is inactive (reason merchant_inactive)",
        },
        {
          code: "idempotency_conflict",
          reason: "idempotency_key_reused",
          message: "This Idempotency-Key was already used with other parameters; send a new key for a new request",
          when: "a reused Idempotency-Key",
        },
        {
          code: "upstream_unavailable",
          reason: "quote_unavailable",
          message: "No price quote for BTC/USD is available right now; retry shortly",
          when: "no price quote, or no address could be derived (address_unavailable)",
        },
        ...WITH_PATH,
        ...WITH_BODY,
        ...ANY,
      ]),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/v1/transaction/{transaction_id}",
    operationId: "retrieveTransaction",
    summary: "Retrieve a transaction",
    description: "Not in the spec: what a checkout page (public key) or the merchant (secret key) polls.",
    security: secretKey,
    request: { params: transactionId },
    responses: {
      200: limited(TransactionResponse, "The transaction (table 2.2)."),
      ...errorResponses([
        { code: "unauthenticated", reason: "invalid_secret_key", message: "Invalid API Key", when: "no key, or an unknown or revoked key" },
        SECRET[1] as ErrorCase,
        ...WITH_PATH,
        ...ANY,
      ]),
    },
  });

  const queryParam = (name: string, description: string, schema: z.ZodType = z.string()) =>
    schema.optional().meta({ param: { name, in: "query" }, description });
  // Every list's page size (src/core/lists.ts).
  const pageLimit = queryParam("limit", `Items per page, 1–${LIST_LIMIT_MAX}; default ${LIST_LIMIT_DEFAULT}.`, z.string().regex(/^\d+$/));
  registry.registerPath({
    method: "get",
    path: "/v1/transactions",
    operationId: "listTransactions",
    summary: "List transactions",
    description:
      "Not in the spec (issue 13, the merchant dashboard's list): the secret key's merchant's transactions of the key's mode, newest first, in pages (Stripe's `limit`, `starting_after`, `has_more`). Filters combine with AND (README, Lists and events).",
    security: secretKey,
    request: {
      query: z.object({
        limit: pageLimit,
        starting_after: queryParam(
          "starting_after",
          "The `id` of the last transaction of the previous page: the page continues after it in (created_at, id) order, so transactions made meanwhile neither repeat nor shift items.",
        ),
        status: queryParam("status", "INITIATED, PENDING, SUCCESSFUL or ABANDONED.", TransactionStatus),
        currency: queryParam("currency", "The fiat currency of the price: USD or NGN."),
        payment_currency: queryParam("payment_currency", "The coin chosen: an id (3–7) or a slug (USDT, BTC, BNB, ETH, LTC)."),
        "created[gte]": queryParam("created[gte]", "Made at or after this ISO 8601 date-time (with a time zone, e.g. `2026-11-01T00:00:00Z`)."),
        "created[lt]": queryParam("created[lt]", "Made before this ISO 8601 date-time (with a time zone)."),
        q: queryParam("q", "Search: an exact reference (`bq_…`), an exact transaction id, or else a customer e-mail (any case)."),
      }),
    },
    responses: {
      200: limited(TransactionListResponse, "A page of transactions (table 2.2 each)."),
      ...errorResponses([
        {
          code: "validation_error",
          reason: "invalid_list_parameter",
          message: "Invalid query parameter: limit must be an integer from 1 to 100",
          when: "an invalid, repeated or unknown query parameter; the message and `errors` name each",
        },
        {
          code: "validation_error",
          reason: "unknown_cursor",
          message:
            "Invalid query parameter: starting_after names no object of this merchant and mode ('…'); pass the id of the last object of the previous page",
          when: "a `starting_after` that is no transaction of this merchant and mode",
        },
        {
          code: "unauthenticated",
          reason: "invalid_secret_key",
          message: "Invalid Secret Key: this operation needs a secret key (sec_…)",
          when: "no key, a public key, a client secret, or an unknown or revoked secret key",
        },
        ...ANY,
      ]),
    },
  });

  const SECRET_ONLY: ErrorCase = {
    code: "unauthenticated",
    reason: "invalid_secret_key",
    message: "Invalid Secret Key: this operation needs a secret key (sec_…)",
    when: "no key, a public key, a client secret, or an unknown or revoked secret key",
  };
  registry.registerPath({
    method: "get",
    path: "/v1/events",
    operationId: "listEvents",
    summary: "List events",
    description:
      "Not in the spec (issue 13; Stripe's Events API): the webhook events of the secret key's merchant and mode from the last 30 days, newest first, whatever became of their delivery, so a receiver that was down can catch up.",
    security: secretKey,
    request: {
      query: z.object({
        limit: pageLimit,
        starting_after: queryParam(
          "starting_after",
          "The `id` (`evt_…`) of the last event of the previous page; events written meanwhile do not shift the pages.",
        ),
        type: queryParam("type", `One of ${PAYMENT_EVENT_TYPES.join(", ")}.`),
        transaction: queryParam("transaction", "Only the events of this transaction (its id)."),
      }),
    },
    responses: {
      200: limited(EventListResponse, "A page of events."),
      ...errorResponses([
        {
          code: "validation_error",
          reason: "invalid_list_parameter",
          message: "Invalid query parameter: type must be one of payment.initiated, payment.pending, payment.received, payment.abandoned",
          when: "an invalid, repeated or unknown query parameter; the message and `errors` name each",
        },
        {
          code: "validation_error",
          reason: "unknown_cursor",
          message:
            "Invalid query parameter: starting_after names no object of this merchant and mode ('…'); pass the id of the last object of the previous page",
          when: "a `starting_after` that is no event of this merchant and mode (or was pruned)",
        },
        SECRET_ONLY,
        ...ANY,
      ]),
    },
  });
  registry.registerPath({
    method: "get",
    path: "/v1/events/{event_id}",
    operationId: "retrieveEvent",
    summary: "Retrieve an event",
    description: "Not in the spec (issue 13): one event of the secret key's merchant and mode, kept 30 days.",
    security: secretKey,
    request: {
      params: z.object({ event_id: z.string().meta({ param: { name: "event_id", in: "path" }, description: "The event's `id` (`evt_…`)." }) }),
    },
    responses: {
      200: limited(EventResponse, "The event."),
      ...errorResponses([
        SECRET_ONLY,
        {
          code: "not_found",
          reason: "event_not_found",
          message: "No event with id '…'",
          when: "an unknown or pruned id, another merchant's or the other mode's event",
        },
        ...WITH_PATH,
        ...ANY,
      ]),
    },
  });

  const testHelper = (action: "payment" | "expire", summary: string, description: string, extra: ErrorCase[]) =>
    registry.registerPath({
      method: "post",
      path: `/v1/test_helpers/transaction/{transaction_id}/${action}`,
      operationId: action === "payment" ? "recordTestPayment" : "expireTestTransaction",
      summary,
      description,
      security: secretKey,
      request: {
        params: transactionId,
        ...(action === "payment" ? { body: json(TestPaymentBody, "The amount received; omitted: what is still owed.") } : {}),
      },
      responses: {
        200: limited(TransactionResponse, "The transaction (table 2.2)."),
        ...errorResponses([
          ...SECRET,
          {
            code: "not_found",
            reason: "test_mode_only",
            message: "Test helpers exist in test mode only: use a test secret key (sec_test_…); live payments arrive on chain",
            when: "a live secret key",
          },
          {
            code: "invalid_state",
            reason: "merchant_inactive",
            message: "The merchant account is not active; its transactions cannot move",
            when: "an inactive merchant",
          },
          ...extra,
          ...WITH_PATH,
          ...WITH_BODY,
          ...ANY,
        ]),
      },
    });
  testHelper("payment", "Test mode: record a payment", "Records a confirmed receipt as the chain watcher would (README, Lifecycle).", [
    { ...INITIATE_VALIDATION, when: "an amount that is not a positive decimal within the coin's precision" },
    {
      code: "invalid_state",
      reason: "transaction_not_initiated",
      message: "The transaction is not initiated",
      when: "no coin chosen yet; nothing owed gives reason nothing_owed",
    },
  ]);
  testHelper("expire", "Test mode: expire now", "Ends the checkout window now: an open transaction becomes ABANDONED.", [
    { ...INITIATE_VALIDATION, when: "invalid JSON" },
    {
      code: "invalid_state",
      reason: "transaction_closed",
      message: "The transaction is no longer open: it has already ended",
      when: "SUCCESSFUL or ABANDONED",
    },
  ]);

  registry.registerPath({
    method: "get",
    path: "/livez",
    operationId: "live",
    summary: "Liveness",
    security: [],
    responses: { 200: json(z.object({ status: z.literal("ok") }), "The process serves.") },
  });
  for (const [path, operationId] of [
    ["/readyz", "ready"],
    ["/healthz", "health"],
  ] as const) {
    registry.registerPath({
      method: "get",
      path,
      operationId,
      summary: path === "/readyz" ? "Readiness" : "Readiness (older name of /readyz)",
      security: [],
      responses: {
        200: json(HealthResponse, "The database answers and has every migration of this version."),
        503: json(HealthResponse, "Not ready: the database does not answer, or migrations are pending."),
      },
    });
  }

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "paygate",
      version: "1.0.0",
      description:
        "Crypto payments priced in fiat. The specification is docs/specification.md; errors, idempotency, modes and the lifecycle are described in the README. GraphQL is served at /graphql (schema.graphql). Pages on other origins may call initialize, retrieve and /graphql (CORS) with a public key; a secret key from a browser is refused with 403 (README, Browsers and CORS).",
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: "/", description: "This service" }],
  });
}
