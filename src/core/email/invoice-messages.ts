// An invoice's e-mails to its customer (issue 44; docs/email.md): the invoice when it is finalized (its page's
// link, its PDF attached when sent), and reminders at PAYGATE_INVOICE_REMINDER_DAYS' days from the due date:
// before it (invoice_reminder) and after it (invoice_overdue). Never for a paid or void invoice; each once,
// its source naming the invoice and the day, so passes run twice or on two instances write it once.
import { invoiceNumber, standingOf } from "../invoices/rules.ts";
import { currencyOf } from "../invoices/view.ts";
import type { FollowedSubjectEvent } from "../records/email.ts";
import type { InvoicePaymentRecord, InvoiceRecord } from "../records/invoices.ts";
import { type DerivedMessage, localeOf, objectAt, text } from "./kinds.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
/** The furthest a reminder day may be from the due date, either way. */
export const MAX_REMINDER_DAY = 90;
/** Default reminders: three days before the due date, the day after it and a week after it. */
export const DEFAULT_REMINDER_DAYS = "-3,1,7";

/** "-3,1,7" → [-3, 1, 7]: whole days from the due date, distinct; "none": no reminders. The error names what is wrong. */
export function parseReminderDays(value: string): { ok: true; days: number[] } | { ok: false; why: string } {
  const parts = value.trim() === "none" ? [] : value.split(",").map((p) => p.trim());
  const days: number[] = [];
  for (const part of parts) {
    if (!/^[+-]?\d+$/.test(part) || Math.abs(Number(part)) > MAX_REMINDER_DAY) {
      return { ok: false, why: `"${part}" is not a whole number of days from -${MAX_REMINDER_DAY} to ${MAX_REMINDER_DAY} (e.g. "-3,1,7")` };
    }
    const day = Number(part);
    if (days.includes(day)) return { ok: false, why: `${day} is listed twice` };
    days.push(day);
  }
  return { ok: true, days: days.sort((a, b) => a - b) };
}

/** The invoice e-mailed when it is finalized (invoice.finalized's body says what it shows). */
export function invoiceMessageFor(event: FollowedSubjectEvent): DerivedMessage | null {
  if (event.type !== "invoice.finalized") return null;
  const invoice = objectAt(objectAt(JSON.parse(event.body), "data"), "invoice");
  const email = text(objectAt(invoice, "customer").email);
  if (email === null) return null;
  const currency = text(invoice.currency) ?? "";
  return {
    kind: "invoice",
    source: event.id,
    merchantId: event.merchantId,
    transactionId: null,
    refundId: null,
    invoiceId: event.subjectId,
    recipient: email.trim().toLowerCase(),
    // The invoice's language, else English.
    locale: localeOf(text(invoice.locale)),
    isLive: event.isLive,
    facts: {
      merchant: event.merchantName,
      number: text(invoice.number),
      total: `${text(invoice.total) ?? ""} ${currency}`.trim(),
      amountDue: `${text(invoice.amount_due) ?? ""} ${currency}`.trim(),
      dueDate: text(invoice.due_date),
    },
  };
}

/** The due dates (UTC days) a reminder pass reads: those with a reminder day passed, and a day more after the last. */
export function reminderWindow(days: readonly number[], now: Date): { fromDay: Date; toDay: Date } | null {
  const first = days[0];
  const last = days.at(-1);
  if (first === undefined || last === undefined) return null;
  return { fromDay: new Date(now.getTime() - (last + 1) * DAY_MS), toDay: new Date(now.getTime() - first * DAY_MS) };
}

/**
 * The reminder due now: that of the latest reminder day passed (a day is passed from its start, UTC), when
 * it came after the invoice was finalized (the invoice's own e-mail said as much) and something is left to
 * pay. A day missed while the service was stopped is not sent once a later one has come.
 */
export function reminderFor(
  invoice: InvoiceRecord,
  payments: readonly InvoicePaymentRecord[],
  merchantName: string,
  days: readonly number[],
  now: Date,
): DerivedMessage | null {
  if (invoice.state !== "open" || invoice.dueDate === null || invoice.finalizedAt === null) return null;
  const due = invoice.dueDate.getTime();
  const day = days.filter((d) => due + d * DAY_MS <= now.getTime()).at(-1);
  if (day === undefined || due + day * DAY_MS <= invoice.finalizedAt.getTime()) return null;
  const currency = currencyOf(invoice);
  const standing = standingOf(invoice, payments, currency.decimals, now);
  if (standing.amountDue.isZero()) return null;
  const money = (amount: { toFixed(places: number): string }) => `${amount.toFixed(currency.decimals)} ${currency.slug}`;
  return {
    // The day after the due date begins, the invoice is overdue (rules.ts, isPastDue).
    kind: day >= 1 ? "invoice_overdue" : "invoice_reminder",
    source: `${invoice.id}:reminder:${day}`,
    merchantId: invoice.merchantId,
    transactionId: null,
    refundId: null,
    invoiceId: invoice.id,
    recipient: invoice.customerEmail.trim().toLowerCase(),
    locale: localeOf(invoice.locale),
    isLive: invoice.isLive,
    facts: {
      merchant: merchantName,
      number: invoiceNumber(invoice.sequence),
      total: money(invoice.total),
      amountDue: money(standing.amountDue),
      dueDate: invoice.dueDate.toISOString().slice(0, 10),
      days: String(Math.abs(day)),
    },
  };
}
