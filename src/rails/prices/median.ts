// PAYGATE_PRICE_STRATEGY=median: every configured provider is asked at once, and the rate locked is
// the median of the fresh prices that agree, so one wrong or stale provider cannot set a price.
//
// 1. Each provider answers from its cache or upstream (cached-feed.ts); a stale price, an HTTP error,
//    a 429, a timeout or garbage leaves that provider out, with its reason.
// 2. The median of the prices given; a provider further than the spread from it is out_of_spread.
// 3. Fewer than the quorum left: refused (QuoteRefusedError → 503 quote_unavailable naming each
//    provider and why). Otherwise the rate is the median of those left, quoted at the oldest of
//    their times, and `sources` records what every provider gave.
import { Decimal, RATE_DECIMALS } from "../../core/money/amounts.ts";
import type { CryptoCurrency, FiatCurrency } from "../../core/money/currencies.ts";
import { QuoteRefusedError, type PriceFeed, type PriceQuote, type QuoteOptions, type RateSource } from "../../core/ports.ts";
import type { PriceFeedMetrics } from "../../observability/hooks.ts";
import { reasonOf } from "./errors.ts";
import { chosenFeeds } from "./index.ts";

/** A provider's feed and its name (CachedPriceFeed has both). */
export type NamedFeed = PriceFeed & { readonly name: string };

export const MEDIAN_SOURCE = "median";

export interface MedianOptions {
  /** How many providers must agree within the spread. */
  quorum: number;
  /** The largest distance from the median, in percent of it, a price may have and still count. */
  maxSpreadPercent: Decimal;
  /** One line when a provider starts or stops disagreeing with the others (never per quote). */
  log?: (line: string) => void;
  metrics?: PriceFeedMetrics;
}

interface Priced {
  provider: string;
  quote: PriceQuote;
  divergence: Decimal;
}

export class MedianFeed implements PriceFeed {
  private readonly maxRatio: Decimal;
  /** Providers whose last price was out of the spread: the transition back is logged. */
  private readonly disagreeing = new Set<string>();

  constructor(
    private readonly feeds: readonly NamedFeed[],
    private readonly options: MedianOptions,
  ) {
    if (feeds.length === 0) throw new RangeError("MedianFeed needs at least one feed");
    if (!Number.isInteger(options.quorum) || options.quorum < 1 || options.quorum > feeds.length) {
      throw new RangeError(`MedianFeed's quorum must be between 1 and ${feeds.length}`);
    }
    this.maxRatio = options.maxSpreadPercent.div(100);
  }

  /** A merchant's choice must name at least the quorum, or no quote could ever be had. */
  get providers() {
    return { names: this.feeds.map((f) => f.name), atLeast: this.options.quorum };
  }

  /** The median of the merchant's providers when it chose (QuoteOptions), else of all; the sources in that order. */
  async quote(crypto: CryptoCurrency, fiat: FiatCurrency, isLive: boolean, quoteOptions?: QuoteOptions): Promise<PriceQuote> {
    const feeds = chosenFeeds(this.feeds, quoteOptions, this.options.quorum);
    const answers = await Promise.allSettled(feeds.map((feed) => feed.quote(crypto, fiat, isLive)));
    const failed: RateSource[] = [];
    const given: { provider: string; quote: PriceQuote }[] = [];
    answers.forEach((answer, i) => {
      const provider = (feeds[i] as NamedFeed).name;
      if (answer.status === "fulfilled") given.push({ provider, quote: answer.value });
      else {
        // Only the reason word is kept: a provider's error text can quote its answer's body, and the sources are
        // stored with the transaction and shown to public-key and client-secret readers (the feed logs the text).
        failed.push({ provider, rate: null, quotedAt: null, used: false, reason: reasonOf(answer.reason), detail: null });
      }
    });

    const median = medianOf(given.map((g) => g.quote.rate));
    const priced: Priced[] = given.map((g) => ({ ...g, divergence: median ? g.quote.rate.minus(median).abs().div(median) : new Decimal(0) }));
    const agreeing = priced.filter((p) => p.divergence.lte(this.maxRatio));
    this.watch(crypto, fiat, priced, median);

    const used = new Set(agreeing.map((p) => p.provider));
    const order = (provider: string) => feeds.findIndex((f) => f.name === provider);
    const sources: RateSource[] = [...priced.map((p) => sourceOf(p, used.has(p.provider), median)), ...failed].sort(
      (a, b) => order(a.provider) - order(b.provider),
    );

    if (agreeing.length < this.options.quorum) {
      const summary =
        `${agreeing.length} of the ${this.options.quorum} providers needed agree within ${this.options.maxSpreadPercent.toFixed()}% of the median: ` +
        sources.map(describe).join("; ");
      throw new QuoteRefusedError(summary, sources);
    }
    const rate = medianOf(agreeing.map((p) => p.quote.rate)) as Decimal;
    const quotedAt = new Date(Math.min(...agreeing.map((p) => p.quote.quotedAt.getTime())));
    return { rate, source: MEDIAN_SOURCE, quotedAt, sources };
  }

  /** Divergence per provider to the metrics; one log line when a provider starts or stops disagreeing. */
  private watch(crypto: CryptoCurrency, fiat: FiatCurrency, priced: readonly Priced[], median: Decimal | null): void {
    for (const p of priced) {
      this.options.metrics?.priceProviderDivergence(p.provider, p.divergence.toNumber());
      const out = p.divergence.gt(this.maxRatio);
      if (out) this.options.metrics?.priceProviderFailed(p.provider, "out_of_spread");
      if (out && !this.disagreeing.has(p.provider)) {
        this.disagreeing.add(p.provider);
        this.options.log?.(
          `price feed ${p.provider} disagrees with the other providers: ${crypto.slug}/${fiat.slug} ${p.quote.rate.toFixed()} is ` +
            `${percent(p.divergence)}% from the median ${median?.toFixed()} (limit ${this.options.maxSpreadPercent.toFixed()}%)`,
        );
      } else if (!out && this.disagreeing.delete(p.provider)) {
        this.options.log?.(`price feed ${p.provider} agrees with the other providers again`);
      }
    }
  }
}

/** The median of exact rates (the mean of the middle two for an even count), to the 18 decimals a rate keeps. */
export function medianOf(rates: readonly Decimal[]): Decimal | null {
  if (rates.length === 0) return null;
  const sorted = [...rates].sort((a, b) => a.comparedTo(b));
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? (sorted[middle] as Decimal) : (sorted[middle - 1] as Decimal).plus(sorted[middle] as Decimal).div(2);
  return median.toDecimalPlaces(RATE_DECIMALS, Decimal.ROUND_HALF_UP);
}

function sourceOf(p: Priced, used: boolean, median: Decimal | null): RateSource {
  const distance = `${percent(p.divergence)}% from the median ${median?.toFixed()}`;
  return {
    provider: p.provider,
    rate: p.quote.rate.toFixed(),
    quotedAt: p.quote.quotedAt,
    used,
    reason: used ? null : "out_of_spread",
    detail: p.quote.detail ? `${p.quote.detail}; ${distance}` : distance,
  };
}

function describe(s: RateSource): string {
  if (s.used) return `${s.provider} ${s.rate}`;
  if (s.reason === "out_of_spread") return `${s.provider} out_of_spread (${s.rate}, ${s.detail})`;
  return `${s.provider} ${s.reason}`;
}

const percent = (ratio: Decimal) => ratio.times(100).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed();
