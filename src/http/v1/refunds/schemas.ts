// A refund's response shapes and the refund routes' request bodies (issue 26; docs/refunds.md) as
// zod schemas: the core's refund object is typed by them and the OpenAPI document (openapi.ts beside
// this file) is generated from them.
import { z } from "zod";
import { nullable } from "../openapi-shared.ts";

const RefundState = z.enum(["pending", "succeeded", "canceled"]).meta({ id: "RefundState" });

/** A refund in short, in its transaction's reply. */
export const RefundBrief = z
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
          paid_from: nullable(
            z.object({ kind: z.literal("settlement_address"), address: z.string(), note: z.string() }).meta({
              description:
                "Set when the refund is not paid from the payment address: a payment made to a deposit forwarder is refunded from the merchant's settlement address (after the flush, or from the merchant's own funds there); evm_transaction.from is that address.",
            }),
          ),
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

export type RefundObject = z.infer<typeof Refund>;
export type RefundResponse = z.infer<typeof RefundResponse>;
export type RefundListResponse = z.infer<typeof RefundListResponse>;
export type TransactionRefundsResponse = z.infer<typeof TransactionRefundsResponse>;

export const RefundRequest = z
  .object({
    amount_kind: z
      .enum(["full", "overpaid", "custom"])
      .optional()
      .meta({ description: "full (default): all that was paid; overpaid: paid less the payment amount; custom: `amount` in `amount_currency`." }),
    amount: z.string().optional().meta({ description: "custom only: a positive decimal.", example: "25.00" }),
    amount_currency: z.string().optional().meta({ description: "custom only: the transaction's fiat (USD, NGN) or its payment coin (BTC, …)." }),
    valuation: z
      .enum(["locked_rate", "current_rate"])
      .optional()
      .meta({ description: "The rate that converts and values it: the transaction's locked quote (default) or the price now." }),
    fee_rate: z.string().nullable().optional().meta({ description: "BTC and LTC: sat/vB, 1 to 10000." }),
    deduct_network_fee: z
      .boolean()
      .optional()
      .meta({ description: "Take the network fee out of the amount (the customer receives less). Default false." }),
  })
  .meta({ id: "RefundRequest" });

export const MarkPaidRequest = z
  .object({
    tx_hash: z.string().meta({
      description: "The refund's chain transaction hash.",
      example: "0x9fc76417374aa880d4449a1f7f31ec597f00b1f6f3dd2d66f4c9c6c445836d8b",
    }),
  })
  .meta({ id: "MarkPaidRequest" });
