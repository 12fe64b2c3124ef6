import type { CryptoCurrency, FiatCurrency } from "../../core/money/currencies.ts";
import type { PriceFeed, PriceQuote } from "../../core/ports.ts";
import { PriceFeedError } from "./errors.ts";

export { PriceFeedError } from "./errors.ts";

/** Test transactions are priced from the test table, live ones from a real feed. */
export class ModeRoutedFeed implements PriceFeed {
  constructor(private readonly feeds: { test: PriceFeed; live: PriceFeed }) {}

  quote(crypto: CryptoCurrency, fiat: FiatCurrency, isLive: boolean): Promise<PriceQuote> {
    return (isLive ? this.feeds.live : this.feeds.test).quote(crypto, fiat, isLive);
  }
}

/**
 * The first feed that quotes the pair, in order (PAYGATE_PRICE_FEED=coingecko,kraken). The quote's
 * `source` names the provider that answered. Fails only when every feed failed, with each reason.
 */
export class FallbackFeed implements PriceFeed {
  constructor(private readonly feeds: readonly PriceFeed[]) {
    if (feeds.length === 0) throw new RangeError("FallbackFeed needs at least one feed");
  }

  async quote(crypto: CryptoCurrency, fiat: FiatCurrency, isLive: boolean): Promise<PriceQuote> {
    const failures: string[] = [];
    for (const feed of this.feeds) {
      try {
        return await feed.quote(crypto, fiat, isLive);
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
    }
    throw new PriceFeedError(`No ${crypto.slug}/${fiat.slug} price: ${failures.join("; ")}`);
  }
}
