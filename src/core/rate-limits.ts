// Rate limits (docs/rest-api.md, Rate limits): which bucket a request counts against, how many hits a
// window allows, and which failures count as failed authentication. Windows are fixed (they start
// at multiples of their length); the counters live in a store every instance shares, behind the
// port below (src/db/stores/rate-limit-counters.ts implements it). The HTTP layer asks and answers; the
// rules are here.
import { hash } from "node:crypto";
import ipaddr from "ipaddr.js";
import { errors, PaygateError } from "./errors.ts";
import { HitLeads } from "./rate-limit-leads.ts";
import type { Clock } from "./ports.ts";

/** At most `limit` hits in each window of `windowMs`. */
export interface RateLimit {
  limit: number;
  windowMs: number;
}

export interface RateLimitPolicy {
  /** Requests per live API key (`pub_live_…`, `sec_live_…`); also requests without a key, per client address. Null: not limited. */
  live: RateLimit | null;
  /** Requests per test API key (`pub_test_…`, `sec_test_…`, and any other bearer token). Null: not limited. */
  test: RateLimit | null;
  /** Failed authentications per client address; once reached, the address is refused until the window ends. Null: not limited. */
  authFailures: RateLimit | null;
}

/** Stripe's: 100 operations a second in live mode, 25 in test mode; and 20 failed authentications a minute per address. */
export const DEFAULT_RATE_LIMITS: RateLimitPolicy = {
  live: { limit: 100, windowMs: 1000 },
  test: { limit: 25, windowMs: 1000 },
  authFailures: { limit: 20, windowMs: 60_000 },
};

/** One counter in one window. */
export interface CounterWindow {
  key: string;
  start: Date;
  end: Date;
}

/**
 * A second counter that a request counts in only when its first one let it in: a sign-in attempt
 * counts against its e-mail only once its address is within its limit, so an address over its
 * limit cannot use up other people's e-mails. Its key must differ from every first counter's.
 */
export interface NextCounter {
  window: CounterWindow;
  /** Counted when the first counter's hits, this one included, are at most this. */
  ifHitsAtMost: number;
}

/** The counters, shared by every instance. */
export interface RateLimitCounters {
  /**
   * Atomically adds `hits` (1 by default) to `hit`'s counter, reads `read`'s, and adds one to
   * `next`'s when `hit`'s total allows it, each when given (concurrent requests may share one
   * statement). Returns the hit counter's hits, these included (the last of the numbers they
   * took); the read counter's (0 for a counter not given or not there); with `next`, the next
   * counter's hits (this one included when it counted). `next` goes with one hit only.
   */
  count(
    hit: CounterWindow | null,
    read: CounterWindow | null,
    next?: NextCounter | null,
    hits?: number,
  ): Promise<{ hits: number; read: number; next?: number }>;
  /** Takes one hit back from a counter (never below zero): a sign-in that succeeded was no guess. */
  giveBack(window: CounterWindow): Promise<void>;
  /** Forgets the counters of windows that ended by `now`; returns how many. */
  prune(now: Date): Promise<number>;
}

export type BucketKind = "live_key" | "test_key" | "address";

/** What a request counts against: `key` names the counter (a digest of the API key, never the key). */
export interface Bucket {
  kind: BucketKind;
  key: string;
  rule: RateLimit;
}

/** What a request is let in with, or refused for (src/edge/rate-limits.ts answers). */
export interface Admission {
  /** The request's bucket, counted; null when that kind is not limited. */
  bucket: Bucket | null;
  /** The bucket's counter, this request included: over the limit when `hits > limit`. */
  usage: WindowUsage | null;
  /** The client address's failed authentications: refused when `RateLimiter.blocked`. Null when not limited. */
  failures: WindowUsage | null;
}

/** A counter in the window under way. */
export interface WindowUsage {
  hits: number;
  limit: number;
  windowMs: number;
  /** Milliseconds until the window ends (and the counter starts again). */
  resetMs: number;
}

/**
 * The reasons of the answers that count as failed authentication: an unknown, revoked or missing
 * key, payment link or client secret (401 and the spec's 404 "Invalid Public Key"). Not
 * `merchant_inactive`: that key is real.
 */
const AUTH_FAILURE_REASONS: ReadonlySet<string> = new Set([
  "invalid_secret_key",
  "invalid_public_key",
  "invalid_payment_link",
  "invalid_client_secret",
]);

/**
 * How long a request waits for a count under way (the counters' statement before its own, or its
 * bucket's statement) before it gives up with database_unavailable and the limiter lets it through.
 */
export const COUNT_WAIT_MS = 5_000;

/** How often one instance deletes ended windows, at most. */
const PRUNE_EVERY_MS = 60_000;

export class RateLimiter {
  private nextPruneAt = 0;
  private readonly leads = new HitLeads();

  /**
   * `waitMs`: how long a request waits for its bucket's statement under way (COUNT_WAIT_MS).
   */
  constructor(
    private readonly counters: RateLimitCounters,
    readonly policy: RateLimitPolicy,
    private readonly clock: Clock,
    private readonly waitMs = COUNT_WAIT_MS,
  ) {}

  /** Whether any limit is on. */
  get enabled(): boolean {
    return this.policy.live !== null || this.policy.test !== null || this.policy.authFailures !== null;
  }

  /**
   * The bucket of a request: its API key's (live or test by the key's prefix), or, without a
   * bearer token (a payment link, a key in the body), its client address's at the live limit, so a
   * checkout page's customers are not counted against the merchant. Null: that kind is not limited.
   */
  bucketOf(bearerToken: string | undefined, clientAddress: string): Bucket | null {
    if (bearerToken !== undefined) {
      const live = /^(pub|sec)_live_/.test(bearerToken);
      const rule = live ? this.policy.live : this.policy.test;
      return rule && { kind: live ? "live_key" : "test_key", key: `key:${digest(bearerToken)}`, rule };
    }
    const rule = this.policy.live;
    return rule && { kind: "address", key: `addr:${addressBucket(clientAddress)}`, rule };
  }

  /**
   * Counts a request against its bucket and reads its address's failed authentications, in one
   * statement (one round trip rather than two), or with a hit its bucket counted ahead and a fresh
   * read (src/core/rate-limit-leads.ts). The request counts whatever happens to it next, a refusal
   * included.
   */
  async admit(bearerToken: string | undefined, clientAddress: string): Promise<Admission> {
    const bucket = this.bucketOf(bearerToken, clientAddress);
    const failureRule = this.policy.authFailures;
    if (!bucket && !failureRule) return { bucket: null, usage: null, failures: null };
    const now = this.clock.now().getTime();
    this.pruneNowAndThen(now);
    const hit = bucket && windowOf(bucket.key, bucket.rule, now);
    const read = failureRule && windowOf(failureKey(clientAddress), failureRule, now);
    const counted = bucket && hit ? await this.countAhead(bucket, hit, read, now) : await this.counters.count(hit, read);
    return {
      bucket,
      usage: bucket && usageOf(bucket.rule, counted.hits, hit, now),
      failures: failureRule && usageOf(failureRule, counted.read, read, now),
    };
  }

  /**
   * A hit number held for the bucket (src/core/rate-limit-leads.ts), else one from the bucket's
   * statement under way once it ends, else a statement of its own that counts the bucket's lead too.
   */
  private async countAhead(bucket: Bucket, hit: CounterWindow, read: CounterWindow | null, now: number): Promise<{ hits: number; read: number }> {
    this.leads.arrived(bucket.key, now);
    let waiting = false;
    try {
      for (;;) {
        const held = this.leads.take(hit, read, now);
        if (held) return held;
        const underway = this.leads.statementUnderway(bucket.key);
        if (!underway) break;
        if (!waiting) this.leads.waits(bucket.key, 1);
        waiting = true;
        // A statement that failed fails the request too (the limiter lets it through), not after another wait.
        await this.atMost(underway);
      }
    } finally {
      // Before its own statement's lead is reckoned, which counts only the others still waiting.
      if (waiting) this.leads.waits(bucket.key, -1);
    }
    const lead = this.leads.lead(hit, bucket.rule);
    const statement = this.counters.count(hit, read, null, 1 + lead);
    this.leads.counting(bucket.key, statement);
    const counted = await statement;
    return { hits: this.leads.counted(hit, counted.hits, lead, read, counted.read, now), read: counted.read };
  }

  /** The statement's end, or database_unavailable once `waitMs` passed (a statement that never ends holds nobody). */
  private async atMost(statement: Promise<unknown>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(errors.databaseUnavailable("database_unreachable")), this.waitMs).unref();
    });
    try {
      await Promise.race([statement, gaveUp]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Counts `hits` more requests against the bucket of a request already admitted (the mutation fields
   * of a GraphQL request after its first: each is a write of its own). Its usage after them; null
   * when that kind is not limited.
   */
  async countMore(bearerToken: string | undefined, clientAddress: string, hits: number): Promise<{ bucket: Bucket; usage: WindowUsage } | null> {
    const bucket = this.bucketOf(bearerToken, clientAddress);
    if (!bucket || hits < 1) return null;
    const now = this.clock.now().getTime();
    const window = windowOf(bucket.key, bucket.rule, now);
    // The counters add one hit a call; calls made together share a statement.
    const counted = await Promise.all(Array.from({ length: hits }, () => this.counters.count(window, null)));
    return { bucket, usage: usageOf(bucket.rule, Math.max(...counted.map((c) => c.hits)), window, now) };
  }

  /** Whether the address has used up its failed authentications: it is refused before authenticating. */
  static blocked(failures: WindowUsage): boolean {
    return failures.hits >= failures.limit;
  }

  /** Whether the request made its bucket go over the limit. */
  static over(usage: WindowUsage): boolean {
    return usage.hits > usage.limit;
  }

  /** Whether an answer with these error reasons is a failed authentication. */
  countsAsAuthFailure(reasons: readonly string[]): boolean {
    return this.policy.authFailures !== null && reasons.some((reason) => AUTH_FAILURE_REASONS.has(reason));
  }

  async recordAuthFailure(clientAddress: string): Promise<void> {
    const rule = this.policy.authFailures;
    if (!rule) return;
    const now = this.clock.now().getTime();
    this.pruneNowAndThen(now);
    const window = windowOf(failureKey(clientAddress), rule, now);
    const counted = await this.counters.count(window, null);
    this.leads.remember(window, counted.hits, now); // this instance's own failures count at once
  }

  /** Ended windows are deleted by whichever instance gets there, once a minute each; a failure waits for the next time. */
  private pruneNowAndThen(now: number): void {
    if (now < this.nextPruneAt) return;
    this.nextPruneAt = now + PRUNE_EVERY_MS;
    this.counters.prune(new Date(now)).catch(() => {});
  }
}

/** The fixed window of `rule` that `now` falls in. */
export function windowOf(key: string, rule: RateLimit, now: number): CounterWindow {
  const start = now - (now % rule.windowMs);
  return { key, start: new Date(start), end: new Date(start + rule.windowMs) };
}

export function usageOf(rule: RateLimit, hits: number, window: CounterWindow | null, now: number): WindowUsage {
  return { hits, limit: rule.limit, windowMs: rule.windowMs, resetMs: (window?.end.getTime() ?? now + rule.windowMs) - now };
}

/** The answer to a request over its bucket's limit. */
export function tooManyRequests(bucket: Pick<Bucket, "kind">, usage: WindowUsage): PaygateError {
  const who =
    bucket.kind === "address"
      ? "requests without an API key from this address"
      : `requests with this ${bucket.kind === "live_key" ? "live" : "test"} API key`;
  return new PaygateError(
    "rate_limited",
    `Too many requests: ${who} are limited to ${usage.limit} ${per(usage.windowMs)}; retry after ${retryAfterSeconds(usage)} s`,
    "rate_limited",
  );
}

/** The answer to any request from an address that has failed to authenticate too often. */
export function tooManyFailedAuthentications(usage: WindowUsage): PaygateError {
  return new PaygateError(
    "rate_limited",
    `Too many failed authentications from this address (${usage.limit} ${per(usage.windowMs)}); retry after ${retryAfterSeconds(usage)} s`,
    "too_many_failed_authentications",
  );
}

/** Whole seconds until the window ends, at least 1 (what Retry-After says). */
export function retryAfterSeconds(usage: WindowUsage): number {
  return Math.max(1, Math.ceil(usage.resetMs / 1000));
}

/** `per second`, `per 10 seconds`, `per minute`, `per 2 hours`. */
export function per(windowMs: number): string {
  for (const [unit, ms] of [
    ["hour", 3_600_000],
    ["minute", 60_000],
    ["second", 1000],
  ] as const) {
    if (windowMs % ms === 0) {
      const n = windowMs / ms;
      return n === 1 ? `per ${unit}` : `per ${n} ${unit}s`;
    }
  }
  return `per ${windowMs} ms`;
}

/**
 * The counter of an address: an IPv4 address itself (an IPv4-mapped IPv6 address is its IPv4
 * one); an IPv6 address's /64, since one host can use any address of its /64.
 */
export function addressBucket(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts;
  return `${new ipaddr.IPv6([...parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}

const failureKey = (clientAddress: string) => `fail:${addressBucket(clientAddress)}`;

/** A digest of the key, never the key; not the hash stored in api_keys either. 128 bits. */
function digest(token: string): string {
  return hash("sha256", `paygate rate limit\0${token}`, "hex").slice(0, 32);
}
