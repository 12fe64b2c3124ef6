// An invoice's webhook events (issue 44; docs/invoices.md, docs/webhooks.md): finalizing (draft → open,
// numbered) and voiding write one event in the change's database transaction; the transaction that pays
// the last part of an open invoice writes invoice.paid in its own state change's database transaction
// (the outbox hook asks invoicePaidEvent). About the invoice (its subject), not a transaction; the body
// is `{event, data: {invoice}}`, the invoice as GET /v1/invoices/{id} shows it then.
import { subjectOutboxEvent, type OutboxEvent } from "../events/outbox-event.ts";
import type { InvoiceEventType } from "../events/payment-events.ts";
import type { InvoicePaymentRecord, InvoiceRecord } from "../records/invoices.ts";
import { invoiceView } from "./view.ts";

/** The event of a change the merchant made (finalized, voided), with the invoice as it is now. */
export function invoiceEvent(
  type: Exclude<InvoiceEventType, "invoice.paid">,
  invoice: InvoiceRecord,
  payments: readonly InvoicePaymentRecord[],
  publicUrl: string,
  now: Date,
): OutboxEvent {
  return subjectOutboxEvent(invoice, { type, body: { invoice: invoiceView(invoice, payments, publicUrl, now) } }, now);
}

/**
 * invoice.paid when its payments (as the paying transaction's change leaves them) pay it in full, else
 * null. Once per invoice: a later payment (an overpayment) finds it written already (one per subject and type).
 */
export function invoicePaidEvent(
  invoice: InvoiceRecord,
  payments: readonly InvoicePaymentRecord[],
  publicUrl: string,
  now: Date,
): OutboxEvent | null {
  const view = invoiceView(invoice, payments, publicUrl, now);
  return view.state === "paid" ? subjectOutboxEvent(invoice, { type: "invoice.paid", body: { invoice: view } }, now) : null;
}
