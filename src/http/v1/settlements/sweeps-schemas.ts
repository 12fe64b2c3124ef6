// Recorded sweeps' response shapes and request body (issue 40; docs/settlement.md, Recording sweeps) as
// zod schemas: the core's sweep object is typed by them and the OpenAPI document is generated from them.
import { z } from "zod";
import { SWEEPS_PER_REQUEST } from "../../../core/settlement/sweeps.ts";
import { nullable } from "../openapi-shared.ts";

const hash = z.string().meta({ description: "A transaction hash (0x and 64 hexadecimal digits).", example: `0x${"ab".repeat(32)}` });

export const Sweep = z
  .object({
    id: z.string().meta({ example: "sw_0b7f6c2e-3d0e-4a59-9a55-2f8a1d0c4e11" }),
    object: z.literal("sweep"),
    is_live: z.boolean(),
    network: z.string().meta({ example: "ethereum" }),
    tx_hash: z.string(),
    from_address: z.string().meta({ description: "The payment address it was sent from." }),
    transaction_id: nullable(z.string().meta({ description: "The merchant's latest payment on that address." })),
    destination: z.string().meta({ description: "Where the coin or token went." }),
    coin: z.string().meta({ example: "USDT" }),
    amount: z.string().meta({ description: "What reached the destination, an exact decimal string in `coin`." }),
    fee: z.string().meta({ description: "Gas used × effective gas price, in `fee_coin`, paid by the payment address." }),
    fee_coin: z.string().meta({ example: "ETH" }),
    block_number: z.string(),
    block_hash: z.string(),
    mined_at: z.string().meta({ format: "date-time", description: "Its block's time." }),
    top_up: nullable(
      z.object({
        tx_hash: z.string(),
        from: nullable(z.string().meta({ description: "The merchant's fee wallet." })),
        amount: nullable(z.string().meta({ description: "What the top-up sent, in `fee_coin`." })),
        fee: nullable(z.string().meta({ description: "The top-up's own fee, in `fee_coin`: the merchant's own fee coin." })),
      }),
    ).meta({ description: "The fee wallet's top-up that paid the sweep's gas, when posted with it." }),
    created_at: z.string().meta({ format: "date-time", description: "When paygate recorded it." }),
  })
  .meta({ id: "Sweep" });

export const SweepRecordRequest = z
  .object({
    network: z.string().meta({ description: "The network the sweeps were sent on: an EVM network or tron.", example: "ethereum" }),
    tx_hash: hash.optional().meta({ description: "One sweep's hash (or give `sweeps`)." }),
    top_up_tx_hash: nullable(hash).optional().meta({ description: "With `tx_hash`: the fee wallet's top-up that paid its gas." }),
    sweeps: z
      .array(z.object({ tx_hash: hash, top_up_tx_hash: nullable(hash).optional() }))
      .max(SWEEPS_PER_REQUEST)
      .optional()
      .meta({ description: `Up to ${SWEEPS_PER_REQUEST} sweeps, each with its top-up: what \`tools/sweep --execute --report\` prints.` }),
  })
  .meta({ id: "SweepRecordRequest" });

export const SweepRecordResponse = z
  .object({
    status: z.literal("success"),
    data: z.array(Sweep).meta({ description: "The sweeps, in the request's order: recorded now or before (the same ones given back)." }),
    meta: z.object({ recorded: z.number().int(), already_recorded: z.number().int() }),
  })
  .meta({ id: "SweepRecordResponse" });
export const SweepResponse = z.object({ status: z.literal("success"), data: Sweep, meta: z.object({}) }).meta({ id: "SweepResponse" });
export const SweepListResponse = z
  .object({ status: z.literal("success"), data: z.array(Sweep), has_more: z.boolean(), meta: z.object({}) })
  .meta({ id: "SweepListResponse" });

export type SweepRecordResponse = z.infer<typeof SweepRecordResponse>;
export type SweepResponse = z.infer<typeof SweepResponse>;
export type SweepListResponse = z.infer<typeof SweepListResponse>;
