// An invoice's rules (issue 44; docs/invoices.md): what a request may say, its totals in exact
// decimals, its number, and the state its payments and due date give it.
import { z } from "zod";
import { Decimal, isNumericString, MAX_FIAT_AMOUNT } from "../money/amounts.ts";
import { FIAT_CURRENCIES, fiatBySlug, type FiatCurrency } from "../money/currencies.ts";
import type { InvoiceItem, InvoicePaymentRecord, InvoiceRecord, InvoiceTax } from "../records/invoices.ts";
import { CHECKOUT_LOCALES } from "../transactions/locales.ts";
import { isStorableText } from "../transactions/requests.ts";

/** The most line items one invoice holds (docs/invoices.md, Limits). */
export const MAX_INVOICE_ITEMS = 100;
/** The most tax lines one invoice holds. */
export const MAX_INVOICE_TAXES = 5;
/** The largest quantity of one line. */
export const MAX_QUANTITY = 1_000_000;

export type InvoiceState = "draft" | "open" | "partially_paid" | "paid" | "overdue" | "void";

const STORABLE = "must not contain NUL characters or broken Unicode";
const text = (max: number) => z.string().trim().max(max).refine(isStorableText, STORABLE);
const decimalText = (message: string) => z.string().trim().refine(isNumericString, message);

const Item = z.object({
  description: text(500).pipe(z.string().min(1, "must not be empty")),
  quantity: z
    .number({ error: "must be a positive integer" })
    .int("must be a positive integer")
    .min(1, "must be a positive integer")
    .max(MAX_QUANTITY, `must be at most ${MAX_QUANTITY}`),
  unit_price: decimalText('must be a decimal string such as "25.00"'),
});

const Tax = z.object({
  name: text(100).pipe(z.string().min(1, "must not be empty")),
  rate: decimalText('must be a decimal string in percent such as "7.5"')
    .refine((r) => !isNumericString(r) || new Decimal(r).lte(100), "must be at most 100 (percent)")
    .refine((r) => !isNumericString(r) || new Decimal(r).decimalPlaces() <= 4, "must have at most 4 decimal places"),
});

/** One of the checkout's languages (an invoice's, a user's notices'). */
export const InvoiceLocale = z.enum(CHECKOUT_LOCALES, { error: `must be one of ${CHECKOUT_LOCALES.join(", ")}` });

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** POST /v1/invoices' body (GraphQL and the CLI send the same fields). */
export const InvoiceBody = z.object({
  customer: z.object({
    email: z
      .string()
      .trim()
      .max(254)
      .pipe(z.email({ error: "must be a valid e-mail address" })),
    name: text(200).nullish(),
  }),
  currency: z
    .string()
    .trim()
    .toUpperCase()
    .refine((c) => fiatBySlug(c) !== undefined, `must be ${FIAT_CURRENCIES.map((c) => c.slug).join(" or ")}`),
  items: z
    .array(Item, { error: "must be a list of line items" })
    .min(1, "must hold at least one line item")
    .max(MAX_INVOICE_ITEMS, `must hold at most ${MAX_INVOICE_ITEMS} line items`),
  taxes: z.array(Tax, { error: "must be a list of tax lines" }).max(MAX_INVOICE_TAXES, `must hold at most ${MAX_INVOICE_TAXES} tax lines`).nullish(),
  memo: text(2000).nullish(),
  due_date: z
    .string()
    .refine(
      (d) => DAY.test(d) && !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
      "must be a day as YYYY-MM-DD",
    )
    .nullish(),
  allow_partial_payments: z.boolean({ error: "must be true or false" }).nullish(),
  /** Its language (e-mails, reminders, PDF, page); absent: its page follows the browser, its e-mails are in English. */
  locale: InvoiceLocale.nullish(),
  /** True: finalized at once (numbered, open, payable); false or absent: a draft. */
  finalize: z.boolean({ error: "must be true or false" }).nullish(),
});
export type InvoiceBody = z.infer<typeof InvoiceBody>;

/** POST /v1/invoices/:id's body: the language, the one thing a sent invoice may change (null: none). */
export const InvoiceUpdateBody = z.object({ locale: InvoiceLocale.nullable() });

export interface Totals {
  subtotal: Decimal;
  /** Each tax line's amount, in the body's order. */
  taxAmounts: Decimal[];
  taxTotal: Decimal;
  total: Decimal;
}

/** Prices with more decimals than the currency, and a total past the largest amount: field errors, or none. */
export function amountProblems(items: readonly InvoiceItem[], currency: FiatCurrency): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  items.forEach((item, i) => {
    const price = new Decimal(item.unit_price);
    if (price.lte(0)) problems.push({ field: `items.${i}.unit_price`, message: `items.${i}.unit_price must be greater than 0` });
    else if (price.decimalPlaces() > currency.decimals) {
      problems.push({
        field: `items.${i}.unit_price`,
        message: `items.${i}.unit_price has more than ${currency.decimals} decimal places, the precision of ${currency.slug}`,
      });
    }
  });
  return problems;
}

/**
 * Subtotal = Σ quantity × unit price; each tax = subtotal × rate / 100, rounded half up to the
 * currency's decimals per line (as the line prints); total = subtotal + taxes.
 */
export function totalsOf(items: readonly InvoiceItem[], taxes: readonly InvoiceTax[], currency: FiatCurrency): Totals {
  const subtotal = items.reduce((sum, item) => sum.plus(new Decimal(item.unit_price).times(item.quantity)), new Decimal(0));
  const taxAmounts = taxes.map((tax) => subtotal.times(tax.rate).div(100).toDecimalPlaces(currency.decimals, Decimal.ROUND_HALF_UP));
  const taxTotal = taxAmounts.reduce((sum, amount) => sum.plus(amount), new Decimal(0));
  return { subtotal, taxAmounts, taxTotal, total: subtotal.plus(taxTotal) };
}

/** The largest total an invoice may have: what one transaction may ask for. */
export const MAX_INVOICE_TOTAL = MAX_FIAT_AMOUNT;

/** `INV-0001`: the merchant's sequence, four digits at least. */
export function invoiceNumber(sequence: number | null): string | null {
  return sequence === null ? null : `INV-${String(sequence).padStart(4, "0")}`;
}

/**
 * The fiat a transaction of the invoice pays: nothing until the payment lifecycle calls it SUCCESSFUL
 * (an underpayment waits for its top-up), nothing once reversed; then what it asked for, or more when
 * the coin received at the locked rate is worth more (an overpayment), cut to the currency's decimals.
 */
export function creditOf(payment: InvoicePaymentRecord, decimals: number): Decimal {
  if (payment.status !== "SUCCESSFUL" || payment.reversedAt !== null) return new Decimal(0);
  const received =
    payment.amountPaid && payment.quoteRate
      ? payment.amountPaid.times(payment.quoteRate).toDecimalPlaces(decimals, Decimal.ROUND_DOWN)
      : new Decimal(0);
  return Decimal.max(payment.initializedAmount, received);
}

export interface Standing {
  state: InvoiceState;
  amountPaid: Decimal;
  /** What is left to pay; 0 when paid (or overpaid). */
  amountDue: Decimal;
  /** Paid beyond the total (two customers paying the rest at once, a larger payment). */
  amountOverpaid: Decimal;
}

/** The day after the due date has begun (UTC): from then an unpaid open invoice is overdue. */
export function isPastDue(dueDate: Date | null, now: Date): boolean {
  return dueDate !== null && now.getTime() >= dueDate.getTime() + 24 * 60 * 60 * 1000;
}

/** The invoice's state and amounts from what was written and its payments, as of `now`. */
export function standingOf(invoice: InvoiceRecord, payments: readonly InvoicePaymentRecord[], decimals: number, now: Date): Standing {
  const amountPaid = payments.reduce((sum, p) => sum.plus(creditOf(p, decimals)), new Decimal(0));
  const left = invoice.total.minus(amountPaid);
  const amountDue = Decimal.max(left, 0);
  const amountOverpaid = Decimal.max(left.neg(), 0);
  return { state: stateOf(invoice, amountPaid, amountDue, now), amountPaid, amountDue, amountOverpaid };
}

function stateOf(invoice: InvoiceRecord, paid: Decimal, due: Decimal, now: Date): InvoiceState {
  if (invoice.state !== "open") return invoice.state;
  if (due.isZero()) return "paid";
  if (isPastDue(invoice.dueDate, now)) return "overdue";
  return paid.gt(0) ? "partially_paid" : "open";
}
