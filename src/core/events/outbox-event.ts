// The outbox row of an event (table `webhook_events`), built here for every writer: the outbox hook
// of transaction writes, initialize's and initiate's one-statement writes, and refunds (issue 45).
// The database adapter inserts these rows with one statement (src/db/outbox.ts, insertEventsSql).
import type { WebhookEvent } from "../records/rows.ts";
import type { RefundEventRow } from "../stores/refunds.ts";
import type { LifecyclePolicy } from "../policies.ts";
import { paymentEventFor, type TransactionSnapshot } from "./payment-events.ts";

/** The columns a writer sets; the rest (seq, delivery state, attempts) are the table's defaults. */
export type OutboxEvent = Pick<
  WebhookEvent,
  "id" | "merchantId" | "transactionId" | "refundId" | "type" | "isLive" | "body" | "nextAttemptAt" | "createdAt"
>;

/** The event of a transaction's current state, due at once. */
export function paymentOutboxEvent(row: TransactionSnapshot & { id: string; merchantId: number }, now: Date, policy: LifecyclePolicy): OutboxEvent {
  const event = paymentEventFor(row, policy);
  return { ...eventOf(row.merchantId, row.id, row.isLive, now), refundId: null, id: event.id, type: event.type, body: event.body };
}

/** A refund's event (core/events/refund-events.ts), due at once. */
export function refundOutboxEvent(
  refund: { id: string; merchantId: number; transactionId: string; isLive: boolean },
  event: RefundEventRow,
  now: Date,
): OutboxEvent {
  return {
    ...eventOf(refund.merchantId, refund.transactionId, refund.isLive, now),
    refundId: refund.id,
    id: event.id,
    type: event.type,
    body: event.body,
  };
}

function eventOf(merchantId: number, transactionId: string, isLive: boolean, now: Date) {
  return { merchantId, transactionId, isLive, nextAttemptAt: now, createdAt: now };
}
