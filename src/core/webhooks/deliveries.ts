// The delivery rules for whoever sends webhook events (the dispatcher, src/webhooks/dispatcher.ts):
// which deliveries are taken and for how long, what an attempt's result means for its delivery (delivered,
// retried on the schedule, failed for good) and an operator's redelivery. One queue serves every endpoint,
// a mode's first (the merchant's URL) included. The job does the HTTP and the pacing; the rules are here,
// and the queries in src/db behind the store.
import type { SealedWebhookSecrets } from "./secrets.ts";
import type { Clock, DeliveryReport, EventRedelivery } from "../ports.ts";
import type { ClaimedDelivery, DisabledEndpoint, EndpointHealthChange, WebhookEndpointStore } from "../stores/webhook-endpoints.ts";
import type { AttemptRecord, EventOutcome } from "../records/events.ts";

/** Each retry's wait is stretched or shrunk by up to a fifth at random, so that retries of one outage spread out. */
export const JITTER = 0.2;

/** When a failed delivery is tried again: the configured waits (PAYGATE_WEBHOOK_RETRY_SCHEDULE), with JITTER. */
export interface RetryPolicy {
  scheduleMs: readonly number[];
  /** In [0, 1); Math.random unless given. */
  random?: () => number;
}

/**
 * The time of the next attempt after `attemptsMade` attempts have failed, or null when the schedule
 * is spent and the event has failed for good. `random` is in [0, 1).
 */
export function nextAttemptAt(now: Date, attemptsMade: number, scheduleMs: readonly number[], random: () => number = Math.random): Date | null {
  const wait = scheduleMs[attemptsMade - 1];
  if (wait === undefined) return null;
  const factor = 1 - JITTER + 2 * JITTER * random();
  return new Date(now.getTime() + Math.round(wait * factor));
}

/** The longest a receiver's Retry-After postpones a delivery; a later time asked for is cut to this. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;
/** Receivers asking for time with these statuses get it (RFC 9110 §10.2.3: 503 and 429 "Too Many Requests"). */
const WAIT_STATUSES: ReadonlySet<number> = new Set([429, 503]);
/** A Retry-After longer than this is not a time anyone writes: not read at all, and kept cut to this length. */
export const MAX_RETRY_AFTER_CHARS = 64;

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
// The three HTTP-date forms a recipient must accept (RFC 9110 §5.6.7), always GMT: IMF-fixdate, RFC 850, asctime.
const TIME = "(?<hour>\\d{2}):(?<minute>\\d{2}):(?<second>\\d{2})";
const HTTP_DATES = [
  new RegExp(`^[A-Za-z]{3}, (?<day>\\d{2}) (?<month>[A-Za-z]{3}) (?<year>\\d{4}) ${TIME} GMT$`),
  new RegExp(`^[A-Za-z]+, (?<day>\\d{2})-(?<month>[A-Za-z]{3})-(?<year>\\d{2}) ${TIME} GMT$`),
  new RegExp(`^[A-Za-z]{3} (?<month>[A-Za-z]{3}) (?<day> \\d|\\d{2}) ${TIME} (?<year>\\d{4})$`),
];

/** An HTTP-date as a time, or null when it is none (a 31 February or a 25th hour is none, not moved). */
function httpDate(value: string, now: Date): Date | null {
  const fields = HTTP_DATES.map((form) => form.exec(value)?.groups).find((groups) => groups !== undefined);
  if (!fields) return null;
  const { day = "", month: monthName = "", year: yearText = "", hour = "", minute = "", second = "" } = fields;
  let year = Number(yearText);
  if (yearText.length === 2) {
    // A two-digit year that would be more than 50 years ahead is in the past century (RFC 9110 §5.6.7).
    const thisYear = now.getUTCFullYear();
    year += Math.floor(thisYear / 100) * 100;
    if (year > thisYear + 50) year -= 100;
  }
  const month = MONTHS.indexOf(monthName.toLowerCase());
  const [hours, minutes, seconds] = [hour, minute, second].map(Number) as [number, number, number];
  if (month < 0 || hours > 23 || minutes > 59 || seconds > 60) return null;
  const date = new Date(Date.UTC(year, month, Number(day), hours, minutes, seconds));
  return date.getUTCDate() === Number(day) ? date : null;
}

/**
 * The time a receiver asked to be tried again with `Retry-After` (delta-seconds or an HTTP-date, RFC 9110
 * §10.2.3), or null when the value is neither. Not bounded: `nextAttemptAfter` bounds it.
 */
export function retryAfterTime(value: string, now: Date): Date | null {
  const text = value.trim();
  if (text.length === 0 || text.length > MAX_RETRY_AFTER_CHARS) return null;
  if (/^\d+$/.test(text)) {
    // Any number of digits: far beyond the bound is only "as late as allowed" (and never an invalid Date).
    const ms = Math.min(Number(text) * 1000, 2 * MAX_RETRY_AFTER_MS);
    return new Date(now.getTime() + ms);
  }
  return httpDate(text, now);
}

/** How a receiver answered a failed attempt: the status (null: no answer) and its Retry-After header as sent. */
export interface ReceiverAnswer {
  statusCode: number | null;
  retryAfter?: string;
}

/**
 * When to try again after a failed attempt: the schedule's next attempt, postponed to the time the
 * receiver asked for with 429 or 503 and Retry-After, bounded by MAX_RETRY_AFTER_MS from now. Asking
 * never brings an attempt forward nor adds one: null (failed for good) when the schedule is spent.
 */
export function nextAttemptAfter(now: Date, attemptsMade: number, policy: RetryPolicy, answer?: ReceiverAnswer): Date | null {
  const scheduled = nextAttemptAt(now, attemptsMade, policy.scheduleMs, policy.random);
  if (!scheduled || answer?.retryAfter === undefined || answer.statusCode === null || !WAIT_STATUSES.has(answer.statusCode)) return scheduled;
  const asked = retryAfterTime(answer.retryAfter, now);
  if (!asked) return scheduled;
  const bounded = Math.min(asked.getTime(), now.getTime() + MAX_RETRY_AFTER_MS);
  return new Date(Math.max(scheduled.getTime(), bounded));
}

/** One attempt's result for its endpoint's failing streak. */
export interface EndpointAttemptResult {
  endpointId: string;
  succeeded: boolean;
  at: Date;
}

/**
 * How a batch of attempts changes each endpoint's failing streak: cleared when its last attempt
 * succeeded; started at the first failure after its last success in the batch; else continued
 * (failing since its earlier first failure, or this batch's first).
 */
export function healthChanges(results: readonly EndpointAttemptResult[]): EndpointHealthChange[] {
  const byEndpoint = new Map<string, EndpointAttemptResult[]>();
  for (const result of results) byEndpoint.set(result.endpointId, [...(byEndpoint.get(result.endpointId) ?? []), result]);
  return [...byEndpoint].map(([endpointId, all]) => {
    const sorted = [...all].sort((a, b) => a.at.getTime() - b.at.getTime());
    const last = sorted[sorted.length - 1] as EndpointAttemptResult;
    if (last.succeeded) return { endpointId, change: "clear", at: last.at };
    const lastSuccess = sorted.map((r) => r.succeeded).lastIndexOf(true);
    const firstFailure = sorted[lastSuccess + 1] as EndpointAttemptResult;
    return { endpointId, change: lastSuccess >= 0 ? "start" : "continue", at: firstFailure.at };
  });
}

/** A delivery a dispatcher holds: one shape to sign, send, settle and report. */
export interface Claimed {
  /** The delivery's id (`wd_…`). */
  id: string;
  eventId: string;
  type: string;
  merchantId: number;
  isLive: boolean;
  body: string;
  attemptCount: number;
  /** When its event was written. */
  createdAt: Date;
  /** Where it goes, with whose secrets; null when its endpoint was removed after it was queued (skipped, never retried). */
  endpoint: ClaimedEndpoint | null;
  /** Who holds it, for the settlement (a holder whose lease ran out only logs its attempt). */
  claimToken: string;
}

/** The endpoint of a claimed delivery: its URL, its signing secrets (sealed) and the failing streak its attempt counts in. */
export interface ClaimedEndpoint {
  id: string;
  url: string;
  /** src/core/webhooks/secrets.ts */
  secrets: SealedWebhookSecrets;
}

/** What became of one claimed delivery: its new state and the attempt that decided it (none when skipped). */
export interface ClaimSettlement {
  claimed: Claimed;
  outcome: EventOutcome;
  attempt: AttemptRecord | null;
}

function claimedDelivery(delivery: ClaimedDelivery): Claimed {
  const { id, eventId, type, merchantId, isLive, body, attemptCount, createdAt, claimToken, endpointId, url, secretEnc } = delivery;
  // The endpoint's columns come from one row, so they are all there or (removed) all null.
  const endpoint =
    endpointId === null || url === null || secretEnc === null
      ? null
      : {
          id: endpointId,
          url,
          secrets: {
            webhookSecretEnc: secretEnc,
            previousWebhookSecretEnc: delivery.previousSecretEnc,
            previousWebhookSecretExpiresAt: delivery.previousSecretExpiresAt,
          },
        };
  return { id, eventId, type, merchantId, isLive, body, attemptCount, createdAt, endpoint, claimToken };
}

/** An attempt's report: the event, the delivery and its endpoint. */
export function reportOf({ claimed, outcome, attempt }: ClaimSettlement): DeliveryReport {
  return { eventId: claimed.eventId, type: claimed.type, outcome, attempt, deliveryId: claimed.id, endpointId: claimed.endpoint?.id };
}

/** The store calls the delivery rules make. */
export type DeliveryQueue = Pick<WebhookEndpointStore, "claimDue" | "settle" | "recordHealth" | "requeueFirst">;

export class WebhookDeliveries {
  constructor(
    private readonly queue: DeliveryQueue,
    private readonly clock: Clock,
    private readonly retry: RetryPolicy,
  ) {}

  /**
   * Due deliveries, held for `leaseMs` (a holder that dies lets them fall due again): each on its own
   * schedule, a transaction's to one endpoint in order. `onlyId`: that one only, regardless of order.
   */
  async claim(limit: number, leaseMs: number, onlyId?: string): Promise<Claimed[]> {
    const now = this.clock.now();
    const leaseUntil = new Date(now.getTime() + leaseMs);
    return (await this.queue.claimDue(now, leaseUntil, limit, onlyId)).map(claimedDelivery);
  }

  /**
   * Counts attempts in their endpoints' failing streaks; an endpoint whose every attempt failed for
   * `disableAfterMs` is disabled (returned, for the caller to say so) and gets nothing more until re-enabled.
   */
  recordEndpointResults(results: readonly EndpointAttemptResult[], disableAfterMs: number): Promise<DisabledEndpoint[]> {
    if (results.length === 0) return Promise.resolve([]);
    const now = this.clock.now();
    return this.queue.recordHealth(healthChanges(results), now, new Date(now.getTime() - disableAfterMs));
  }

  /**
   * What an attempt's result means for its event: delivered, tried again on the schedule (later when
   * the receiver asked for time: `nextAttemptAfter`), or failed for good.
   */
  outcomeOf(event: Pick<Claimed, "attemptCount">, succeeded: boolean, answer?: ReceiverAnswer): EventOutcome {
    const now = this.clock.now();
    if (succeeded) return { state: "DELIVERED", at: now };
    const next = nextAttemptAfter(now, event.attemptCount + 1, this.retry, answer);
    return next ? { state: "PENDING", nextAttemptAt: next } : { state: "FAILED" };
  }

  /** Records attempts and their outcomes, many in one statement. */
  async settle(settlements: readonly ClaimSettlement[]): Promise<void> {
    if (settlements.length === 0) return;
    await this.queue.settle(settlements.map(({ claimed, outcome, attempt }) => ({ delivery: claimed, outcome, attempt })));
  }

  /**
   * An operator's redelivery of an event to its mode's first endpoint (the URL of now): back in the queue
   * with a fresh schedule, then `attempt` sends it once now. Null for an unknown id; SKIPPED without an
   * attempt when the mode has no URL; PENDING without an attempt when another dispatcher took it first.
   */
  async redeliver(eventId: string, leaseMs: number, attempt: (delivery: Claimed) => Promise<DeliveryReport>): Promise<DeliveryReport | null> {
    const now = this.clock.now();
    const requeued = await this.queue.requeueFirst(eventId, now);
    if (!requeued) return null;
    if (requeued.deliveryId === null) return { eventId, type: requeued.type, outcome: { state: "SKIPPED" }, attempt: null };
    const [delivery] = await this.claim(1, leaseMs, requeued.deliveryId);
    if (!delivery)
      return { eventId, type: requeued.type, outcome: { state: "PENDING", nextAttemptAt: now }, attempt: null, deliveryId: requeued.deliveryId };
    return attempt(delivery);
  }
}

/**
 * Sends any merchant's event again now, one attempt (the operator's `paygate webhooks redeliver`; the
 * dashboard's redelivery checks the actor's merchant and mode first, then comes here). Null for an unknown id.
 */
export function redeliverEvent(redelivery: EventRedelivery | undefined, eventId: string): Promise<DeliveryReport | null> {
  if (!redelivery) throw new Error("The gateway was made without a webhook dispatcher (GatewayDeps.redelivery)");
  return redelivery.redeliver(eventId);
}
