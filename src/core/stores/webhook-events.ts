// The webhook events (the outbox): claiming, settling, requeueing and listing them.
// src/db/stores/webhook-events.ts implements it.
import type { WebhookDeliveryAttempt, WebhookEvent } from "../records/rows.ts";
import type { AttemptRecord, EventOutcome } from "../records/events.ts";

/** What became of one claimed event: its new state and the attempt that decided it (none when skipped). */
export interface Settlement {
  event: Pick<ClaimedEvent, "id" | "claimToken">;
  outcome: EventOutcome;
  attempt: AttemptRecord | null;
}

/** An event a dispatcher holds, with what it needs to send it. */
export interface ClaimedEvent {
  id: string;
  claimToken: string;
  merchantId: number;
  transactionId: string;
  type: string;
  isLive: boolean;
  body: string;
  attemptCount: number;
  liveWebhookUrl: string | null;
  testWebhookUrl: string | null;
  webhookSecretEnc: string;
  /** The secret before the last rotation and when it stops signing (src/core/webhooks/secrets.ts). */
  previousWebhookSecretEnc: string | null;
  previousWebhookSecretExpiresAt: Date | null;
  /** When the event was written, with its state change. */
  createdAt: Date;
  /** The mode's first endpoint (its URL is the merchant's), whose failing streak the attempt counts in; null when there is none. */
  endpointId: string | null;
}

export interface EventFilter {
  merchantId?: number;
  state?: "PENDING" | "DELIVERED" | "FAILED" | "SKIPPED";
  transactionId?: string;
  limit?: number;
}

export type EventWithAttempts = WebhookEvent & { attempts: WebhookDeliveryAttempt[]; transaction: { reference: string } | null };

/** What waits in the outbox (GET /metrics reads it at scrape time). */
export interface WebhookBacklog {
  /** Undelivered events: due, held by a dispatcher, or waiting for a retry. */
  pending: number;
  /** Events a dispatcher would take now: due, and not behind an undelivered earlier event of their transaction. */
  due: number;
  /** When the longest-waiting due event fell due; null when none is due. */
  oldestDueAt: Date | null;
}

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

export interface WebhookEventStore {
  /**
   * Takes up to `limit` due events and holds them until `leaseUntil`. Only the oldest undelivered
   * event of each transaction is due, so a transaction's events arrive in order. `onlyId`: an
   * operator's redelivery of one event, taken regardless of order and URL.
   */
  claimDue(now: Date, leaseUntil: Date, limit: number, onlyId?: string): Promise<ClaimedEvent[]>;
  /** Marks due events whose merchant has no URL for their mode as skipped, up to `limit`; returns how many. */
  skipUnroutable(now: Date, limit: number): Promise<number>;
  /**
   * Records each attempt (if any) and each event's new state, all in one statement; a holder whose
   * lease ran out only logs its attempt.
   */
  settle(settlements: readonly Settlement[]): Promise<void>;
  /** Due now with a fresh retry schedule; null when there is no such event. */
  requeue(id: string, now: Date): Promise<{ type: string; nextAttemptAt: Date } | null>;
  /** Newest first, each with its attempts (newest first). */
  list(filter: EventFilter): Promise<EventWithAttempts[]>;
  backlog(now: Date): Promise<WebhookBacklog>;
  /** The event of this merchant and mode, or null. */
  findFor(id: string, merchantId: number, isLive: boolean): Promise<WebhookEvent | null>;
  /** Newest first by seq: the filters of `query`, after its cursor, up to its limit. */
  page(query: EventPageQuery): Promise<WebhookEvent[]>;
  /** Oldest first by seq: this merchant's and mode's events after `afterSeq`, up to `limit` (the live event stream). */
  since(query: { merchantId: number; isLive: boolean; afterSeq: bigint; limit: number }): Promise<WebhookEvent[]>;
  /** Deletes events made before `before` (their attempts with them); returns how many. */
  pruneBefore(before: Date): Promise<number>;
}
