// `paygate invoices …` (issue 44; docs/invoices.md): a merchant's invoices through the core's façade,
// as REST and GraphQL reach them; each command prints what it did and what to do next.
import { type MerchantAccess, operatorAccess } from "../core/facades/access.ts";
import { PaygateError } from "../core/errors.ts";
import type { InvoiceView } from "../core/invoices/view.ts";
import { type CliContext, type MerchantOption, modeOption, print, requiredMerchant, say, UsageError, withRuntime } from "./commands.ts";

export interface InvoiceOptions extends MerchantOption {
  mode?: string;
  email?: string;
  name?: string;
  currency?: string;
  item?: string[];
  tax?: string[];
  memo?: string;
  dueDate?: string;
  allowPartial?: boolean;
  locale?: string;
  finalize?: boolean;
  limit?: string;
}

function ownerOf(options: InvoiceOptions): MerchantAccess {
  return operatorAccess(requiredMerchant(options), modeOption(options.mode, "test") === "live");
}

const modeName = (access: MerchantAccess) => (access.isLive ? "live" : "test");

/** "Logo design=2x150.00": the description is everything before the last "=". */
const ITEM = /^(.*)=([^=x]*)x([^=x]*)$/;

function itemOf(text: string): { description: string; quantity: number | string; unit_price: string } {
  const match = ITEM.exec(text);
  if (!match) throw new UsageError(`--item must be DESCRIPTION=QUANTITYxUNIT_PRICE, e.g. --item "Logo design=2x150.00"; got '${text}'.`);
  const [, description = "", quantity = "", unitPrice = ""] = match;
  // A quantity that is no number goes to the core as it is, whose refusal names the field.
  return { description, quantity: /^-?\d+(\.\d+)?$/.test(quantity.trim()) ? Number(quantity) : quantity, unit_price: unitPrice };
}

function taxOf(text: string): { name: string; rate: string } {
  const at = text.lastIndexOf("=");
  if (at <= 0) throw new UsageError(`--tax must be NAME=RATE (percent), e.g. --tax "VAT=7.5"; got '${text}'.`);
  return { name: text.slice(0, at), rate: text.slice(at + 1) };
}

/** An unknown id: the refusal also says where the ids are. */
async function withListHint<T>(access: MerchantAccess, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof PaygateError && error.reason === "invoice_not_found") {
      throw new PaygateError(
        error.code,
        `${error.message} for merchant ${access.merchantId} in ${modeName(access)} mode; ` +
          `its ids: paygate invoices list --merchant ${access.merchantId} --mode ${modeName(access)}`,
        error.reason,
        error.errors,
      );
    }
    throw error;
  }
}

const name = (invoice: InvoiceView) => invoice.number ?? "draft";

function summary(invoice: InvoiceView): string {
  const due = invoice.due_date ? `  due ${invoice.due_date}` : "";
  return `  ${invoice.id}  ${name(invoice)}  ${invoice.state}  ${invoice.total} ${invoice.currency}, paid ${invoice.amount_paid}, left ${invoice.amount_due}  ${invoice.customer.email}${due}`;
}

function detail(invoice: InvoiceView): string {
  const customer = invoice.customer.name ? `${invoice.customer.name} <${invoice.customer.email}>` : invoice.customer.email;
  const lines = [
    `Invoice ${invoice.id} (${name(invoice)}), ${invoice.is_live ? "live" : "test"} mode: ${invoice.state}`,
    `  customer   ${customer}`,
    `  due date   ${invoice.due_date ?? "none"}${invoice.allow_partial_payments ? "  (partial payments allowed)" : ""}`,
    `  language   ${invoice.locale ?? "not set (its page follows the browser, its e-mails are in English)"}`,
    "  items",
    ...invoice.items.map((i) => `    ${i.description}  ${i.quantity} × ${i.unit_price} = ${i.amount}`),
    `  subtotal   ${invoice.subtotal} ${invoice.currency}`,
    ...invoice.taxes.map((t) => `  ${t.name} (${t.rate}%)  ${t.amount}`),
    `  total      ${invoice.total} ${invoice.currency}`,
    `  paid       ${invoice.amount_paid}`,
    `  left       ${invoice.amount_due}`,
  ];
  if (!/^0(\.0+)?$/.test(invoice.amount_overpaid)) lines.push(`  overpaid   ${invoice.amount_overpaid}`);
  if (invoice.memo) lines.push(`  memo       ${invoice.memo}`);
  if (invoice.transactions.length > 0) {
    lines.push("  transactions");
    for (const t of invoice.transactions) lines.push(`    ${t.id}  ${t.status}  ${t.amount} asked, ${t.amount_credited} credited  ${t.created_at}`);
  }
  lines.push(`  page       ${invoice.hosted_url ?? "none while a draft"}`);
  return lines.join("\n");
}

export async function invoicesCreate(ctx: CliContext, options: InvoiceOptions): Promise<void> {
  const access = ownerOf(options);
  if (options.email === undefined) throw new UsageError("--email EMAIL (the customer's) is required.");
  if (options.currency === undefined) throw new UsageError("--currency USD|NGN is required.");
  if (!options.item || options.item.length === 0)
    throw new UsageError('At least one --item DESCRIPTION=QUANTITYxUNIT_PRICE is required, e.g. --item "Logo design=2x150.00".');
  const body = {
    customer: { email: options.email, ...(options.name === undefined ? {} : { name: options.name }) },
    currency: options.currency,
    items: options.item.map(itemOf),
    ...(options.tax ? { taxes: options.tax.map(taxOf) } : {}),
    ...(options.memo === undefined ? {} : { memo: options.memo }),
    ...(options.dueDate === undefined ? {} : { due_date: options.dueDate }),
    allow_partial_payments: options.allowPartial === true,
    ...(options.locale === undefined ? {} : { locale: options.locale }),
    finalize: options.finalize === true,
  };
  const invoice = await withRuntime(ctx, (rt) => rt.gateway.invoices.createInvoice(access, body));
  if (options.json) return print(ctx, invoice);
  say(ctx, `Created invoice ${invoice.id} of merchant ${access.merchantId} (${modeName(access)} mode):\n${detail(invoice)}`);
  if (invoice.state === "draft") {
    say(
      ctx,
      `\nIt is a draft: finalize it to number it and open its page: paygate invoices finalize ${invoice.id} --merchant ${access.merchantId} --mode ${modeName(access)}`,
    );
  } else say(ctx, `\nSend the customer its page: ${invoice.hosted_url}`);
}

export async function invoicesList(ctx: CliContext, options: InvoiceOptions): Promise<void> {
  const access = ownerOf(options);
  if (options.limit !== undefined && !/^\d{1,3}$/.test(options.limit))
    throw new UsageError(`--limit must be a whole number from 1 to 100; got '${options.limit}'.`);
  const page = await withRuntime(ctx, (rt) => rt.gateway.invoices.listInvoices(access, { limit: options.limit ?? "100" }));
  if (options.json) return print(ctx, { invoices: page.invoices, has_more: page.hasMore });
  if (page.invoices.length === 0) {
    return say(
      ctx,
      `Merchant ${access.merchantId} has no ${modeName(access)}-mode invoices; make one with: paygate invoices create --merchant ${access.merchantId} …`,
    );
  }
  for (const invoice of page.invoices) say(ctx, summary(invoice));
  if (page.hasMore) say(ctx, "(more: the newest shown; --json and the API page through the rest)");
}

export async function invoicesShow(ctx: CliContext, id: string, options: InvoiceOptions): Promise<void> {
  const access = ownerOf(options);
  const invoice = await withRuntime(ctx, (rt) => withListHint(access, () => rt.gateway.invoices.retrieveInvoice(access, id)));
  if (options.json) return print(ctx, invoice);
  say(ctx, detail(invoice));
}

/** `invoices update ID --locale fr` (or `none`): its language. */
export async function invoicesUpdate(ctx: CliContext, id: string, options: InvoiceOptions): Promise<void> {
  const access = ownerOf(options);
  if (options.locale === undefined) throw new UsageError("--locale en|fr|es|pt|de|ar|none is required.");
  const body = { locale: options.locale === "none" ? null : options.locale };
  const invoice = await withRuntime(ctx, (rt) => withListHint(access, () => rt.gateway.invoices.updateInvoice(access, id, body)));
  if (options.json) return print(ctx, invoice);
  say(ctx, `Invoice ${invoice.id} (${name(invoice)}) is now written in ${invoice.locale ?? "no language of its own (English e-mails)"}.`);
}

export async function invoicesFinalize(ctx: CliContext, id: string, options: InvoiceOptions): Promise<void> {
  const access = ownerOf(options);
  const invoice = await withRuntime(ctx, (rt) => withListHint(access, () => rt.gateway.invoices.finalizeInvoice(access, id)));
  if (options.json) return print(ctx, invoice);
  say(
    ctx,
    `Finalized invoice ${invoice.id} as ${name(invoice)}: ${invoice.state}, ${invoice.amount_due} ${invoice.currency} to pay.\n` +
      `Send ${invoice.customer.email} its page: ${invoice.hosted_url}`,
  );
}

export async function invoicesVoid(ctx: CliContext, id: string, options: InvoiceOptions): Promise<void> {
  const access = ownerOf(options);
  const invoice = await withRuntime(ctx, (rt) => withListHint(access, () => rt.gateway.invoices.voidInvoice(access, id)));
  if (options.json) return print(ctx, invoice);
  say(ctx, `Voided invoice ${invoice.id} (${name(invoice)}): its page no longer takes payments.`);
}
