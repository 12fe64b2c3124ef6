// The merchant's notices by e-mail (issue 44; docs/email.md) to its dashboard users who asked for them
// (a setting of each user's own, off by default): a payment received, a webhook endpoint disabled. Each
// in the language its user chose for them (its notice language, English by default).
import { normalEmail } from "../dashboard/fields.ts";
import { errors } from "../errors.ts";
import { UNMATCHED_RECEIPT_EVENT_TYPES } from "../events/payment-events.ts";
import type { DashboardActor } from "../access/roles.ts";
import type { DisabledEndpoint, FollowedEvent, FollowedSubjectEvent, NoticeRecipient } from "../records/email.ts";
import type { EmailStore } from "../stores/email.ts";
import { CHECKOUT_LOCALES, type CheckoutLocale } from "../transactions/locales.ts";
import { type DerivedMessage, localeOf, objectAt, text } from "./kinds.ts";

/** What every notice to one user shares: its recipient, in its notice language, and the merchant and mode it is about. */
function noticeTo(recipient: NoticeRecipient, about: { merchantId: number; isLive: boolean }, transactionId: string | null = null) {
  const { merchantId, isLive } = about;
  return { merchantId, isLive, transactionId, refundId: null, invoiceId: null, recipient: recipient.email, locale: localeOf(recipient.locale) };
}

/** "payment received" for each user who asked, from the payment.received event (the customer's receipt's source too). */
export function paymentNotices(event: FollowedEvent, recipients: readonly NoticeRecipient[]): DerivedMessage[] {
  if (event.type !== "payment.received") return [];
  const transaction = objectAt(objectAt(JSON.parse(event.body), "data"), "transaction");
  return recipients.map((recipient) => ({
    ...noticeTo(recipient, event, event.transactionId),
    kind: "notice_payment_received",
    source: event.id,
    facts: {
      merchant: event.merchantName,
      reference: event.reference,
      amountPaid: `${text(transaction.amount_paid) ?? ""} ${text(transaction.payment_currency_slug) ?? ""}`.trim(),
      network: text(transaction.payment_network_name),
      customer: event.customerEmail,
      paidAt: event.createdAt.toISOString(),
    },
  }));
}

/** "a webhook endpoint was disabled", once per disabling (its time is in the source: disabled again later, told again). */
export function endpointNotices(endpoint: DisabledEndpoint, recipients: readonly NoticeRecipient[]): DerivedMessage[] {
  return recipients.map((recipient) => ({
    ...noticeTo(recipient, endpoint),
    kind: "notice_endpoint_disabled",
    source: `${endpoint.id}:disabled:${endpoint.disabledAt.toISOString()}`,
    facts: {
      merchant: endpoint.merchantName,
      url: endpoint.url,
      reason: endpoint.disabledReason,
      disabledAt: endpoint.disabledAt.toISOString(),
    },
  }));
}

/** "a transfer matched no payment", from settlement.unmatched_receipt.created (an own TRON address's receipt, issue 40). */
export function unmatchedReceiptNotices(event: FollowedSubjectEvent, recipients: readonly NoticeRecipient[]): DerivedMessage[] {
  if (event.type !== UNMATCHED_RECEIPT_EVENT) return [];
  const receipt = objectAt(objectAt(JSON.parse(event.body), "data"), "unmatched_receipt");
  return recipients.map((recipient) => ({
    ...noticeTo(recipient, event),
    kind: "notice_unmatched_receipt",
    source: event.id,
    facts: {
      merchant: event.merchantName,
      amount: `${text(receipt.amount) ?? ""} ${text(receipt.currency) ?? ""}`.trim(),
      network: text(receipt.network),
      address: text(receipt.address),
      txHash: text(receipt.tx_hash),
      receiptId: event.subjectId,
      seenAt: text(receipt.seen_at),
    },
  }));
}

/** The event of an unmatched receipt. */
export const [UNMATCHED_RECEIPT_EVENT] = UNMATCHED_RECEIPT_EVENT_TYPES;

/**
 * A user turns its own notices on or off (any role: they are its mail). Another user of the merchant: 403;
 * a user of another merchant or none: 404, as if it did not exist.
 */
export async function setNotices(store: EmailStore, actor: DashboardActor, userId: string, enabled: unknown): Promise<boolean> {
  if (typeof enabled !== "boolean") {
    throw errors.emailNoticesValidation([{ field: "enabled", message: "enabled must be true or false" }]);
  }
  const current = await store.noticesOf(actor.merchantId, userId);
  if (current === null) throw errors.dashboardUserNotFound(userId);
  if (userId !== actor.userId) throw errors.emailNoticesNotOwn();
  await store.setNotices(actor.merchantId, userId, enabled);
  return enabled;
}

/**
 * `paygate user email-notices`: the operator sets a user's notices, found by e-mail (users are managed
 * there); `enabled` is the CLI's `true` or `false`.
 */
export async function setNoticesByEmail(
  store: EmailStore,
  findUser: (email: string) => Promise<{ id: string; merchantId: number; email: string } | null>,
  email: unknown,
  enabled: unknown,
): Promise<{ userId: string; email: string; merchantId: number; enabled: boolean }> {
  if (enabled !== "true" && enabled !== "false" && typeof enabled !== "boolean") {
    throw errors.emailNoticesValidation([{ field: "enabled", message: "--enabled must be true or false" }]);
  }
  const on = enabled === true || enabled === "true";
  const user = await findUser(normalEmail(email));
  if (!user) throw errors.dashboardEmailNotFound(String(email));
  await store.setNotices(user.merchantId, user.id, on);
  return { userId: user.id, email: user.email, merchantId: user.merchantId, enabled: on };
}

/** Whether the signed-in user asked for notices. */
export async function noticesOf(store: EmailStore, actor: DashboardActor): Promise<boolean> {
  return (await store.noticesOf(actor.merchantId, actor.userId)) ?? false;
}

const LOCALE_MESSAGE = `locale must be one of ${CHECKOUT_LOCALES.join(", ")}`;

function noticeLocale(locale: unknown, field: string): CheckoutLocale {
  if (typeof locale !== "string" || !(CHECKOUT_LOCALES as readonly string[]).includes(locale)) {
    throw errors.emailNoticesValidation([{ field: "locale", message: LOCALE_MESSAGE.replace("locale", field) }]);
  }
  return locale as CheckoutLocale;
}

/**
 * A user sets the language of its own notices (any role). A user of another merchant or none: 404; another
 * user of the merchant: 403; then a language that is not one of the checkout's: 400 naming `locale`.
 */
export async function setNoticeLocale(store: EmailStore, actor: DashboardActor, userId: string, locale: unknown): Promise<CheckoutLocale> {
  if ((await store.noticeLocaleOf(actor.merchantId, userId)) === null) throw errors.dashboardUserNotFound(userId);
  if (userId !== actor.userId) throw errors.noticeLanguageNotOwn();
  const chosen = noticeLocale(locale, "locale");
  await store.setNoticeLocale(actor.merchantId, userId, chosen);
  return chosen;
}

/** The signed-in user's notice language. */
export async function noticeLocaleOf(store: EmailStore, actor: DashboardActor): Promise<CheckoutLocale> {
  return localeOf(await store.noticeLocaleOf(actor.merchantId, actor.userId));
}

/** `paygate user notice-language`: the operator sets a user's notice language, found by e-mail. */
export async function setNoticeLocaleByEmail(
  store: EmailStore,
  findUser: (email: string) => Promise<{ id: string; merchantId: number; email: string } | null>,
  email: unknown,
  locale: unknown,
): Promise<{ userId: string; email: string; merchantId: number; locale: CheckoutLocale }> {
  const chosen = noticeLocale(locale, "--locale");
  const user = await findUser(normalEmail(email));
  if (!user) throw errors.dashboardEmailNotFound(String(email));
  await store.setNoticeLocale(user.merchantId, user.id, chosen);
  return { userId: user.id, email: user.email, merchantId: user.merchantId, locale: chosen };
}
