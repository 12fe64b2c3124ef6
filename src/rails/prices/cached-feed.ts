// What every live provider shares: one upstream call prices every pair it offers, and that answer
// is kept for a short while for every request of the process.
//
// - Fresh (younger than the cache time): served from memory, no upstream call.
// - Expired: the next quote refreshes it. Concurrent quotes share that one upstream call.
// - Refresh failed: the last answer is still served while it is younger than the max age, so a
//   blip upstream does not fail payments; past the max age it is stale and the quote fails
//   (initiate answers 503). After an HTTP 429 the provider is left alone for its Retry-After.
// - Watched: one log line when the provider goes bad and one when it comes back (never per quote);
//   failures by reason, and the age of each price served, go to the metrics.
import type { Decimal } from "../../core/money/amounts.ts";
import type { CryptoCurrency, FiatCurrency } from "../../core/money/currencies.ts";
import type { PriceFeed, PriceQuote } from "../../core/ports.ts";
import type { PriceFeedMetrics } from "../../observability/hooks.ts";
import { PriceFeedError, reasonOf } from "./errors.ts";
import { pairKey, type PairKey } from "./rates.ts";

/** One answer of a provider: a rate per pair it priced, and why each other pair it should have priced is missing. */
export interface RateSet {
  rates: Map<PairKey, Decimal>;
  problems: Map<PairKey, string>;
  /** How a rate was reached when it is not the provider's own price of the pair (a conversion), for the quote's `detail`. */
  notes?: Map<PairKey, string>;
}

export interface CachedFeedOptions {
  /** How long an answer is served without asking again. 0: every quote asks (concurrent ones still share a call). */
  cacheSeconds: number;
  /** The oldest answer ever served, when a refresh fails. At least `cacheSeconds`. */
  maxAgeSeconds: number;
  /** The whole upstream exchange, headers and body. */
  timeoutMs: number;
  /** Milliseconds since the epoch; tests move it. */
  now?: () => number;
  /** One line when the provider goes bad, one when it comes back (never per quote). */
  log?: (line: string) => void;
  /** Failed quotes and upstream calls (GET /metrics). */
  metrics?: PriceFeedMetrics;
}

interface Snapshot extends RateSet {
  fetchedAt: number;
}

export abstract class CachedPriceFeed implements PriceFeed {
  /** The quote's `source`, e.g. "coingecko". */
  abstract readonly name: string;

  /** Alone (PAYGATE_PRICE_FEED names one provider), it is the only choice. */
  get providers() {
    return { names: [this.name], atLeast: 1 };
  }

  protected readonly timeoutMs: number;
  private readonly freshMs: number;
  private readonly maxAgeMs: number;
  private readonly now: () => number;
  private readonly log: ((line: string) => void) | undefined;
  private readonly metrics: PriceFeedMetrics | undefined;
  private snapshot: Snapshot | undefined;
  private inflight: Promise<Snapshot> | undefined;
  private lastError: PriceFeedError | undefined;
  private quietUntil = 0;
  /** When the first of the failures in a row happened; undefined while the provider answers. */
  private failingSince: number | undefined;

  constructor(options: CachedFeedOptions) {
    this.timeoutMs = options.timeoutMs;
    this.maxAgeMs = Math.max(0, options.maxAgeSeconds) * 1000;
    this.freshMs = Math.min(Math.max(0, options.cacheSeconds) * 1000, this.maxAgeMs);
    this.now = options.now ?? Date.now;
    this.log = options.log;
    this.metrics = options.metrics;
  }

  /** One upstream call that prices every pair the provider offers. */
  protected abstract fetchRates(): Promise<RateSet>;

  /** Why this provider never prices the pair (then no upstream call is made), or null. */
  protected unsupported(_crypto: CryptoCurrency, _fiat: FiatCurrency): string | null {
    return null;
  }

  async quote(crypto: CryptoCurrency, fiat: FiatCurrency): Promise<PriceQuote> {
    const reason = this.unsupported(crypto, fiat);
    if (reason !== null) throw new PriceFeedError(`${this.name}: ${reason}`, { reason: "unsupported" });
    const snapshot = await this.current().catch((error: unknown) => this.quoteFailed(error));
    const key = pairKey(crypto.slug, fiat.slug);
    const rate = snapshot.rates.get(key);
    if (rate === undefined) {
      this.quoteFailed(new PriceFeedError(`${this.name}: ${snapshot.problems.get(key) ?? `the answer has no ${key} price`}`, { reason: "no_price" }));
    }
    this.metrics?.priceProviderQuoted(this.name, Math.max(0, this.now() - snapshot.fetchedAt) / 1000);
    const detail = snapshot.notes?.get(key);
    return { rate, source: this.name, quotedAt: new Date(snapshot.fetchedAt), ...(detail === undefined ? {} : { detail }) };
  }

  private quoteFailed(error: unknown): never {
    this.metrics?.quoteFailed(this.name);
    // Failed upstream calls are counted where they fail; here only what no call explains.
    const reason = reasonOf(error);
    if (reason === "stale" || reason === "no_price") this.metrics?.priceProviderFailed(this.name, reason);
    throw error;
  }

  private async current(): Promise<Snapshot> {
    const snapshot = this.snapshot;
    if (snapshot && this.now() - snapshot.fetchedAt < this.freshMs) return snapshot;
    if (this.lastError && this.now() < this.quietUntil) return this.lastGoodOr(this.lastError);
    try {
      return await (this.inflight ?? this.refresh());
    } catch (error) {
      return this.lastGoodOr(error as PriceFeedError);
    }
  }

  private refresh(): Promise<Snapshot> {
    const call: Promise<Snapshot> = this.load().finally(() => {
      if (this.inflight === call) this.inflight = undefined;
    });
    this.inflight = call;
    return call;
  }

  private async load(): Promise<Snapshot> {
    try {
      const set = await this.fetchRates();
      const snapshot: Snapshot = { ...set, fetchedAt: this.now() };
      this.snapshot = snapshot;
      this.lastError = undefined;
      this.quietUntil = 0;
      if (this.failingSince !== undefined) {
        this.log?.(`price feed ${this.name} is back after ${Math.round((snapshot.fetchedAt - this.failingSince) / 1000)} s of failures`);
        this.failingSince = undefined;
      }
      if (set.problems.size > 0) {
        this.log?.(`price feed ${this.name}: ${[...set.problems].map(([key, problem]) => `${key}: ${problem}`).join("; ")}`);
      }
      return snapshot;
    } catch (error) {
      const failure =
        error instanceof PriceFeedError ? error : new PriceFeedError(`${this.name}: ${(error as Error)?.message ?? String(error)}`, { cause: error });
      this.lastError = failure;
      this.metrics?.priceRefreshFailed(this.name);
      this.metrics?.priceProviderFailed(this.name, failure.reason);
      if (failure.retryAfterMs !== undefined) this.quietUntil = this.now() + failure.retryAfterMs;
      if (this.failingSince === undefined) {
        this.failingSince = this.now();
        this.log?.(`price feed ${this.name} failed: ${failure.message}`);
      }
      throw failure;
    }
  }

  /** The last good answer while it is younger than the max age; otherwise the failure. */
  private lastGoodOr(failure: PriceFeedError): Snapshot {
    const snapshot = this.snapshot;
    if (!snapshot) throw failure;
    const ageMs = this.now() - snapshot.fetchedAt;
    if (ageMs < this.maxAgeMs) return snapshot;
    // "stale" where an old price could have been served (a max age above 0) and has run out; with
    // a max age of 0 nothing old is ever served, and the failure itself is the reason.
    throw new PriceFeedError(`${failure.message}; the last price is ${Math.round(ageMs / 1000)} s old, past the ${this.maxAgeMs / 1000} s limit`, {
      cause: failure,
      reason: this.maxAgeMs > 0 ? "stale" : failure.reason,
      ...(failure.retryAfterMs === undefined ? {} : { retryAfterMs: failure.retryAfterMs }),
    });
  }
}
