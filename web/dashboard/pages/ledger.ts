// The ledger (issue 40, goal 5; docs/ledger.md): the mode's entries of a period, newest first, their
// totals per coin and network, and the period's CSV for an accountant. Reading the ledger is reading
// payments: every role sees it. Amounts are the API's exact decimal strings, shown as given.
import type { components } from "../../../sdk/src/generated/openapi.ts";
import { h, replace } from "../../shared/dom.ts";
import type { PageContext } from "../context.ts";
import { alertSlot, field, modeLabel, runChange, showError, table, when } from "./parts.ts";

// As REST shows them (the OpenAPI document, through the SDK's generated types).
type LedgerEntry = components["schemas"]["LedgerEntry"];
type LedgerTotals = components["schemas"]["LedgerTotals"];

const PAGE_SIZE = 25;
const ENTRY_COLUMNS = ["When", "Kind", "Direction", "Coin", "Network", "Amount", "Fee", "Reference"];
const TOTAL_COLUMNS = ["Coin", "Network", "Receipts", "Received", "Refunds", "Refunded", "Refund fees", "Consolidated", "Consolidation fees", "Net"];

export async function renderLedger(ctx: PageContext, main: HTMLElement): Promise<void> {
  const from = h("input", { id: "ledger-from", type: "date" });
  const to = h("input", { id: "ledger-to", type: "date" });
  const show = h("button", { type: "submit", class: "button" }, "Show");
  const error = alertSlot("ledger-error");
  const totalsSlot = h("div", { id: "ledger-totals" });
  const entries = h("tbody", {});
  const pager = h("div", { class: "pager" });
  const more = h("button", { type: "button", class: "button secondary" }, "Older entries");
  const csv = h("p", { id: "ledger-csv" });
  let last: string | null = null;

  const period = (): Record<string, string> => ({ ...(from.value ? { from: from.value } : {}), ...(to.value ? { to: to.value } : {}) });

  const loadEntries = async (): Promise<number> => {
    const query = new URLSearchParams({ ...period(), limit: String(PAGE_SIZE), ...(last ? { starting_after: last } : {}) });
    const page = await ctx.api.get<{ entries: LedgerEntry[]; has_more: boolean }>(ctx.withMode(`/ledger/entries?${query}`));
    entries.append(...page.entries.map(entryRow));
    last = page.entries.at(-1)?.id ?? last;
    replace(pager, page.has_more ? more : null);
    return page.entries.length;
  };

  const showAll = async () => {
    last = null;
    replace(entries);
    const got = await ctx.api.get<{ totals: LedgerTotals[] }>(ctx.withMode(`/ledger/totals?${new URLSearchParams(period())}`));
    replace(
      totalsSlot,
      got.totals.length > 0
        ? table(`Totals per coin and network (${modeLabel(ctx.mode)})`, TOTAL_COLUMNS, got.totals.map(totalRow))
        : h("p", {}, "No entries in this period."),
    );
    const shown = await loadEntries();
    if (shown === 0) entries.append(h("tr", {}, h("td", { colspan: String(ENTRY_COLUMNS.length) }, "No entries in this period.")));
    // The CSV is of a whole period: it needs both ends.
    replace(
      csv,
      from.value && to.value
        ? h(
            "a",
            {
              class: "button secondary",
              id: "ledger-csv-link",
              href: `/dashboard/api${ctx.withMode(`/ledger/entries.csv?${new URLSearchParams(period())}`)}`,
              download: "",
            },
            "Download CSV",
          )
        : "Choose a start and an end to download the period as CSV.",
    );
  };

  more.addEventListener("click", () => {
    void runChange(more, error, async () => {
      const added = await loadEntries();
      ctx.announce(`${added} older entries shown`);
    });
  });
  const form = h(
    "form",
    { class: "card filters", id: "ledger-filter", "aria-label": "Period", novalidate: true },
    field("From (inclusive)", from),
    field("To (exclusive)", to),
    h("div", { class: "actions" }, show),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void runChange(show, error, async () => {
      await showAll();
      ctx.announce("Ledger updated for the period");
    });
  });

  replace(
    main,
    h("h1", {}, "Ledger"),
    h(
      "p",
      { class: "lead" },
      `Every movement of your money in ${modeLabel(ctx.mode)}: payments received, refunds and consolidations, with their network fees.`,
    ),
    form,
    error,
    csv,
    h("h2", {}, "Totals"),
    totalsSlot,
    h("h2", {}, "Entries"),
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { class: "table", id: "ledger-entries" },
        h("caption", { class: "sr-only" }, `Ledger entries (${modeLabel(ctx.mode)}), newest first`),
        h("thead", {}, h("tr", {}, ...ENTRY_COLUMNS.map((c) => h("th", { scope: "col" }, c)))),
        entries,
      ),
    ),
    pager,
  );
  try {
    await showAll();
  } catch (failure) {
    showError(error, failure);
  }
}

function entryRow(e: LedgerEntry): HTMLTableRowElement {
  const cells: (Node | string)[] = [
    h("time", { datetime: e.occurred_at }, when(e.occurred_at)),
    e.kind,
    e.direction,
    e.coin,
    e.network,
    h("span", { class: "number" }, e.amount),
    e.fee === null ? "—" : h("span", { class: "number" }, `${e.fee} ${e.fee_coin}`),
    e.reference === null ? "—" : h("code", {}, e.reference),
  ];
  return h("tr", {}, ...cells.map((cell, i) => h("td", { "data-label": ENTRY_COLUMNS[i] ?? "" }, cell)));
}

function totalRow(t: LedgerTotals): (Node | string)[] {
  return [
    t.coin,
    t.network,
    String(t.receipts),
    t.received,
    String(t.refunds),
    t.refunded,
    t.refund_fees,
    t.consolidated,
    t.consolidation_fees,
    h("strong", {}, t.net),
  ];
}
