// PAYGATE_PRICE_FEED=coingecko,kraken: the first provider that quotes a pair prices it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { cryptoBySlug, fiatBySlug, type CryptoCurrency, type FiatCurrency } from "../../../src/core/money/currencies.ts";
import { CoinGeckoFeed } from "../../../src/rails/prices/coingecko.ts";
import { FallbackFeed, PriceFeedError } from "../../../src/rails/prices/index.ts";
import { KrakenFeed } from "../../../src/rails/prices/kraken.ts";
import { coingeckoBody, krakenBody, startFakeUpstream, type FakeUpstream } from "./fake-upstream.ts";

const BTC = cryptoBySlug("BTC") as CryptoCurrency;
const BNB = cryptoBySlug("BNB") as CryptoCurrency;
const USD = fiatBySlug("USD") as FiatCurrency;
const NGN = fiatBySlug("NGN") as FiatCurrency;

let coingecko: FakeUpstream;
let kraken: FakeUpstream;
beforeAll(async () => {
  [coingecko, kraken] = await Promise.all([startFakeUpstream(), startFakeUpstream()]);
});
afterAll(async () => {
  await Promise.all([coingecko.close(), kraken.close()]);
});
beforeEach(() => {
  coingecko.requests.length = 0;
  kraken.requests.length = 0;
  coingecko.reply({ body: coingeckoBody() });
  kraken.reply({ body: krakenBody({ XXBTZUSD: "64999.5", XETHZUSD: "3000", XLTCZUSD: "80", USDTZUSD: "1" }) });
});

const options = { cacheSeconds: 0, maxAgeSeconds: 0, timeoutMs: 1000 };
const gecko = () => new CoinGeckoFeed({ ...options, baseUrl: coingecko.url });
const krak = () => new KrakenFeed({ ...options, baseUrl: kraken.url });

describe("fallback", () => {
  it("uses the first provider while it answers", async () => {
    const quote = await new FallbackFeed([gecko(), krak()]).quote(BTC, USD, true);
    expect(quote).toMatchObject({ source: "coingecko" });
    expect(kraken.requests).toHaveLength(0);
  });

  it("asks the next provider when the first fails, and names it as the source", async () => {
    coingecko.reply({ status: 500, body: "" });
    const quote = await new FallbackFeed([gecko(), krak()]).quote(BTC, USD, true);
    expect(quote.source).toBe("kraken");
    expect(quote.rate.toFixed()).toBe("64999.5");
  });

  it("prices NGN and BNB from CoinGecko behind Kraken, without asking Kraken for them", async () => {
    const feed = new FallbackFeed([krak(), gecko()]);
    expect((await feed.quote(BTC, NGN, true)).source).toBe("coingecko");
    expect((await feed.quote(BNB, USD, true)).source).toBe("coingecko");
    expect((await feed.quote(BTC, USD, true)).source).toBe("kraken");
    expect(kraken.requests).toHaveLength(1);
  });

  it("fails with every provider's reason when all fail", async () => {
    coingecko.reply({ status: 429, body: "" });
    kraken.reply({ body: "not json" });
    const error = await new FallbackFeed([gecko(), krak()]).quote(BTC, USD, true).then(
      () => new Error("expected a failure"),
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(PriceFeedError);
    expect(error.message).toMatch(/^No BTC\/USD price: coingecko: rate limited \(HTTP 429\).*; kraken: the answer is not JSON/);
  });
});
