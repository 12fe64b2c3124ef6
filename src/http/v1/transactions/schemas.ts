// The REST API's response shapes as zod schemas: the presenters return their types (so a field
// the presenter adds or drops fails to compile), and the OpenAPI document is generated from them
// (openapi.ts), so neither can drift from what the service sends. Requests are the core's own
// schemas (src/core/transactions/requests.ts).
import { z } from "zod";
import type { ErrorCode } from "../../../core/errors.ts";
import { EVENT_TYPES, PAYMENT_EVENT_TYPES, REFUND_EVENT_TYPES } from "../../../core/events/payment-events.ts";
import { HTTP_STATUS } from "../../../edge/status.ts";
import { WEBHOOK_EVENT_TYPES } from "../../../core/events/catalog.ts";
import { TEST_EVENT_TYPE } from "../../../core/merchants/webhook-settings.ts";

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
      late_payment: nullable(
        z
          .object({
            accept_if_rate_moved_below: z.string().meta({ description: "Percent: a late payment is accepted when the market rate moved less." }),
            decision: nullable(
              z
                .object({
                  accepted: z
                    .boolean()
                    .meta({ description: "True: accepted (SUCCESSFUL); false: recorded as late (paid_late), left to the merchant." }),
                  locked_rate: z.string().meta({ description: "The market rate locked at initiate (before the spread)." }),
                  market_rate: z.string().meta({ description: "The market rate when the late payment was seen." }),
                  moved_percent: z.string().meta({ description: "How far it moved, percent." }),
                  checked_at: z.string().meta({ format: "date-time" }),
                })
                .meta({ description: "What the policy decided when a late payment covered the transaction; null until then." }),
            ),
          })
          .meta({ description: "The late-payment policy given at initialize; null: late payments are left to the merchant." }),
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
  rate: z.string().meta({
    description: "The locked price used: units of the transaction's fiat per coin, a decimal string (the market rate less the merchant's spread).",
    example: "65000",
  }),
  market_rate: z.string().meta({ description: "Extension: the market rate before the merchant's spread, a decimal string.", example: "65000" }),
  spread_percent: z
    .string()
    .meta({ description: 'Extension: the merchant\'s spread applied, percent, a decimal string; "0": none (docs/pricing.md).', example: "0" }),
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

const RefundState = z.enum(["pending", "succeeded", "canceled"]).meta({ id: "RefundState" });

/** A refund in short, in its transaction's reply. */
const RefundBrief = z
  .object({ id: z.string(), state: RefundState, amount: z.string(), created_at: z.string().meta({ format: "date-time" }) })
  .meta({ id: "RefundBrief" });

const coinDecimal = (description: string) => z.string().meta({ description: `${description} An exact decimal string in the payment coin.` });

/** A refund (issue 26; docs/refunds.md). */
export const Refund = z
  .object({
    id: z.string().meta({ example: "re_0b7f6c2e-3d0e-4a59-9a55-2f8a1d0c4e11" }),
    object: z.literal("refund"),
    transaction_id: z.string(),
    transaction_reference: z.string(),
    is_live: z.boolean(),
    state: RefundState,
    amount_kind: z.enum(["full", "overpaid", "custom"]),
    amount: coinDecimal("What leaves the refundable amount (a deducted network fee included)."),
    currency: z.string().meta({ description: "The payment coin's slug.", example: "LTC" }),
    network: nullable(z.string()),
    fiat_amount: z.string().meta({ description: "The amount's value in `fiat_currency` at `rate`." }),
    fiat_currency: z.string(),
    valuation: z
      .enum(["locked_rate", "current_rate"])
      .meta({ description: "Which rate valued it: the transaction's locked quote, or the price when the refund was made." }),
    rate: z.string().meta({ description: "Fiat per coin." }),
    deduct_network_fee: z.boolean(),
    network_fee: nullable(coinDecimal("The network fee as the refund rails estimated it; null until known.")),
    amount_to_customer: coinDecimal("What reaches the customer."),
    fee_rate: nullable(z.string().meta({ description: "sat/vB chosen for BTC and LTC." })),
    destination: nullable(z.string().meta({ description: "Where the refund goes; null until the customer claims it." })),
    destination_source: z.enum(["refund_address", "claim"]),
    refund_url: nullable(z.string().meta({ format: "uri", description: "The claim link, in the reply that made the refund only (shown once)." })),
    claim_expires_at: nullable(z.string().meta({ format: "date-time" })),
    claimed_at: nullable(z.string().meta({ format: "date-time" })),
    tx_hash: nullable(z.string()),
    paid_by: nullable(z.enum(["watcher", "merchant"])),
    verification: nullable(z.enum(["pending", "verified", "failed"]).meta({ description: "A merchant's tx_hash as checked on chain." })),
    payment: nullable(
      z
        .object({
          uri: z.string(),
          qr: z.string().meta({ description: "A data:image/png;base64 URL of a QR code of `uri`." }),
          psbt: nullable(z.string().meta({ description: "Unsigned BIP 174 PSBT, base64 (BTC, LTC)." })),
          network_fee: nullable(z.string()),
          evm_transaction: nullable(
            z.object({
              from: z.string(),
              to: z.string(),
              value: z.string(),
              data: z.string(),
              chainId: z.number().int(),
              gas: z.string(),
              type: z.union([z.literal(0), z.literal(2)]).meta({
                description:
                  "2: an EIP-1559 transaction, with maxFeePerGas and maxPriorityFeePerGas; 0: legacy, with gasPrice (a chain without base fee).",
              }),
              gasPrice: nullable(
                z.string().meta({ description: "Wei per gas for a legacy transaction (eth_gasPrice); null when no node answered." }),
              ),
              maxFeePerGas: nullable(z.string().meta({ description: "EIP-1559, wei per gas: 2 × the latest base fee + maxPriorityFeePerGas." })),
              maxPriorityFeePerGas: nullable(z.string().meta({ description: "EIP-1559, wei per gas: the node's suggested tip." })),
            }),
          ),
          gas_needed: nullable(z.object({ coin: z.string(), amount: z.string() })),
          key_origin_missing: nullable(z.string()),
          problem: nullable(z.string().meta({ description: "Why no transaction was built (the URI and QR alone are given then)." })),
        })
        .meta({ description: "How to pay it; null without a destination, once closed, or without refund rails." }),
    ),
    created_at: z.string().meta({ format: "date-time" }),
    updated_at: z.string().meta({ format: "date-time" }),
    succeeded_at: nullable(z.string().meta({ format: "date-time" })),
    canceled_at: nullable(z.string().meta({ format: "date-time" })),
  })
  .meta({ id: "Refund" });

export const RefundResponse = z.object({ status: z.literal("success"), data: Refund, meta: z.object({}) }).meta({ id: "RefundResponse" });
export const RefundListResponse = z
  .object({ status: z.literal("success"), data: z.array(Refund), has_more: z.boolean(), meta: z.object({}) })
  .meta({ id: "RefundListResponse" });
export const TransactionRefundsResponse = z
  .object({
    status: z.literal("success"),
    data: z.array(Refund),
    meta: z.object({ amount_refundable: nullable(z.string()) }),
  })
  .meta({ id: "TransactionRefundsResponse" });

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
    refunds: z
      .array(RefundBrief)
      .optional()
      .meta({ description: "The transaction's refunds, oldest first (not in the spec; docs/refunds.md). Only for a secret key." }),
    amount_refundable: nullable(z.string()).optional().meta({
      description:
        "What can still be refunded, in the payment currency: the confirmed amount paid less pending and succeeded refunds (not in the spec). Only for a secret key; null before a coin is chosen.",
    }),
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
    type: z
      .enum(EVENT_TYPES)
      .meta({ description: "A payment event (spec 6) or a refund event (refund.created, refund.succeeded, refund.canceled; docs/refunds.md)." }),
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

const isoTime = z.string().meta({ format: "date-time" });

/** The transaction in a payment event's body (spec 6), as it was when its state changed. */
const WebhookTransaction = z
  .object({
    reference: z.string(),
    merchant_name: z.string(),
    payment_currency: nullable(z.number().int().meta({ description: "The coin's id (spec 4's currency_id); null before initiate." })),
    payment_currency_name: nullable(z.string()),
    payment_currency_slug: nullable(z.string()),
    payment_network: nullable(z.string().meta({ description: "Not in spec 6: the network it is paid on." })),
    payment_network_name: nullable(z.string()),
    status: TransactionStatus,
    customer_email: z.string(),
    customer_name: z.string().meta({ description: 'The customer\'s name, "" when none was given.' }),
    payment_amount: nullable(z.number()),
    amount_paid: nullable(z.number()),
    description: nullable(z.string()),
    is_live: z.boolean(),
    created_at: isoTime,
    meta: z.record(z.string(), z.unknown()),
    receipts: z.array(Receipt),
    reversed_at: nullable(isoTime),
  })
  .meta({ id: "WebhookTransaction" });

/** The body of a payment event (payment.initiated, .pending, .received, .abandoned, .reversed). */
export const PaymentWebhook = z
  .object({ event: z.enum(PAYMENT_EVENT_TYPES), data: z.object({ transaction: WebhookTransaction }) })
  .meta({ id: "PaymentWebhook" });

/** The body of a refund event (refund.created, .succeeded, .canceled; docs/refunds.md): the refund and its transaction. */
export const RefundWebhook = z
  .object({
    event: z.enum(REFUND_EVENT_TYPES),
    data: z.object({
      refund: Refund,
      transaction: z.object({
        id: z.string(),
        reference: z.string(),
        merchant_name: z.string(),
        status: TransactionStatus,
        payment_currency: nullable(z.number().int()),
        payment_currency_slug: nullable(z.string()),
        payment_network: nullable(z.string()),
        customer_email: z.string(),
        payment_amount: nullable(z.number()),
        amount_paid: nullable(z.number()),
        is_live: z.boolean(),
        created_at: isoTime,
      }),
    }),
  })
  .meta({ id: "RefundWebhook" });

/** The body of `webhook.test` (the dashboard's and `paygate webhooks send-test`'s): no transaction, nothing to do. */
export const TestWebhook = z
  .object({
    event: z.literal(TEST_EVENT_TYPE),
    data: z.object({ merchant_name: z.string(), mode: z.enum(["test", "live"]), sent_at: isoTime, message: z.string() }),
  })
  .meta({ id: "TestWebhook" });

/**
 * What a webhook receiver gets: one of the bodies above, told apart by `event`; together they cover every
 * type of src/core/events/catalog.ts (checked below), so the SDK's union is that list.
 */
export const WebhookPayload = z.discriminatedUnion("event", [PaymentWebhook, RefundWebhook, TestWebhook]).meta({ id: "WebhookPayload" });
type CoveredTypes = z.infer<typeof WebhookPayload>["event"];
const _everyEventType: readonly CoveredTypes[] = WEBHOOK_EVENT_TYPES satisfies readonly CoveredTypes[];
void _everyEventType;

/** One message of GET /v1/events/stream: the Event, and its body as the exact bytes that are signed. */
export const EventStreamMessage = Event.extend({
  body: z.string().meta({
    description:
      "The webhook's JSON body as the exact text delivered and signed (`data` parsed): a forwarder (`paygate listen`) signs and sends these bytes.",
  }),
}).meta({ id: "EventStreamMessage" });

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
    hint: z.string().optional().meta({
      description:
        "Not in the spec: what was most likely meant, where the message is the spec's (a secret key sent to initialize, a key of the other mode).",
    }),
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
export type EventStreamMessage = z.infer<typeof EventStreamMessage>;
export type EventResponse = z.infer<typeof EventResponse>;
export type EventListResponse = z.infer<typeof EventListResponse>;
export type RefundObject = z.infer<typeof Refund>;
export type RefundResponse = z.infer<typeof RefundResponse>;
export type RefundListResponse = z.infer<typeof RefundListResponse>;
export type TransactionRefundsResponse = z.infer<typeof TransactionRefundsResponse>;

/** GET/POST /v1/merchant/pricing: the merchant's spread and price providers (docs/pricing.md). */
export const MerchantPricing = z
  .object({
    spread_percent: z.string().meta({
      description: 'Percent taken off the market rate in the merchant\'s favour at initiate (the customer sends more coin); "0": none.',
      example: "1.5",
    }),
    sources: z.array(z.string()).meta({
      description:
        "The providers the merchant chose, in its order; empty: the operator's (PAYGATE_PRICE_FEED). Live mode only: test mode is priced from the test rates.",
      example: ["coinbase", "kraken"],
    }),
    available_sources: z.array(z.string()).meta({ description: "The providers this instance offers (PAYGATE_PRICE_FEED), in the operator's order." }),
    minimum_sources: z.number().int().meta({ description: "How many providers a choice must name (the median's quorum; 1 otherwise)." }),
    spread_bounds: z
      .object({ min: z.string(), max: z.string() })
      .meta({ description: "The spread's bounds, percent (PAYGATE_MERCHANT_SPREAD_MAX_PERCENT)." }),
  })
  .meta({ id: "MerchantPricing" });

export const MerchantPricingBody = z
  .object({
    spread: z
      .string()
      .nullable()
      .optional()
      .meta({ description: 'Percent, a decimal string within spread_bounds; null or "0": none. Absent: unchanged.', example: "1.5" }),
    sources: z
      .array(z.string())
      .nullable()
      .optional()
      .meta({
        description: "Providers of available_sources, in the order to ask them; null or []: the operator's. Absent: unchanged.",
        example: ["coinbase", "kraken"],
      }),
  })
  .meta({ id: "MerchantPricingBody" });

export const MerchantPricingResponse = z
  .object({ status: z.literal("success"), data: MerchantPricing, meta: z.object({}) })
  .meta({ id: "MerchantPricingResponse" });
export type MerchantPricingResponse = z.infer<typeof MerchantPricingResponse>;
