// What a webhook attempt leaves behind: the attempt to record and the event's outcome, as the stores write them.
import type { WebhookDeliveryAttempt, WebhookEventRow } from "./rows.ts";

/** An outbox row as a writer sets it (core/events/outbox-event.ts builds them); the rest (seq) is the table's default, and the deliveries are the fan-out's. */
export type OutboxEvent = Pick<
  WebhookEventRow,
  "id" | "merchantId" | "transactionId" | "refundId" | "subjectId" | "type" | "isLive" | "body" | "createdAt"
> & {
  /** A subject that enters a state again (a flush confirmed after a reorganisation) does so in a new round; 0 otherwise. */
  subjectRound?: number;
};

/** An attempt to record: the stored attempt (rows.ts) before it has an id and its event. */
export interface AttemptRecord extends Omit<WebhookDeliveryAttempt, "id" | "eventId" | "trigger" | "retryAfter"> {
  trigger: "schedule" | "manual";
  /** The receiver's Retry-After header as sent (at most 64 characters kept), when it gave one: what it asked for. */
  retryAfter?: string | null;
}

export type EventOutcome = { state: "DELIVERED"; at: Date } | { state: "PENDING"; nextAttemptAt: Date } | { state: "FAILED" } | { state: "SKIPPED" };
