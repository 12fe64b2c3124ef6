import type { PriceFeed, PriceQuote } from "../../src/core/ports.ts";
import { TestRatesFeed } from "../../src/rails/prices/test-rates.ts";

/** Test rates in both modes that fail while `down` is set, as a provider outage or timeout would. */
export class SwitchableFeed implements PriceFeed {
  down = false;
  private readonly rates = new TestRatesFeed();
  quote(...[crypto, fiat]: Parameters<PriceFeed["quote"]>): Promise<PriceQuote> {
    if (this.down) return Promise.reject(new Error("connect ETIMEDOUT"));
    return this.rates.quote(crypto, fiat);
  }
}
