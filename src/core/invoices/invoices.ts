// Invoices' use cases (issue 44; docs/invoices.md): create (a draft, or finalized at once), finalize,
// void, read and list for a merchant and mode; the hosted page's view and its Pay, which makes a
// transaction of the invoice for what is left through initialize (spec 4.1), nothing bypassed.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { auditEntry, type AuditAction, type ChangeAuthor } from "../access/audit-log.ts";
import type { CoreDeps } from "../deps.ts";
import { errors } from "../errors.ts";
import { LIST_LIMIT_DEFAULT, limitParam, pageOf, parseListQuery, single, startingAfter } from "../lists.ts";
import { Decimal, isNumericString } from "../money/amounts.ts";
import { fiatBySlug } from "../money/currencies.ts";
import type { InvoiceRecord } from "../records/invoices.ts";
import { randomToken } from "../secrets.ts";
import { type InitializeDeps, initializeTransaction } from "../transactions/initialize.ts";
import { parseBody } from "../transactions/requests.ts";
import type { CheckoutLocale } from "../transactions/locales.ts";
import { invoiceEvent } from "./events.ts";
import { amountProblems, InvoiceBody, InvoiceUpdateBody, invoiceNumber, MAX_INVOICE_TOTAL, standingOf, totalsOf } from "./rules.ts";
import { currencyOf, invoiceView, type InvoiceView } from "./view.ts";

/** Whose invoices a use case works on: the MerchantAccess's merchant and mode, checked by the façade. */
export interface InvoiceOwner {
  merchantId: number;
  isLive: boolean;
}

/** Who changes them, for the audit log (the façade's MerchantAccess `by`). */
export interface InvoiceChanger extends InvoiceOwner {
  by: ChangeAuthor;
}

export type InvoiceDeps = Pick<CoreDeps, "stores" | "clock" | "publicUrl"> & InitializeDeps;

const INVOICE_ID = /^inv_[0-9a-f-]{36}$/;

export const InvoiceListParams = z.object({
  limit: limitParam.optional(),
  starting_after: single.regex(INVOICE_ID, "must be the id (inv_…) of an invoice of the previous page").optional(),
});

/** A change's audit entry: the invoice by id, its number once it has one, the mode, and what `detail` says. */
function invoiceAudit(changer: InvoiceChanger, at: Date, action: AuditAction, detail: (changed: InvoiceRecord) => string) {
  return (changed: InvoiceRecord) => {
    const number = invoiceNumber(changed.sequence);
    const named = number === null ? changed.id : `${changed.id} (${number})`;
    return auditEntry(changer.by, changer.merchantId, at, action, `${named} in ${changed.isLive ? "live" : "test"} mode: ${detail(changed)}`);
  };
}

async function viewOf(deps: InvoiceDeps, invoice: InvoiceRecord): Promise<InvoiceView> {
  const payments = await deps.stores.invoices.paymentsOf([invoice.id]);
  return invoiceView(invoice, payments, deps.publicUrl, deps.clock.now());
}

/** POST /v1/invoices: 400 naming each refused field, nothing written. */
export async function createInvoice(deps: InvoiceDeps, owner: InvoiceChanger, body: unknown): Promise<InvoiceView> {
  const parsed = parseBody(InvoiceBody, body);
  if (!parsed.ok) throw errors.invoiceValidation(parsed.errors);
  const request = parsed.value;
  const currency = fiatBySlug(request.currency);
  if (!currency) throw errors.invoiceValidation([{ field: "currency", message: "currency must be USD or NGN" }]);
  const problems = amountProblems(request.items, currency);
  if (problems.length > 0) throw errors.invoiceValidation(problems);
  const taxes = (request.taxes ?? []).map((tax) => ({ name: tax.name, rate: new Decimal(tax.rate).toFixed() }));
  const items = request.items.map((item) => ({ ...item, unit_price: new Decimal(item.unit_price).toFixed(currency.decimals) }));
  const totals = totalsOf(items, taxes, currency);
  if (totals.total.gt(MAX_INVOICE_TOTAL)) {
    throw errors.invoiceValidation([
      { field: "items", message: `items come to ${totals.total.toFixed(2)}, above the largest total ${MAX_INVOICE_TOTAL.toFixed(2)}` },
    ]);
  }
  const now = deps.clock.now();
  const finalize = request.finalize === true;
  const invoice = await deps.stores.invoices.create(
    {
      id: `inv_${randomUUID()}`,
      merchantId: owner.merchantId,
      isLive: owner.isLive,
      state: finalize ? "open" : "draft",
      customerEmail: request.customer.email,
      customerName: request.customer.name ?? null,
      currencyId: currency.id,
      items,
      taxes,
      subtotal: totals.subtotal,
      taxTotal: totals.taxTotal,
      total: totals.total,
      memo: request.memo ?? null,
      dueDate: request.due_date ? new Date(`${request.due_date}T00:00:00Z`) : null,
      allowPartialPayments: request.allow_partial_payments ?? false,
      locale: request.locale ?? null,
      token: randomToken(32),
      createdAt: now,
      finalizedAt: finalize ? now : null,
    },
    finalize,
    // Created finalized: it was numbered and sent as a finalized draft is.
    (created, payments) => (finalize ? invoiceEvent("invoice.finalized", created, payments, deps.publicUrl, now) : null),
    invoiceAudit(
      owner,
      now,
      "invoice.create",
      (created) => `${finalize ? "finalized" : "a draft"}, ${created.total.toFixed(currency.decimals)} ${currency.slug}`,
    ),
  );
  return invoiceView(invoice, [], deps.publicUrl, now);
}

async function invoiceFor(deps: InvoiceDeps, owner: InvoiceOwner, id: string): Promise<InvoiceRecord> {
  const invoice = INVOICE_ID.test(id) ? await deps.stores.invoices.findFor(id, owner.merchantId, owner.isLive) : null;
  if (!invoice) throw errors.invoiceNotFound(id);
  return invoice;
}

export async function retrieveInvoice(deps: InvoiceDeps, owner: InvoiceOwner, id: string): Promise<InvoiceView> {
  return viewOf(deps, await invoiceFor(deps, owner, id));
}

/** GET /v1/invoices: newest first, the cursor of /v1/refunds. */
export async function listInvoices(
  deps: InvoiceDeps,
  owner: InvoiceOwner,
  params: Record<string, unknown>,
): Promise<{ invoices: InvoiceView[]; hasMore: boolean }> {
  const query = parseListQuery(InvoiceListParams, params);
  const cursor = await startingAfter(query.starting_after, (id) => deps.stores.invoices.findFor(id, owner.merchantId, owner.isLive));
  const after = cursor && { createdAt: cursor.createdAt, id: cursor.id };
  const limit = query.limit ?? LIST_LIMIT_DEFAULT;
  const rows = await deps.stores.invoices.page({ merchantId: owner.merchantId, isLive: owner.isLive, after, limit: limit + 1 });
  const page = pageOf(rows, limit);
  const payments = await deps.stores.invoices.paymentsOf(page.items.map((i) => i.id));
  const now = deps.clock.now();
  return {
    invoices: page.items.map((invoice) =>
      invoiceView(
        invoice,
        payments.filter((p) => p.invoiceId === invoice.id),
        deps.publicUrl,
        now,
      ),
    ),
    hasMore: page.hasMore,
  };
}

/** A draft becomes open with the next number (gapless); 409 for any other state, nothing changed. */
export async function finalizeInvoice(deps: InvoiceDeps, owner: InvoiceChanger, id: string): Promise<InvoiceView> {
  const invoice = await invoiceFor(deps, owner, id);
  if (invoice.state !== "draft") throw errors.invoiceNotDraft((await viewOf(deps, invoice)).state);
  const now = deps.clock.now();
  const finalized = await deps.stores.invoices.finalize(
    invoice.id,
    now,
    (changed, payments) => invoiceEvent("invoice.finalized", changed, payments, deps.publicUrl, now),
    invoiceAudit(owner, now, "invoice.finalize", () => "sent to the customer"),
  );
  if (!finalized) throw errors.invoiceNotDraft((await viewOf(deps, await invoiceFor(deps, owner, id))).state);
  return viewOf(deps, finalized);
}

/**
 * POST /v1/invoices/:id: its language, while a draft or unpaid (partly paid and overdue too); 404 before
 * the body is read, 400 naming `locale`, 409 once paid or void; nothing changed then.
 */
export async function updateInvoice(deps: InvoiceDeps, owner: InvoiceChanger, id: string, body: unknown): Promise<InvoiceView> {
  const invoice = await invoiceFor(deps, owner, id);
  const parsed = parseBody(InvoiceUpdateBody, body);
  if (!parsed.ok) throw errors.invoiceValidation(parsed.errors);
  const state = (await viewOf(deps, invoice)).state;
  if (state === "paid" || state === "void") throw errors.invoiceNotEditable(state);
  const now = deps.clock.now();
  const locale = parsed.value.locale;
  const changed = await deps.stores.invoices.setLocale(
    invoice.id,
    locale,
    now,
    invoiceAudit(owner, now, "invoice.update", () => `language ${locale ?? "none (the page follows the browser, e-mails in English)"}`),
  );
  if (!changed) throw errors.invoiceNotEditable((await viewOf(deps, await invoiceFor(deps, owner, id))).state);
  return viewOf(deps, changed);
}

/** Voids a draft or an open invoice nothing was paid of; 409 once a payment counts or when void already. */
export async function voidInvoice(deps: InvoiceDeps, owner: InvoiceChanger, id: string): Promise<InvoiceView> {
  const invoice = await invoiceFor(deps, owner, id);
  const currency = currencyOf(invoice);
  const now = deps.clock.now();
  const voided = await deps.stores.invoices.void(
    invoice.id,
    now,
    (payments) => {
      const standing = standingOf(invoice, payments, currency.decimals, now);
      // A payment still under way would be orphaned: refused as well as one that counted.
      const underWay = payments.some((p) => p.status === "PENDING");
      if (standing.amountPaid.gt(0) || underWay)
        throw errors.invoiceNotVoidable(underWay && standing.amountPaid.isZero() ? "being paid" : standing.state);
    },
    (changed, payments) => invoiceEvent("invoice.voided", changed, payments, deps.publicUrl, now),
    invoiceAudit(owner, now, "invoice.void", () => "voided"),
  );
  if (!voided) throw errors.invoiceNotVoidable((await viewOf(deps, await invoiceFor(deps, owner, id))).state);
  return viewOf(deps, voided);
}

// ── The hosted page (GET /invoice/:token) ──

export interface InvoicePage {
  invoice: InvoiceView;
  merchantName: string;
}

async function pageInvoice(deps: InvoiceDeps, token: string) {
  const invoice = /^[0-9A-Za-z]{32}$/.test(token) ? await deps.stores.invoices.findByToken(token) : null;
  // A draft is the merchant's only: its link does not exist yet for the customer.
  if (!invoice || invoice.state === "draft") throw errors.invoicePageNotFound();
  return invoice;
}

export async function invoicePage(deps: InvoiceDeps, token: string): Promise<InvoicePage> {
  return pageOfInvoice(deps, await pageInvoice(deps, token));
}

async function pageOfInvoice(deps: InvoiceDeps, invoice: InvoiceRecord): Promise<InvoicePage> {
  const merchant = await deps.stores.merchants.settings(invoice.merchantId);
  return { invoice: await viewOf(deps, invoice), merchantName: merchant?.name ?? "" };
}

// ── Its documents (the PDF of the invoice, and of its receipt once paid) ──

export type InvoiceDocumentKind = "invoice" | "receipt";

/** What a PDF shows: the invoice as its page shows it, and which document of it. */
export interface InvoiceDocument extends InvoicePage {
  kind: InvoiceDocumentKind;
}

/**
 * `document`: "invoice", "receipt", or absent: the receipt once the invoice is paid, else the invoice.
 * A receipt of an unpaid invoice is a 409; another word a 400 naming `document`.
 */
function documentOf(page: InvoicePage, document: unknown): InvoiceDocument {
  if (document !== undefined && document !== "invoice" && document !== "receipt")
    throw errors.invoiceValidation([{ field: "document", message: "document must be invoice or receipt" }]);
  const paid = page.invoice.state === "paid";
  if (document === "receipt" && !paid) throw errors.invoiceReceiptNotPaid(page.invoice.state);
  return { ...page, kind: document === "invoice" || !paid ? "invoice" : "receipt" };
}

/** The merchant's document of one of its invoices (a draft too: its preview). */
export async function invoiceDocument(deps: InvoiceDeps, owner: InvoiceOwner, id: string, document: unknown): Promise<InvoiceDocument> {
  return documentOf(await pageOfInvoice(deps, await invoiceFor(deps, owner, id)), document);
}

/** The customer's, by the page's token (never a draft's). */
export async function invoicePageDocument(deps: InvoiceDeps, token: string, document: unknown): Promise<InvoiceDocument> {
  return documentOf(await invoicePage(deps, token), document);
}

/**
 * The page's Pay: a transaction of the invoice for what is left (or, when partial payments are
 * allowed, the amount the customer chose, up to what is left), made by initialize with the
 * invoice's merchant and mode as a customer's caller; its checkout_url is where the customer goes.
 * Two customers paying the rest at once each get a transaction: the second payment is an
 * overpayment of the invoice, and each transaction follows the payment lifecycle as any other.
 */
export async function payInvoice(
  deps: InvoiceDeps,
  token: string,
  choice: { amount?: string | null; locale?: CheckoutLocale | null },
): Promise<{ checkoutUrl: string; transactionId: string }> {
  const invoice = await pageInvoice(deps, token);
  const currency = currencyOf(invoice);
  const standing = standingOf(invoice, await deps.stores.invoices.paymentsOf([invoice.id]), currency.decimals, deps.clock.now());
  if (invoice.state !== "open" || standing.amountDue.isZero()) throw errors.invoiceNotPayable(standing.state);
  const amount = amountToPay(choice.amount, standing.amountDue, invoice.allowPartialPayments, currency.decimals);
  const merchant = await deps.stores.merchants.settings(invoice.merchantId);
  if (!merchant?.active) throw errors.invoiceMerchantInactive();
  const outcome = await initializeTransaction(deps, {
    bearerToken: undefined,
    caller: {
      merchant: { id: merchant.id, name: merchant.name, active: merchant.active, kybStatus: merchant.kybStatus },
      isLive: invoice.isLive,
      paymentLinkId: null,
      keyKind: "PAYMENT_LINK",
      transactionId: null,
      key: null,
    },
    body: {
      customer: { email: invoice.customerEmail, name: invoice.customerName },
      currency: currency.slug,
      amount: amount.toFixed(currency.decimals),
      description: `Invoice ${invoice.sequence === null ? invoice.id : `INV-${String(invoice.sequence).padStart(4, "0")}`}`,
      meta: { invoice_id: invoice.id },
      ...(choice.locale ? { locale: choice.locale } : {}),
    },
  });
  // Voided while the transaction was made: it stays unpaid and unlinked, and expires as any other.
  if (!(await deps.stores.invoices.addPayment(invoice.id, outcome.transaction.id, deps.clock.now()))) throw errors.invoiceNotPayable("void");
  const checkoutUrl = outcome.checkout?.checkoutUrl;
  if (!checkoutUrl) throw new Error("initialize returned no checkout link");
  return { checkoutUrl, transactionId: outcome.transaction.id };
}

function amountToPay(sent: string | null | undefined, due: Decimal, partial: boolean, decimals: number): Decimal {
  if (sent === undefined || sent === null || sent.trim() === "" || !partial) return due;
  const text = sent.trim();
  const field = "amount";
  if (!isNumericString(text)) throw errors.invoiceValidation([{ field, message: 'amount must be a decimal string such as "25.00"' }]);
  const amount = new Decimal(text);
  if (amount.lte(0) || amount.gt(due))
    throw errors.invoiceValidation([{ field, message: `amount must be more than 0 and at most ${due.toFixed(decimals)}, what is left` }]);
  if (amount.decimalPlaces() > decimals) throw errors.invoiceValidation([{ field, message: `amount has more than ${decimals} decimal places` }]);
  return amount;
}
