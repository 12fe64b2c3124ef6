// The e-mail follower (issue 44): reads the events outbox from a stored cursor, the part-paid
// transactions, disabled webhook endpoints and invoices near their due date, and writes the messages the
// rules ask for into the e-mail outbox. It writes nothing into the webhook tables: the events stay the
// webhooks' (see docs/architecture.md, Where a new concern goes).
import type { LifecyclePolicy } from "../policies.ts";
import type { Clock } from "../ports.ts";
import type { NewEmailMessage, NoticeRecipient } from "../records/email.ts";
import { randomToken } from "../secrets.ts";
import type { EmailStore } from "../stores/email.ts";
import type { InvoiceStore } from "../stores/invoices.ts";
import { invoiceMessageFor, reminderFor, reminderWindow } from "./invoice-messages.ts";
import { type DerivedMessage, FOLLOWED_EVENT_TYPES, messagesForEvent, payRestFor } from "./kinds.ts";
import { endpointNotices, paymentNotices, UNMATCHED_RECEIPT_EVENT, unmatchedReceiptNotices } from "./notices.ts";

export const FOLLOWER = "events";
/**
 * Each pass reads again the events created this long before the cursor: an event is written in the
 * transaction that makes it and may commit after a later one was read. The outbox's unique key makes
 * reading one twice harmless.
 */
export const REREAD_MARGIN_MS = 10 * 60_000;
const PAGE = 200;

export interface EmailFollowDeps {
  store: EmailStore;
  clock: Clock;
  lifecycle: LifecyclePolicy;
  /** Why nothing is sent (no PAYGATE_SMTP_URL); null when a transport is configured. */
  offReason: string | null;
  invoices: InvoiceStore;
  /** The merchant's name, for a reminder's facts. */
  merchantName: (merchantId: number) => Promise<string>;
  /** PAYGATE_INVOICE_REMINDER_DAYS: days from an invoice's due date, sorted. */
  reminderDays: readonly number[];
}

export const newEmailId = () => `eml_${randomToken(24)}`;

export const TEST_MODE_SKIP = "test mode: sent only to the merchant's dashboard users";

/** One pass: the events since the cursor and the part-paid transactions; answers how many messages were written. */
export async function followEvents(deps: EmailFollowDeps): Promise<number> {
  const now = deps.clock.now();
  // A first pass starts a margin before now: turning e-mail on does not mail every past customer.
  const cursor = (await deps.store.readCursor(FOLLOWER)) ?? new Date(now.getTime() - REREAD_MARGIN_MS);
  const from = new Date(cursor.getTime() - REREAD_MARGIN_MS);
  let after: { createdAt: Date; id: string } | null = null;
  let readUntil = cursor;
  let written = 0;
  const users = new Map<number, Set<string>>();
  const noticed = new Map<number, NoticeRecipient[]>();
  const noticeRecipients = async (merchantId: number) => {
    const known = noticed.get(merchantId) ?? (await deps.store.noticeRecipients(merchantId));
    noticed.set(merchantId, known);
    return known;
  };
  for (;;) {
    const events = await deps.store.eventsSince(from, after, FOLLOWED_EVENT_TYPES, PAGE);
    const derived = events.flatMap(messagesForEvent);
    for (const event of events) derived.push(...paymentNotices(event, await noticeRecipients(event.merchantId)));
    written += await write(deps, derived, users, now);
    const last = events.at(-1);
    if (last) {
      after = { createdAt: last.createdAt, id: last.id };
      if (last.createdAt > readUntil) readUntil = last.createdAt;
    }
    if (events.length < PAGE) break;
  }
  const partPaid = await deps.store.partPaid("pay_rest", PAGE);
  written += await write(
    deps,
    partPaid.flatMap((t) => payRestFor(t, deps.lifecycle) ?? []),
    users,
    now,
  );
  let afterSubject: { createdAt: Date; id: string } | null = null;
  for (;;) {
    const events = await deps.store.subjectEventsSince(from, afterSubject, ["invoice.finalized", UNMATCHED_RECEIPT_EVENT], PAGE);
    const derived = events.flatMap((e) => invoiceMessageFor(e) ?? []);
    for (const event of events) derived.push(...unmatchedReceiptNotices(event, await noticeRecipients(event.merchantId)));
    written += await write(deps, derived, users, now);
    const last = events.at(-1);
    if (last) {
      afterSubject = { createdAt: last.createdAt, id: last.id };
      if (last.createdAt > readUntil) readUntil = last.createdAt;
    }
    if (events.length < PAGE) break;
  }
  for (const endpoint of await deps.store.endpointsDisabledSince(from, PAGE)) {
    written += await write(deps, endpointNotices(endpoint, await noticeRecipients(endpoint.merchantId)), users, now);
  }
  written += await writeReminders(deps, users, now);
  await deps.store.writeCursor(FOLLOWER, readUntil);
  return written;
}

/** The reminders due now of the open invoices whose due date is near (invoice-messages.ts decides). */
async function writeReminders(deps: EmailFollowDeps, users: Map<number, Set<string>>, now: Date): Promise<number> {
  const window = reminderWindow(deps.reminderDays, now);
  if (window === null) return 0;
  let written = 0;
  let afterId: string | null = null;
  for (;;) {
    const invoices = await deps.invoices.openDueWithin({ ...window, withoutEvent: null, afterId, limit: PAGE });
    const payments = await deps.invoices.paymentsOf(invoices.map((i) => i.id));
    const derived: DerivedMessage[] = [];
    for (const invoice of invoices) {
      const own = payments.filter((p) => p.invoiceId === invoice.id);
      const reminder = reminderFor(invoice, own, await deps.merchantName(invoice.merchantId), deps.reminderDays, now);
      if (reminder) derived.push(reminder);
    }
    written += await write(deps, derived, users, now);
    afterId = invoices.at(-1)?.id ?? null;
    if (invoices.length < PAGE) return written;
  }
}

/** Queued, or SKIPPED with the reason: no SMTP server, or a test transaction's customer who is not one of the merchant's users. */
async function write(deps: EmailFollowDeps, derived: DerivedMessage[], users: Map<number, Set<string>>, now: Date): Promise<number> {
  if (derived.length === 0) return 0;
  const rows: NewEmailMessage[] = [];
  for (const m of derived) {
    const skip = deps.offReason ?? (m.isLive || (await isUser(deps.store, users, m.merchantId, m.recipient)) ? null : TEST_MODE_SKIP);
    rows.push({
      ...m,
      id: newEmailId(),
      state: skip === null ? "QUEUED" : "SKIPPED",
      nextAttemptAt: now,
      lastError: skip,
      createdAt: now,
    });
  }
  return deps.store.enqueue(rows);
}

async function isUser(store: EmailStore, cache: Map<number, Set<string>>, merchantId: number, email: string): Promise<boolean> {
  let emails = cache.get(merchantId);
  if (!emails) {
    emails = new Set(await store.userEmails(merchantId));
    cache.set(merchantId, emails);
  }
  return emails.has(email);
}
