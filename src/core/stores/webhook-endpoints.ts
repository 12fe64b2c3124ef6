// A merchant's webhook endpoints (issue 27) and the deliveries of events to them: the one queue the
// dispatcher claims from and settles. A mode's first endpoint (the merchant's webhook URL of the mode) is an
// ordinary endpoint whose deliveries have the id `wd_` and the event id (firstDeliveryId).
// src/db/stores/webhook-endpoints.ts implements it.
import type { AuditWrite } from "./audit-log.ts";
import type { AttemptRecord, EventOutcome } from "../records/events.ts";

/**
 * The id of the delivery of the event `eventId` to its mode's first endpoint: `wd_` and the event id (`evt_…`).
 * Another endpoint's delivery is `wd_` and hex, so no other delivery id starts with `wd_evt_`.
 */
export function firstDeliveryId(eventId: string): string {
  return `wd_${eventId}`;
}

/** What waits for a dispatcher (GET /metrics reads it at scrape time). */
export interface WebhookBacklog {
  /** Undelivered deliveries: due, held by a dispatcher, or waiting for a retry. */
  pending: number;
  /** Deliveries a dispatcher would take now: due, and not behind an undelivered earlier one of their transaction to their endpoint. */
  due: number;
  /** When the longest-waiting due delivery fell due; null when none is due. */
  oldestDueAt: Date | null;
}

/** Which endpoints' backlog: the modes' first endpoints (the merchants' URLs), or every other one. */
export type BacklogOf = "first" | "others";

export interface WebhookEndpointRow {
  id: string;
  merchantId: number;
  isLive: boolean;
  /** The mode's first endpoint: its URL and secret are the merchant's webhook URL and secret of the mode. */
  isPrimary: boolean;
  url: string;
  description: string | null;
  enabledEvents: string[];
  disabledAt: Date | null;
  disabledReason: string | null;
  failingSince: Date | null;
  secretEnc: string;
  secretRotatedAt: Date | null;
  previousSecretEnc: string | null;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewEndpointRow {
  id: string;
  merchantId: number;
  isLive: boolean;
  url: string;
  description: string | null;
  enabledEvents: string[];
  secretEnc: string;
}

/** What an update changes (a field left out is kept). */
export interface EndpointPatch {
  url?: string;
  description?: string | null;
  enabledEvents?: string[];
  /** null: enabled again (failing_since cleared with it). */
  disabled?: { at: Date; reason: string } | null;
  secret?: { secretEnc: string; rotatedAt: Date; previousSecretEnc: string; previousSecretExpiresAt: Date };
}

/** A delivery a dispatcher holds, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  claimToken: string;
  eventId: string;
  /** Null when its endpoint was removed after it was queued (an operator's redelivery of it is skipped). */
  endpointId: string | null;
  merchantId: number;
  type: string;
  isLive: boolean;
  body: string;
  attemptCount: number;
  /** Null with its endpoint. */
  url: string | null;
  /** Null with its endpoint. */
  secretEnc: string | null;
  previousSecretEnc: string | null;
  previousSecretExpiresAt: Date | null;
  /** When its event was written. */
  createdAt: Date;
}

export interface DeliverySettlement {
  delivery: Pick<ClaimedDelivery, "id" | "claimToken" | "eventId">;
  outcome: EventOutcome;
  attempt: AttemptRecord | null;
}

/** One endpoint's attempts of a batch, summed up: how its failing streak changes. */
export interface EndpointHealthChange {
  endpointId: string;
  /** clear: its last attempt succeeded; start: failing since `at` (after a success in the batch); continue: failing since `at` unless already. */
  change: "clear" | "start" | "continue";
  at: Date;
}

export interface DisabledEndpoint {
  id: string;
  merchantId: number;
  isLive: boolean;
  url: string;
  failingSince: Date;
}

export type DeliveryStatusFilter = "failed" | "succeeded" | "pending";

/** One row of an endpoint's delivery log. */
export interface DeliveryLogEntry {
  /** `wd_…`; for the mode's first endpoint `wd_` and the event's id. */
  id: string;
  seq: bigint;
  endpointId: string;
  eventId: string;
  eventType: string;
  state: "PENDING" | "DELIVERED" | "FAILED" | "SKIPPED";
  attemptCount: number;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastLatencyMs: number | null;
  createdAt: Date;
}

export interface DeliveryPageQuery {
  endpoint: Pick<WebhookEndpointRow, "id">;
  status: DeliveryStatusFilter | null;
  afterSeq: bigint | null;
  limit: number;
}

/** A mode's first endpoint: the merchant's webhook URL of the mode, with its filter and description. */
export interface FirstEndpointWrite {
  merchantId: number;
  isLive: boolean;
  url: string;
  enabledEvents: string[];
  description: string | null;
}

export interface WebhookEndpointStore {
  /** Adds the endpoint unless its merchant already has `max` in its mode; false then (nothing written). `audit`: written with it. */
  create(row: NewEndpointRow, max: number, audit?: AuditWrite): Promise<WebhookEndpointRow | null>;
  /**
   * Makes the mode's first endpoint (sets the merchant's URL of the mode) unless it has one: null then,
   * nothing written. Serialised per merchant with `create`, so of creations at once exactly one is the first.
   * `audit`: the entries written with it, given the new row.
   */
  createFirst(first: FirstEndpointWrite, audit: (row: WebhookEndpointRow) => AuditWrite[]): Promise<WebhookEndpointRow | null>;
  /** The merchant's endpoints of a mode, oldest first. */
  list(merchantId: number, isLive: boolean): Promise<WebhookEndpointRow[]>;
  /** The endpoint of this merchant and mode, or null. */
  find(id: string, merchantId: number, isLive: boolean): Promise<WebhookEndpointRow | null>;
  /** `audit`: the change's audit log entry, written in its database transaction. */
  update(id: string, patch: EndpointPatch, audit?: AuditWrite): Promise<WebhookEndpointRow>;
  delete(id: string, audit?: AuditWrite): Promise<void>;
  /** Due deliveries held until `leaseUntil`; a transaction's deliveries to one endpoint in order. `onlyId`: that one, regardless of order. */
  claimDue(now: Date, leaseUntil: Date, limit: number, onlyId?: string): Promise<ClaimedDelivery[]>;
  /** Records each attempt and each delivery's new state; a holder whose lease ran out only logs its attempt. */
  settle(settlements: readonly DeliverySettlement[]): Promise<void>;
  /** Applies the failing streaks, then disables those failing since `disableBefore` or earlier; returns the ones it disabled now. */
  recordHealth(changes: readonly EndpointHealthChange[], now: Date, disableBefore: Date): Promise<DisabledEndpoint[]>;
  /** A page of the endpoint's delivery log, newest first. */
  page(query: DeliveryPageQuery): Promise<DeliveryLogEntry[]>;
  /** One delivery of this merchant and mode, or null. */
  findDelivery(id: string, merchantId: number, isLive: boolean): Promise<DeliveryLogEntry | null>;
  /** Due now with a fresh schedule. */
  requeueDelivery(id: string, now: Date): Promise<void>;
  /**
   * Queues again, due now with a fresh schedule, the endpoint's failed (and, `includeSkipped`, skipped or never made)
   * deliveries of events written since `since`; returns how many.
   */
  requeueSince(endpoint: WebhookEndpointRow, since: Date, now: Date, includeMissed: boolean): Promise<number>;
  /** Marks the endpoint's undelivered deliveries skipped (re-enabled without redelivering what it missed). */
  skipPending(endpointId: string): Promise<void>;
  /**
   * Puts the event's delivery to its mode's current first endpoint back in the queue, due now with a fresh
   * schedule (made when the endpoint never took the event): an operator's redelivery. `deliveryId` is null
   * when the mode has no first endpoint (nothing written); null for an unknown event.
   */
  requeueFirst(eventId: string, now: Date): Promise<{ type: string; deliveryId: string | null } | null>;
  /**
   * What waits for the enabled first endpoints, or for the enabled others (GET /metrics reads both, at
   * scrape time). A disabled endpoint's deliveries wait for no dispatcher.
   */
  backlog(now: Date, of: BacklogOf): Promise<WebhookBacklog>;
}
