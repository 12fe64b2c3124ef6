// An event as the Events API shows it (GET /v1/events, /v1/events/{event_id}, the stream).
import type { WebhookEvent } from "../../../core/records/rows.ts";
import type { Event } from "./schemas.ts";

export function eventObject(e: WebhookEvent): Event {
  return {
    id: e.id,
    type: e.type as Event["type"],
    created_at: e.createdAt.toISOString(),
    transaction: e.transactionId,
    subject: e.subjectId,
    is_live: e.isLive,
    data: JSON.parse(e.body) as Record<string, unknown>,
    delivery: {
      state: e.state.toLowerCase() as Event["delivery"]["state"],
      attempts: e.attemptCount,
      next_attempt_at: e.state === "PENDING" ? e.nextAttemptAt.toISOString() : null,
      delivered_at: e.deliveredAt?.toISOString() ?? null,
    },
  };
}
