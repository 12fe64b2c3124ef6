// A consolidation's response shapes and request body (issue 40; docs/settlement.md) as zod schemas:
// the core's consolidation object is typed by them and the OpenAPI document (openapi.ts) is generated from them.
import { z } from "zod";
import { nullable } from "../openapi-shared.ts";
import { EVM_NETWORK_SLUGS } from "../../../core/networks.ts";

const ConsolidationState = z.enum(["open", "seen", "confirmed", "canceled"]).meta({ id: "ConsolidationState" });
const coinDecimal = (description: string) => z.string().meta({ description: `${description} An exact decimal string in the coin.` });

export const Consolidation = z
  .object({
    id: z.string().meta({ example: "co_0b7f6c2e-3d0e-4a59-9a55-2f8a1d0c4e11" }),
    object: z.literal("consolidation"),
    is_live: z.boolean(),
    state: ConsolidationState,
    coin: z.string().meta({ example: "LTC" }),
    network: z.string().meta({ example: "litecoin" }),
    destination: z.string().meta({ description: "The merchant's own address the outputs are sent to." }),
    fee_rate: z.string().meta({ description: "sat/vB, as chosen." }),
    total: coinDecimal("What the inputs hold."),
    network_fee: coinDecimal("vsize × fee_rate."),
    amount_to_receive: coinDecimal("What reaches the destination: total less network_fee."),
    inputs: z.array(z.object({ transaction_id: z.string(), outpoint: z.string().meta({ description: "`txid:vout`." }), amount: z.string() })),
    psbt: nullable(z.string().meta({ description: "The unsigned PSBT (base64, BIP 174) with each input's key origin, while open." })),
    tx_hash: z.string().meta({ description: "The transaction's id: signing keeps it (P2WPKH inputs)." }),
    key_origin_missing: nullable(
      z.string().meta({ description: "In the reply that made it: what the wallet setting lacks for a PSBT the wallet signs." }),
    ),
    created_at: z.string().meta({ format: "date-time" }),
    seen_at: nullable(z.string().meta({ format: "date-time" })),
    confirmed_at: nullable(z.string().meta({ format: "date-time" })),
    canceled_at: nullable(z.string().meta({ format: "date-time" })),
  })
  .meta({ id: "Consolidation" });

export const ConsolidationResponse = z
  .object({ status: z.literal("success"), data: Consolidation, meta: z.object({}) })
  .meta({ id: "ConsolidationResponse" });

export const ConsolidationListResponse = z
  .object({ status: z.literal("success"), data: z.array(Consolidation), has_more: z.boolean(), meta: z.object({}) })
  .meta({ id: "ConsolidationListResponse" });

export type ConsolidationResponse = z.infer<typeof ConsolidationResponse>;
export type ConsolidationListResponse = z.infer<typeof ConsolidationListResponse>;

export const ConsolidationRequest = z
  .object({
    coin: z.string().meta({ description: "BTC or LTC.", example: "LTC" }),
    network: z.string().optional().meta({ description: "The coin's network; default its default (bitcoin, litecoin)." }),
    destination: z.string().meta({ description: "An address of the merchant's own wallet, of the coin's network in the key's mode." }),
    fee_rate: z.string().meta({ description: "sat/vB, 1 to 10000, at most 3 decimals.", example: "5" }),
    max_inputs: z.number().int().optional().meta({ description: "At most this many outputs, oldest settled first: 1 to 500, default 200." }),
  })
  .meta({ id: "ConsolidationRequest" });

// ── Deposit forwarders on EVM networks (docs/settlement.md) ──

export const ForwarderSetting = z
  .object({
    object: z.literal("forwarder_setting"),
    network: z.string().meta({ example: "ethereum" }),
    is_live: z.boolean(),
    mode: z.literal("forwarder"),
    destination: z.string().meta({ description: "The merchant's settlement address (EIP-55): the only place its forwarders can send to." }),
    factory: nullable(
      z.string().meta({ description: "The operator's forwarder factory on this network and mode; null when it is no longer configured." }),
    ),
    updated_at: z.string().meta({ format: "date-time" }),
  })
  .meta({ id: "ForwarderSetting" });

export const ForwarderSettingResponse = z
  .object({ status: z.literal("success"), data: ForwarderSetting, meta: z.object({}) })
  .meta({ id: "ForwarderSettingResponse" });
export const ForwarderSettingListResponse = z
  .object({ status: z.literal("success"), data: z.array(ForwarderSetting), meta: z.object({}) })
  .meta({ id: "ForwarderSettingListResponse" });
export const ForwarderSettingRemovedResponse = z
  .object({
    status: z.literal("success"),
    data: z.object({ network: z.string(), is_live: z.boolean(), mode: z.literal("own_addresses") }),
    meta: z.object({}),
  })
  .meta({ id: "ForwarderSettingRemovedResponse" });
export const ForwarderSettingRequest = z
  .object({
    destination: z
      .string()
      .meta({ description: "The merchant's settlement address on the network.", example: "0x52908400098527886E0F7030069857D2E4169EE7" }),
  })
  .meta({ id: "ForwarderSettingRequest" });

const Moved = z.object({
  coin: z.string().meta({ example: "USDT" }),
  amount: z.string().meta({ description: "An exact decimal string in the coin." }),
});

export const Flush = z
  .object({
    id: z.string().meta({ example: "fl_0b7f6c2e-3d0e-4a59-9a55-2f8a1d0c4e11" }),
    object: z.literal("flush"),
    is_live: z.boolean(),
    network: z.string(),
    state: z.enum(["sending", "confirmed", "failed"]).meta({ id: "FlushState" }),
    tx_hash: z.string().meta({ description: "The factory transaction's hash, recorded before it was sent." }),
    fee_payer: z.string(),
    gas_used: nullable(z.string().meta({ description: "Gas the transaction used, once mined." })),
    fee: nullable(z.string().meta({ description: "What the fee payer paid, in the network's coin (exact), once mined." })),
    payments: z.array(z.object({ transaction_id: z.string(), forwarder: z.string(), moved: nullable(z.array(Moved)) })),
    created_at: z.string().meta({ format: "date-time" }),
    confirmed_at: nullable(z.string().meta({ format: "date-time" })),
    block_number: nullable(
      z.string().meta({ description: "The block it was mined in, while confirmed (read again until final: a reorganisation sends it again)." }),
    ),
    block_hash: nullable(z.string()),
    reorganizations: z.number().int().meta({
      description: "Times a reorganisation took it out of the chain: it went back to sending (settlement.flush.reorganized) and was sent again.",
    }),
  })
  .meta({ id: "Flush" });

export const FlushResponse = z.object({ status: z.literal("success"), data: Flush, meta: z.object({}) }).meta({ id: "FlushResponse" });
export const FlushListResponse = z
  .object({ status: z.literal("success"), data: z.array(Flush), has_more: z.boolean(), meta: z.object({}) })
  .meta({ id: "FlushListResponse" });
export const FlushRequest = z
  .object({ network: z.string().meta({ description: `An EVM network: ${EVM_NETWORK_SLUGS.join(", ")}.`, example: "ethereum" }) })
  .meta({ id: "FlushRequest" });

// ── Sweep plans (docs/settlement.md, Sweeping fresh addresses) ──

const units = (description: string) => z.string().meta({ description: `${description} In base units (an integer string).` });
const SweepFee = z.object({
  source: z
    .enum(["node", "documented"])
    .meta({ description: "The node's estimate, or TRON's documented figures when the node could not say (`note`)." }),
  note: nullable(z.string()),
  gas: nullable(z.string().meta({ description: "EVM: the transfer's gas (eth_estimateGas); TRON: its energy." })),
  gas_price: nullable(z.string().meta({ description: "EVM: wei per gas (eth_gasPrice); TRON: sun per energy." })),
  bandwidth: nullable(z.string().meta({ description: "TRON: the transfer's bandwidth." })),
  activation: nullable(z.string().meta({ description: "TRON: sun to activate an address that holds no TRX (paid by the top-up's sender)." })),
  transfer: coinDecimal("The address's own transfer, in the fee coin."),
  transfer_units: units("The same."),
  top_up: coinDecimal("What the fee wallet sends the address first: the transfer's fee less the fee coin it holds."),
  top_up_units: units("The same."),
  top_up_fee: coinDecimal("What the top-up transaction costs the fee wallet."),
  top_up_fee_units: units("The same."),
  total: coinDecimal("transfer + top_up_fee."),
  total_units: units("The same."),
});
const SweepAddress = z.object({
  transaction_id: z.string(),
  address: z.string(),
  coin: z.string().meta({ example: "USDT" }),
  token_contract: nullable(z.string()),
  decimals: z.number().int(),
  account_key: z.string().meta({ description: "The wallet setting's account key the address is derived from." }),
  derivation_index: z.number().int(),
  derivation_path: z.string().meta({ description: "Below the account key: `0/<index>`." }),
  full_path: nullable(z.string().meta({ description: "From the master key, when the wallet setting has its key origin." })),
  held: coinDecimal("What the address holds of `coin`, read from the node now."),
  held_units: units("The same."),
  fee_coin_held: coinDecimal("The fee coin it holds."),
  fee_coin_held_units: units("The same."),
  fee: SweepFee,
  to_send: coinDecimal("What reaches the destination: all of a token; of the chain's own coin, what is left after its fee."),
  to_send_units: units("The same."),
  value_usd: nullable(z.string().meta({ description: "`held` at the current (test mode: test) USD rate." })),
  fee_usd: nullable(z.string().meta({ description: "`fee.total` at the fee coin's USD rate." })),
  skipped: nullable(z.string().meta({ description: "Why the sweep leaves it (a coin balance below its own fee)." })),
});
export const SweepPlan = z
  .object({
    object: z.literal("sweep_plan"),
    is_live: z.boolean(),
    network: z.string(),
    network_name: z.string(),
    fee_coin: z.string().meta({ example: "ETH" }),
    destination: z.string(),
    destination_source: z.enum(["parameter", "forwarder_setting"]),
    addresses: z.array(SweepAddress),
    totals: z.object({
      coins: z.array(
        z.object({ coin: z.string(), addresses: z.number().int(), held: z.string(), to_send: z.string(), value_usd: nullable(z.string()) }),
      ),
      fees: z.object({ transfer: z.string(), top_up: z.string(), top_up_fee: z.string(), total: z.string() }),
      value_usd: nullable(z.string()),
      fee_usd: nullable(z.string()),
      fee_share_percent: nullable(z.string().meta({ description: "fee_usd ÷ value_usd × 100, two decimals." })),
    }),
    rates: z.array(z.object({ coin: z.string(), usd: nullable(z.string()), source: nullable(z.string()), problem: nullable(z.string()) })),
    payments_read: z.number().int(),
    limit: z.number().int(),
    has_more: z.boolean(),
    next_starting_after: nullable(z.string()),
    created_at: z.string().meta({ format: "date-time" }),
  })
  .meta({ id: "SweepPlan" });
export const SweepPlanResponse = z.object({ status: z.literal("success"), data: SweepPlan, meta: z.object({}) }).meta({ id: "SweepPlanResponse" });
export type SweepPlanResponse = z.infer<typeof SweepPlanResponse>;

export type ForwarderSettingResponse = z.infer<typeof ForwarderSettingResponse>;
export type ForwarderSettingListResponse = z.infer<typeof ForwarderSettingListResponse>;
export type ForwarderSettingRemovedResponse = z.infer<typeof ForwarderSettingRemovedResponse>;
export type FlushResponse = z.infer<typeof FlushResponse>;
export type FlushListResponse = z.infer<typeof FlushListResponse>;
