// The spec's JSON shapes (tables 2.1 and 2.2): snake_case fields, amounts as JSON numbers.
import { toJsonNumber } from "../../../core/money/amounts.ts";
import type { TransactionDetails } from "../../../core/transactions/details.ts";
import { policiesView } from "../../../core/policies.ts";
import { receiptObject } from "../../../core/transactions/receipts.ts";
import type { TransactionRecord } from "../../../core/records/transactions.ts";
import type { TransactionView } from "../../../core/transactions/view.ts";
import type { InitializedTransaction, InitiatedTransaction } from "./schemas.ts";

type Json = Record<string, unknown>;

const amount = (value: { toString(): string } | null) => (value === null ? null : toJsonNumber(value));

export function success<T>(data: T, meta: unknown): { status: "success"; data: T; meta: Json } {
  return { status: "success", data, meta: isObject(meta) ? meta : {} };
}

/** Table 2.1: the transaction as initialize returns it, with its client secret (its caller made it). */
export function initializedTransaction({ transaction: t, checkout }: TransactionDetails): InitializedTransaction {
  if (!checkout) throw new Error(`Initialize's reply shows the client secret, but transaction ${t.id}'s details have none`);
  return {
    id: t.id,
    reference: t.reference,
    amount_paid: amount(t.amountPaid),
    status: t.status,
    description: t.description,
    initialized_amount: toJsonNumber(t.initializedAmount),
    payment_amount: amount(t.paymentAmount),
    payment_address: t.paymentAddress,
    payment_currency: t.paymentCurrencyId,
    initialized_currency: t.initializedCurrencyId,
    is_live: t.isLive,
    merchant: { id: t.merchant.id, name: t.merchant.name },
    expires_at: t.expiresAt?.toISOString() ?? null,
    checkout_url: checkout.checkoutUrl,
    return_url: t.returnUrl,
    cancel_url: t.cancelUrl,
    locale: t.locale,
    policies: policiesObject(t),
    client_secret: checkout.clientSecret,
  };
}

/**
 * Table 2.2: the transaction as initiate returns it; `initialized_currency` is the slug here. Beside
 * the QR code, the payment URI it encodes, for a merchant that renders its own QR or a wallet link.
 */
export function initiatedTransaction({ transaction: t, view, paymentRequest, checkout, receipts }: TransactionDetails): InitiatedTransaction {
  return {
    id: t.id,
    reference: t.reference,
    description: t.description,
    initialized_amount: toJsonNumber(t.initializedAmount),
    initialized_currency: view.initializedCurrency.slug,
    payment_amount: amount(t.paymentAmount),
    amount_paid: amount(t.amountPaid),
    payment_currency: t.paymentCurrencyId,
    payment_address: t.paymentAddress,
    status: t.status,
    qrCode: paymentRequest?.qrCode ?? null,
    payment_uri: paymentRequest?.uri ?? null,
    payment_network: view.paymentNetwork?.slug ?? null,
    payment_network_name: view.paymentNetwork?.name ?? null,
    amount_owed: amount(view.amountOwed),
    is_live: t.isLive,
    merchant: { id: t.merchant.id, name: t.merchant.name },
    expires_at: t.expiresAt?.toISOString() ?? null,
    meta: {
      refund_address: t.refundAddress,
      payment: paymentObject(view),
      quote: quoteObject(view),
    },
    return_url: t.returnUrl,
    cancel_url: t.cancelUrl,
    locale: t.locale,
    policies: policiesObject(t),
    // The checkout URL holds the client secret: both or neither. Undefined, not spread in: JSON leaves both
    // out alike, and a key added after a spread costs microseconds on Node 20 (docs/benchmarks.md, issue 47).
    client_secret: checkout?.clientSecret,
    checkout_url: checkout?.checkoutUrl,
    receipts: receipts.map(receiptObject),
    reversed_at: t.reversedAt?.toISOString() ?? null,
  };
}

/** The per-payment policies given at initialize, as REST shows them. */
export function policiesObject(t: TransactionRecord) {
  const { expiresIn, underpaymentTolerance, confirmations, latePayment } = policiesView(t);
  return {
    expires_in: expiresIn,
    underpayment_tolerance: underpaymentTolerance,
    confirmations,
    late_payment: latePayment && {
      accept_if_rate_moved_below: latePayment.acceptIfRateMovedBelow,
      decision: latePayment.decision && {
        accepted: latePayment.decision.accepted,
        locked_rate: latePayment.decision.lockedRate,
        market_rate: latePayment.decision.marketRate,
        moved_percent: latePayment.decision.movedPercent,
        checked_at: latePayment.decision.checkedAt,
      },
    },
  };
}

/** The payment state as every API shows it: what is confirmed, what waits, and for how many confirmations. */
export function paymentObject(view: TransactionView) {
  return (
    view.payment && {
      state: view.payment.state,
      amount_confirmed: view.payment.amountConfirmed,
      amount_unconfirmed: view.payment.amountUnconfirmed,
      confirmations: view.payment.confirmations,
      required_confirmations: view.payment.requiredConfirmations,
    }
  );
}

/** The locked quote as every API shows it. */
export function quoteObject(view: TransactionView) {
  if (!view.quote) return null;
  const { rate, marketRate, spreadPercent, source, quotedAt, sources } = view.quote;
  return {
    rate,
    market_rate: marketRate,
    spread_percent: spreadPercent,
    source,
    quoted_at: quotedAt.toISOString(),
    // Only when several providers were asked (PAYGATE_PRICE_STRATEGY=median): what each gave.
    ...(sources && {
      sources: sources.map((s) => ({
        provider: s.provider,
        rate: s.rate,
        quoted_at: s.quotedAt,
        used: s.used,
        reason: s.reason,
        detail: s.detail,
      })),
    }),
  };
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
