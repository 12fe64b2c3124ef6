// A consolidation's webhook events (issue 40; docs/webhooks.md): each move the chain side or the merchant
// makes (seen, confirmed, canceled) writes one event in the move's database transaction, about the
// consolidation (its subject) rather than a transaction. The body is `{event, data: {consolidation}}`,
// the consolidation as REST shows it then.
import { subjectOutboxEvent, type OutboxEvent } from "../events/outbox-event.ts";
import type { SettlementEventType } from "../events/payment-events.ts";
import type { ConsolidationRecord, ConsolidationState } from "../records/settlement.ts";
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
