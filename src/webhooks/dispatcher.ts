// The webhook delivery job: takes due deliveries (an event for one endpoint: the merchant's URL of the
// mode, or another endpoint), signs and POSTs them, and hands each result to the core, which records the
// attempt and decides the retry (src/core/webhooks/deliveries.ts). Runs inside the service or alone
// (`paygate worker`); any number of dispatchers may share one PostgreSQL database.
import type { WebhookConfig } from "./config.ts";
import { isDatabaseOutage } from "../core/errors.ts";
import { shownResponseBody } from "../core/private-targets.ts";
import { signingSecrets } from "../core/webhooks/secrets.ts";
import {
  type Claimed,
  type ClaimSettlement,
  type EndpointAttemptResult,
  MAX_RETRY_AFTER_CHARS,
  reportOf,
  type WebhookDeliveries,
} from "../core/webhooks/deliveries.ts";
import type { Clock, DeliveryReport, EventRedelivery } from "../core/ports.ts";
import type { SecretBox } from "../core/secrets.ts";
import type { TransactionChanges } from "../core/stores/transaction-changes.ts";
import type { AttemptRecord } from "../core/records/events.ts";
import type { WebhookMetrics } from "../observability/hooks.ts";
import { deliver, type DeliveryRequest, type DeliveryResult } from "./http-sender.ts";
import { signatureHeaders } from "./signing.ts";

/** How long a wake-up waits for more notifications, so that a burst of events is claimed in one query. */
const WAKE_DEBOUNCE_MS = 2;
/**
 * While the dispatcher keeps up, it claims at most this often: each claim (a database transaction)
 * then takes the events of the interval together instead of one each (under load a claim found about
 * one event, at 1–1.5 ms of the service's CPU: docs/benchmarks.md). An event after a quiet spell is still claimed
 * after WAKE_DEBOUNCE_MS, and a dispatcher behind (its last claim was full) claims without pause.
 */
const MIN_WAKE_INTERVAL_MS = 20;
/** The most settlements written in one statement. */
const SETTLE_BATCH = 500;

/** The retry schedule is the core's (WebhookDeliveries' policy). */
export type DispatcherSettings = Pick<WebhookConfig, "timeoutMs" | "pollMs" | "concurrency" | "privateTargets"> &
  Partial<Pick<WebhookConfig, "disableAfterMs">>;

/**
 * How long an endpoint seen to succeed is taken as healthy without writing it again: another dispatcher's
 * failure meanwhile can delay the clearing of its streak by at most this, against the hours of the limit.
 */
const HEALTHY_CACHE_MS = 60_000;
/** PAYGATE_WEBHOOK_DISABLE_AFTER_HOURS' default: an endpoint failing every attempt for 3 days is disabled. */
const DISABLE_AFTER_MS_DEFAULT = 72 * 3_600_000;

export interface DispatcherDeps {
  /** The delivery rules (claims, outcomes and retries, redelivery), over the deliveries' store. */
  deliveries: WebhookDeliveries;
  secrets: SecretBox;
  /** The time an attempt is signed with. */
  clock: Clock;
  log?: (line: string) => void;
  /** The HTTP attempt; real by default. */
  send?: (request: DeliveryRequest) => Promise<DeliveryResult>;
  /** Attempts by outcome and delivery delays (GET /metrics). */
  metrics?: WebhookMetrics;
  /**
   * The database's notifications: an attempt that falls due (`deliveries-due`, from any instance)
   * wakes the dispatcher at once, and the poll is only the fallback. Without them it polls alone.
   */
  changes?: TransactionChanges;
}

export type { DeliveryReport };

export class WebhookDispatcher implements EventRedelivery {
  private running: Promise<void> | null = null;
  private stopping = false;
  private wake: (() => void) | null = null;
  /** A notification arrived while the loop was busy: look again at once instead of pausing. */
  private notified = false;
  private wakeTimer: NodeJS.Timeout | null = null;
  /** When a timed wake-up (wakeSoon) last woke the loop (performance.now()). */
  private wokenAt = Number.NEGATIVE_INFINITY;
  /** The last claim took fewer events than it could: nothing was waiting. */
  private caughtUp = true;
  private unsubscribe: (() => void) | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  /** Attempts that ended and wait to be written, each with its caller; written together by `flush`. */
  private readonly settling: {
    settlement: ClaimSettlement;
    /** The attempt's result for its endpoint's failing streak. */
    health: EndpointAttemptResult | null;
    resolve: () => void;
    reject: (error: unknown) => void;
  }[] = [];
  private flushing = false;
  private readonly send: (request: DeliveryRequest) => Promise<DeliveryResult>;
  private readonly log: (line: string) => void;
  /** Endpoints whose last attempt here succeeded (their failing streak cleared), and when (performance.now()). */
  private readonly healthySince = new Map<string, number>();

  constructor(
    private readonly deps: DispatcherDeps,
    private readonly settings: DispatcherSettings,
  ) {
    this.send = deps.send ?? deliver;
    this.log = deps.log ?? (() => {});
  }

  /**
   * How long a dispatcher holds an event it took. An attempt ends within the timeout, so a live
   * holder always settles in time; one that died lets the event fall due again after this.
   */
  get leaseMs(): number {
    return 2 * this.settings.timeoutMs + 1000;
  }

  start(): void {
    if (this.running) return;
    this.stopping = false;
    this.unsubscribe = this.deps.changes?.subscribe(this.onChange, ["deliveries-due"]) ?? null;
    this.running = this.loop();
  }

  /** Takes no new events and waits for the attempts under way. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
    this.wake?.();
    await this.running;
    this.running = null;
  }

  /**
   * A delivery fell due (or notifications may have been missed): look now, after a short debounce. It
   * hears the deliveries' due notices only, not transactions' changes: the event a change wrote may go
   * to no endpoint (a mode without a URL), and only a written delivery announces itself.
   */
  private readonly onChange = (): void => {
    this.wakeSoon();
  };

  /** Wakes the loop after the debounce, and no sooner than MIN_WAKE_INTERVAL_MS after the last such wake-up. */
  private wakeSoon(): void {
    if (this.wakeTimer || this.stopping) return;
    const delay = Math.max(WAKE_DEBOUNCE_MS, this.wokenAt + MIN_WAKE_INTERVAL_MS - performance.now());
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = null;
      this.wokenAt = performance.now();
      this.notified = true;
      this.wake?.();
    }, delay);
  }

  /** Delivers everything due now, waiting for each attempt: for the CLI and tests. Returns the reports. */
  async drain(): Promise<DeliveryReport[]> {
    const reports: DeliveryReport[] = [];
    for (;;) {
      const claimed = await this.deps.deliveries.claim(this.settings.concurrency, this.leaseMs);
      if (claimed.length === 0) break;
      reports.push(...(await Promise.all(claimed.map((work) => this.attempt(work, "schedule")))));
    }
    return reports;
  }

  /** An operator's redelivery: back in the queue with a fresh schedule, and one attempt now. Null for an unknown id. */
  redeliver(eventId: string): Promise<DeliveryReport | null> {
    return this.deps.deliveries.redeliver(eventId, this.leaseMs, (event) => this.attempt(event, "manual"));
  }

  private async loop(): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      const free = this.settings.concurrency - this.inFlight.size;
      let claimed = 0;
      if (free > 0) {
        try {
          const taken = await this.deps.deliveries.claim(free, this.leaseMs);
          claimed = taken.length;
          for (const work of taken) this.track(work);
          this.caughtUp = claimed < free;
          failures = 0;
        } catch (error) {
          failures++;
          if (!isDatabaseOutage(error)) this.log(`webhooks: could not read the outbox (${(error as Error).message}); retrying`);
        }
      }
      if (claimed > 0 && claimed === free) continue; // more may be due
      await this.pause(failures > 0 ? Math.min(30_000, this.settings.pollMs * 2 ** failures) : this.settings.pollMs);
    }
    await Promise.all(this.inFlight);
  }

  private track(claimed: Claimed): void {
    const work = this.attempt(claimed, "schedule").then(
      () => {},
      (error: unknown) => this.log(`webhooks: delivery ${claimed.id} could not be settled (${(error as Error).message}); it will be retried`),
    );
    this.inFlight.add(work);
    void work.finally(() => {
      this.inFlight.delete(work);
      // Claim again once a quarter of the slots are free (or all are): one claim query per event
      // would cost a busy dispatcher a round trip per delivery.
      const free = this.settings.concurrency - this.inFlight.size;
      if (this.inFlight.size === 0 || free >= Math.ceil(this.settings.concurrency / 4)) {
        if (this.caughtUp) this.wakeSoon();
        else this.wake?.();
      }
    });
  }

  /** Waits for the poll interval, or less when stopped, notified of a new event, or when a slot frees up. */
  private pause(ms: number): Promise<void> {
    if (this.notified) {
      this.notified = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wake = null;
        self.notified = false;
        resolve();
      }
      this.wake = done;
    });
  }

  /**
   * One attempt of a delivery to its endpoint: signed with the endpoint's secret(s), retried on its own
   * schedule, Retry-After honoured as the core decides.
   */
  private async attempt(claimed: Claimed, trigger: AttemptRecord["trigger"]): Promise<DeliveryReport> {
    const { endpoint } = claimed;
    if (!endpoint) {
      // Its endpoint (the first one goes with its URL) was removed after it was claimed: skipped, never retried.
      const settlement: ClaimSettlement = { claimed, outcome: { state: "SKIPPED" }, attempt: null };
      await this.settle(settlement);
      return reportOf(settlement);
    }
    const attemptedAt = this.deps.clock.now();
    // Both secrets during a rotation's 24-hour overlap (src/core/webhooks/secrets.ts).
    const secrets = signingSecrets(endpoint.secrets, attemptedAt, this.deps.secrets);
    const headers = { ...signatureHeaders(secrets, claimed.eventId, attemptedAt, claimed.body) };
    const { url } = endpoint;
    const result = await this.send({
      url,
      headers,
      body: claimed.body,
      timeoutMs: this.settings.timeoutMs,
      mode: claimed.isLive ? "live" : "test",
      privateTargets: this.settings.privateTargets,
    });
    const attempt: AttemptRecord = {
      attemptedAt,
      url,
      statusCode: result.statusCode,
      latencyMs: result.latencyMs,
      // Kept for merchants' users to read (the dashboard): never an internal service's answer.
      responseBody: shownResponseBody(result),
      error: result.error,
      succeeded: result.ok,
      trigger,
      retryAfter: result.retryAfter?.slice(0, MAX_RETRY_AFTER_CHARS) ?? null,
    };
    // The receiver may have asked for time (429 or 503 with Retry-After): the core decides how much it gets.
    const outcome = this.deps.deliveries.outcomeOf(claimed, result.ok, result);
    this.deps.metrics?.webhookAttempt(outcome, claimed.createdAt, trigger);
    const health = { endpointId: endpoint.id, succeeded: result.ok, at: attemptedAt };
    const settlement: ClaimSettlement = { claimed, outcome, attempt };
    await this.settle(settlement, health);
    if (!result.ok) {
      const asked = attempt.retryAfter === null ? "" : ` asking to retry after ${JSON.stringify(attempt.retryAfter)}`;
      const what = result.statusCode === null ? (result.error ?? "no response") : `HTTP ${result.statusCode}${asked}`;
      const next = outcome.state === "PENDING" ? `retry at ${outcome.nextAttemptAt.toISOString()}` : "no retries left";
      this.log(`webhooks: ${claimed.type} ${claimed.eventId} to endpoint ${endpoint.id} of merchant ${claimed.merchantId} failed (${what}); ${next}`);
    }
    return reportOf(settlement);
  }

  /**
   * Writes a settlement with those that end while the previous batch is being written: no wait when
   * the dispatcher is quiet, one statement for many events when it is busy.
   */
  private settle(settlement: ClaimSettlement, health: EndpointAttemptResult | null = null): Promise<void> {
    return new Promise((resolve, reject) => {
      this.settling.push({ settlement, health, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.settling.length > 0) {
        const batch = this.settling.splice(0, SETTLE_BATCH);
        try {
          await this.deps.deliveries.settle(batch.map((entry) => entry.settlement));
          await this.recordHealth(batch.flatMap((entry) => (entry.health ? [entry.health] : [])));
          for (const entry of batch) entry.resolve();
        } catch (error) {
          for (const entry of batch) entry.reject(error);
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  /**
   * Counts attempts in their endpoints' failing streaks, and says once (one log line) when one is disabled for it.
   * An endpoint this dispatcher saw succeed lately (HEALTHY_CACHE_MS) is not written again for more successes:
   * a healthy receiver costs no write per delivery.
   */
  private async recordHealth(all: EndpointAttemptResult[]): Promise<void> {
    const now = performance.now();
    const results = all.filter((r) => !(r.succeeded && (this.healthySince.get(r.endpointId) ?? Number.NEGATIVE_INFINITY) > now - HEALTHY_CACHE_MS));
    if (results.length === 0) return;
    const disableAfterMs = this.settings.disableAfterMs ?? DISABLE_AFTER_MS_DEFAULT;
    const disabled = await this.deps.deliveries.recordEndpointResults(results, disableAfterMs);
    for (const r of results) {
      if (r.succeeded) this.healthySince.set(r.endpointId, now);
      else this.healthySince.delete(r.endpointId);
    }
    for (const endpoint of disabled) {
      this.log(
        `webhooks: endpoint ${endpoint.id} (${endpoint.url}) of merchant ${endpoint.merchantId} (${endpoint.isLive ? "live" : "test"} mode) disabled: ` +
          `every attempt failed since ${endpoint.failingSince.toISOString()} (PAYGATE_WEBHOOK_DISABLE_AFTER_HOURS=${disableAfterMs / 3_600_000}); ` +
          "nothing more is sent to it until its merchant re-enables it",
      );
    }
  }
}
