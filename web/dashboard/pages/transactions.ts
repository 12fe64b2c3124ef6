// Transactions: the merchant's transactions of the mode shown, newest first, with filters (status,
// currency, coin, creation dates), a search by reference, id or customer e-mail, pages of 25 with
// next and previous, and a CSV export of everything the filters match. The filters live in the
// page's address, so a reload, the back button or a shared link shows the same list.
import { h, replace } from "../../shared/dom.ts";
import { fiat } from "../../shared/format.ts";
import { messageOf } from "../api.ts";
import type { PageContext } from "../context.ts";
import { when } from "./parts.ts";

export interface TransactionRow {
  id: string;
  reference: string;
  created_at: string;
  status: "INITIATED" | "PENDING" | "SUCCESSFUL" | "ABANDONED";
  is_live: boolean;
  amount: string;
  currency: string | null;
  payment_amount: string | null;
  payment_currency: string | null;
  amount_paid: string | null;
  customer_email: string;
  customer_name: string | null;
  /** The list's only: what its pending and succeeded refunds take back (null: none), and how many are pending. */
  refunded?: string | null;
  refunds_pending?: number;
}

interface Page {
  transactions: TransactionRow[];
  has_more: boolean;
}

const PAGE_SIZE = "25";

export const STATUS_LABELS: Record<TransactionRow["status"], string> = {
  INITIATED: "Initiated",
  PENDING: "Pending",
  SUCCESSFUL: "Successful",
  ABANDONED: "Abandoned",
};

/** The filters as the page's address holds them, by their form names. */
const FILTERS = ["q", "status", "currency", "payment_currency", "refunds", "from", "to"] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

export async function renderTransactions(ctx: PageContext, main: HTMLElement): Promise<void> {
  const filters = filtersOfAddress();
  const alert = h("div", { class: "alert-slot", role: "alert" });
  const list = h("div", { class: "table-wrap" });
  const pager = h("nav", { class: "pager", "aria-label": "Pages of transactions" });
  const summary = h("p", { class: "hint", role: "status" });
  // The cursors of the pages before this one: Previous goes back one.
  const cursors: (string | null)[] = [];
  let cursor: string | null = null;

  const load = async (after: string | null, focusList = false) => {
    replace(alert);
    list.setAttribute("aria-busy", "true");
    try {
      const query = { ...apiQuery(filters), limit: PAGE_SIZE, ...(after ? { starting_after: after } : {}) };
      const page = await ctx.api.get<Page>(ctx.withMode(`/transactions?${new URLSearchParams(query)}`));
      cursor = after;
      replace(list, page.transactions.length > 0 ? table(ctx, page.transactions) : h("p", { class: "empty" }, emptyText(filters)));
      const pageNumber = cursors.length + 1;
      summary.textContent =
        page.transactions.length === 0
          ? ""
          : `Page ${pageNumber}: ${page.transactions.length} transaction${page.transactions.length === 1 ? "" : "s"}`;
      replace(
        pager,
        h(
          "button",
          {
            type: "button",
            class: "button secondary",
            disabled: cursors.length === 0,
            onclick: () => void load(cursors.pop() ?? null, true),
          },
          "Previous page",
        ),
        h(
          "button",
          {
            type: "button",
            class: "button secondary",
            disabled: !page.has_more,
            onclick: () => {
              cursors.push(cursor);
              void load(page.transactions.at(-1)?.id ?? null, true);
            },
          },
          "Next page",
        ),
      );
      if (focusList) summary.focus();
    } catch (error) {
      replace(alert, h("p", { class: "alert" }, messageOf(error)));
    } finally {
      list.setAttribute("aria-busy", "false");
    }
  };

  replace(
    main,
    h("h1", {}, "Transactions"),
    h("p", { class: "lead" }, `The ${ctx.mode} mode's payments, newest first.`),
    filterForm(ctx, filters),
    h(
      "p",
      {},
      h(
        "a",
        {
          class: "button secondary",
          href: `/dashboard/api${ctx.withMode(`/transactions.csv?${new URLSearchParams(apiQuery(filters))}`)}`,
          download: "",
        },
        "Export CSV",
      ),
      h("span", { class: "hint" }, " every transaction these filters match, not only this page"),
    ),
    alert,
    summary,
    list,
    pager,
  );
  summary.setAttribute("tabindex", "-1");
  await load(null);
}

function filtersOfAddress(): Filters {
  const params = new URLSearchParams(location.search);
  const filters: Filters = {};
  for (const name of FILTERS) {
    const value = params.get(name)?.trim();
    if (value) filters[name] = value;
  }
  return filters;
}

/** The list's query for the filters: dates are whole days in UTC, `to` included. */
function apiQuery(filters: Filters): Record<string, string> {
  const query: Record<string, string> = {};
  if (filters.q) query.q = filters.q;
  if (filters.status) query.status = filters.status;
  if (filters.currency) query.currency = filters.currency;
  if (filters.payment_currency) query.payment_currency = filters.payment_currency;
  if (filters.refunds) query.refunds = filters.refunds;
  if (filters.from && isDay(filters.from)) query["created[gte]"] = `${filters.from}T00:00:00Z`;
  if (filters.to && isDay(filters.to)) query["created[lt]"] = `${nextDay(filters.to)}T00:00:00Z`;
  return query;
}

const isDay = (value: string) => /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));

function nextDay(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString().slice(0, 10);
}

function emptyText(filters: Filters): string {
  return Object.keys(filters).length > 0 ? "No transactions match these filters." : "No transactions yet in this mode.";
}

function select(id: string, name: string, value: string | undefined, options: [string, string][]): HTMLSelectElement {
  return h("select", { id, name }, ...options.map(([v, label]) => h("option", { value: v, selected: v === (value ?? "") }, label)));
}

function filterForm(ctx: PageContext, filters: Filters): HTMLElement {
  const search = h("input", {
    id: "tx-q",
    name: "q",
    type: "search",
    value: filters.q ?? "",
    spellcheck: "false",
    autocomplete: "off",
    "aria-describedby": "tx-q-hint",
  });
  const status = select("tx-status", "status", filters.status, [
    ["", "Any status"],
    ...Object.entries(STATUS_LABELS).map(([value, label]): [string, string] => [value, label]),
  ]);
  const currency = select("tx-currency", "currency", filters.currency, [
    ["", "Any currency"],
    ["USD", "USD"],
    ["NGN", "NGN"],
  ]);
  const coin = select("tx-coin", "payment_currency", filters.payment_currency, [
    ["", "Any coin"],
    ...["BTC", "ETH", "LTC", "BNB", "USDT"].map((slug): [string, string] => [slug, slug]),
  ]);
  const refunds = select("tx-refunds", "refunds", filters.refunds, [
    ["", "Any"],
    ["any", "Has refunds"],
    ["pending", "Refund pending"],
    ["succeeded", "Refund succeeded"],
  ]);
  const from = h("input", { id: "tx-from", name: "from", type: "date", value: filters.from ?? "" });
  const to = h("input", { id: "tx-to", name: "to", type: "date", value: filters.to ?? "" });
  const form = h(
    "form",
    { class: "card filters", role: "search", "aria-label": "Filter transactions" },
    h(
      "div",
      { class: "field search" },
      h("label", { for: "tx-q" }, "Search"),
      search,
      h("p", { class: "hint", id: "tx-q-hint" }, "A reference (bq_…), a transaction id, or a customer's e-mail"),
    ),
    h("div", { class: "field" }, h("label", { for: "tx-status" }, "Status"), status),
    h("div", { class: "field" }, h("label", { for: "tx-currency" }, "Currency"), currency),
    h("div", { class: "field" }, h("label", { for: "tx-coin" }, "Paid in"), coin),
    h("div", { class: "field" }, h("label", { for: "tx-refunds" }, "Refunds"), refunds),
    h("div", { class: "field" }, h("label", { for: "tx-from" }, "Created from (UTC)"), from),
    h("div", { class: "field" }, h("label", { for: "tx-to" }, "Created to (UTC, included)"), to),
    h(
      "div",
      { class: "filter-actions" },
      h("button", { type: "submit", class: "button" }, "Apply filters"),
      h("a", { href: ctx.href("/transactions"), "data-route": "", class: "button secondary" }, "Clear"),
    ),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const query: Record<string, string> = {};
    for (const field of [search, status, currency, coin, refunds, from, to]) {
      const value = field.value.trim();
      if (value) query[field.name] = value;
    }
    ctx.navigate(ctx.href("/transactions", query));
  });
  return form;
}

function table(ctx: PageContext, rows: TransactionRow[]): HTMLElement {
  return h(
    "table",
    { class: "table transactions" },
    h("caption", { class: "sr-only" }, "Transactions, newest first"),
    h(
      "thead",
      {},
      h("tr", {}, ...["Created", "Reference", "Customer", "Amount", "Paid", "Status", "Refunded"].map((title) => h("th", { scope: "col" }, title))),
    ),
    h(
      "tbody",
      {},
      ...rows.map((t) =>
        h(
          "tr",
          {},
          h("td", { "data-label": "Created" }, h("time", { datetime: t.created_at }, when(t.created_at))),
          h(
            "td",
            { "data-label": "Reference" },
            h("a", { href: ctx.href("/transaction", { id: t.id }), "data-route": "" }, h("code", {}, t.reference)),
          ),
          h("td", { "data-label": "Customer" }, t.customer_email),
          h("td", { "data-label": "Amount" }, t.currency ? fiat(t.amount, t.currency) : t.amount),
          h("td", { "data-label": "Paid" }, t.payment_currency ? `${t.amount_paid ?? "0"} of ${t.payment_amount ?? "?"} ${t.payment_currency}` : "—"),
          h("td", { "data-label": "Status" }, h("span", { class: `status status-${t.status.toLowerCase()}` }, STATUS_LABELS[t.status])),
          h("td", { "data-label": "Refunded" }, refundedText(t)),
        ),
      ),
    ),
  );
}

/** The Refunded column: the amount its pending and succeeded refunds take back, and how many still wait to be paid. */
function refundedText(t: TransactionRow): string {
  if (!t.refunded) return "—";
  const pending = t.refunds_pending ?? 0;
  return `${t.refunded} ${t.payment_currency ?? ""}${pending > 0 ? ` (${pending} pending)` : ""}`;
}
