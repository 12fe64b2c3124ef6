import type { CryptoCurrency, FiatCurrency } from "../../core/money/currencies.ts";
import type { PriceFeed, PriceQuote } from "../../core/ports.ts";

/** Test transactions are priced from the test table, live ones from a real feed. */
export class ModeRoutedFeed implements PriceFeed {
  constructor(private readonly feeds: { test: PriceFeed; live: PriceFeed }) {}

  quote(crypto: CryptoCurrency, fiat: FiatCurrency, isLive: boolean): Promise<PriceQuote> {
    return (isLive ? this.feeds.live : this.feeds.test).quote(crypto, fiat, isLive);
  }
}

/** Live mode before a real provider is configured: every quote fails, which initiate answers with 503. */
export class NoLiveFeed implements PriceFeed {
  async quote(): Promise<PriceQuote> {
    throw new Error("No live price feed is configured");
  }
}
