// Audit log (owners): who changed a wallet, a webhook URL or secret, an API key, users or a second
// factor, and who signed in: when, from which address, newest first, a page at a time ("Older
// entries" appends the next page and moves focus to its first row). Never a secret.
import { h, replace } from "../../shared/dom.ts";
import type { PageContext } from "../context.ts";
import { alertSlot, runChange, when } from "./parts.ts";

interface Entry {
  id: string;
  created_at: string;
  /** api_key: a change made with a secret key (label names the key and who rolled it). */
  actor: { kind: "user" | "api_key" | "operator"; user_id: string | null; email: string | null; label: string };
  action: string;
  target: string;
  client_address: string | null;
}

interface Page {
  entries: Entry[];
  has_more: boolean;
}

const PAGE_SIZE = 50;
const COLUMNS = ["When", "Who", "Action", "What", "From"];

export async function renderAuditLog(ctx: PageContext, main: HTMLElement): Promise<void> {
  const rows = h("tbody", {});
  const error = alertSlot("audit-error");
  const more = h("button", { type: "button", class: "button secondary" }, "Older entries");
  const pager = h("div", { class: "pager" });
  let last: string | null = null;

  const load = async (): Promise<HTMLTableRowElement[]> => {
    const query = new URLSearchParams({ limit: String(PAGE_SIZE), ...(last ? { starting_after: last } : {}) });
    const page = await ctx.api.get<Page>(`/audit-log?${query}`);
    const added = page.entries.map(row);
    rows.append(...added);
    last = page.entries.at(-1)?.id ?? last;
    replace(pager, page.has_more ? more : null);
    return added;
  };
  more.addEventListener("click", () => {
    void runChange(more, error, async () => {
      const added = await load();
      const first = added[0];
      if (first) {
        first.setAttribute("tabindex", "-1");
        first.focus();
      }
      ctx.announce(`${added.length} older entries shown`);
    });
  });

  replace(
    main,
    h("h1", {}, "Audit log"),
    h(
      "p",
      { class: "lead" },
      "Every change to where payments and events go and to who has access, newest first: who made it, when, and from which address. Changes made by the operator at the command line show as operator (CLI).",
    ),
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { class: "table", id: "audit-log" },
        h("caption", { class: "sr-only" }, "Audit log, newest first"),
        h("thead", {}, h("tr", {}, ...COLUMNS.map((c) => h("th", { scope: "col" }, c)))),
        rows,
      ),
    ),
    error,
    pager,
  );
  const first = await load();
  if (first.length === 0) rows.append(h("tr", {}, h("td", { colspan: String(COLUMNS.length) }, "Nothing recorded yet.")));
}

function row(entry: Entry): HTMLTableRowElement {
  const cells = [
    h("time", { datetime: entry.created_at }, when(entry.created_at)),
    entry.actor.label,
    h("code", {}, entry.action),
    entry.target,
    entry.client_address ?? "—",
  ];
  return h("tr", {}, ...cells.map((cell, i) => h("td", { "data-label": COLUMNS[i] ?? "" }, cell)));
}
