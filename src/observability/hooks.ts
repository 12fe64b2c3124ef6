// What the jobs, feeds and adapters report to, as narrow interfaces: src/observability/metrics.ts
// implements them with prom-client, and the code that reports imports only these types (no
// Prometheus in the webhooks, lifecycle or rails layers; none at all in the core).
import type { EventOutcome } from "../core/records/events.ts";

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

/** A chain node as the metrics name it: the coin it is read for, on which network, the mode, and the kind of node. */
export interface ChainNodeLabels {
  coin: string;
  /** core/networks.ts's slug: bitcoin, litecoin, ethereum, bsc, … */
  network: string;
  mode: Mode;
  /** esplora, core (an own Bitcoin Core / Litecoin Core node) or evm (JSON-RPC). */
  backend: string;
}

/** One network and mode's nodes with their health, in their variable's order (src/rails/chains' NodePool). */
export interface ChainNodeHealthView {
  network: string;
  mode: Mode;
  backend: string;
  nodes: readonly { index: number; state: string; head: number | null }[];
}

/** The payment watcher: one call per pass this instance led, and what its chain nodes did in it. */
export interface WatcherMetrics {
  watchPass(report: { watched: number; failed: number }, seconds: number): void;
  /** A read of a node failed (one per failed request, however many addresses waited on it); `reason` as ChainFailureReason. */
  chainNodeFailed(node: ChainNodeLabels, reason: string): void;
  /** A pass read every address of this node without a failure, at `at`. */
  chainNodeAnswered(node: ChainNodeLabels, at: Date): void;
  /** A SUCCESSFUL payment in `coin` was reversed (payment.reversed): its counted receipts left the chain. */
  paymentReversed?(coin: string): void;
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
  /**
   * Why a provider gave no usable price (src/rails/prices/errors.ts, PriceFailureReason): a failed
   * upstream call by its reason, or a quote refused as stale, missing or out of the median's spread.
   */
  priceProviderFailed(provider: string, reason: string): void;
  /** A price served: how old the provider's answer was, in seconds. */
  priceProviderQuoted(provider: string, ageSeconds: number): void;
  /** How far a provider's rate was from the median of a quote: |rate − median| / median (0.02 is 2 %). */
  priceProviderDivergence(provider: string, ratio: number): void;
}

/** Requests refused with 429 (src/edge/rate-limits.ts), by the bucket that refused them. */
export type RateLimitedBucket = "live_key" | "test_key" | "address" | "auth_failures";
export interface RateLimitMetrics {
  rateLimited(bucket: RateLimitedBucket): void;
}

/** Live connections (src/edge/connection-limits.ts): refusals by the cap that refused them, and the open count. */
export type LiveRefusalCap = "address" | "credential" | "total";
export interface LiveConnectionMetrics {
  liveConnectionRefused(cap: LiveRefusalCap): void;
  observeLiveConnections(count: () => number): void;
}

/** The flush job (issue 40): each fee payer's balance and whether it is below PAYGATE_FEE_PAYER_LOW_BALANCE, at each pass. */
export interface FeePayerMetrics {
  /** `balance`: an exact decimal string of the coin; the gauge holds its float approximation (a gauge is a float). */
  feePayerObserved(network: string, mode: Mode, balance: string, low: boolean): void;
}
