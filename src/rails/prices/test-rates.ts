// Test mode's price feeds: the operator's test rates (the service's), or a fixed table (tests).
// The rates themselves and their rules are the core's (src/core/test-rates.ts).
import { Decimal } from "../../core/money/amounts.ts";
import type { CryptoCurrency, FiatCurrency } from "../../core/money/currencies.ts";
import { DEFAULT_TEST_RATES, type RateTable, type TestRateBook } from "../../core/test-rates.ts";
import type { PriceFeed, PriceQuote } from "../../core/ports.ts";
import { PriceFeedError } from "./errors.ts";

export { DEFAULT_TEST_RATES };

export const TEST_RATES_SOURCE = "test-rates";

/** Test prices from a fixed table in memory (the defaults unless given one). */
export class TestRatesFeed implements PriceFeed {
  constructor(
    private readonly table: RateTable = DEFAULT_TEST_RATES,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async quote(crypto: CryptoCurrency, fiat: FiatCurrency): Promise<PriceQuote> {
    const rate = this.table[crypto.slug]?.[fiat.slug];
    if (rate === undefined) throw new PriceFeedError(`No test rate for ${crypto.slug}/${fiat.slug}`);
    return { rate: new Decimal(rate), source: TEST_RATES_SOURCE, quotedAt: this.now() };
  }
}

/** Test prices from the core's book (the operator's rates, else the defaults: operatorTestRates). */
export class StoredTestRatesFeed implements PriceFeed {
  constructor(
    private readonly rates: TestRateBook,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async quote(crypto: CryptoCurrency, fiat: FiatCurrency): Promise<PriceQuote> {
    const rate = await this.rates.rateOf(crypto, fiat);
    if (rate === undefined) throw new PriceFeedError(`No test rate for ${crypto.slug}/${fiat.slug}`);
    return { rate: new Decimal(rate), source: TEST_RATES_SOURCE, quotedAt: this.now() };
  }
}
