// The ledger's use cases (issue 40, goal 5; docs/ledger.md): a page of entries, the totals per coin
// and network, and the CSV of a period. Each runs on an owner the ledger façade made once the
// caller's permission was checked; every read is of the owner's merchant and mode only.
import type { CoreDeps } from "../deps.ts";
import { LIST_LIMIT_DEFAULT, pageOf, parseListQuery, startingAfter } from "../lists.ts";
import type { LedgerFilters } from "../stores/ledger.ts";
import { csvRow } from "../transactions/export.ts";
import { filtersOf, LedgerExportParams, LedgerListParams, type LedgerOwner, LedgerTotalsParams } from "./rules.ts";
import { LEDGER_CSV_HEADER, ledgerCsvCells, type LedgerEntryView, ledgerEntryView, ledgerTotals, type LedgerTotalsView } from "./view.ts";

export type LedgerDeps = Pick<CoreDeps, "stores">;

/** Rows an export reads at a time: one page in memory whatever the period's size. */
const EXPORT_BATCH = 500;

export interface LedgerPage {
  merchantId: number;
  entries: LedgerEntryView[];
  hasMore: boolean;
}

/** GET /v1/ledger/entries: newest first, paged as the other lists. */
export async function listEntries(deps: LedgerDeps, owner: LedgerOwner, params: Record<string, unknown>): Promise<LedgerPage> {
  const query = parseListQuery(LedgerListParams, params);
  const filters = filtersOf(owner, query);
  const cursor = await startingAfter(query.starting_after, (id) => deps.stores.ledger.entry(id, owner.merchantId, owner.isLive));
  const limit = query.limit ?? LIST_LIMIT_DEFAULT;
  const rows = await deps.stores.ledger.entries({ ...filters, after: cursor && { occurredAt: cursor.occurredAt, id: cursor.id }, limit: limit + 1 });
  const page = pageOf(rows, limit);
  return { merchantId: owner.merchantId, entries: page.items.map(ledgerEntryView), hasMore: page.hasMore };
}

export interface LedgerTotals {
  merchantId: number;
  filters: LedgerFilters;
  totals: LedgerTotalsView[];
}

/** GET /v1/ledger/totals: per coin and network, of the entries the same filters list. */
export async function totals(deps: LedgerDeps, owner: LedgerOwner, params: Record<string, unknown>): Promise<LedgerTotals> {
  const filters = filtersOf(owner, parseListQuery(LedgerTotalsParams, params));
  return { merchantId: owner.merchantId, filters, totals: ledgerTotals(await deps.stores.ledger.sums(filters)) };
}

export interface LedgerExport {
  merchantId: number;
  filters: LedgerFilters;
  /** The header row, then one CRLF-terminated row per entry, newest first as the list. */
  rows: AsyncGenerator<string>;
}

async function* csvOf(deps: LedgerDeps, filters: LedgerFilters): AsyncGenerator<string> {
  yield csvRow(LEDGER_CSV_HEADER);
  let after: { occurredAt: Date; id: string } | null = null;
  for (;;) {
    const rows = await deps.stores.ledger.entries({ ...filters, after, limit: EXPORT_BATCH });
    for (const row of rows) yield csvRow(ledgerCsvCells(ledgerEntryView(row)));
    const last = rows.at(-1);
    if (rows.length < EXPORT_BATCH || last === undefined) return;
    after = { occurredAt: last.occurredAt, id: last.id };
  }
}

/**
 * GET /v1/ledger/entries.csv: the period's entries (from and to required), checked before the first
 * row is written so a refusal is a whole 400, never half a file.
 */
export function exportCsv(deps: LedgerDeps, owner: LedgerOwner, params: Record<string, unknown>): LedgerExport {
  const filters = filtersOf(owner, parseListQuery(LedgerExportParams, params), true);
  return { merchantId: owner.merchantId, filters, rows: csvOf(deps, filters) };
}
