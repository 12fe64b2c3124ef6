// `paygate settlement …` (issue 40; docs/settlement.md): a merchant's consolidations of settled BTC
// and LTC outputs, through the core as the REST API does; each command prints what it did.
import { type MerchantAccess, operatorAccess } from "../core/facades/access.ts";
import type { ConsolidationView } from "../core/settlement/view.ts";
import { type CliContext, type MerchantOption, modeOption, print, requiredMerchant, say, UsageError, withRuntime } from "./commands.ts";

export interface SettlementOptions extends MerchantOption {
  mode?: string;
  coin?: string;
  network?: string;
  destination?: string;
  feeRate?: string;
  maxInputs?: string;
  json?: boolean;
}

function ownerOf(options: SettlementOptions): MerchantAccess {
  return operatorAccess(requiredMerchant(options), modeOption(options.mode, "test") === "live");
}

const line = (c: ConsolidationView) =>
  `  ${c.id}  ${c.state}  ${c.inputs.length} outputs  ${c.total} ${c.coin} → ${c.amount_to_receive} ${c.coin} to ${c.destination} (fee ${c.network_fee})  tx ${c.tx_hash}`;

export async function settlementConsolidate(ctx: CliContext, options: SettlementOptions): Promise<void> {
  const owner = ownerOf(options);
  if (options.coin === undefined || options.destination === undefined || options.feeRate === undefined) {
    throw new UsageError("--coin, --destination and --fee-rate are required.");
  }
  if (options.maxInputs !== undefined && !/^\d{1,3}$/.test(options.maxInputs))
    throw new UsageError(`--max-inputs must be a whole number; got '${options.maxInputs}'.`);
  const body = {
    coin: options.coin,
    destination: options.destination,
    fee_rate: options.feeRate,
    ...(options.network === undefined ? {} : { network: options.network }),
    ...(options.maxInputs === undefined ? {} : { max_inputs: Number(options.maxInputs) }),
  };
  const { consolidation } = await withRuntime(ctx, (rt) => rt.gateway.settlement.createConsolidation(owner, body));
  if (options.json) return print(ctx, consolidation);
  say(ctx, `Consolidation ${consolidation.id} of merchant ${owner.merchantId}:\n${line(consolidation)}`);
  if (consolidation.key_origin_missing) say(ctx, `\n${consolidation.key_origin_missing}`);
  say(ctx, `\nSign this PSBT in the merchant's wallet, then broadcast it:\n${consolidation.psbt}`);
}

export async function settlementList(ctx: CliContext, options: SettlementOptions): Promise<void> {
  const owner = ownerOf(options);
  const page = await withRuntime(ctx, (rt) => rt.gateway.settlement.listConsolidations(owner, { limit: "100" }));
  if (options.json) return print(ctx, { consolidations: page.consolidations });
  if (page.consolidations.length === 0) return say(ctx, `Merchant ${owner.merchantId} has no ${owner.isLive ? "live" : "test"}-mode consolidations.`);
  for (const c of page.consolidations) say(ctx, line(c));
}

export async function settlementCancel(ctx: CliContext, id: string, options: SettlementOptions): Promise<void> {
  const owner = ownerOf(options);
  const { consolidation } = await withRuntime(ctx, (rt) => rt.gateway.settlement.cancelConsolidation(owner, id));
  if (options.json) return print(ctx, consolidation);
  say(ctx, `Canceled consolidation ${consolidation.id}: its outputs are offered again.`);
}
