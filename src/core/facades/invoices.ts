// The invoices context's façade (issue 44; docs/invoices.md): every merchant door comes with a
// MerchantAccess, each use case checks its permission on it once (`read`, or `manage_invoices` for
// a change) and works on that merchant and mode. The hosted page's operations need no access: its
// unguessable token is the customer's.
import type { CoreDeps } from "../deps.ts";
import * as invoices from "../invoices/invoices.ts";
import { writeOverdueEvents } from "../invoices/overdue.ts";
import type { InvoiceView } from "../invoices/view.ts";
import type { CheckoutLocale } from "../transactions/locales.ts";
import type { MerchantAccess } from "./access.ts";

function readerOf(access: MerchantAccess): invoices.InvoiceOwner {
  access.require("read");
  return { merchantId: access.merchantId, isLive: access.isLive };
}

function changerOf(access: MerchantAccess): invoices.InvoiceChanger {
  access.require("manage_invoices");
  return { merchantId: access.merchantId, isLive: access.isLive, by: access.by };
}

export class Invoices {
  constructor(private readonly deps: CoreDeps) {}

  /** A draft, or (`finalize: true`) an open invoice with its number at once. */
  createInvoice(access: MerchantAccess, body: unknown): Promise<InvoiceView> {
    return invoices.createInvoice(this.deps, changerOf(access), body);
  }

  retrieveInvoice(access: MerchantAccess, id: string): Promise<InvoiceView> {
    return invoices.retrieveInvoice(this.deps, readerOf(access), id);
  }

  listInvoices(access: MerchantAccess, params: Record<string, unknown>): Promise<{ invoices: InvoiceView[]; hasMore: boolean }> {
    return invoices.listInvoices(this.deps, readerOf(access), params);
  }

  /**
   * Draft → open with the next number. The hook for what follows an invoice's sending (its e-mail,
   * its reminders): an invoice is the customer's from its `finalized_at` on.
   */
  updateInvoice(access: MerchantAccess, id: string, body: unknown): Promise<InvoiceView> {
    return invoices.updateInvoice(this.deps, changerOf(access), id, body);
  }

  finalizeInvoice(access: MerchantAccess, id: string): Promise<InvoiceView> {
    return invoices.finalizeInvoice(this.deps, changerOf(access), id);
  }

  voidInvoice(access: MerchantAccess, id: string): Promise<InvoiceView> {
    return invoices.voidInvoice(this.deps, changerOf(access), id);
  }

  /** What its PDF shows (`document`: invoice, receipt, or absent: the receipt once paid). */
  invoiceDocument(access: MerchantAccess, id: string, document: unknown): Promise<invoices.InvoiceDocument> {
    return invoices.invoiceDocument(this.deps, readerOf(access), id, document);
  }

  /** The jobs' overdue pass: invoice.overdue for each invoice whose due date passed with something left. */
  writeOverdueEvents(): Promise<number> {
    return writeOverdueEvents(this.deps);
  }

  // ── The hosted page (/invoice/:token) ──

  invoicePage(token: string): Promise<invoices.InvoicePage> {
    return invoices.invoicePage(this.deps, token);
  }

  invoicePageDocument(token: string, document: unknown): Promise<invoices.InvoiceDocument> {
    return invoices.invoicePageDocument(this.deps, token, document);
  }

  payInvoice(token: string, choice: { amount?: string | null; locale?: CheckoutLocale | null }) {
    return invoices.payInvoice(this.deps, token, choice);
  }
}
