// The refund events (issue 26): refund.created, refund.succeeded, refund.canceled, written through the
// outbox in the database transaction of the change and signed like the payment events.
import { toJsonNumber } from "../money/amounts.ts";
import { cryptoById } from "../money/currencies.ts";
import type { RefundRecord } from "../records/refunds.ts";
import { refundView } from "./view.ts";
import type { RefundEventRow } from "../stores/refunds.ts";
import { paymentNetworkOf } from "../transactions/view.ts";
import { newEventId, type RefundEventType } from "../events/payment-events.ts";

/** `{ event, data: { refund, transaction } }`: the refund object (no claim link, no payment instructions) and its transaction. */
export function refundEventPayload(type: RefundEventType, r: RefundRecord) {
  const t = r.transaction;
  const crypto = t.paymentCurrencyId === null ? undefined : cryptoById(t.paymentCurrencyId);
  return {
    event: type,
    data: {
      refund: refundView(r),
      transaction: {
        id: t.id,
        reference: t.reference,
        merchant_name: t.merchant.name,
        status: t.status,
        payment_currency: t.paymentCurrencyId,
        payment_currency_slug: crypto?.slug ?? null,
        payment_network: paymentNetworkOf(t)?.slug ?? null,
        customer_email: t.customerEmail,
        payment_amount: t.paymentAmount === null ? null : toJsonNumber(t.paymentAmount),
        amount_paid: t.amountPaid === null ? null : toJsonNumber(t.amountPaid),
        is_live: t.isLive,
        created_at: t.createdAt.toISOString(),
      },
    },
  };
}

export function refundEvent(type: RefundEventType, r: RefundRecord): RefundEventRow {
  return { id: newEventId(), type, body: JSON.stringify(refundEventPayload(type, r)) };
}
