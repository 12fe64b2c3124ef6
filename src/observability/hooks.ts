// What the jobs, feeds and adapters report to, as narrow interfaces: src/observability/metrics.ts
// implements them with prom-client, and the code that reports imports only these types (no
// Prometheus in the webhooks, lifecycle or rails layers; none at all in the core).
import type { EventOutcome } from "../core/stores.ts";

export type Mode = "live" | "test";

/** Initialize and initiate successes (counted once, in src/observability/gateway.ts). */
export interface TransactionMetrics {
  transactionInitialized(currency: string, mode: Mode): void;
  paymentInitiated(currency: string, mode: Mode): void;
}

/** The webhook dispatcher: one call per HTTP attempt. */
export interface WebhookMetrics {
  /** `createdAt`: when the event was written (with its state change); `trigger`: the schedule or an operator. */
  webhookAttempt(outcome: EventOutcome, createdAt: Date, trigger: "schedule" | "manual"): void;
}

/** The payment watcher: one call per pass this instance led. */
export interface WatcherMetrics {
  watchPass(report: { watched: number; failed: number }, seconds: number): void;
}

/** The expiry job: the transactions one batch abandoned. */
export interface ExpiryMetrics {
  transactionsExpired(transactions: readonly { isLive: boolean }[]): void;
}

/** A cached live price feed (src/rails/prices/cached-feed.ts), by provider name. */
export interface PriceFeedMetrics {
  /** A quote the provider could not give (no fresh price, or none for the pair); not a pair it never prices. */
  quoteFailed(provider: string): void;
  /** An upstream call that failed, even when the last price still covered it. */
  priceRefreshFailed(provider: string): void;
}

/** Requests refused with 429 (src/http/rate-limits.ts), by the bucket that refused them. */
export type RateLimitedBucket = "live_key" | "test_key" | "address" | "auth_failures";
export interface RateLimitMetrics {
  rateLimited(bucket: RateLimitedBucket): void;
}

/** Live connections (src/http/connection-limits.ts): refusals by the cap that refused them, and the open count. */
export type LiveRefusalCap = "address" | "credential" | "total";
export interface LiveConnectionMetrics {
  liveConnectionRefused(cap: LiveRefusalCap): void;
  observeLiveConnections(count: () => number): void;
}
