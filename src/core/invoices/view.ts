// The invoice object as REST, GraphQL, the CLI and the hosted page show it (docs/invoices.md).
// Amounts are decimal strings in the invoice's currency, with its decimals.
import { fiatById, type FiatCurrency } from "../money/currencies.ts";
import type { InvoicePaymentRecord, InvoiceRecord } from "../records/invoices.ts";
import type { TransactionStatus } from "../records/rows.ts";
import { type CheckoutLocale, checkoutLocaleOrNull } from "../transactions/locales.ts";
import { creditOf, type InvoiceState, invoiceNumber, standingOf, totalsOf } from "./rules.ts";

export interface InvoiceView {
  id: string;
  object: "invoice";
  number: string | null;
  is_live: boolean;
  state: InvoiceState;
  customer: { email: string; name: string | null };
  currency: string;
  items: { description: string; quantity: number; unit_price: string; amount: string }[];
  taxes: { name: string; rate: string; amount: string }[];
  subtotal: string;
  tax_total: string;
  total: string;
  amount_paid: string;
  amount_due: string;
  amount_overpaid: string;
  memo: string | null;
  due_date: string | null;
  allow_partial_payments: boolean;
  /** Its language; null: its page follows the browser, its e-mails are in English. */
  locale: CheckoutLocale | null;
  /** The hosted page; null while a draft (nothing to pay yet). */
  hosted_url: string | null;
  transactions: { id: string; status: TransactionStatus; amount: string; amount_credited: string; created_at: string }[];
  created_at: string;
  finalized_at: string | null;
  voided_at: string | null;
}

export function currencyOf(invoice: InvoiceRecord): FiatCurrency {
  const currency = fiatById(invoice.currencyId);
  if (!currency) throw new Error(`Invoice ${invoice.id} has an unknown currency ${invoice.currencyId}`);
  return currency;
}

export function hostedUrlOf(publicUrl: string, invoice: InvoiceRecord): string | null {
  return invoice.state === "draft" ? null : `${publicUrl}/invoice/${invoice.token}`;
}

export function invoiceView(invoice: InvoiceRecord, payments: readonly InvoicePaymentRecord[], publicUrl: string, now: Date): InvoiceView {
  const currency = currencyOf(invoice);
  const places = currency.decimals;
  const standing = standingOf(invoice, payments, places, now);
  const { taxAmounts } = totalsOf(invoice.items, invoice.taxes, currency);
  return {
    id: invoice.id,
    object: "invoice",
    number: invoiceNumber(invoice.sequence),
    is_live: invoice.isLive,
    state: standing.state,
    customer: { email: invoice.customerEmail, name: invoice.customerName },
    currency: currency.slug,
    items: invoice.items.map((item) => ({
      ...item,
      amount: totalsOf([item], [], currency).subtotal.toFixed(places),
    })),
    taxes: invoice.taxes.map((tax, i) => ({ ...tax, amount: (taxAmounts[i] ?? 0).toFixed(places) })),
    subtotal: invoice.subtotal.toFixed(places),
    tax_total: invoice.taxTotal.toFixed(places),
    total: invoice.total.toFixed(places),
    amount_paid: standing.amountPaid.toFixed(places),
    amount_due: standing.amountDue.toFixed(places),
    amount_overpaid: standing.amountOverpaid.toFixed(places),
    memo: invoice.memo,
    due_date: invoice.dueDate ? invoice.dueDate.toISOString().slice(0, 10) : null,
    allow_partial_payments: invoice.allowPartialPayments,
    locale: checkoutLocaleOrNull(invoice.locale),
    hosted_url: hostedUrlOf(publicUrl, invoice),
    transactions: payments.map((p) => ({
      id: p.transactionId,
      status: p.status,
      amount: p.initializedAmount.toFixed(places),
      amount_credited: creditOf(p, places).toFixed(places),
      created_at: p.createdAt.toISOString(),
    })),
    created_at: invoice.createdAt.toISOString(),
    finalized_at: invoice.finalizedAt?.toISOString() ?? null,
    voided_at: invoice.voidedAt?.toISOString() ?? null,
  };
}
