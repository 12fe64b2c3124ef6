// Which message goes out for which event, to whom and in which language (issue 44). Each kind names
// what it is derived from and the facts it says; the links (checkout, refund claim) are made only when
// it is sent, from secrets the database keeps sealed. Invoices, reminders and notices: invoice-messages.ts, notices.ts.
import { Decimal } from "../money/amounts.ts";
import { cryptoById, fiatById } from "../money/currencies.ts";
import type { EmailFacts, FollowedEvent, PartPaidTransaction } from "../records/email.ts";
import { type CheckoutLocale, checkoutLocaleOrNull } from "../transactions/locales.ts";
import { paymentStateOf } from "../transactions/lifecycle.ts";
import type { LifecyclePolicy } from "../policies.ts";
import { paymentNetworkOf } from "../transactions/view.ts";

/** The customer's invoice and its reminders (invoice-messages.ts). */
export const INVOICE_EMAIL_KINDS = ["invoice", "invoice_reminder", "invoice_overdue"] as const;
/** The merchant's notices to its users who asked for them (notices.ts). */
export const NOTICE_EMAIL_KINDS = ["notice_payment_received", "notice_endpoint_disabled", "notice_unmatched_receipt"] as const;

/** The messages to a transaction's customer (spec 4.1's customer.email), an invoice's, and the merchant's notices. */
export const EMAIL_KINDS = ["receipt", "pay_rest", "refund_claim", ...INVOICE_EMAIL_KINDS, ...NOTICE_EMAIL_KINDS] as const;
export type EmailKind = (typeof EMAIL_KINDS)[number];

/** The link a kind carries, made when it is sent: the checkout (to pay the rest), the refund's claim page, or the invoice's page. */
export const LINK_OF: Record<EmailKind, "checkout" | "refund_claim" | "invoice" | null> = {
  receipt: null,
  pay_rest: "checkout",
  refund_claim: "refund_claim",
  invoice: "invoice",
  invoice_reminder: "invoice",
  invoice_overdue: "invoice",
  notice_payment_received: null,
  notice_endpoint_disabled: null,
  notice_unmatched_receipt: null,
};

/** The events the follower reads; a kind derived from a state without an event of its own (pay_rest) is found otherwise. */
export const FOLLOWED_EVENT_TYPES = ["payment.received", "refund.created"] as const;

/** A message the rules decided on, before the outbox gives it an id and a state. */
export interface DerivedMessage {
  kind: EmailKind;
  source: string;
  merchantId: number;
  transactionId: string | null;
  refundId: string | null;
  invoiceId: string | null;
  recipient: string;
  locale: CheckoutLocale;
  isLive: boolean;
  facts: EmailFacts;
}

/** The transaction's language: the one the merchant set for its checkout, else English. */
export function localeOf(locale: string | null): CheckoutLocale {
  return checkoutLocaleOrNull(locale) ?? "en";
}

export type Json = Record<string, unknown>;
export const objectAt = (value: unknown, key: string): Json => {
  const inner = typeof value === "object" && value !== null ? (value as Json)[key] : undefined;
  return typeof inner === "object" && inner !== null ? (inner as Json) : {};
};
export const text = (value: unknown): string | null => (typeof value === "string" ? value : typeof value === "number" ? String(value) : null);

/** The fiat amount as the order stated it: "100.00 USD". */
function fiatText(amount: Decimal, currencyId: number): string {
  const fiat = fiatById(currencyId);
  return fiat ? `${amount.toFixed(fiat.decimals)} ${fiat.slug}` : amount.toFixed();
}

/** The messages an event of the outbox asks for: a receipt when paid, the claim link of a refund made without an address. */
export function messagesForEvent(event: FollowedEvent): DerivedMessage[] {
  const base = {
    source: event.id,
    merchantId: event.merchantId,
    transactionId: event.transactionId,
    refundId: event.refundId,
    invoiceId: null,
    recipient: event.customerEmail.trim().toLowerCase(),
    locale: localeOf(event.locale),
    isLive: event.isLive,
  };
  const data = objectAt(JSON.parse(event.body), "data");
  const transaction = objectAt(data, "transaction");
  if (event.type === "payment.received") {
    const receipts = Array.isArray(transaction.receipts) ? (transaction.receipts as Json[]) : [];
    return [
      {
        ...base,
        kind: "receipt",
        facts: {
          merchant: event.merchantName,
          reference: event.reference,
          amountPaid: text(transaction.amount_paid),
          coin: text(transaction.payment_currency_slug),
          network: text(transaction.payment_network_name),
          fiat: fiatText(event.initializedAmount, event.initializedCurrencyId),
          txHashes: receipts.filter((r) => r.state !== "DROPPED").flatMap((r) => (typeof r.tx_hash === "string" ? [r.tx_hash] : [])),
          paidAt: event.createdAt.toISOString(),
        },
      },
    ];
  }
  const refund = objectAt(data, "refund");
  if (event.type === "refund.created" && event.refundId !== null && refund.destination_source === "claim") {
    return [
      {
        ...base,
        kind: "refund_claim",
        facts: {
          merchant: event.merchantName,
          reference: event.reference,
          amount: text(refund.amount_to_customer),
          coin: text(refund.currency),
          fiat: refund.fiat_amount && refund.fiat_currency ? `${text(refund.fiat_amount)} ${text(refund.fiat_currency)}` : null,
          expiresAt: text(refund.claim_expires_at),
        },
      },
    ];
  }
  return [];
}

/** "Pay the rest" when the confirmed part is short of the amount (the payment state `underpaid`); one per transaction. */
export function payRestFor(t: PartPaidTransaction, policy: LifecyclePolicy): DerivedMessage | null {
  if (paymentStateOf(t, policy) !== "underpaid" || t.paymentAmount === null) return null;
  const paid = t.amountPaid ?? new Decimal(0);
  const coin = t.paymentCurrencyId === null ? undefined : cryptoById(t.paymentCurrencyId);
  return {
    kind: "pay_rest",
    source: t.id,
    merchantId: t.merchantId,
    transactionId: t.id,
    refundId: null,
    invoiceId: null,
    recipient: t.customerEmail.trim().toLowerCase(),
    locale: localeOf(t.locale),
    isLive: t.isLive,
    facts: {
      merchant: t.merchantName,
      reference: t.reference,
      coin: coin?.slug ?? null,
      network: paymentNetworkOf(t)?.name ?? null,
      amountPaid: paid.toFixed(),
      amountDue: t.paymentAmount.toFixed(),
      rest: t.paymentAmount.minus(paid).toFixed(),
      expiresAt: t.expiresAt?.toISOString() ?? null,
    },
  };
}
