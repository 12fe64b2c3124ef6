import type { CryptoCurrency, FiatCurrency } from "../../core/money/currencies.ts";
import type { PriceFeed, PriceQuote, QuoteOptions } from "../../core/ports.ts";
import { PriceFeedError } from "./errors.ts";

export { PriceFeedError } from "./errors.ts";

/** Test transactions are priced from the test table, live ones from a real feed. */
export class ModeRoutedFeed implements PriceFeed {
  constructor(private readonly feeds: { test: PriceFeed; live: PriceFeed }) {}

  /** The live feed's: test mode is priced from the test rates whatever the merchant chose. */
  get providers() {
    return this.feeds.live.providers;
  }

  quote(crypto: CryptoCurrency, fiat: FiatCurrency, isLive: boolean, options?: QuoteOptions): Promise<PriceQuote> {
    return isLive ? this.feeds.live.quote(crypto, fiat, isLive, options) : this.feeds.test.quote(crypto, fiat, isLive);
  }
}

/**
 * The feeds a quote asks, in order: the merchant's choice (QuoteOptions.providers) of those known,
 * unless fewer than `atLeast` of them are left (an operator dropped a provider since): then all of them.
 */
export function chosenFeeds<F extends { name?: string }>(feeds: readonly F[], options: QuoteOptions | undefined, atLeast: number): readonly F[] {
  const names = options?.providers;
  if (!names || names.length === 0) return feeds;
  const chosen = names.flatMap((name) => feeds.filter((f) => f.name === name));
  return chosen.length >= atLeast ? chosen : feeds;
}

/** The provider names of named feeds, in order (an unnamed feed offers no choice). */
export function providerNames(feeds: readonly { name?: string }[]): string[] {
  return feeds.flatMap((f) => (typeof f.name === "string" ? [f.name] : []));
}

/**
 * The first feed that quotes the pair, in order (PAYGATE_PRICE_FEED=coingecko,kraken). The quote's
 * `source` names the provider that answered. Fails only when every feed failed, with each reason.
 */
export class FallbackFeed implements PriceFeed {
  readonly providers: { names: readonly string[]; atLeast: number };

  constructor(private readonly feeds: readonly (PriceFeed & { name?: string })[]) {
    if (feeds.length === 0) throw new RangeError("FallbackFeed needs at least one feed");
    this.providers = { names: providerNames(feeds), atLeast: 1 };
  }

  /** The first feed, in the merchant's order when it chose (QuoteOptions), that answers fresh. */
  async quote(crypto: CryptoCurrency, fiat: FiatCurrency, isLive: boolean, options?: QuoteOptions): Promise<PriceQuote> {
    const failures: string[] = [];
    for (const feed of chosenFeeds(this.feeds, options, 1)) {
      try {
        return await feed.quote(crypto, fiat, isLive);
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
    }
    throw new PriceFeedError(`No ${crypto.slug}/${fiat.slug} price: ${failures.join("; ")}`);
  }
}
