// `paygate settlement …` (issue 40; docs/settlement.md): a merchant's consolidations of settled BTC
// and LTC outputs and its deposit forwarders on EVM networks, through the core as the REST API does; each command prints what it did.
import { type MerchantAccess, operatorAccess } from "../core/facades/access.ts";
import type { FlushRuleView } from "../core/settlement/flush-rules.ts";
import type { FlushView } from "../core/settlement/forwarder-view.ts";
import type { ConsolidationView } from "../core/settlement/view.ts";
import { type CliContext, type MerchantOption, modeOption, print, requiredMerchant, say, UsageError, withRuntime } from "./commands.ts";

export interface SettlementOptions extends MerchantOption {
  mode?: string;
  coin?: string;
  network?: string;
  destination?: string;
  feeRate?: string;
  maxInputs?: string;
  minPayments?: string;
  minValue?: string;
  valueCurrency?: string;
  maxAgeHours?: string;
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

// ── Deposit forwarders on EVM networks ──

const flushLine = (f: FlushView) =>
  `  ${f.id}  ${f.state}  ${f.network}  ${f.payments.length} forwarders  tx ${f.tx_hash}  gas ${f.gas_used ?? "—"}  fee ${f.fee ?? "—"}`;

function requiredNetwork(options: SettlementOptions): string {
  if (options.network === undefined) throw new UsageError("--network is required (ethereum or bsc).");
  return options.network;
}

export async function settlementForwarders(ctx: CliContext, options: SettlementOptions): Promise<void> {
  const owner = ownerOf(options);
  const settings = await withRuntime(ctx, (rt) => rt.gateway.settlement.forwarderSettings(owner));
  if (options.json) return print(ctx, { forwarders: settings });
  if (settings.length === 0)
    return say(ctx, `Merchant ${owner.merchantId} settles no ${owner.isLive ? "live" : "test"}-mode network through forwarders.`);
  for (const s of settings) say(ctx, `  ${s.network}  forwarders to ${s.destination}  (factory ${s.factory ?? "not configured"})`);
}

export async function settlementForwarderSet(ctx: CliContext, options: SettlementOptions): Promise<void> {
  const owner = ownerOf(options);
  const network = requiredNetwork(options);
  if (options.destination === undefined) throw new UsageError("--destination is required: the merchant's settlement address.");
  const destination = options.destination;
  const setting = await withRuntime(ctx, (rt) => rt.gateway.settlement.setForwarderSetting(owner, network, { destination }));
  if (options.json) return print(ctx, setting);
  say(ctx, `New ${setting.network} payments of merchant ${owner.merchantId} go to forwarders whose only destination is ${setting.destination}.`);
}

export async function settlementForwarderRemove(ctx: CliContext, options: SettlementOptions): Promise<void> {
  const owner = ownerOf(options);
  const network = requiredNetwork(options);
  await withRuntime(ctx, (rt) => rt.gateway.settlement.removeForwarderSetting(owner, network));
  say(ctx, `New ${network} payments of merchant ${owner.merchantId} go to the key's own addresses again.`);
}

export async function settlementFlush(ctx: CliContext, options: SettlementOptions): Promise<void> {
  const owner = ownerOf(options);
  const network = requiredNetwork(options);
  const flush = await withRuntime(ctx, (rt) => rt.gateway.settlement.flushForwarders(owner, { network }));
  if (options.json) return print(ctx, flush);
  say(ctx, `Flush ${flush.id} of merchant ${owner.merchantId}:\n${flushLine(flush)}`);
}

export async function settlementFlushes(ctx: CliContext, options: SettlementOptions): Promise<void> {
  const owner = ownerOf(options);
  const page = await withRuntime(ctx, (rt) => rt.gateway.settlement.listFlushes(owner, { limit: "100" }));
  if (options.json) return print(ctx, { flushes: page.flushes });
  if (page.flushes.length === 0) return say(ctx, `Merchant ${owner.merchantId} has no ${owner.isLive ? "live" : "test"}-mode flushes.`);
  for (const f of page.flushes) say(ctx, flushLine(f));
}

// ── Flush rules: when the flush job flushes ──

const ruleLine = (r: FlushRuleView) =>
  `  ${r.network}  flush at ${[
    r.min_payments === null ? "the operator's count" : `${r.min_payments} payments`,
    r.min_value === null ? null : `${r.min_value.amount} ${r.min_value.currency}`,
    r.max_age_hours === null ? "the operator's age" : `${r.max_age_hours} h`,
  ]
    .filter((part) => part !== null)
    .join(" or ")}`;

function wholeOption(name: string, value: string | undefined): number | null {
  if (value === undefined) return null;
  if (!/^\d{1,6}$/.test(value)) throw new UsageError(`${name} must be a whole number; got '${value}'.`);
  return Number(value);
}

export async function settlementFlushRules(ctx: CliContext, options: SettlementOptions): Promise<void> {
  const owner = ownerOf(options);
  const rules = await withRuntime(ctx, (rt) => rt.gateway.settlement.flushRules(owner));
  if (options.json) return print(ctx, { flush_rules: rules });
  if (rules.length === 0)
    return say(ctx, `Merchant ${owner.merchantId} has no ${owner.isLive ? "live" : "test"}-mode flush rules: the operator's thresholds apply.`);
  for (const r of rules) say(ctx, ruleLine(r));
}

export async function settlementFlushRuleSet(ctx: CliContext, options: SettlementOptions): Promise<void> {
  const owner = ownerOf(options);
  const network = requiredNetwork(options);
  if ((options.minValue === undefined) !== (options.valueCurrency === undefined))
    throw new UsageError("--min-value and --value-currency go together, e.g. --min-value 500.00 --value-currency USD.");
  const body = {
    min_payments: wholeOption("--min-payments", options.minPayments),
    min_value: options.minValue === undefined ? null : { amount: options.minValue, currency: options.valueCurrency ?? "" },
    max_age_hours: wholeOption("--max-age-hours", options.maxAgeHours),
  };
  const rule = await withRuntime(ctx, (rt) => rt.gateway.settlement.setFlushRule(owner, network, body));
  if (options.json) return print(ctx, rule);
  say(ctx, `Merchant ${owner.merchantId}'s settled ${rule.network} forwarders are flushed by the job as soon as one holds:\n${ruleLine(rule)}`);
}

export async function settlementFlushRuleRemove(ctx: CliContext, options: SettlementOptions): Promise<void> {
  const owner = ownerOf(options);
  const network = requiredNetwork(options);
  await withRuntime(ctx, (rt) => rt.gateway.settlement.removeFlushRule(owner, network));
  say(ctx, `Removed merchant ${owner.merchantId}'s ${network} flush rule: the operator's thresholds apply again.`);
}
