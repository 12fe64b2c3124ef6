// The ledger's response shapes (issue 40, goal 5; docs/ledger.md) as zod schemas: the core's views are
// typed by them and the OpenAPI document (openapi.ts) is generated from them.
import { z } from "zod";
import { LEDGER_KINDS } from "../../../core/records/ledger.ts";
import { nullable } from "../openapi-shared.ts";

const coinDecimal = (description: string) => z.string().meta({ description: `${description} An exact decimal string in the coin.` });
const fiatDecimal = (description: string) => nullable(z.string().meta({ description: `${description} An exact decimal string in fiat_currency.` }));

export const LedgerEntry = z
  .object({
    id: z.string().meta({
      description:
        "`<kind>:<source id>`: `receipt:42`, `refund:re_…`, `consolidation:co_…`, `flush:<item>:<coin>` (one payment's forwarder and coin in a flush), `sweep:sw_…`.",
      example: "receipt:42",
    }),
    object: z.literal("ledger_entry"),
    kind: z.enum(LEDGER_KINDS).meta({
      id: "LedgerEntryKind",
      description: "flush: what a confirmed flush moved out of one payment's forwarder; sweep: a recorded sweep off a payment address.",
    }),
    direction: z.enum(["in", "out", "internal"]).meta({ description: "internal: moved between the merchant's own addresses." }),
    is_live: z.boolean(),
    occurred_at: z.string().meta({
      format: "date-time",
      description: "A receipt: first seen; a refund: succeeded; a consolidation or a flush: confirmed; a sweep: its block's time.",
    }),
    coin: z.string().meta({ example: "LTC" }),
    network: z.string().meta({ example: "litecoin" }),
    amount: coinDecimal(
      "What arrived, what reached the customer, or what reached the consolidation's or the forwarder's destination; never negative.",
    ),
    fee: nullable(
      coinDecimal(
        "The network fee the merchant paid, in fee_coin; null when not recorded or not the merchant's: a receipt's fee is the payer's, a flush's the operator's fee payer's (on the flush).",
      ),
    ),
    fee_coin: z.string().meta({ description: "The coin the fee is paid in: the entry's coin; a flush's and a sweep's is the network's coin." }),
    tx_hash: nullable(z.string()),
    address: nullable(z.string().meta({ description: "The payment address, or the refund's, consolidation's or forwarder's destination." })),
    transaction_id: nullable(z.string()),
    reference: nullable(z.string()),
    description: nullable(z.string().meta({ description: "The transaction's description, as its integrator gave it." })),
    fiat_currency: nullable(z.string().meta({ description: "The transaction's fiat; null for a consolidation (many payments)." })),
    locked_rate: nullable(z.string().meta({ description: "Fiat per coin: the transaction's locked quote." })),
    fiat_value_at_locked_rate: fiatDecimal("amount × locked_rate, rounded down to the fiat's decimals."),
    rate_at_time: nullable(
      z.string().meta({ description: "Fiat per coin when it happened, if recorded: a refund's valuation rate. Receipts record none (null)." }),
    ),
    fiat_value_at_time: fiatDecimal("amount × rate_at_time, rounded down to the fiat's decimals."),
    top_up_tx_hash: nullable(z.string().meta({ description: "A sweep's top-up from the merchant's fee wallet; null for every other entry." })),
    top_up_fee: nullable(z.string().meta({ description: "That top-up's own fee, in fee_coin (the merchant's own coin); null without one." })),
  })
  .meta({ id: "LedgerEntry" });

export const LedgerEntryListResponse = z
  .object({ status: z.literal("success"), data: z.array(LedgerEntry), has_more: z.boolean(), meta: z.object({}) })
  .meta({ id: "LedgerEntryListResponse" });

export const LedgerTotals = z
  .object({
    coin: z.string(),
    network: z.string(),
    receipts: z.number().int(),
    received: coinDecimal("Sum of the receipts."),
    refunds: z.number().int(),
    refunded: coinDecimal("Sum of what reached customers."),
    refund_fees: coinDecimal("Sum of the refunds' recorded network fees."),
    consolidations: z.number().int(),
    consolidated: coinDecimal("Sum of what consolidations moved to their destinations."),
    consolidation_fees: coinDecimal("Sum of the consolidations' network fees."),
    flushes: z.number().int().meta({ description: "Flush entries: payments' forwarders emptied in this coin." }),
    flushed: coinDecimal("Sum of what flushes moved to settlement addresses (internal: net does not change)."),
    sweeps: z.number().int().meta({ description: "Recorded sweeps of this coin (docs/settlement.md, Recording sweeps)." }),
    swept: coinDecimal("Sum of what sweeps moved to their destinations (internal: net does not change by it)."),
    sweep_fees: coinDecimal("On the network's coin's line: the gas every sweep on the network paid from its payment address."),
    own_sweep_fees: coinDecimal("On the network's coin's line: the fees of the top-ups the merchant's fee wallet sent."),
    net: coinDecimal(
      "received − refunded − refund_fees − consolidation_fees − sweep_fees − own_sweep_fees: what the merchant's own addresses hold from these entries.",
    ),
  })
  .meta({ id: "LedgerTotals" });

export const LedgerTotalsResponse = z
  .object({
    status: z.literal("success"),
    data: z.object({
      is_live: z.boolean(),
      from: nullable(z.string().meta({ format: "date-time" })),
      to: nullable(z.string().meta({ format: "date-time" })),
      totals: z.array(LedgerTotals),
    }),
    meta: z.object({}),
  })
  .meta({ id: "LedgerTotalsResponse" });

export type LedgerEntryListResponse = z.infer<typeof LedgerEntryListResponse>;
export type LedgerTotalsResponse = z.infer<typeof LedgerTotalsResponse>;
