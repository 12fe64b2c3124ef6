// The webhook events (the outbox): listing, paging and pruning them. Their deliveries, the first
// endpoint's included, are the endpoints' store's (src/core/stores/webhook-endpoints.ts).
// src/db/stores/webhook-events.ts implements it.
import type { WebhookDeliveryAttempt, WebhookEvent } from "../records/rows.ts";

export interface EventFilter {
  merchantId?: number;
  state?: "PENDING" | "DELIVERED" | "FAILED" | "SKIPPED";
  transactionId?: string;
  limit?: number;
}

export type EventWithAttempts = WebhookEvent & { attempts: WebhookDeliveryAttempt[]; transaction: { reference: string } | null };

/** A page of one merchant's events in one mode, newest first (src/core/events/list.ts checks it). */
export interface EventPageQuery {
  merchantId: number;
  isLive: boolean;
  type: string | null;
  transactionId: string | null;
  /** Only events committed before this one (seq order). */
  afterSeq: bigint | null;
  limit: number;
}

/**
 * The events, each with its first delivery's state (`WebhookEvent`: derived from the delivery
 * `wd_<event id>`, skipped when there is none).
 */
export interface WebhookEventStore {
  /** Newest first, each with its attempts (newest first). */
  list(filter: EventFilter): Promise<EventWithAttempts[]>;
  /** The event of this merchant and mode, or null. */
  findFor(id: string, merchantId: number, isLive: boolean): Promise<WebhookEvent | null>;
  /** Newest first by seq: the filters of `query`, after its cursor, up to its limit. */
  page(query: EventPageQuery): Promise<WebhookEvent[]>;
  /** Oldest first by seq: this merchant's and mode's events after `afterSeq`, up to `limit` (the live event stream). */
  since(query: { merchantId: number; isLive: boolean; afterSeq: bigint; limit: number }): Promise<WebhookEvent[]>;
  /** Deletes events made before `before` (their deliveries and attempts with them); returns how many. */
  pruneBefore(before: Date): Promise<number>;
}
