// Test mode's prices: a fixed table, so test amounts are predictable. Operators can replace it
// with PAYGATE_TEST_RATES (JSON: {"BTC": {"USD": "65000", "NGN": "97500000"}, …}).
import { Decimal } from "../../core/money/amounts.ts";
import type { CryptoCurrency, CryptoSlug, FiatCurrency, FiatSlug } from "../../core/money/currencies.ts";
import type { PriceFeed, PriceQuote } from "../../core/ports.ts";

export type RateTable = Partial<Record<CryptoSlug, Partial<Record<FiatSlug, string>>>>;

export const DEFAULT_TEST_RATES: RateTable = {
  USDT: { USD: "1", NGN: "1500" },
  BTC: { USD: "65000", NGN: "97500000" },
  BNB: { USD: "600", NGN: "900000" },
  ETH: { USD: "3000", NGN: "4500000" },
  LTC: { USD: "80", NGN: "120000" },
};

export class TestRatesFeed implements PriceFeed {
  constructor(
    private readonly table: RateTable = DEFAULT_TEST_RATES,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async quote(crypto: CryptoCurrency, fiat: FiatCurrency): Promise<PriceQuote> {
    const rate = this.table[crypto.slug]?.[fiat.slug];
    if (rate === undefined) throw new Error(`No test rate for ${crypto.slug}/${fiat.slug}`);
    return { rate: new Decimal(rate), source: "test-rates", quotedAt: this.now() };
  }
}
