// `paygate settlement …` (issue 40; docs/settlement.md): a merchant's consolidations of settled BTC
// and LTC outputs and its deposit forwarders on EVM networks, through the core as the REST API does; each command prints what it did.
import { readFileSync } from "node:fs";
import { PaygateError } from "../core/errors.ts";
import { type MerchantAccess, operatorAccess } from "../core/facades/access.ts";
import type { FlushRuleView } from "../core/settlement/flush-rules.ts";
import type { FlushView } from "../core/settlement/forwarder-view.ts";
import type { SweepView } from "../core/settlement/sweep-record-view.ts";
import type { SweepPlanView } from "../core/settlement/sweep-view.ts";
import type { ConsolidationView } from "../core/settlement/view.ts";
import { type CliContext, type MerchantOption, modeOption, print, requiredMerchant, say, UsageError, withRuntime } from "./commands.ts";
import { EVM_NETWORK_SLUGS } from "../core/networks.ts";

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
  limit?: string;
  startingAfter?: string;
  txHash?: string;
  topUp?: string;
  file?: string;
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
  if (options.network === undefined) throw new UsageError(`--network is required (${EVM_NETWORK_SLUGS.join(", ")}).`);
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

// ── Sweep plans of per-payment addresses on account networks ──

export async function settlementSweepPlan(ctx: CliContext, options: SettlementOptions): Promise<void> {
  const owner = ownerOf(options);
  if (options.network === undefined) throw new UsageError("--network is required (ethereum, bsc, base, polygon, arbitrum or tron).");
  const params: Record<string, string> = { network: options.network };
  if (options.destination !== undefined) params.destination = options.destination;
  if (options.coin !== undefined) params.coin = options.coin;
  if (options.limit !== undefined) params.limit = options.limit;
  if (options.startingAfter !== undefined) params.starting_after = options.startingAfter;
  const plan = await withRuntime(ctx, (rt) => rt.gateway.settlement.sweepPlan(owner, params)).catch((error: unknown) => {
    // The refusal names the parameter: say which, as the REST body's `errors` does.
    if (error instanceof PaygateError && error.errors.length > 0)
      throw new PaygateError(error.code, `${error.message}: ${error.errors.map((e) => `${e.field}: ${e.message}`).join("; ")}`, error.reason);
    throw error;
  });
  if (options.json) return print(ctx, plan);
  say(ctx, sweepPlanText(plan, owner.merchantId));
}

function sweepPlanText(plan: SweepPlanView, merchantId: number): string {
  const lines = [
    `Sweep plan of merchant ${merchantId} on ${plan.network_name} to ${plan.destination} (${plan.destination_source.replace("_", " ")}):`,
  ];
  if (plan.addresses.length === 0) lines.push(`  no address of a settled payment holds funds (${plan.payments_read} payments read).`);
  for (const a of plan.addresses) {
    const fee = `fee ${a.fee.total} ${plan.fee_coin}${a.fee.top_up === "0" ? "" : ` (top-up ${a.fee.top_up})`}${a.fee.source === "documented" ? ", documented figures" : ""}`;
    lines.push(`  ${a.address}  ${a.derivation_path}  ${a.held} ${a.coin}  ${fee}${a.skipped ? `  skipped: ${a.skipped}` : ""}`);
  }
  const t = plan.totals;
  for (const c of t.coins)
    lines.push(`Total ${c.coin}: ${c.held} on ${c.addresses} addresses, ${c.to_send} to send${c.value_usd ? ` (${c.value_usd} USD)` : ""}`);
  lines.push(`Fees: ${t.fees.total} ${plan.fee_coin} (top-ups ${t.fees.top_up})${t.fee_usd ? `, ${t.fee_usd} USD` : ""}`);
  if (t.fee_share_percent !== null) lines.push(`Share of the value swept: ${t.fee_share_percent} %`);
  for (const r of plan.rates) if (r.problem) lines.push(`No USD rate of ${r.coin}: ${r.problem}`);
  if (plan.has_more) lines.push(`More payments follow: run again with --starting-after ${plan.next_starting_after}.`);
  lines.push("Nothing was moved. Run the sweep tool (tools/sweep, docs/settlement.md) on the merchant's machine to sweep.");
  return lines.join("\n");
}

// ── Recorded sweeps ──

const sweepLine = (s: SweepView) =>
  `  ${s.id}  ${s.network}  ${s.amount} ${s.coin} from ${s.from_address} to ${s.destination}  fee ${s.fee} ${s.fee_coin}` +
  `${s.top_up === null ? "" : `  top-up ${s.top_up.tx_hash} (fee ${s.top_up.fee ?? "—"})`}  tx ${s.tx_hash}`;

/** What the command posts: one hash (and its top-up) or the tool's report file, whose network must be the one given. */
function sweepRecordBody(options: SettlementOptions): Record<string, unknown> {
  const network = options.network;
  if (network === undefined) throw new UsageError("--network is required: the network the sweeps were sent on (an EVM network or tron).");
  if ((options.txHash === undefined) === (options.file === undefined)) throw new UsageError("give either --tx-hash HASH or --file REPORT.json.");
  if (options.file === undefined)
    return { network, tx_hash: options.txHash, ...(options.topUp === undefined ? {} : { top_up_tx_hash: options.topUp }) };
  if (options.topUp !== undefined) throw new UsageError("--top-up goes with --tx-hash; a report file names each sweep's top-up.");
  let report: unknown;
  try {
    report = JSON.parse(readFileSync(options.file, "utf8"));
  } catch (error) {
    throw new UsageError(`--file ${options.file} is not a readable JSON file (${error instanceof Error ? error.message : String(error)}).`);
  }
  const given = (report as { network?: unknown } | null)?.network;
  if (typeof given === "string" && given.toLowerCase() !== network.toLowerCase())
    throw new UsageError(`--file ${options.file} reports sweeps on ${given}, not ${network}.`);
  return { network, sweeps: (report as { sweeps?: unknown } | null)?.sweeps };
}

export async function settlementSweepRecord(ctx: CliContext, options: SettlementOptions): Promise<void> {
  const owner = ownerOf(options);
  const body = sweepRecordBody(options);
  const outcome = await withRuntime(ctx, (rt) => rt.gateway.settlement.recordSweeps(owner, body)).catch((error: unknown) => {
    if (error instanceof PaygateError && error.errors.length > 0)
      throw new PaygateError(error.code, `${error.message}: ${error.errors.map((e) => `${e.field}: ${e.message}`).join("; ")}`, error.reason);
    throw error;
  });
  if (options.json) return print(ctx, { sweeps: outcome.sweeps, recorded: outcome.recorded, already_recorded: outcome.alreadyRecorded });
  say(ctx, `Recorded ${outcome.recorded} sweeps of merchant ${owner.merchantId} (${outcome.alreadyRecorded} had been recorded before):`);
  for (const s of outcome.sweeps) say(ctx, sweepLine(s));
}

export async function settlementSweeps(ctx: CliContext, options: SettlementOptions): Promise<void> {
  const owner = ownerOf(options);
  const params: Record<string, string> = { limit: "100", ...(options.network === undefined ? {} : { network: options.network }) };
  const page = await withRuntime(ctx, (rt) => rt.gateway.settlement.listSweeps(owner, params));
  if (options.json) return print(ctx, { sweeps: page.sweeps });
  if (page.sweeps.length === 0) return say(ctx, `Merchant ${owner.merchantId} has no recorded ${owner.isLive ? "live" : "test"}-mode sweeps.`);
  for (const s of page.sweeps) say(ctx, sweepLine(s));
}
