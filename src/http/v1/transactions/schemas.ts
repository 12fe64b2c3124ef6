// The transaction's response shapes (tables 2.1 and 2.2) as zod schemas: the presenters return their
// types (so a field the presenter adds or drops fails to compile), and the OpenAPI document is
// generated from them (openapi.ts beside this file), so neither can drift from what the service sends.
// Requests are the core's own schemas (src/core/transactions/requests.ts).
import { z } from "zod";
import { CRYPTO_ID_NAMES } from "../../../core/money/currencies.ts";
import { nullable } from "../openapi-shared.ts";
import { RefundBrief } from "../refunds/schemas.ts";
import { NETWORK_SLUGS } from "../../../core/networks.ts";

const decimalNumber = (description: string) => z.number().meta({ description: `${description} A JSON number printed from an exact decimal.` });

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
  payment_currency: nullable(
    z
      .number()
      .int()
      .meta({ description: `Crypto currency id: ${CRYPTO_ID_NAMES}.` }),
  ),
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

export const Receipt = z
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
        description: `The network the payment currency is paid on (not in the spec): ${NETWORK_SLUGS.join(", ")}; null until initiated. A transfer on another network does not reach the address.`,
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

/** A page of a list (GET /v1/transactions): newest first, Stripe's `has_more`. */
export const TransactionListResponse = z
  .object({
    status: z.literal("success"),
    data: z.array(InitiatedTransaction).meta({ description: "Newest first; each as GET /v1/transaction/{transaction_id} shows it to a secret key." }),
    has_more: z.boolean().meta({ description: "Whether another page follows: ask for it with `starting_after` = the last item's `id`." }),
    meta: z.object({}).meta({ description: "Empty: a list has no `meta` of its own." }),
  })
  .meta({ id: "TransactionListResponse" });

export type InitializedTransaction = z.infer<typeof InitializedTransaction>;
export type InitiatedTransaction = z.infer<typeof InitiatedTransaction>;
export type TransactionListResponse = z.infer<typeof TransactionListResponse>;
