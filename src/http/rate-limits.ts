// The rate limits on HTTP (README "Rate limits"); the core decides buckets and limits
// (src/core/rate-limits.ts). Two steps, before anything else of the request runs:
//
// 1. Failed authentications, per client address: an address that has used up its failures in the
//    window under way is refused with 429 before it can try another key. The counter is read here
//    and written only when an answer turns out to be a failed authentication (so successful
//    requests never write it, and are never counted while under way).
// 2. Requests, per API key (or per client address without one): express-rate-limit does the HTTP
//    part (counting each request, the IETF RateLimit-* headers of draft 6, Retry-After, the 429)
//    on a store whose counters are the core's, in the database, shared by every instance.
//
// A counter store that fails (the database is down) lets the request through to its normal path,
// which answers for itself (503 database_unavailable), rather than turning every request into a
// failure of the limiter.
import type { Request, RequestHandler, Response } from "express";
import { rateLimit, type ClientRateLimitInfo, type RateLimitInfo, type Store } from "express-rate-limit";
import { isDatabaseOutage } from "../core/errors.ts";
import { bearerToken } from "../core/merchants/credentials.ts";
import {
  RateLimiter,
  retryAfterSeconds,
  tooManyFailedAuthentications,
  tooManyRequests,
  type Bucket,
  type BucketKind,
  type RateLimit,
  type WindowUsage,
} from "../core/rate-limits.ts";
import type { Logger } from "../logging.ts";
import type { RateLimitMetrics } from "../observability/hooks.ts";
import { sendError } from "./errors.ts";

export interface RateLimitOptions {
  limiter: RateLimiter;
  logger: Logger;
  metrics?: RateLimitMetrics;
}

/** The middleware; null when every limit is off (nothing to mount). */
export function rateLimits({ limiter, logger, metrics }: RateLimitOptions): RequestHandler | null {
  if (!limiter.enabled) return null;
  const storeFailed = (error: unknown, what: string) => {
    // An outage is logged once for every query by the database layer (src/db/failures.ts).
    if (!isDatabaseOutage(error)) logger.error({ err: error }, `${what}; the request went through without that limit`);
  };

  const { live, test } = limiter.policy;
  const rules: Record<BucketKind, RateLimit | null> = { live_key: live, test_key: test, address: live };
  const byKind = new Map<BucketKind, RequestHandler>();
  for (const [kind, rule] of Object.entries(rules) as [BucketKind, RateLimit | null][]) {
    if (rule) byKind.set(kind, requestLimiter(limiter, kind, rule, { logger, storeFailed, metrics }));
  }

  return async (req, res, next) => {
    const address = clientAddress(req);
    if (limiter.policy.authFailures) {
      let failures: WindowUsage | null = null;
      try {
        failures = await limiter.authFailures(address);
      } catch (error) {
        storeFailed(error, "reading the failed authentications of an address failed");
      }
      if (failures && RateLimiter.blocked(failures)) {
        setHeaders(res, failures, 0);
        metrics?.rateLimited("auth_failures");
        return sendError(req, res, tooManyFailedAuthentications(failures));
      }
      // A failed authentication is counted before its answer leaves: a client learns that a key
      // failed only once the failure counts, so one that tries keys one after another gets exactly
      // the limit (concurrent tries already under way when it is reached still finish).
      const end = res.end.bind(res) as (...args: unknown[]) => Response;
      res.end = ((...args: unknown[]) => {
        if (!limiter.countsAsAuthFailure(errorReasonsOf(res))) return end(...args);
        limiter
          .recordAuthFailure(address)
          .catch((error: unknown) => storeFailed(error, "counting a failed authentication failed"))
          .finally(() => end(...args));
        return res;
      }) as Response["end"];
    }
    const bucket = limiter.bucketOf(bearerToken(req.headers.authorization), address);
    const limit = bucket && byKind.get(bucket.kind);
    if (!bucket || !limit) return next();
    res.locals.rateLimitBucket = bucket;
    return limit(req, res, next);
  };
}

/** One express-rate-limit instance per kind of bucket: each has its own limit and window. */
function requestLimiter(
  limiter: RateLimiter,
  kind: BucketKind,
  rule: RateLimit,
  { logger, storeFailed, metrics }: { logger: Logger; storeFailed: (error: unknown, what: string) => void; metrics: RateLimitMetrics | undefined },
): RequestHandler {
  const usageOf = (req: Request): WindowUsage => {
    const info = (req as Request & { rateLimit: RateLimitInfo }).rateLimit;
    const resetMs = info.resetTime ? info.resetTime.getTime() - Date.now() : rule.windowMs;
    return { hits: info.used, limit: info.limit, windowMs: rule.windowMs, resetMs };
  };
  return rateLimit({
    windowMs: rule.windowMs,
    limit: rule.limit,
    standardHeaders: "draft-6",
    legacyHeaders: false,
    keyGenerator: (_req, res) => (res.locals.rateLimitBucket as Bucket).key,
    store: new CounterStore(limiter, rule),
    passOnStoreError: true,
    retryAfter: (req) => retryAfterSeconds(usageOf(req)),
    handler: (req, res) => {
      metrics?.rateLimited(kind);
      sendError(req, res, tooManyRequests({ kind }, usageOf(req)));
    },
    // Its errors go to the service's log; a store error that is a database outage is already logged.
    logger: {
      error: (error, message) => storeFailed(error, message ?? "rate limiter"),
      warn: (error, message) => logger.warn({ err: error }, message ?? "rate limiter"),
    },
  });
}

/** express-rate-limit's Store on the core's counters (which live in the database). */
class CounterStore implements Store {
  /** The counters are shared by every instance, not local to this process. */
  readonly localKeys = false;
  /** The core's keys carry their kind (`key:`, `addr:`). */
  readonly prefix = "";

  constructor(
    private readonly limiter: RateLimiter,
    private readonly rule: RateLimit,
  ) {}

  async increment(key: string): Promise<ClientRateLimitInfo> {
    const usage = await this.limiter.hit(key, this.rule);
    // The core counts on its clock; the library measures the time left on this process's.
    return { totalHits: usage.hits, resetTime: new Date(Date.now() + usage.resetMs) };
  }

  /** Never called: no request is un-counted (neither skipFailedRequests nor skipSuccessfulRequests is set). */
  async decrement(): Promise<void> {}

  /** Counters end with their window; nothing resets one early. */
  async resetKey(): Promise<void> {}
}

/**
 * The client's address: the connection's peer, or with PAYGATE_TRUST_PROXY the address the trusted
 * proxies say they received the request from (Express's `trust proxy` and `req.ip`).
 */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? "unknown";
}

/** The reasons of the errors this response carried: REST's one (sendError), GraphQL's (server.ts). */
function errorReasonsOf(res: Response): string[] {
  const reasons: unknown[] = [res.locals.errorCode, ...((res.locals.errorReasons as unknown[] | undefined) ?? [])];
  return reasons.filter((reason): reason is string => typeof reason === "string");
}

/** The draft-6 headers express-rate-limit sends, for the refusals this file answers itself. */
function setHeaders(res: Response, usage: WindowUsage, remaining: number): void {
  const retryAfter = retryAfterSeconds(usage);
  res.setHeader("RateLimit-Policy", `${usage.limit};w=${Math.ceil(usage.windowMs / 1000)}`);
  res.setHeader("RateLimit-Limit", String(usage.limit));
  res.setHeader("RateLimit-Remaining", String(remaining));
  res.setHeader("RateLimit-Reset", String(retryAfter));
  res.setHeader("Retry-After", String(retryAfter));
}
