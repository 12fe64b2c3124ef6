// Invoices in the graph (issue 44; docs/invoices.md): REST's bodies and objects in the graph's names,
// so both APIs share one parser, one set of rules and one set of messages (src/core/invoices).
import type { MerchantAccess } from "../core/facades/access.ts";
import { PaygateError } from "../core/errors.ts";
import type { InvoiceView } from "../core/invoices/view.ts";
import type { GraphQLContext } from "./context.ts";
import { fromCore } from "./errors.ts";
import type { Invoice, InvoiceState, MutationResolvers, QueryResolvers } from "./generated/resolvers.ts";

type Access = (ctx: GraphQLContext) => Promise<MerchantAccess>;

/** An invoice as the graph shows it. */
export function invoiceOf(i: InvoiceView): Invoice {
  return {
    id: i.id,
    number: i.number,
    isLive: i.is_live,
    state: i.state.toUpperCase() as InvoiceState,
    customerEmail: i.customer.email,
    customerName: i.customer.name,
    currency: i.currency,
    items: i.items.map((item) => ({ description: item.description, quantity: item.quantity, unitPrice: item.unit_price, amount: item.amount })),
    taxes: i.taxes.map((tax) => ({ name: tax.name, rate: tax.rate, amount: tax.amount })),
    subtotal: i.subtotal,
    taxTotal: i.tax_total,
    total: i.total,
    amountPaid: i.amount_paid,
    amountDue: i.amount_due,
    amountOverpaid: i.amount_overpaid,
    memo: i.memo,
    dueDate: i.due_date,
    allowPartialPayments: i.allow_partial_payments,
    locale: i.locale,
    hostedUrl: i.hosted_url,
    transactions: i.transactions.map((x) => ({ id: x.id, status: x.status, amount: x.amount, amountCredited: x.amount_credited })),
    createdAt: i.created_at,
    finalizedAt: i.finalized_at,
    voidedAt: i.voided_at,
  };
}

const defined = (entries: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== null && value !== undefined));

export function invoiceQueries(access: Access): Pick<QueryResolvers<GraphQLContext>, "invoice" | "invoices"> {
  return {
    invoice: (_root, { id }, ctx) =>
      fromCore(async () => {
        try {
          return invoiceOf(await ctx.gateway.invoices.retrieveInvoice(await access(ctx), id));
        } catch (error) {
          // As refund(id): another merchant's, mode's or an unknown invoice is null.
          if (error instanceof PaygateError && error.reason === "invoice_not_found") return null;
          throw error;
        }
      }),
    invoices: (_root, { first, after }, ctx) =>
      fromCore(async () => {
        const params = defined({ limit: first === null || first === undefined ? undefined : String(first), starting_after: after });
        return (await ctx.gateway.invoices.listInvoices(await access(ctx), params)).invoices.map(invoiceOf);
      }),
  };
}

export function invoiceMutations(
  access: Access,
): Pick<MutationResolvers<GraphQLContext>, "createInvoice" | "updateInvoiceLocale" | "finalizeInvoice" | "voidInvoice"> {
  return {
    createInvoice: (_root, { input }, ctx) =>
      fromCore(async () => {
        const body = defined({
          customer: defined({ email: input.customerEmail, name: input.customerName }),
          currency: input.currency,
          items: input.items.map((item) => ({ description: item.description, quantity: item.quantity, unit_price: item.unitPrice })),
          taxes: input.taxes?.map((tax) => ({ name: tax.name, rate: tax.rate })),
          memo: input.memo,
          due_date: input.dueDate,
          allow_partial_payments: input.allowPartialPayments,
          locale: input.locale,
          finalize: input.finalize,
        });
        return invoiceOf(await ctx.gateway.invoices.createInvoice(await access(ctx), body));
      }),
    updateInvoiceLocale: (_root, { id, locale }, ctx) =>
      fromCore(async () => invoiceOf(await ctx.gateway.invoices.updateInvoice(await access(ctx), id, { locale: locale ?? null }))),
    finalizeInvoice: (_root, { id }, ctx) => fromCore(async () => invoiceOf(await ctx.gateway.invoices.finalizeInvoice(await access(ctx), id))),
    voidInvoice: (_root, { id }, ctx) => fromCore(async () => invoiceOf(await ctx.gateway.invoices.voidInvoice(await access(ctx), id))),
  };
}
