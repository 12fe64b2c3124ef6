// Settlement webhook events (issue 40; docs/webhooks.md): each move of a consolidation (seen, confirmed,
// canceled) or of a forwarder flush (confirmed, failed, reorganized) writes one event in the move's database
// transaction, about the consolidation or flush (its subject) rather than a transaction. The body is
// `{event, data: {consolidation}}` or `{event, data: {flush}}`, the object as REST shows it then.
import { subjectOutboxEvent, type OutboxEvent } from "../events/outbox-event.ts";
import type { SettlementEventType } from "../events/payment-events.ts";
import type { FlushRecord, FlushState } from "../records/forwarders.ts";
import type { ConsolidationRecord, ConsolidationState } from "../records/settlement.ts";
import { flushView } from "./forwarder-view.ts";
import { consolidationView } from "./view.ts";

const EVENT_FOR_STATE: Partial<Record<ConsolidationState, SettlementEventType>> = {
  seen: "settlement.consolidation.seen",
  confirmed: "settlement.consolidation.confirmed",
  canceled: "settlement.consolidation.canceled",
};

/** The event of the state a consolidation moved to, or null for a state without one (open). */
export function consolidationEvent(moved: ConsolidationRecord, now: Date): OutboxEvent | null {
  const type = EVENT_FOR_STATE[moved.state];
  return type === undefined ? null : subjectOutboxEvent(moved, { type, body: { consolidation: consolidationView(moved) } }, now);
}

const FLUSH_EVENT_FOR_STATE: Partial<Record<FlushState, SettlementEventType>> = {
  confirmed: "settlement.flush.confirmed",
  failed: "settlement.flush.failed",
};

/**
 * The event of the state a flush finished in, or null for one without (sending). A flush a
 * reorganisation took back is confirmed again in a new round (its `reorganizations`): a second
 * settlement.flush.confirmed, not a collision with the first.
 */
export function flushEvent(finished: FlushRecord, now: Date): OutboxEvent | null {
  const type = FLUSH_EVENT_FOR_STATE[finished.state];
  return type === undefined ? null : subjectOutboxEvent(finished, { type, body: { flush: flushView(finished) } }, now, finished.reorganizations);
}

/** settlement.flush.reorganized: its block left the chain, it is sending again (round: its reorganizations). */
export function flushReorganizedEvent(flush: FlushRecord, now: Date): OutboxEvent {
  return subjectOutboxEvent(flush, { type: "settlement.flush.reorganized", body: { flush: flushView(flush) } }, now, flush.reorganizations);
}
