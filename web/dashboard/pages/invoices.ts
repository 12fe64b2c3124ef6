// Invoices (issue 44; docs/invoices.md): the mode's invoices, newest first, with their state, what was
// paid and what is left, a page at a time ("Older invoices" appends the next); owners and developers
// also get the form of a new draft (items, a tax line, memo, due date), which opens the draft's page.
// The server checks every rule again and names the refused field.
import type { components } from "../../../sdk/src/generated/openapi.ts";
import { h, replace } from "../../shared/dom.ts";
import { fiat } from "../../shared/format.ts";
import type { PageContext } from "../context.ts";
import { alertSlot, day, field, LANGUAGES, modeLabel, runChange, showError, when } from "./parts.ts";

// The invoice as REST shows it (the OpenAPI document's Invoice, through the SDK's generated types).
export type InvoiceState = components["schemas"]["InvoiceState"];
export type Invoice = components["schemas"]["Invoice"];

export const INVOICE_STATES: Record<InvoiceState, string> = {
  draft: "Draft",
  open: "Open",
  partially_paid: "Partially paid",
  paid: "Paid",
  overdue: "Overdue",
  void: "Void",
};

const PAGE_SIZE = 25;
const COLUMNS = ["Invoice", "Customer", "State", "Total", "Paid", "Left", "Due", "Created"];

export async function renderInvoices(ctx: PageContext, main: HTMLElement): Promise<void> {
  const rows = h("tbody", {});
  const error = alertSlot("invoices-error");
  const more = h("button", { type: "button", class: "button secondary" }, "Older invoices");
  const pager = h("div", { class: "pager" });
  let last: string | null = null;

  const load = async (): Promise<HTMLTableRowElement[]> => {
    const query = new URLSearchParams({ limit: String(PAGE_SIZE), ...(last ? { starting_after: last } : {}) });
    const page = await ctx.api.get<{ invoices: Invoice[]; has_more: boolean }>(ctx.withMode(`/invoices?${query}`));
    const added = page.invoices.map((invoice) => row(ctx, invoice));
    rows.append(...added);
    last = page.invoices.at(-1)?.id ?? last;
    replace(pager, page.has_more ? more : null);
    return added;
  };
  more.addEventListener("click", () => {
    void runChange(more, error, async () => {
      const added = await load();
      added[0]?.querySelector("a")?.focus();
      ctx.announce(`${added.length} older invoices shown`);
    });
  });

  const manage = ctx.can("manage_invoices");
  replace(
    main,
    h("h1", {}, "Invoices"),
    h(
      "p",
      { class: "lead" },
      `Payment requests to your customers in ${modeLabel(ctx.mode)}, newest first: each has a page where the customer pays what is left.`,
      manage ? "" : ctx.roleNote(" Your role can read them; owners and developers can create, finalize and void them."),
    ),
    manage ? draftForm(ctx) : null,
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { class: "table", id: "invoices" },
        h("caption", { class: "sr-only" }, `Invoices (${modeLabel(ctx.mode)}), newest first`),
        h("thead", {}, h("tr", {}, ...COLUMNS.map((c) => h("th", { scope: "col" }, c)))),
        rows,
      ),
    ),
    error,
    pager,
  );
  try {
    const first = await load();
    if (first.length === 0) rows.append(h("tr", {}, h("td", { colspan: String(COLUMNS.length) }, `No invoices in ${modeLabel(ctx.mode)} yet.`)));
  } catch (failure) {
    showError(error, failure);
  }
}

function row(ctx: PageContext, invoice: Invoice): HTMLTableRowElement {
  const cells = [
    h(
      "a",
      { href: ctx.href("/invoice", { id: invoice.id }), "data-route": "" },
      invoice.number ?? "Draft",
      h("span", { class: "sr-only" }, ` ${invoice.id}`),
    ),
    invoice.customer.name ? `${invoice.customer.name} (${invoice.customer.email})` : invoice.customer.email,
    INVOICE_STATES[invoice.state],
    fiat(invoice.total, invoice.currency),
    fiat(invoice.amount_paid, invoice.currency),
    fiat(invoice.amount_due, invoice.currency),
    invoice.due_date ? day(invoice.due_date) : "—",
    h("time", { datetime: invoice.created_at }, when(invoice.created_at)),
  ];
  return h("tr", {}, ...cells.map((cell, i) => h("td", { "data-label": COLUMNS[i] ?? "" }, cell)));
}

/** One line item's inputs; `n` numbers their ids and labels. */
function itemLine(n: number) {
  const description = h("input", { id: `invoice-item-${n}-description`, type: "text", maxlength: "500", autocomplete: "off", class: "wide" });
  const quantity = h("input", { id: `invoice-item-${n}-quantity`, type: "number", min: "1", step: "1", value: "1", inputmode: "numeric" });
  const price = h("input", { id: `invoice-item-${n}-price`, type: "text", inputmode: "decimal", placeholder: "25.00", autocomplete: "off" });
  const element = h(
    "fieldset",
    { class: "checks invoice-item" },
    h("legend", {}, `Line ${n}`),
    field("Description", description),
    field("Quantity", quantity),
    field("Unit price", price),
  );
  // Quantity goes as the number typed (the server refuses a fraction or a negative, naming the field).
  const value = () => ({ description: description.value.trim(), quantity: Number(quantity.value), unit_price: price.value.trim() });
  return { element, value, description };
}

/** The form of a new draft: the server numbers it when it is finalized, on its own page. */
function draftForm(ctx: PageContext): HTMLElement {
  const error = alertSlot("invoice-form-error");
  const email = h("input", { id: "invoice-email", type: "email", autocomplete: "off", class: "wide" });
  const name = h("input", { id: "invoice-name", type: "text", maxlength: "200", autocomplete: "off" });
  const currency = h("select", { id: "invoice-currency" }, h("option", { value: "USD" }, "USD"), h("option", { value: "NGN" }, "NGN"));
  const lines = [itemLine(1)];
  const linesSlot = h("div", {}, ...lines.map((l) => l.element));
  const addLine = h("button", { type: "button", class: "button secondary" }, "Add a line");
  addLine.addEventListener("click", () => {
    const line = itemLine(lines.length + 1);
    lines.push(line);
    linesSlot.append(line.element);
    line.description.focus();
  });
  const taxName = h("input", { id: "invoice-tax-name", type: "text", maxlength: "100", autocomplete: "off", placeholder: "VAT" });
  const taxRate = h("input", { id: "invoice-tax-rate", type: "text", inputmode: "decimal", placeholder: "7.5", autocomplete: "off" });
  const memo = h("textarea", { id: "invoice-memo", maxlength: "2000", rows: "2" });
  const due = h("input", { id: "invoice-due", type: "date" });
  const partial = h("input", { id: "invoice-partial", type: "checkbox" });
  const language = h(
    "select",
    { id: "invoice-locale" },
    h("option", { value: "" }, "Not set: its page follows the browser, its e-mails are in English"),
    ...LANGUAGES.map(([value, label]) => h("option", { value }, label)),
  );
  const submit = h("button", { type: "submit", class: "button" }, "Create draft");
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "invoice-form-title", novalidate: true, id: "invoice-form" },
    h("h2", { id: "invoice-form-title" }, "New invoice"),
    field("Customer e-mail", email),
    field("Customer name (optional)", name),
    field("Currency", currency),
    linesSlot,
    h("div", { class: "actions" }, addLine),
    field("Tax name (optional)", taxName),
    field("Tax rate, percent of the subtotal (optional)", taxRate),
    field("Memo (optional)", memo),
    field("Due date (optional)", due),
    h("div", { class: "field" }, h("label", { for: partial.id }, partial, " The customer may pay in parts")),
    field("Language of its e-mails, PDF and page", language),
    error,
    h("div", { class: "actions" }, submit),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const tax = taxName.value.trim() || taxRate.value.trim() ? [{ name: taxName.value.trim(), rate: taxRate.value.trim() }] : [];
    const body = {
      customer: { email: email.value.trim(), ...(name.value.trim() ? { name: name.value.trim() } : {}) },
      currency: currency.value,
      items: lines.map((l) => l.value()),
      ...(tax.length > 0 ? { taxes: tax } : {}),
      ...(memo.value.trim() ? { memo: memo.value.trim() } : {}),
      ...(due.value ? { due_date: due.value } : {}),
      allow_partial_payments: partial.checked,
      ...(language.value ? { locale: language.value } : {}),
    };
    void runChange(
      submit,
      error,
      async () => {
        const created = await ctx.api.post<Invoice>(ctx.withMode("/invoices"), body);
        ctx.announce("Draft invoice created");
        ctx.navigate(ctx.href("/invoice", { id: created.id }));
      },
      email,
    );
  });
  return form;
}
