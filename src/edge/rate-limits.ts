// The rate limits on HTTP (docs/rest-api.md, Rate limits); the core decides buckets and limits and counts
// (src/core/rate-limits.ts). Before anything else of the request runs, one statement counts it
// against its bucket (its API key's, or its address's without one) and reads its address's failed
// authentications; then:
//
// - an address that has used up its failed authentications is refused (429 before authentication);
// - a bucket over its limit is refused (429);
// - otherwise the request goes on, with the IETF RateLimit headers (draft 6) of its bucket, and an
//   answer that turns out to be a failed authentication is counted against the address before it
//   leaves (so successful requests never write that counter).
//
// A counter store that fails (the database is down) lets the request through to its normal path,
// which answers for itself (503 database_unavailable), rather than turning every request into a
// failure of the limiter.
import type { IncomingMessage } from "node:http";
import type { Request, RequestHandler, Response } from "express";
import proxyaddr from "proxy-addr";
import { isDatabaseOutage, type PaygateError } from "../core/errors.ts";
import { bearerToken } from "./headers.ts";
import {
  RateLimiter,
  retryAfterSeconds,
  tooManyFailedAuthentications,
  tooManyRequests,
  type Admission,
  type Bucket,
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
  const storeFailed = storeFailureLog(logger);

  return async (req, res, next) => {
    const address = clientAddress(req);
    let admission: Admission;
    try {
      admission = await limiter.admit(bearerToken(req.headers.authorization), address);
    } catch (error) {
      storeFailed(error, "the rate-limit counters failed");
      return next();
    }
    const { bucket, usage, failures } = admission;
    if (failures && RateLimiter.blocked(failures)) {
      setHeaders(res, failures);
      res.setHeader("Retry-After", String(retryAfterSeconds(failures)));
      metrics?.rateLimited("auth_failures");
      return sendError(res, tooManyFailedAuthentications(failures));
    }
    if (bucket && usage) {
      const refusal = bucketAnswer(res, bucket, usage, metrics);
      if (refusal) return sendError(res, refusal);
    }
    if (failures) countFailedAuthentication(res, limiter, address, storeFailed);
    next();
  };
}

function storeFailureLog(logger: Logger) {
  return (error: unknown, what: string) => {
    // An outage is logged once for every query by the database layer (src/db/failures.ts).
    if (!isDatabaseOutage(error)) logger.error({ err: error }, `${what}; the request went through without the rate limits`);
  };
}

/** The bucket's RateLimit headers; over its limit, Retry-After too and the refusal to answer with. */
function bucketAnswer(res: Response, bucket: Bucket, usage: WindowUsage, metrics: RateLimitMetrics | undefined): PaygateError | null {
  setHeaders(res, usage);
  if (!RateLimiter.over(usage)) return null;
  res.setHeader("Retry-After", String(retryAfterSeconds(usage)));
  metrics?.rateLimited(bucket.kind);
  return tooManyRequests(bucket, usage);
}

/**
 * Counts more requests against the bucket of a request the middleware admitted (a GraphQL request's
 * mutation fields after its first: src/graphql/mutation-limits.ts) and sets its RateLimit headers to
 * the new usage; the refusal, Retry-After set, when that went over the limit. Null when every limit
 * is off. A counter store that fails lets the request through, as the middleware does.
 */
export function moreRequests({ limiter, logger, metrics }: RateLimitOptions) {
  if (!limiter.enabled) return null;
  const storeFailed = storeFailureLog(logger);
  return async (req: Request, res: Response, hits: number): Promise<PaygateError | null> => {
    try {
      const counted = await limiter.countMore(bearerToken(req.headers.authorization), clientAddress(req), hits);
      return counted && bucketAnswer(res, counted.bucket, counted.usage, metrics);
    } catch (error) {
      storeFailed(error, "the rate-limit counters failed");
      return null;
    }
  };
}

/**
 * A failed authentication is counted before its answer leaves: a client learns that a key failed
 * only once the failure counts, so one that tries keys one after another gets exactly the limit
 * (tries already under way when it is reached still finish).
 */
function countFailedAuthentication(res: Response, limiter: RateLimiter, address: string, storeFailed: (error: unknown, what: string) => void): void {
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

/** A request the rate limits refuse, for transports that answer it themselves (WebSocket upgrades and subscriptions). */
export interface LimitRefusal {
  retryAfterSeconds: number;
  message: string;
  reason: "rate_limited" | "too_many_failed_authentications";
}

/**
 * The rate limits for the live-update transports, which never pass the middleware above: a
 * WebSocket's upgrade and each of its subscriptions count as one request of their credential (else
 * their address), and a subscription refused as a failed authentication, on either transport,
 * counts against the address as REST's refusals do.
 */
export interface LiveRateLimits {
  /** Counts one request; the refusal to answer with, or null. Rejects when the counters fail (let through). */
  admit(authorization: string | undefined, address: string): Promise<LimitRefusal | null>;
  /** Counts a failed authentication against the address when the answer's reasons are one. */
  answered(address: string, reasons: readonly string[]): Promise<void>;
}

export function liveRateLimits(limiter: RateLimiter): LiveRateLimits {
  return {
    async admit(authorization, address) {
      const { bucket, usage, failures } = await limiter.admit(bearerToken(authorization), address);
      if (failures && RateLimiter.blocked(failures)) {
        return {
          retryAfterSeconds: retryAfterSeconds(failures),
          message: tooManyFailedAuthentications(failures).message,
          reason: "too_many_failed_authentications",
        };
      }
      if (bucket && usage && RateLimiter.over(usage)) {
        return { retryAfterSeconds: retryAfterSeconds(usage), message: tooManyRequests(bucket, usage).message, reason: "rate_limited" };
      }
      return null;
    },
    async answered(address, reasons) {
      if (limiter.countsAsAuthFailure(reasons)) await limiter.recordAuthFailure(address);
    },
  };
}

/** The client address of a request Express never saw (a WebSocket upgrade), as `req.ip` would give it. */
export function upgradeClientAddress(trust: (address: string, hop: number) => boolean) {
  return (request: IncomingMessage): string => proxyaddr(request, trust);
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

/**
 * The RateLimit headers of draft 6 of the IETF's "RateLimit header fields for HTTP" (as
 * express-rate-limit's `standardHeaders: "draft-6"` writes them): the limit, what is left, the
 * seconds until the window ends, and the policy (`100;w=1`: 100 per 1-second window).
 */
function setHeaders(res: Response, usage: WindowUsage): void {
  res.setHeader("RateLimit-Policy", `${usage.limit};w=${Math.ceil(usage.windowMs / 1000)}`);
  res.setHeader("RateLimit-Limit", String(usage.limit));
  res.setHeader("RateLimit-Remaining", String(Math.max(0, usage.limit - usage.hits)));
  res.setHeader("RateLimit-Reset", String(retryAfterSeconds(usage)));
}
