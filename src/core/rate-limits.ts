// Rate limits (README "Rate limits"): which bucket a request counts against, how many hits a
// window allows, and which failures count as failed authentication. Windows are fixed (they start
// at multiples of their length); the counters live in a store every instance shares, behind the
// port below (src/db/rate-limit-counters.ts implements it). The HTTP layer asks and answers; the
// rules are here.
import { createHash } from "node:crypto";
import ipaddr from "ipaddr.js";
import { PaygateError } from "./errors.ts";
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

/** The counters, shared by every instance (one atomic statement each). */
export interface RateLimitCounters {
  /** Adds one hit to `key`'s counter of the window that starts at `windowStart`; returns its hits, this one included. */
  hit(key: string, windowStart: Date, windowEnd: Date): Promise<number>;
  /** The hits of `key` in the window that starts at `windowStart` (0 when none). */
  read(key: string, windowStart: Date): Promise<number>;
  /** Forgets the counters of windows that ended before `now`; returns how many. */
  prune(now: Date): Promise<number>;
}

export type BucketKind = "live_key" | "test_key" | "address";

/** What a request counts against: `key` names the counter (a digest of the API key, never the key). */
export interface Bucket {
  kind: BucketKind;
  key: string;
  rule: RateLimit;
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
 * key or payment link (401 and the spec's 404 "Invalid Public Key"). Not `merchant_inactive`: that
 * key is real.
 */
const AUTH_FAILURE_REASONS: ReadonlySet<string> = new Set(["invalid_secret_key", "invalid_public_key", "invalid_payment_link"]);

/** How often one instance deletes ended windows, at most. */
const PRUNE_EVERY_MS = 60_000;

export class RateLimiter {
  private nextPruneAt = 0;

  constructor(
    private readonly counters: RateLimitCounters,
    readonly policy: RateLimitPolicy,
    private readonly clock: Clock,
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

  /** Counts one request against `key` under `rule`. */
  async hit(key: string, rule: RateLimit): Promise<WindowUsage> {
    const { start, end, now } = this.window(rule);
    this.pruneNowAndThen(now);
    const hits = await this.counters.hit(key, new Date(start), new Date(end));
    return { hits, limit: rule.limit, windowMs: rule.windowMs, resetMs: end - now };
  }

  /** The failed authentications from an address in the window under way; null when they are not limited. */
  async authFailures(clientAddress: string): Promise<WindowUsage | null> {
    const rule = this.policy.authFailures;
    if (!rule) return null;
    const { start, end, now } = this.window(rule);
    const hits = await this.counters.read(failureKey(clientAddress), new Date(start));
    return { hits, limit: rule.limit, windowMs: rule.windowMs, resetMs: end - now };
  }

  /** Whether the address has used up its failed authentications: it is refused before authenticating. */
  static blocked(usage: WindowUsage): boolean {
    return usage.hits >= usage.limit;
  }

  /** Whether an answer with these error reasons is a failed authentication. */
  countsAsAuthFailure(reasons: readonly string[]): boolean {
    return this.policy.authFailures !== null && reasons.some((reason) => AUTH_FAILURE_REASONS.has(reason));
  }

  async recordAuthFailure(clientAddress: string): Promise<void> {
    const rule = this.policy.authFailures;
    if (!rule) return;
    const { start, end, now } = this.window(rule);
    this.pruneNowAndThen(now);
    await this.counters.hit(failureKey(clientAddress), new Date(start), new Date(end));
  }

  private window(rule: RateLimit): { start: number; end: number; now: number } {
    const now = this.clock.now().getTime();
    const start = now - (now % rule.windowMs);
    return { start, end: start + rule.windowMs, now };
  }

  /** Ended windows are deleted by whichever instance gets there, once a minute each; a failure waits for the next time. */
  private pruneNowAndThen(now: number): void {
    if (now < this.nextPruneAt) return;
    this.nextPruneAt = now + PRUNE_EVERY_MS;
    this.counters.prune(new Date(now)).catch(() => {});
  }
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
  return createHash("sha256").update(`paygate rate limit\0${token}`, "utf8").digest("hex").slice(0, 32);
}
