// createPaygate: paygate's REST API through openapi-fetch, typed by the OpenAPI document the service
// serves (src/generated/openapi.ts), its GraphQL API through typed documents, and webhook verification.
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { print } from "graphql";
import createClient, { type Client } from "openapi-fetch";
import { PaygateApiError, PaygateGraphQLError } from "./errors.ts";
import type { components, operations, paths } from "./generated/openapi.ts";
import { verifyWebhook, type WebhookEvent, type WebhookHeaders } from "./webhooks.ts";

type Schemas = components["schemas"];
type JsonBody<O> = O extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;
type Query<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

export type InitializeTransactionBody = JsonBody<operations["initializeTransaction"]>;
export type InitiatePaymentBody = JsonBody<operations["initiatePayment"]>;
export type TransactionListQuery = Query<operations["listTransactions"]>;
export type EventListQuery = Query<operations["listEvents"]>;
export type InitializedTransaction = Schemas["InitializeResponse"]["data"];
export type Transaction = Schemas["TransactionResponse"]["data"];
export type TransactionList = Schemas["TransactionListResponse"];
export type Event = Schemas["Event"];
export type EventList = Schemas["EventListResponse"];

export interface PaygateOptions {
  /** Where paygate serves its API, e.g. https://pay.example (PAYGATE_PUBLIC_URL). */
  baseUrl: string;
  /** A secret key (sec_test_…, sec_live_…): server side only; every method but initialize. */
  secretKey?: string;
  /**
   * A public key (pub_test_…, pub_live_…): what initialize takes (spec 4); alone, it also retrieves, as a
   * browser may. A server gives both.
   */
  publicKey?: string;
  /** Another fetch (a test's, or one with a proxy); the global fetch by default. */
  fetch?: typeof globalThis.fetch;
}

/** Sent with each request: an Idempotency-Key makes a retried initialize or initiate answer as the first did. */
export interface RequestOptions {
  idempotencyKey?: string;
}

export interface Paygate {
  /** The generated REST client (openapi-fetch) for every route of the OpenAPI document, typed by it. */
  rest: Client<paths>;
  transactions: {
    initialize(body: InitializeTransactionBody, options?: RequestOptions): Promise<InitializedTransaction>;
    initiate(id: string, body: InitiatePaymentBody, options?: RequestOptions): Promise<Transaction>;
    retrieve(id: string): Promise<Transaction>;
    list(query?: TransactionListQuery): Promise<TransactionList>;
  };
  events: {
    list(query?: EventListQuery): Promise<EventList>;
    retrieve(id: string): Promise<Event>;
  };
  /** Runs a typed document (src/generated/graphql.ts, or your own from graphql-codegen) on POST /graphql. */
  graphql<R, V extends Record<string, unknown>>(document: TypedDocumentNode<R, V>, variables: V): Promise<R>;
  webhooks: {
    /** verifyWebhook: the delivery's event, typed, or a WebhookVerificationError. */
    verify(body: string | Uint8Array, headers: WebhookHeaders, secret: string): WebhookEvent;
  };
}

/**
 * Initialize's fields that loosen what the merchant accepts: paygate takes them only from the
 * merchant's server, with the secret key in the header and the public key in the body (issue 41).
 */
const MERCHANT_RULES = ["expires_in", "underpayment_tolerance", "confirmations", "late_payment"] as const;

/** openapi-fetch's answer: the data of a success, else a PaygateApiError with paygate's message. */
function unwrap<D extends { data?: unknown }>(result: { data?: D; error?: unknown; response: Response }): D {
  if (result.data === undefined) throw new PaygateApiError(result.response.status, result.error);
  return result.data;
}

export function createPaygate(options: PaygateOptions): Paygate {
  const key = options.secretKey ?? options.publicKey;
  if (!key) throw new TypeError("createPaygate needs a secretKey (sec_…) or a publicKey (pub_…)");
  if (options.secretKey !== undefined && !options.secretKey.startsWith("sec_"))
    throw new TypeError("secretKey must be a secret key: sec_test_… or sec_live_…");
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const fetcher = options.fetch ?? globalThis.fetch;
  const headers = { authorization: `Bearer ${key}` };
  const rest = createClient<paths>({ baseUrl, headers, fetch: (request: Request) => fetcher(request) });
  const idempotency = (o?: RequestOptions) => (o?.idempotencyKey === undefined ? {} : { "Idempotency-Key": o.idempotencyKey });
  // Initialize is the public key's (spec 4): a secret key alone is refused there with paygate's message.
  const initializeKey = options.publicKey ?? key;
  // The merchant's rules need both keys: the secret one proves the merchant, the public one names merchant and mode.
  const merchantKeys =
    options.secretKey !== undefined && options.publicKey !== undefined ? { secret: options.secretKey, public: options.publicKey } : null;

  return {
    rest,
    transactions: {
      async initialize(body, o) {
        const setsRules = MERCHANT_RULES.some((field) => body[field] !== undefined && body[field] !== null);
        const asMerchant = merchantKeys !== null && setsRules && body.payment_link === undefined ? merchantKeys : null;
        const result = await rest.POST("/v1/transaction", {
          body: asMerchant ? { ...body, public_key: body.public_key ?? asMerchant.public } : body,
          params: { header: idempotency(o) },
          headers: { authorization: `Bearer ${asMerchant ? asMerchant.secret : initializeKey}` },
        });
        return unwrap(result).data;
      },
      async initiate(id, body, o) {
        const result = await rest.POST("/v1/transaction/{transaction_id}/pay", {
          body,
          params: { path: { transaction_id: id }, header: idempotency(o) },
        });
        return unwrap(result).data;
      },
      async retrieve(id) {
        return unwrap(await rest.GET("/v1/transaction/{transaction_id}", { params: { path: { transaction_id: id } } })).data;
      },
      async list(query) {
        return unwrap(await rest.GET("/v1/transactions", { params: { query } }));
      },
    },
    events: {
      async list(query) {
        return unwrap(await rest.GET("/v1/events", { params: { query } }));
      },
      async retrieve(id) {
        return unwrap(await rest.GET("/v1/events/{event_id}", { params: { path: { event_id: id } } })).data;
      },
    },
    async graphql(document, variables) {
      const response = await fetcher(`${baseUrl}/graphql`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json", accept: "application/graphql-response+json, application/json" },
        body: JSON.stringify({ query: print(document), variables }),
      });
      const text = await response.text();
      let answer: { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] };
      try {
        answer = JSON.parse(text);
      } catch {
        throw new PaygateApiError(response.status, text);
      }
      if (answer.errors && answer.errors.length > 0) throw new PaygateGraphQLError(response.status, answer.errors);
      if (answer.data === undefined || answer.data === null) throw new PaygateGraphQLError(response.status, []);
      return answer.data as never;
    },
    webhooks: { verify: verifyWebhook },
  };
}
