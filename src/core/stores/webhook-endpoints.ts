// A merchant's webhook endpoints (issue 27) and the deliveries of events to the endpoints other than a
// mode's first (whose deliveries are the outbox's own state, src/core/stores/webhook-events.ts).
// src/db/stores/webhook-endpoints.ts implements it.
import type { AuditWrite } from "./audit-log.ts";
import type { WebhookBacklog } from "./webhook-events.ts";
import type { AttemptRecord, EventOutcome } from "../records/events.ts";

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
  endpointId: string;
  merchantId: number;
  type: string;
  isLive: boolean;
  body: string;
  attemptCount: number;
  url: string;
  secretEnc: string;
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
  endpoint: Pick<WebhookEndpointRow, "id" | "merchantId" | "isLive" | "isPrimary">;
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
   * What waits for the enabled endpoints other than a mode's first (GET /metrics reads it at scrape time; the
   * first's deliveries are the outbox's, webhook-events.ts). A disabled endpoint's deliveries wait for no dispatcher.
   */
  backlog(now: Date): Promise<WebhookBacklog>;
}
