// The REST API's response shapes as zod schemas: the presenters return their types (so a field
// the presenter adds or drops fails to compile), and the OpenAPI document is generated from them
// (openapi.ts), so neither can drift from what the service sends. Requests are the core's own
// schemas (src/core/transactions/requests.ts).
import { z } from "zod";
import type { ErrorCode } from "../core/errors.ts";
import { HTTP_STATUS } from "../edge/status.ts";

const decimalNumber = (description: string) => z.number().meta({ description: `${description} A JSON number printed from an exact decimal.` });
const nullable = <T extends z.ZodType>(schema: T) => schema.nullable();

export const TransactionStatus = z.enum(["INITIATED", "PENDING", "SUCCESSFUL", "ABANDONED"]).meta({ id: "TransactionStatus" });

export const PaymentState = z
  .enum(["awaiting_payment", "confirming", "underpaid", "paid", "overpaid", "expired", "paid_late", "reversed"])
  .meta({ id: "PaymentState", description: "How far the payment has come (docs/lifecycle.md)." });

const Merchant = z.object({ id: z.number().int(), name: z.string() }).meta({ id: "Merchant" });

const common = {
  id: z
    .string()
    .meta({ description: "The transaction's id (a UUID): the `transaction_id` of the paths.", example: "edea39cc-914e-4567-be44-8e519ef7ea5f" }),
  reference: z.string().meta({ description: "The merchant's reference (`bq_…`).", example: "bq_weIErhBvfTY04xvBGUS19QiU" }),
  amount_paid: nullable(decimalNumber("Confirmed amount received, in the payment currency; null until a payment is confirmed.")),
  status: TransactionStatus,
  description: nullable(z.string()),
  initialized_amount: decimalNumber("The fiat amount given at initialize."),
  payment_amount: nullable(decimalNumber("The crypto amount to pay; null until initiated.")),
  payment_address: nullable(z.string()),
  payment_currency: nullable(z.number().int().meta({ description: "Crypto currency id: 3 USDT, 4 BTC, 5 BNB, 6 ETH, 7 LTC." })),
  is_live: z.boolean(),
  merchant: Merchant,
  expires_at: nullable(
    z.string().meta({ format: "date-time", description: "When the transaction is abandoned unless it moves on (not in the spec)." }),
  ),
  return_url: nullable(
    z.string().meta({ format: "uri", description: "Where the hosted checkout sends the customer back, as given at initialize (not in the spec)." }),
  ),
  cancel_url: nullable(
    z.string().meta({
      format: "uri",
      description: 'The hosted checkout\'s "back to the shop" link before paying, as given at initialize (not in the spec).',
    }),
  ),
  locale: nullable(
    z.string().meta({
      description:
        "The hosted checkout's language as given at initialize (en, fr, es, pt, de, ar); null: the customer's browser decides (not in the spec).",
    }),
  ),
  policies: z
    .object({
      expires_in: nullable(z.number().int().meta({ description: "Seconds the checkout stays payable once initiated; null: the operator's window." })),
      underpayment_tolerance: nullable(
        z.string().meta({ description: "Percent a payment may fall short and still complete, an exact decimal; null: the operator's." }),
      ),
      confirmations: nullable(
        z
          .record(z.string(), z.number().int())
          .meta({ description: 'Confirmations by coin, e.g. {"BTC": 2}; null, or a coin not named: the operator\'s.' }),
      ),
    })
    .meta({ id: "PaymentPolicies", description: "The per-payment policies given at initialize (not in the spec; docs/lifecycle.md)." }),
};

const clientSecret = z.string().meta({
  description:
    "The transaction's client secret (`<id>_secret_<32 base62>`, Stripe's model): the customer's browser reads and pays this one transaction with it (`Authorization: Bearer …`). Not in the spec.",
  example: "edea39cc-914e-4567-be44-8e519ef7ea5f_secret_4fQm1cX8RkVt0ZsWb3LhN9aPyE2uJ7Dg",
});

const checkoutUrl = z.string().meta({
  format: "uri",
  description:
    "The hosted checkout page of this transaction: `{PAYGATE_PUBLIC_URL}/checkout/<client secret>` (not in the spec). It holds the client secret, so it is shown where the client secret is.",
  example: "https://pay.example.com/checkout/edea39cc-914e-4567-be44-8e519ef7ea5f_secret_4fQm1cX8RkVt0ZsWb3LhN9aPyE2uJ7Dg",
});

/** Table 2.1: the transaction as initialize returns it. */
export const InitializedTransaction = z
  .object({
    ...common,
    initialized_currency: z.number().int().meta({ description: "Fiat currency id: 1 USD, 2 NGN." }),
    client_secret: clientSecret,
    checkout_url: checkoutUrl,
  })
  .meta({ id: "InitializedTransaction", description: "Table 2.1 of the specification." });

const Quote = z.object({
  rate: z.string().meta({ description: "The locked price: units of the transaction's fiat per coin, a decimal string.", example: "65000" }),
  source: z.string().nullable(),
  quoted_at: z.string().meta({ format: "date-time" }).nullable(),
  sources: z
    .array(
      z.object({
        provider: z.string().meta({ description: "The price provider: coingecko, kraken, coinbase, binance.", example: "coinbase" }),
        rate: z.string().nullable().meta({ description: "Its rate, a decimal string; null when it gave none." }),
        quoted_at: z.string().meta({ format: "date-time" }).nullable(),
        used: z.boolean().meta({ description: "Whether the locked rate is the median of this provider's rate and the others used." }),
        reason: z.string().nullable().meta({
          description:
            "Why it was left out: timeout, unreachable, rate_limited, forbidden, http_error, garbage, no_price, stale, unsupported, out_of_spread; null when used.",
        }),
        detail: z
          .string()
          .nullable()
          .meta({ description: "Its distance from the median, its failure, or how its rate was reached (a conversion through USDT)." }),
      }),
    )
    .optional()
    .meta({ description: "Extension: present when the rate is the median of several providers (PAYGATE_PRICE_STRATEGY=median)." }),
});

const PaymentProgress = z.object({
  state: PaymentState,
  amount_confirmed: z.string().meta({ description: "A decimal string." }),
  amount_unconfirmed: z.string().meta({ description: "A decimal string." }),
  confirmations: nullable(
    z.number().int().meta({ description: "Confirmations of the least-confirmed payment still short of them; null when none waits." }),
  ),
  required_confirmations: nullable(
    z.number().int().meta({ description: "Confirmations a payment needs on this chain; null until a payment is seen." }),
  ),
});

const Receipt = z
  .object({
    key: z.string().meta({
      description:
        "Stable within the transaction: `txid:vout` (BTC, LTC), `txHash:logIndex` (USDT), `txHash` (an ETH or BNB transfer), `balance:internal:confirmed`/`balance:internal:unconfirmed` (ETH or BNB received inside contract calls: seen through the balance only), `test_…:0` (the test helper).",
      example: "9f2c…e1:0",
    }),
    tx_hash: nullable(z.string().meta({ description: "The chain transaction; null for a balance receipt." })),
    output_index: nullable(z.number().int().meta({ description: "The output of the transaction paying the address (BTC, LTC); null elsewhere." })),
    log_index: nullable(z.number().int().meta({ description: "The token Transfer log (USDT); null elsewhere." })),
    amount: z.string().meta({ description: "In coin units, exact: a decimal string.", example: "0.00153847" }),
    block_height: nullable(z.number().int().meta({ description: "The block that holds it; null while unconfirmed (and for test helper receipts)." })),
    confirmations: z.number().int().meta({
      description:
        "0 while unconfirmed; of a CONFIRMED receipt, as last recorded (at least the number required: the watcher stops rewriting it then).",
    }),
    state: z.enum(["SEEN", "CONFIRMED", "DROPPED", "REVERSED"]).meta({
      description:
        "SEEN: short of its confirmations (counted in `amount_unconfirmed`); CONFIRMED: counted in `amount_paid`; DROPPED: gone from the chain (reorganised away or replaced), no longer counted; REVERSED: counted in a SUCCESSFUL payment, then gone from the chain (a reorganisation, a double spend, a replacement).",
    }),
    replaceable: z.boolean().meta({
      description:
        "Unconfirmed and signalling replaceability (BIP 125) when last seen: where 0 confirmations are accepted (BTC, LTC), such a payment is not counted before its first confirmation.",
    }),
    source: z.string().meta({ description: "`chain`: a watcher saw it; `test_helper`: recorded by the test helper." }),
    first_seen_at: z.string().meta({ format: "date-time" }),
    updated_at: z.string().meta({ format: "date-time", description: "When its confirmations or state last changed." }),
  })
  .meta({ id: "Receipt", description: "One payment that arrived at the transaction's address (not in the spec)." });

/** Table 2.2: the transaction as initiate (and retrieve, and the test helpers) return it. */
export const InitiatedTransaction = z
  .object({
    ...common,
    initialized_currency: nullable(z.string().meta({ description: "Fiat currency slug (USD, NGN): a slug here, an id in table 2.1." })),
    qrCode: nullable(z.string().meta({ description: "A data:image/png;base64 URL of a QR code of the payment URI." })),
    payment_uri: nullable(
      z
        .string()
        .meta({ description: "The payment URI the QR code holds (BIP21, EIP-681); not in the spec.", example: "bitcoin:tb1q…?amount=0.00153847" }),
    ),
    payment_network: nullable(
      z.string().meta({
        description:
          "The network the payment currency is paid on (not in the spec): ethereum, bsc, tron, bitcoin or litecoin; null until initiated. A transfer on another network does not reach the address.",
        example: "bsc",
      }),
    ),
    payment_network_name: nullable(
      z.string().meta({ description: "The network's display name in the transaction's mode (not in the spec).", example: "BNB Smart Chain testnet" }),
    ),
    amount_owed: nullable(
      z.number().meta({
        description:
          "What the customer still has to send: payment_amount less what arrived, confirmed or not, never below 0; null until initiated (not in the spec).",
      }),
    ),
    meta: z.object({ refund_address: z.string().nullable(), payment: PaymentProgress.nullable(), quote: Quote.nullable() }),
    client_secret: clientSecret.optional().meta({ description: "Only for a secret-key or client-secret caller; absent for a public key." }),
    checkout_url: checkoutUrl.optional().meta({ description: "Where the client secret is shown; absent for a public key." }),
    receipts: z.array(Receipt).meta({
      description: "What arrived at `payment_address`, first seen first, dropped ones too (not in the spec); `[]` until a payment is seen.",
    }),
    reversed_at: nullable(
      z.string().meta({
        format: "date-time",
        description:
          "When the payment of a SUCCESSFUL transaction left the chain after it was counted (a reorganisation, a double spend): the `payment.reversed` event (not in the spec). The status stays SUCCESSFUL; null when never reversed.",
      }),
    ),
  })
  .meta({ id: "InitiatedTransaction", description: "Table 2.2 of the specification." });

/** The merchant's own `meta`, echoed: `{}` when none was given. */
const RequestMeta = z.record(z.string(), z.unknown()).meta({ description: "The `meta` object given at initialize; `{}` when omitted." });

const envelope = <T extends z.ZodType>(data: T, id: string) => z.object({ status: z.literal("success"), data, meta: RequestMeta }).meta({ id });

export const InitializeResponse = envelope(InitializedTransaction, "InitializeResponse");
export const TransactionResponse = envelope(InitiatedTransaction, "TransactionResponse");

const ERROR_CODES = Object.keys(HTTP_STATUS) as [ErrorCode, ...ErrorCode[]];

/** A page of a list (GET /v1/transactions): newest first, Stripe's `has_more`. */
export const TransactionListResponse = z
  .object({
    status: z.literal("success"),
    data: z.array(InitiatedTransaction).meta({ description: "Newest first; each as GET /v1/transaction/{transaction_id} shows it to a secret key." }),
    has_more: z.boolean().meta({ description: "Whether another page follows: ask for it with `starting_after` = the last item's `id`." }),
    meta: z.object({}).meta({ description: "Empty: a list has no `meta` of its own." }),
  })
  .meta({ id: "TransactionListResponse" });

/** An event of the Events API (Stripe's Event object, in this API's words). */
export const Event = z
  .object({
    id: z.string().meta({ description: "`evt_…`: the `webhook-id` header its deliveries carried.", example: "evt_3WbHk8Zq1RmT0xYvN5cLpA7d" }),
    type: z.enum(["payment.initiated", "payment.pending", "payment.received", "payment.abandoned", "payment.reversed"]),
    created_at: z.string().meta({ format: "date-time", description: "When the state change (and so the event) was written." }),
    transaction: z.string().meta({ description: "The id of the transaction whose state changed." }),
    is_live: z.boolean(),
    data: z.record(z.string(), z.unknown()).meta({
      description:
        "The webhook's JSON body exactly as delivered (and signed) on every attempt (docs/webhooks.md): `{event, data: {transaction}}`, the transaction with spec 6's fields and `receipts` (each a `Receipt`, as the transaction shows them) as they were when its state changed.",
    }),
    delivery: z.object({
      state: z.enum(["pending", "delivered", "failed", "skipped"]).meta({
        description: "pending: waiting for an attempt; delivered; failed: every retry failed; skipped: no webhook URL for its mode.",
      }),
      attempts: z.number().int().meta({ description: "Delivery attempts so far." }),
      next_attempt_at: z.string().meta({ format: "date-time" }).nullable().meta({ description: "When it is tried next; null unless pending." }),
      delivered_at: z.string().meta({ format: "date-time" }).nullable(),
    }),
  })
  .meta({ id: "Event" });

export const EventResponse = z.object({ status: z.literal("success"), data: Event, meta: z.object({}) }).meta({ id: "EventResponse" });

export const EventListResponse = z
  .object({
    status: z.literal("success"),
    data: z.array(Event).meta({ description: "Newest first (commit order)." }),
    has_more: z.boolean().meta({ description: "Whether another page follows: ask for it with `starting_after` = the last item's `id`." }),
    meta: z.object({}),
  })
  .meta({ id: "EventListResponse" });

export const ErrorResponse = z
  .object({
    status: z.literal("error"),
    message: z.string().meta({ description: "The specification's message where it fixes one; otherwise what went wrong and what to do." }),
    code: z.enum(ERROR_CODES).meta({ description: "The broad class; it decides the HTTP status." }),
    reason: z.string().meta({ description: "The narrower cause, for callers that branch on it (docs/rest-api.md, Errors)." }),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).meta({ description: "Field problems; empty otherwise." }),
  })
  .meta({ id: "Error" });

export const HealthResponse = z
  .object({
    status: z.enum(["ok", "error"]),
    database: z.enum(["ok", "unreachable"]),
    migrations: z.enum(["applied", "missing", "unknown"]),
    pending: z.array(z.string()).optional(),
  })
  .meta({ id: "Readiness" });

export type InitializedTransaction = z.infer<typeof InitializedTransaction>;
export type InitiatedTransaction = z.infer<typeof InitiatedTransaction>;
export type TransactionListResponse = z.infer<typeof TransactionListResponse>;
export type Event = z.infer<typeof Event>;
export type EventResponse = z.infer<typeof EventResponse>;
export type EventListResponse = z.infer<typeof EventListResponse>;
