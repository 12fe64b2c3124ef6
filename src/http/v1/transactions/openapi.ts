// The OpenAPI description of spec 4.1 and 4.2 and of the transactions' reads (routes.ts beside it),
// assembled into the document by src/http/openapi.ts.
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { errors } from "../../../core/errors.ts";
import { CRYPTO_ID_OR_SLUG, CRYPTO_ID_RANGE } from "../../../core/money/currencies.ts";
import { paymentAddressTaken, refuseSharedKeyAtInitiate } from "../../../core/merchants/shared-addresses.ts";
import { parseListQuery } from "../../../core/lists.ts";
import { KYB_REFUSALS } from "../../../core/records/kyb.ts";
import { SUPPORTED_CURRENCIES } from "../../../core/transactions/initiate.ts";
import { TransactionListParams } from "../../../core/transactions/list.ts";
import { InitializeBody, InitiateBody } from "../../../core/transactions/requests.ts";
import {
  ANY,
  BEARER,
  type ErrorCase,
  errorResponses,
  idempotencyKeyParam,
  json,
  limited,
  pageParams,
  queryParam,
  refusalOf,
  secretKey,
  WITH_BODY,
  WITH_PATH,
} from "../openapi-shared.ts";
import { InitializeResponse, TransactionListResponse, TransactionResponse, TransactionStatus } from "./schemas.ts";

/** Initialize's credential: a public key, or none (a payment link in the body). */
const publicKey: Record<string, string[]>[] = [{ [BEARER]: [] }, {}];

/** A secret-key route on one transaction (the test helpers' too): its credential and id failures. */
export const SECRET: ErrorCase[] = [
  {
    error: errors.invalidSecretKey(),
    when: "no key, a public key, or an unknown or revoked secret key",
  },
  {
    error: errors.transactionNotFound("…"),
    when: "an unknown id, another merchant's or the other mode's transaction",
  },
];
export const INITIATE_VALIDATION: ErrorCase = {
  error: errors.initiateValidation([]),
  when: "missing or invalid fields, or invalid JSON",
};

export const transactionId = z.object({
  transaction_id: z
    .string()
    .meta({ param: { name: "transaction_id", in: "path" }, description: "The transaction's `data.id` (a UUID), not its `bq_` reference." }),
});
const idempotencyKey = idempotencyKeyParam(
  "1–255 visible ASCII characters; a retry with the same key answers as the first request did (docs/rest-api.md, Requests).",
);

export function registerTransactionPaths(registry: OpenAPIRegistry): void {
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
          when: `a currency_id outside ${CRYPTO_ID_RANGE}`,
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
          error: refusalOf(() =>
            refuseSharedKeyAtInitiate({ coin: "USDT", network: "bsc", isLive: false, extendedPublicKey: "xpub…", walletId: 2 }, [
              { walletId: 1, currencyId: 3, network: "ethereum", extendedPublicKey: "xpub…" },
            ]),
          ),
          when: "two EVM wallets of the merchant in the mode have one account key (set before that was refused): neither hands out an address until one has its own; `hint` says which to change",
        },
        {
          error: paymentAddressTaken("USDT", "bsc", false),
          when: "the address the wallet hands out is another payment's in the same coin (a key another merchant's wallet has too)",
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
        payment_currency: queryParam("payment_currency", `The coin chosen: ${CRYPTO_ID_OR_SLUG}.`),
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
}
