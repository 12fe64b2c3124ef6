// One invoice (/dashboard/invoice?id=…): its state, customer, items and taxes, what was paid and
// what is left, its transactions (each linked to its page) and its page for the customer. Owners and
// developers finalize a draft (it gets its number and page) and void one nothing was paid of; the
// server checks every rule again and says why it refuses. Its e-mails to the customer are listed below.
import { h, replace } from "../../shared/dom.ts";
import { fiat } from "../../shared/format.ts";
import type { PageContext } from "../context.ts";
import { emailsSection } from "./emails.ts";
import { INVOICE_STATES, type Invoice } from "./invoices.ts";
import { alertSlot, day, LANGUAGES, runChange, showError, table, when } from "./parts.ts";
import { STATUS_LABELS, type TransactionRow } from "./transactions.ts";

export async function renderInvoice(ctx: PageContext, main: HTMLElement): Promise<void> {
  const id = new URLSearchParams(location.search).get("id") ?? "";
  const back = h("p", {}, h("a", { href: ctx.href("/invoices"), "data-route": "" }, "← All invoices"));
  const error = alertSlot("invoice-error");
  let invoice: Invoice;
  try {
    invoice = await ctx.api.get<Invoice>(ctx.withMode(`/invoices/${encodeURIComponent(id)}`));
  } catch (failure) {
    replace(main, h("h1", {}, "Invoice"), back, error);
    showError(error, failure);
    return;
  }
  show(ctx, main, back, error, invoice);
}

function show(ctx: PageContext, main: HTMLElement, back: HTMLElement, error: HTMLElement, invoice: Invoice): void {
  const money = (amount: string) => fiat(amount, invoice.currency);
  const title = h("h1", { tabindex: "-1" }, `Invoice ${invoice.number ?? "(draft)"}`);
  const facts: [string, Node | string][] = [
    ["State", h("strong", { id: "invoice-state" }, INVOICE_STATES[invoice.state])],
    ["Customer", invoice.customer.name ? `${invoice.customer.name} (${invoice.customer.email})` : invoice.customer.email],
    ["Due date", invoice.due_date ? day(invoice.due_date) : "None"],
    ["Partial payments", invoice.allow_partial_payments ? "Allowed" : "Not allowed"],
    ["Language", LANGUAGES.find(([code]) => code === invoice.locale)?.[1] ?? "Not set (e-mails in English)"],
    ["Created", when(invoice.created_at)],
    ["Id", h("code", {}, invoice.id)],
  ];
  if (invoice.finalized_at) facts.push(["Finalized", when(invoice.finalized_at)]);
  if (invoice.voided_at) facts.push(["Voided", when(invoice.voided_at)]);
  if (invoice.memo) facts.push(["Memo", invoice.memo]);
  // The PDF: the receipt once paid, else the invoice (a draft's is a preview).
  const pdf = (document: string, label: string) =>
    h(
      "a",
      {
        href: `/dashboard/api${ctx.withMode(`/invoices/${encodeURIComponent(invoice.id)}/pdf`)}&document=${document}`,
        download: "",
        id: `invoice-pdf-${document}`,
      },
      label,
    );
  facts.push([
    "PDF",
    h(
      "span",
      {},
      pdf("invoice", "Invoice (PDF)"),
      invoice.state === "paid" ? " · " : "",
      invoice.state === "paid" ? pdf("receipt", "Receipt (PDF)") : null,
    ),
  ]);
  facts.push([
    "Customer's page",
    invoice.hosted_url ? h("a", { href: invoice.hosted_url, id: "invoice-hosted-url" }, invoice.hosted_url) : "None while a draft: finalize it first",
  ]);
  const totals: [string, string][] = [
    ["Subtotal", money(invoice.subtotal)],
    ...invoice.taxes.map((t): [string, string] => [`${t.name} (${t.rate}%)`, money(t.amount)]),
    ["Total", money(invoice.total)],
    ["Paid", money(invoice.amount_paid)],
    ["Left to pay", money(invoice.amount_due)],
  ];
  if (!/^0(\.0+)?$/.test(invoice.amount_overpaid)) totals.push(["Overpaid", money(invoice.amount_overpaid)]);
  // Filled once its list arrives: the invoice itself shows at once.
  const emails = h("div", { id: "invoice-emails" });
  if (invoice.state !== "draft") {
    void emailsSection(ctx, `/invoices/${encodeURIComponent(invoice.id)}/emails`, "invoice-emails-title", "No e-mails for this invoice yet.").then(
      (section) => emails.replaceChildren(section),
    );
  }

  replace(
    main,
    title,
    back,
    h("dl", { class: "card fields", id: "invoice-facts" }, ...facts.flatMap(([term, value]) => [h("dt", {}, term), h("dd", {}, value)])),
    actions(ctx, main, back, error, invoice),
    error,
    h("h2", {}, "Items"),
    table(
      "Line items",
      ["Description", "Quantity", "Unit price", "Amount"],
      invoice.items.map((i) => [i.description, String(i.quantity), money(i.unit_price), money(i.amount)]),
    ),
    h("dl", { class: "card fields", id: "invoice-totals" }, ...totals.flatMap(([term, value]) => [h("dt", {}, term), h("dd", {}, value)])),
    h("h2", {}, "Payments"),
    invoice.transactions.length === 0
      ? h("p", { class: "hint" }, "No payment yet: each Pay on the customer's page makes a transaction of the invoice.")
      : table(
          "The invoice's transactions",
          ["Transaction", "Status", "Asked", "Credited", "Created"],
          invoice.transactions.map((t) => [
            h("a", { href: ctx.href("/transaction", { id: t.id }), "data-route": "" }, h("code", {}, t.id)),
            STATUS_LABELS[t.status as TransactionRow["status"]] ?? t.status,
            money(t.amount),
            money(t.amount_credited),
            when(t.created_at),
          ]),
        ),
    emails,
  );
}

/** Finalize (a draft) and Void (nothing paid), for the roles that manage invoices. */
function actions(ctx: PageContext, main: HTMLElement, back: HTMLElement, error: HTMLElement, invoice: Invoice): HTMLElement | null {
  if (!ctx.can("manage_invoices")) {
    return invoice.state === "draft" || invoice.state === "open"
      ? h("p", { class: "hint" }, ctx.roleNote("Owners and developers can finalize and void invoices."))
      : null;
  }
  const buttons: HTMLElement[] = [];
  const change = (label: string, path: string, done: (i: Invoice) => string, confirm?: string) => {
    const button = h("button", { type: "button", class: label === "Void" ? "button danger" : "button" }, label);
    button.addEventListener("click", () => {
      if (confirm && !window.confirm(confirm)) return;
      void runChange(button, error, async () => {
        const changed = await ctx.api.post<Invoice>(ctx.withMode(`/invoices/${encodeURIComponent(invoice.id)}/${path}`));
        show(ctx, main, back, error, changed);
        const message = done(changed);
        replace(error, h("p", { class: "notice", id: "invoice-notice" }, message));
        ctx.announce(message);
        main.querySelector<HTMLElement>("h1")?.focus();
      });
    });
    buttons.push(button);
  };
  if (invoice.state === "draft") change("Finalize", "finalize", (i) => `Finalized as ${i.number}: the customer can pay it on its page.`);
  const nothingPaid = /^0(\.0+)?$/.test(invoice.amount_paid) && !invoice.transactions.some((t) => t.status === "PENDING");
  if ((invoice.state === "draft" || invoice.state === "open" || invoice.state === "overdue") && nothingPaid) {
    change("Void", "void", () => "The invoice is void: its page no longer takes payments.", "Void this invoice? Its page stops taking payments.");
  }
  return buttons.length === 0 ? null : h("div", { class: "actions" }, ...buttons);
}
