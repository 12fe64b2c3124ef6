// `paygate ledger …` (issue 40, goal 5; docs/ledger.md): a merchant's ledger of one mode through the
// core, as the REST API reads it (the operator's access, --mode test unless said); each command
// prints what it did.
import { writeFile } from "node:fs/promises";
import { operatorAccess, type MerchantAccess } from "../core/facades/access.ts";
import type { LedgerEntryView, LedgerTotalsView } from "../core/ledger/view.ts";
import { type CliContext, type MerchantOption, modeOption, print, requiredMerchant, say } from "./commands.ts";
import { withRuntime } from "./commands.ts";

export interface LedgerOptions extends MerchantOption {
  mode?: string;
  from?: string;
  to?: string;
  coin?: string;
  network?: string;
  kind?: string;
  limit?: string;
  /** export: the file to write; without it the CSV goes to standard output. */
  out?: string;
}

function ownerOf(options: LedgerOptions): MerchantAccess {
  return operatorAccess(requiredMerchant(options), modeOption(options.mode, "test") === "live");
}

/** The filters given, in the API's parameter names (the core checks them as it checks a query's). */
function filtersOf(options: LedgerOptions): Record<string, string> {
  const given: Record<string, string | undefined> = {
    from: options.from,
    to: options.to,
    coin: options.coin,
    network: options.network,
    kind: options.kind,
  };
  return Object.fromEntries(Object.entries(given).filter((e): e is [string, string] => e[1] !== undefined));
}

const modeText = (owner: MerchantAccess) => (owner.isLive ? "live" : "test");
const period = (from: Date | null, to: Date | null) =>
  `${from === null ? "the start" : from.toISOString()} to ${to === null ? "now" : to.toISOString()}`;

const entryLine = (e: LedgerEntryView) =>
  `  ${e.occurred_at}  ${e.kind.padEnd(13)} ${e.direction.padEnd(8)} ${e.amount} ${e.coin} on ${e.network}${e.fee === null ? "" : ` (fee ${e.fee} ${e.fee_coin})`}  ${e.tx_hash ?? "no tx hash"}  ${e.id}`;

const totalsLine = (x: LedgerTotalsView) =>
  `  ${x.coin} on ${x.network}: received ${x.received} (${x.receipts}), refunded ${x.refunded} (${x.refunds}, fees ${x.refund_fees}), consolidated ${x.consolidated} (${x.consolidations}, fees ${x.consolidation_fees}), ${x.flushes > 0 ? `flushed ${x.flushed} (${x.flushes}), ` : ""}${x.sweeps > 0 ? `swept ${x.swept} (${x.sweeps}), ` : ""}${x.sweep_fees !== "0" || x.own_sweep_fees !== "0" ? `sweep fees ${x.sweep_fees} and top-ups' ${x.own_sweep_fees}, ` : ""}net ${x.net}`;

export async function ledgerList(ctx: CliContext, options: LedgerOptions): Promise<void> {
  const owner = ownerOf(options);
  const params = { ...filtersOf(options), limit: options.limit ?? "100" };
  const page = await withRuntime(ctx, (rt) => rt.gateway.ledger.listEntries(owner, params));
  if (options.json) return print(ctx, { entries: page.entries, has_more: page.hasMore });
  if (page.entries.length === 0) return say(ctx, `Merchant ${owner.merchantId} has no ${modeText(owner)}-mode ledger entries that match.`);
  say(ctx, `Merchant ${owner.merchantId}'s ${modeText(owner)}-mode ledger, newest first:`);
  for (const e of page.entries) say(ctx, entryLine(e));
  if (page.hasMore) say(ctx, `More entries follow: narrow the period, or export it (paygate ledger export).`);
}

export async function ledgerTotals(ctx: CliContext, options: LedgerOptions): Promise<void> {
  const owner = ownerOf(options);
  const got = await withRuntime(ctx, (rt) => rt.gateway.ledger.totals(owner, filtersOf(options)));
  if (options.json) return print(ctx, { is_live: owner.isLive, totals: got.totals });
  const what = `merchant ${owner.merchantId}'s ${modeText(owner)}-mode ledger from ${period(got.filters.from, got.filters.to)}`;
  if (got.totals.length === 0) return say(ctx, `No entries in ${what}.`);
  say(ctx, `Totals of ${what}:`);
  for (const x of got.totals) say(ctx, totalsLine(x));
}

/** The CSV of a period (--from and --to required): to --out FILE, saying what it wrote, or to standard output alone. */
export async function ledgerExport(ctx: CliContext, options: LedgerOptions): Promise<void> {
  const owner = ownerOf(options);
  const written = await withRuntime(ctx, async (rt) => {
    const exported = rt.gateway.ledger.exportCsv(owner, filtersOf(options));
    const rows: string[] = [];
    for await (const row of exported.rows) rows.push(row);
    return { rows, filters: exported.filters };
  });
  if (options.out === undefined) {
    ctx.stdout.write(written.rows.join(""));
    return;
  }
  await writeFile(options.out, written.rows.join(""));
  const entries = written.rows.length - 1;
  say(
    ctx,
    `Wrote ${entries} ${entries === 1 ? "entry" : "entries"} of merchant ${owner.merchantId}'s ${modeText(owner)}-mode ledger from ${period(written.filters.from, written.filters.to)} to ${options.out} (CSV, one header row).`,
  );
}
