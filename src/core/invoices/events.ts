// An invoice's webhook events (issue 44; docs/invoices.md, docs/webhooks.md): finalizing (draft → open,
// numbered) and voiding write one event in the change's database transaction; a transaction of an open
// invoice that succeeds writes invoice.paid (its last part) or invoice.partially_paid (a part) in its own
// state change's database transaction (the outbox hook asks invoicePaymentEvent); the overdue pass writes
// invoice.overdue. About the invoice (its subject), not a transaction; the body is `{event, data: {invoice}}`,
// the invoice as GET /v1/invoices/{id} shows it then.
import { subjectOutboxEvent, type OutboxEvent } from "../events/outbox-event.ts";
import type { InvoiceEventType } from "../events/payment-events.ts";
import type { InvoicePaymentRecord, InvoiceRecord } from "../records/invoices.ts";
import { standingOf } from "./rules.ts";
import { currencyOf, invoiceView } from "./view.ts";

/** The event of a change the merchant made (finalized, voided), with the invoice as it is now. */
export function invoiceEvent(
  type: "invoice.finalized" | "invoice.voided",
  invoice: InvoiceRecord,
  payments: readonly InvoicePaymentRecord[],
  publicUrl: string,
  now: Date,
): OutboxEvent {
  return subjectOutboxEvent(invoice, { type, body: { invoice: invoiceView(invoice, payments, publicUrl, now) } }, now);
}

/**
 * invoice.paid when its payments (as the paying transaction's change leaves them) pay it in full,
 * invoice.partially_paid when they pay a part, else null. Once per invoice each (one per subject and
 * type): a later part or an overpayment finds it written already.
 */
export function invoicePaymentEvent(
  invoice: InvoiceRecord,
  payments: readonly InvoicePaymentRecord[],
  publicUrl: string,
  now: Date,
): OutboxEvent | null {
  if (invoice.state !== "open") return null;
  const standing = standingOf(invoice, payments, currencyOf(invoice).decimals, now);
  const type: InvoiceEventType | null = standing.amountDue.isZero() ? "invoice.paid" : standing.amountPaid.gt(0) ? "invoice.partially_paid" : null;
  if (type === null) return null;
  const view = invoiceView(invoice, payments, publicUrl, now);
  return subjectOutboxEvent(invoice, { type, body: { invoice: view } }, now);
}

/** invoice.overdue when its due date has passed with something left (the overdue pass asks; once per invoice). */
export function invoiceOverdueEvent(
  invoice: InvoiceRecord,
  payments: readonly InvoicePaymentRecord[],
  publicUrl: string,
  now: Date,
): OutboxEvent | null {
  const view = invoiceView(invoice, payments, publicUrl, now);
  return view.state === "overdue" ? subjectOutboxEvent(invoice, { type: "invoice.overdue", body: { invoice: view } }, now) : null;
}
