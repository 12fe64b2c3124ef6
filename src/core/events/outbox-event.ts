// The outbox row of an event (table `webhook_events`), built here for every writer: the outbox hook
// of transaction writes, initialize's and initiate's one-statement writes, refunds (issue 45), and
// the events about something other than a transaction (settlement.consolidation.*: subjectOutboxEvent).
// The database adapter inserts these rows with one statement (src/db/outbox.ts, insertEventsSql).
import type { OutboxEvent } from "../records/events.ts";
import type { RefundEventRow } from "../stores/refunds.ts";
import type { LifecyclePolicy } from "../policies.ts";
import { newEventId, paymentEventFor, type TransactionSnapshot } from "./payment-events.ts";

export type { OutboxEvent };

/** The event of a transaction's current state, due at once. */
export function paymentOutboxEvent(row: TransactionSnapshot & { id: string; merchantId: number }, now: Date, policy: LifecyclePolicy): OutboxEvent {
  const event = paymentEventFor(row, policy);
  return outboxRow(row.merchantId, row.id, row.isLive, now, { refundId: null, subjectId: null, id: event.id, type: event.type, body: event.body });
}

/** A refund's event (core/events/refund-events.ts), due at once. */
export function refundOutboxEvent(
  refund: { id: string; merchantId: number; transactionId: string; isLive: boolean },
  event: RefundEventRow,
  now: Date,
): OutboxEvent {
  return outboxRow(refund.merchantId, refund.transactionId, refund.isLive, now, {
    refundId: refund.id,
    subjectId: null,
    id: event.id,
    type: event.type,
    body: event.body,
  });
}

/** An event about something that is not a transaction (a consolidation), due at once; one of each type per subject. */
export function subjectOutboxEvent(
  subject: { id: string; merchantId: number; isLive: boolean },
  event: { type: string; body: unknown },
  now: Date,
  round = 0,
): OutboxEvent {
  // spread: settlement's and invoices' events, not a payment's request.
  return {
    ...outboxRow(subject.merchantId, null, subject.isLive, now, {
      refundId: null,
      subjectId: subject.id,
      id: newEventId(),
      type: event.type,
      body: JSON.stringify({ event: event.type, data: event.body }),
    }),
    subjectRound: round,
  };
}

type EventParts = Pick<OutboxEvent, "refundId" | "subjectId" | "id" | "type" | "body">;

/**
 * The row written out key by key, not spread: on Node 20's V8 each key added to a spread copy costs about
 * 1.7 µs and a new hidden class, and every payment writes an event (docs/benchmarks.md, issue 47).
 */
function outboxRow(merchantId: number, transactionId: string | null, isLive: boolean, now: Date, e: EventParts): OutboxEvent {
  return { merchantId, transactionId, isLive, createdAt: now, refundId: e.refundId, subjectId: e.subjectId, id: e.id, type: e.type, body: e.body };
}
