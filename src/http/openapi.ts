// The OpenAPI 3.1 document of the REST API, generated from the zod schemas that validate the
// requests (the core's) and type the responses (schemas.ts), so it cannot drift from the service:
// the test suite also checks every response it receives against it.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { errors, PaygateError } from "../core/errors.ts";
import { EventListParams } from "../core/events/list.ts";
import { parseListQuery } from "../core/lists.ts";
import { KYB_REFUSALS } from "../core/records/kyb.ts";
import { tooManyFailedAuthentications, tooManyRequests } from "../core/rate-limits.ts";
import { TransactionListParams } from "../core/transactions/list.ts";
import { SUPPORTED_CURRENCIES } from "../core/transactions/initiate.ts";
import { JSON_BODY_LIMIT } from "../edge/errors.ts";
import { InitializeBody, InitiateBody } from "../core/transactions/requests.ts";
import { TestPaymentBody } from "../core/transactions/test-helpers.ts";
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from "../core/lists.ts";
import {
  ErrorResponse,
  EventListResponse,
  EventResponse,
  EventStreamMessage,
  WebhookPayload,
  MerchantPricingBody,
  MerchantPricingResponse,
  HealthResponse,
  InitializeResponse,
  TransactionListResponse,
  TransactionResponse,
  TransactionStatus,
} from "./schemas.ts";
import { EVENT_TYPES } from "../core/events/payment-events.ts";
import { HTTP_STATUS } from "../edge/status.ts";
import { registerWebhookEndpointPaths } from "./openapi-webhook-endpoints.ts";
import { registerRefundPaths } from "./openapi-refunds.ts";
import { EventStreamParams } from "../core/events/stream.ts";
import { eventStreamErrors } from "./v1/event-stream.ts";

/** A failure a route answers with: the error the code throws (its example), and when. */
interface ErrorCase {
  error: PaygateError;
  when: string;
}

/** The error a check throws, made by running it: an example that cannot drift from the check. */
function refusalOf(check: () => unknown): PaygateError {
  try {
    check();
  } catch (error) {
    if (error instanceof PaygateError) return error;
    throw error;
  }
  throw new Error("the check accepted the example it should refuse");
}

const integerHeader = (description: string) => ({ description, schema: { type: "integer" as const, minimum: 0 } });

/** The IETF RateLimit headers (draft 6) of the request's bucket (docs/rest-api.md, Rate limits). */
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
    const status = HTTP_STATUS[c.error.code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), c]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      status,
      {
        description: list.map((c) => `\`${c.error.reason}\`: ${c.when}`).join("; "),
        ...errorHeaders(status),
        content: {
          "application/json": {
            schema: ErrorResponse,
            examples: Object.fromEntries(
              list.map(({ error }) => [
                error.reason,
                { value: { status: "error", message: error.message, code: error.code, reason: error.reason, errors: [] } },
              ]),
            ),
          },
        },
      },
    ]),
  );
}

// A change made with a key rolled by a dashboard user whose role may not make it (issue 41).
const KEY_ROLE: ErrorCase = {
  error: errors.keyRoleForbidden("developer", "manage_pricing"),
  when: "the key was rolled in the dashboard by a user whose role may not make this change (docs/security.md, Keys and roles)",
};

// Failures every route can answer with.
const ANY: ErrorCase[] = [
  {
    error: errors.ambiguousCredential(2),
    when: "two Authorization headers",
  },
  {
    error: errors.credentialInBrowser("secret_key"),
    when: "a secret key on a request with an `Origin` header (a browser), refused before anything else and without CORS headers (docs/rest-api.md, Browsers and CORS)",
  },
  {
    error: tooManyRequests({ kind: "test_key" }, { hits: 26, limit: 25, windowMs: 1000, resetMs: 1000 }),
    when: "the API key (or, without one, the client address) made more requests than its limit in the window under way",
  },
  {
    error: tooManyFailedAuthentications({ hits: 20, limit: 20, windowMs: 60_000, resetMs: 37_000 }),
    when: "the client address failed to authenticate too often in the window under way: every request from it is refused until the window ends",
  },
  {
    error: errors.databaseUnavailable("database_unreachable"),
    when: "the database does not answer",
  },
  {
    error: errors.internal(),
    when: "a bug; the stack is in the log under the X-Request-Id",
  },
];
const WITH_PATH: ErrorCase[] = [
  {
    error: errors.malformedPath(),
    when: "a malformed path",
  },
];
const WITH_BODY: ErrorCase[] = [
  {
    error: errors.unreadableBody(),
    when: "a corrupt compressed body",
  },
  {
    error: errors.notJson(),
    when: "another media type, charset or Content-Encoding",
  },
  { error: errors.payloadTooLarge(JSON_BODY_LIMIT), when: "a body over 64 KB" },
];
const SECRET: ErrorCase[] = [
  {
    error: errors.invalidSecretKey(),
    when: "no key, a public key, or an unknown or revoked secret key",
  },
  {
    error: errors.transactionNotFound("…"),
    when: "an unknown id, another merchant's or the other mode's transaction",
  },
];
const INITIATE_VALIDATION: ErrorCase = {
  error: errors.initiateValidation([]),
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
      description: "1–255 visible ASCII characters; a retry with the same key answers as the first request did (docs/rest-api.md, Requests).",
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
      "Spec 4.1. Credential: a public key (Authorization header or body `public_key`) or a payment link (body `payment_link`). Creates an `INITIATED` transaction and its `payment.initiated` event. The merchant's rules (`expires_in`, `underpayment_tolerance`, `confirmations`, `late_payment`) loosen what the merchant accepts, so a public key or payment link alone cannot send them (403): send them from your server with the secret key in `Authorization: Bearer sec_…` and the public key in the body's `public_key`.",
    security: publicKey,
    request: { headers: idempotencyKey, body: json(InitializeBody, "The order: customer, fiat currency and amount.") },
    responses: {
      201: limited(InitializeResponse, "The transaction (table 2.1)."),
      ...errorResponses([
        {
          error: errors.initializeValidation([]),
          when: "missing or invalid fields, invalid JSON, no credential, a key and a link",
        },
        {
          error: errors.invalidPublicKey("invalid_public_key"),
          when: "an unknown or revoked key or link, an inactive merchant, a fiat other than USD or NGN",
        },
        {
          error: errors.secretKeyMismatch(""),
          when: "a secret key in the header of another merchant or mode than the body's `public_key`",
        },
        {
          error: errors.invalidSecretKey(),
          when: "an unknown or revoked secret key in the header with the body's `public_key`",
        },
        {
          error: errors.merchantRuleNeedsSecretKey(["underpayment_tolerance"]),
          when: "a merchant's rule (`expires_in`, `underpayment_tolerance`, `confirmations`, `late_payment`) sent with a public key or payment link alone",
        },
        {
          error: errors.kybRequired(KYB_REFUSALS.NONE, "kyb_none"),
          when: "a live key of a merchant whose KYB is not verified",
        },
        {
          error: errors.idempotencyConflict(),
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
          error: errors.unsupportedCurrency(9, SUPPORTED_CURRENCIES),
          when: "a currency_id outside 3–7",
        },
        {
          error: errors.processorNotConfigured("BTC", true),
          when: "no wallet for that currency and mode",
        },
        {
          error: errors.notInitiated("transaction_not_initiated"),
          when: "not INITIATED, or the merchant is inactive (reason merchant_inactive)",
        },
        {
          error: errors.idempotencyConflict(),
          when: "a reused Idempotency-Key",
        },
        {
          error: errors.quoteUnavailable("BTC", "USD"),
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
        { error: errors.invalidApiKey(), when: "no key, or an unknown or revoked key" },
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
  /** A list's page parameters; `after`: what `starting_after` names and why pages do not shift. */
  const pageParams = (after: string) => ({ limit: pageLimit, starting_after: queryParam("starting_after", after) });
  registry.registerPath({
    method: "get",
    path: "/v1/transactions",
    operationId: "listTransactions",
    summary: "List transactions",
    description:
      "Not in the spec (issue 13, the merchant dashboard's list): the secret key's merchant's transactions of the key's mode, newest first, in pages (Stripe's `limit`, `starting_after`, `has_more`). Filters combine with AND (docs/rest-api.md, Lists and events).",
    security: secretKey,
    request: {
      query: z.object({
        ...pageParams(
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
          error: refusalOf(() => parseListQuery(TransactionListParams, { limit: "0" })),
          when: "an invalid, repeated or unknown query parameter; the message and `errors` name each",
        },
        {
          error: errors.unknownCursor("starting_after", "…"),
          when: "a `starting_after` that is no transaction of this merchant and mode",
        },
        {
          error: errors.secretKeyRequired(),
          when: "no key, a public key, a client secret, or an unknown or revoked secret key",
        },
        ...ANY,
      ]),
    },
  });

  const SECRET_ONLY: ErrorCase = {
    error: errors.secretKeyRequired(),
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
        ...pageParams("The `id` (`evt_…`) of the last event of the previous page; events written meanwhile do not shift the pages."),
        type: queryParam("type", `One of ${EVENT_TYPES.join(", ")}.`),
        transaction: queryParam("transaction", "Only the events of this transaction (its id)."),
      }),
    },
    responses: {
      200: limited(EventListResponse, "A page of events."),
      ...errorResponses([
        {
          error: refusalOf(() => parseListQuery(EventListParams, { type: "payment.unknown" })),
          when: "an invalid, repeated or unknown query parameter; the message and `errors` name each",
        },
        {
          error: errors.unknownCursor("starting_after", "…"),
          when: "a `starting_after` that is no event of this merchant and mode (or was pruned)",
        },
        SECRET_ONLY,
        ...ANY,
      ]),
    },
  });
  // Before /v1/events/{event_id}, which its path would also match.
  registry.registerPath({
    method: "get",
    path: "/v1/events/stream",
    operationId: "streamEvents",
    summary: "Stream events",
    description:
      "Not in the spec (issue 27; what `paygate listen` follows): Server-Sent Events, one per new event of the secret key's merchant and mode as any instance writes it (`id:` the event's id, `event:` its type, `data:` an `EventStreamMessage`: the Event with its exact signed `body`), and a `: heartbeat` comment when idle. A reconnecting client sends `Last-Event-ID` (an EventSource does) or `starting_after` and first gets every event written after that one (30 days kept). Open streams are capped per key and per instance (docs/configuration.md).",
    security: secretKey,
    request: {
      query: z.object({
        starting_after: queryParam("starting_after", "Resume after this event (`evt_…`): the events written since come first."),
        types: queryParam("types", `Only these event types, comma-separated: ${EVENT_TYPES.join(", ")}.`),
      }),
      headers: z.object({
        "Last-Event-ID": z
          .string()
          .optional()
          .meta({
            param: { name: "Last-Event-ID", in: "header" },
            description: "As `starting_after`, and preferred over it: what an EventSource resends.",
          }),
      }),
    },
    responses: {
      200: {
        description: "The stream: `text/event-stream`, open until the client leaves or the key stops working.",
        content: { "text/event-stream": { schema: EventStreamMessage } },
      },
      ...errorResponses([
        {
          error: refusalOf(() => parseListQuery(EventStreamParams, { types: "payment.unknown" })),
          when: "an unknown event type or query parameter, or a malformed cursor; the message names it",
        },
        {
          error: errors.unknownCursor("starting_after", "…"),
          when: "a `Last-Event-ID` or `starting_after` that is no event of this merchant and mode (or was pruned)",
        },
        { error: eventStreamErrors.tooManyForKey(5), when: "this key already holds the most open streams allowed" },
        { error: eventStreamErrors.full(1000), when: "this instance already serves the most open streams it holds" },
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
          error: errors.eventNotFound("…"),
          when: "an unknown or pruned id, another merchant's or the other mode's event",
        },
        ...WITH_PATH,
        ...ANY,
      ]),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/v1/merchant/pricing",
    operationId: "retrieveMerchantPricing",
    summary: "Retrieve the merchant's pricing",
    description:
      "Not in the spec (issue 29; docs/pricing.md): the secret key's merchant's spread and chosen price providers, with the providers this instance offers.",
    security: secretKey,
    responses: {
      200: limited(MerchantPricingResponse, "The merchant's pricing."),
      ...errorResponses([SECRET_ONLY, ...ANY]),
    },
  });
  registry.registerPath({
    method: "post",
    path: "/v1/merchant/pricing",
    operationId: "updateMerchantPricing",
    summary: "Set the merchant's pricing",
    description:
      "Not in the spec (issue 29; docs/pricing.md): sets the spread (percent off the market rate, in the merchant's favour) and/or the providers and their order; a field left out is unchanged. Applies to the next initiate of either mode (the providers to live mode only). Written to the merchant's audit log.",
    security: secretKey,
    request: { body: json(MerchantPricingBody, "The spread and/or the providers.") },
    responses: {
      200: limited(MerchantPricingResponse, "The merchant's pricing as set."),
      ...errorResponses([
        {
          error: errors.invalidPricing([{ field: "sources", message: "sources: unknown provider 'bitstamp'; the known ones are coingecko, kraken" }]),
          when: "a spread outside its bounds or not a decimal string, an unknown or repeated provider, fewer providers than the quorum, an unknown field; the message names each",
        },
        SECRET_ONLY,
        { error: errors.testKeyForLiveSetting("pricing"), when: "a test-mode secret key: pricing is what live payments use" },
        KEY_ROLE,
        ...WITH_BODY,
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
            error: errors.testModeOnly(),
            when: "a live secret key",
          },
          {
            error: errors.merchantInactive(),
            when: "an inactive merchant",
          },
          ...extra,
          ...WITH_PATH,
          ...WITH_BODY,
          ...ANY,
        ]),
      },
    });
  testHelper("payment", "Test mode: record a payment", "Records a confirmed receipt as the chain watcher would (docs/lifecycle.md).", [
    { ...INITIATE_VALIDATION, when: "an amount that is not a positive decimal within the coin's precision" },
    {
      error: errors.testPaymentBeforeInitiate(),
      when: "no coin chosen yet; nothing owed gives reason nothing_owed",
    },
  ]);
  testHelper("expire", "Test mode: expire now", "Ends the checkout window now: an open transaction becomes ABANDONED.", [
    { ...INITIATE_VALIDATION, when: "invalid JSON" },
    {
      error: errors.transactionClosed(),
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

  // The paths described in their own files, with this document's security schemes, parameters and errors.
  const shared = {
    secretKey,
    secretOnly: SECRET_ONLY,
    keyRole: KEY_ROLE,
    any: ANY,
    withPath: WITH_PATH,
    withBody: WITH_BODY,
    errorResponses,
    limited,
  };
  registerRefundPaths(registry, shared);
  registerWebhookEndpointPaths(registry, shared);

  // What the service POSTs to receivers (OpenAPI 3.1 `webhooks`): generated clients, the SDK's among them, type them.
  registry.registerWebhook({
    method: "post",
    path: "paymentEvent",
    operationId: "receivePaygateEvent",
    summary: "A webhook delivery",
    description:
      "Every event paygate sends to a merchant's webhook URL (docs/webhooks.md): a payment event or `webhook.test`, signed with Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`). Verify the signature over the raw body before trusting anything in it.",
    // No API key: the receiver checks the Standard Webhooks signature instead.
    security: [],
    request: { body: { description: "The event.", content: { "application/json": { schema: WebhookPayload } } } },
    responses: { 200: { description: "Any 2xx: delivered. Anything else (or no answer in time) is retried on the schedule." } },
  });
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "paygate",
      version: "1.0.0",
      description:
        "Crypto payments priced in fiat. The specification is docs/specification.md; errors, idempotency, modes and the lifecycle are described in docs/rest-api.md and docs/lifecycle.md. GraphQL is served at /graphql (schema.graphql). Pages on other origins may call initialize, retrieve and /graphql (CORS) with a public key; a secret key from a browser is refused with 403 (docs/rest-api.md, Browsers and CORS).",
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: "/", description: "This service" }],
  });
}
