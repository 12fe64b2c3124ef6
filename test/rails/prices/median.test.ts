// PAYGATE_PRICE_STRATEGY=median: the four real clients against local servers answering as each
// provider does; the rate is the median of the fresh prices that agree, so one wrong or stale
// provider cannot set it, and each provider's part is recorded.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Decimal } from "../../../src/core/money/amounts.ts";
import { cryptoBySlug, fiatBySlug, type CryptoCurrency, type FiatCurrency } from "../../../src/core/money/currencies.ts";
import { QuoteRefusedError, type PriceQuote } from "../../../src/core/ports.ts";
import { PaygateMetrics } from "../../../src/observability/index.ts";
import { BinanceFeed } from "../../../src/rails/prices/binance.ts";
import { CoinbaseFeed } from "../../../src/rails/prices/coinbase.ts";
import { CoinGeckoFeed } from "../../../src/rails/prices/coingecko.ts";
import { KrakenFeed } from "../../../src/rails/prices/kraken.ts";
import { MedianFeed, medianOf, type NamedFeed } from "../../../src/rails/prices/median.ts";
import { parseExposition } from "../../observability/exposition.ts";
import {
  binanceReply,
  coinbaseReply,
  coingeckoBody,
  DEFAULT_COINBASE,
  krakenBody,
  manualClock,
  startFakeUpstream,
  type FakeUpstream,
} from "./fake-upstream.ts";

const BTC = cryptoBySlug("BTC") as CryptoCurrency;
const USD = fiatBySlug("USD") as FiatCurrency;
const NGN = fiatBySlug("NGN") as FiatCurrency;

let coingecko: FakeUpstream;
let kraken: FakeUpstream;
let coinbase: FakeUpstream;
let binance: FakeUpstream;
beforeAll(async () => {
  [coingecko, kraken, coinbase, binance] = await Promise.all([startFakeUpstream(), startFakeUpstream(), startFakeUpstream(), startFakeUpstream()]);
});
afterAll(async () => {
  await Promise.all([coingecko, kraken, coinbase, binance].map((u) => u.close()));
});
// BTC/USD: coingecko 65000.12345678, kraken 65000.12345678, coinbase 65010.5, binance 64990.01.
beforeEach(() => {
  for (const u of [coingecko, kraken, coinbase, binance]) u.requests.length = 0;
  coingecko.reply({ body: coingeckoBody() });
  kraken.reply({ body: krakenBody() });
  coinbase.reply(coinbaseReply());
  binance.reply(binanceReply());
});

function setup(options: { quorum?: number; spread?: string; names?: string[]; cacheSeconds?: number; maxAgeSeconds?: number } = {}) {
  const clock = manualClock();
  const logs: string[] = [];
  const metrics = new PaygateMetrics({ defaultMetrics: false });
  const common = {
    cacheSeconds: options.cacheSeconds ?? 0,
    maxAgeSeconds: options.maxAgeSeconds ?? 0,
    timeoutMs: 1500,
    now: clock.now,
    log: (line: string) => logs.push(line),
    metrics,
  };
  const all: NamedFeed[] = [
    new CoinGeckoFeed({ ...common, baseUrl: coingecko.url }),
    new KrakenFeed({ ...common, baseUrl: kraken.url }),
    new CoinbaseFeed({ ...common, baseUrl: coinbase.url }),
    new BinanceFeed({ ...common, baseUrl: binance.url, ngnSymbol: "USDTNGN" }),
  ];
  const feeds = options.names ? all.filter((f) => options.names?.includes(f.name)) : all;
  const feed = new MedianFeed(feeds, {
    quorum: options.quorum ?? 2,
    maxSpreadPercent: new Decimal(options.spread ?? "2"),
    log: (line) => logs.push(line),
    metrics,
  });
  const exposition = async () => parseExposition(await metrics.render());
  return { feed, clock, logs, exposition };
}

const refusal = (promise: Promise<PriceQuote>) =>
  promise.then(
    () => {
      throw new Error("expected a refusal");
    },
    (e: unknown) => e as QuoteRefusedError,
  );
const byProvider = (quote: PriceQuote) => Object.fromEntries((quote.sources ?? []).map((s) => [s.provider, s]));

describe("median of the providers", () => {
  it("locks the median of four fresh prices (the mean of the middle two), recording what each gave", async () => {
    const { feed, clock } = setup();
    const quote = await feed.quote(BTC, USD, true);
    // Sorted: 64990.01, 65000.12345678, 65000.12345678, 65010.5 → (65000.12345678 + 65000.12345678) / 2.
    expect(quote.rate.toFixed()).toBe("65000.12345678");
    expect(quote.source).toBe("median");
    expect(quote.quotedAt.getTime()).toBe(clock.ms);
    expect(quote.sources?.map((s) => [s.provider, s.rate, s.used, s.reason])).toEqual([
      ["coingecko", "65000.12345678", true, null],
      ["kraken", "65000.12345678", true, null],
      ["coinbase", "65010.5", true, null],
      ["binance", "64990.01", true, null],
    ]);
    expect(byProvider(quote).coinbase?.detail).toBe("0.02% from the median 65000.12345678");
    expect(byProvider(quote).binance?.detail).toBe("BTCUSDT 64990.01, USDT at par with USD; 0.02% from the median 65000.12345678");
  });

  it("computes the median exactly, never through a float", () => {
    expect(medianOf([new Decimal("0.1"), new Decimal("0.2")])?.toFixed()).toBe("0.15");
    expect(medianOf([new Decimal("3"), new Decimal("1"), new Decimal("2")])?.toFixed()).toBe("2");
    expect(medianOf([new Decimal("1"), new Decimal("2")])?.toFixed()).toBe("1.5");
    expect(medianOf([new Decimal("1"), new Decimal("1.000000000000000001")])?.toFixed()).toBe("1.000000000000000001");
    expect(medianOf([])).toBeNull();
  });

  it("leaves out one wrong provider: its price cannot move the rate", async () => {
    coinbase.reply(coinbaseReply({ ...DEFAULT_COINBASE, BTC: { USD: "80000", NGN: "1" } }));
    const { feed } = setup();
    const quote = await feed.quote(BTC, USD, true);
    // Median of coingecko, kraken and binance; coinbase's 80000 is 23 % off.
    expect(quote.rate.toFixed()).toBe("65000.12345678");
    expect(byProvider(quote).coinbase).toMatchObject({ rate: "80000", used: false, reason: "out_of_spread" });
    expect(byProvider(quote).coinbase?.detail).toMatch(/^23\.08% from the median/);
  });

  it("takes the median of the agreeing prices only: three providers, one wrong, the rate is the other two's mean", async () => {
    coinbase.reply(coinbaseReply({ ...DEFAULT_COINBASE, BTC: { USD: "80000", NGN: "1" } }));
    const { feed } = setup({ names: ["coingecko", "coinbase", "binance"] });
    const quote = await feed.quote(BTC, USD, true);
    // All three: 65000.12345678 would be the median; without coinbase: (65000.12345678 + 64990.01) / 2.
    expect(quote.rate.toFixed()).toBe("64995.06672839");
  });

  it("refuses when only two providers answer and they disagree: which one is right cannot be told", async () => {
    coinbase.reply(coinbaseReply({ ...DEFAULT_COINBASE, BTC: { USD: "70000", NGN: "1" } }));
    const { feed } = setup({ names: ["coingecko", "coinbase"], quorum: 1 });
    const error = await refusal(feed.quote(BTC, USD, true));
    expect(error).toBeInstanceOf(QuoteRefusedError);
    expect(error.message).toMatch(
      /^0 of the 1 providers needed agree within 2% of the median: coingecko out_of_spread \(65000.12345678, 3.7% from the median 67500.06172839\)/,
    );
  });

  it("leaves out a stale provider (its last price past the max age) and locks the others' median", async () => {
    const { feed, clock } = setup({ cacheSeconds: 10, maxAgeSeconds: 30 });
    await feed.quote(BTC, USD, true);
    kraken.reply({ status: 503, body: "" });
    clock.advance(31);
    const quote = await feed.quote(BTC, USD, true);
    expect(byProvider(quote).kraken).toMatchObject({ rate: null, used: false, reason: "stale" });
    // The provider's error text (which may quote its answer) is never kept with the quote.
    expect(byProvider(quote).kraken?.detail).toBeNull();
    // coingecko 65000.12345678, coinbase 65010.5, binance 64990.01 → 65000.12345678.
    expect(quote.rate.toFixed()).toBe("65000.12345678");
    expect(quote.quotedAt.getTime()).toBe(clock.ms);
  });

  it("never lets a stale price in as the only one: refused with every reason named", async () => {
    coingecko.reply({ status: 403, body: { status: { error_code: 10010, error_message: "Missing API key" } } });
    kraken.reply({ status: 429, body: "", headers: { "retry-after": "30" } });
    coinbase.reply({ body: "<html>captcha</html>" });
    binance.reply("hang");
    const { feed } = setup({ quorum: 2 });
    const error = await refusal(feed.quote(BTC, USD, true));
    expect(error).toBeInstanceOf(QuoteRefusedError);
    expect(error.summary).toBe(
      "0 of the 2 providers needed agree within 2% of the median: coingecko forbidden; kraken rate_limited; coinbase garbage; binance timeout",
    );
    expect(error.sources.map((s) => [s.provider, s.reason])).toEqual([
      ["coingecko", "forbidden"],
      ["kraken", "rate_limited"],
      ["coinbase", "garbage"],
      ["binance", "timeout"],
    ]);
  });

  it("locks with what is left when failures still leave the quorum", async () => {
    coingecko.reply({ status: 403, body: "" });
    binance.reply({ body: "[{" });
    const { feed } = setup({ quorum: 2 });
    const quote = await feed.quote(BTC, USD, true);
    // kraken 65000.12345678 and coinbase 65010.5 → their mean.
    expect(quote.rate.toFixed()).toBe("65005.31172839");
    expect(quote.sources?.filter((s) => s.used).map((s) => s.provider)).toEqual(["kraken", "coinbase"]);
  });

  it("prices NGN from the providers that have it (Kraken has no naira market), Binance through USDT", async () => {
    const { feed } = setup({ quorum: 3, spread: "1" });
    const quote = await feed.quote(BTC, NGN, true);
    // coingecko 99450188.888888888, coinbase 99460000.25, binance 64990.01 × 1530 = 99434715.3.
    expect(quote.rate.toFixed()).toBe("99450188.888888888");
    expect(byProvider(quote).kraken).toMatchObject({ used: false, reason: "unsupported" });
    expect(byProvider(quote).binance?.detail).toMatch(/^BTCUSDT 64990.01 × USDTNGN 1530; /);
    expect(quote.sources?.filter((s) => s.used)).toHaveLength(3);
    expect(kraken.requests).toHaveLength(0);
  });
});

describe("watching the providers", () => {
  it("logs once when a provider starts disagreeing and once when it agrees again, not per quote", async () => {
    const { feed, logs } = setup();
    coinbase.reply(coinbaseReply({ ...DEFAULT_COINBASE, BTC: { USD: "70000", NGN: "1" } }));
    await feed.quote(BTC, USD, true);
    await feed.quote(BTC, USD, true);
    expect(logs).toEqual([
      "price feed coinbase disagrees with the other providers: BTC/USD 70000 is 7.69% from the median 65000.12345678 (limit 2%)",
    ]);
    coinbase.reply(coinbaseReply());
    await feed.quote(BTC, USD, true);
    await feed.quote(BTC, USD, true);
    expect(logs).toEqual([expect.stringMatching(/disagrees/), "price feed coinbase agrees with the other providers again"]);
  });

  it("logs once when a provider goes bad and once when it comes back", async () => {
    const { feed, logs, clock } = setup();
    kraken.reply({ status: 500, body: "" });
    await feed.quote(BTC, USD, true);
    await feed.quote(BTC, USD, true);
    expect(logs).toEqual(["price feed kraken failed: kraken: HTTP 500 Internal Server Error"]);
    kraken.reply({ body: krakenBody() });
    clock.advance(12);
    await feed.quote(BTC, USD, true);
    expect(logs).toEqual([expect.stringMatching(/kraken failed/), "price feed kraken is back after 12 s of failures"]);
  });

  it("exposes each provider's age, failures by reason and divergence from the median", async () => {
    const { feed, clock, exposition } = setup({ cacheSeconds: 10, maxAgeSeconds: 60 });
    coinbase.reply(coinbaseReply({ ...DEFAULT_COINBASE, BTC: { USD: "70000", NGN: "1" } }));
    coingecko.reply({ status: 403, body: "" });
    await feed.quote(BTC, USD, true);
    clock.advance(4);
    await feed.quote(BTC, USD, true);
    const metrics = await exposition();
    expect(metrics.value("paygate_price_provider_age_seconds", { provider: "kraken" })).toBe(4);
    expect(metrics.count("paygate_price_provider_failures_total", { provider: "coinbase", reason: "out_of_spread" })).toBe(2);
    expect(metrics.count("paygate_price_provider_failures_total", { provider: "coingecko", reason: "forbidden" })).toBe(2);
    expect(metrics.count("paygate_price_provider_failures_total", { provider: "kraken", reason: "forbidden" })).toBe(0);
    // kraken 65000.12345678 and binance 64990.01 and coinbase 70000: median 65000.12345678.
    expect(metrics.value("paygate_price_provider_divergence_ratio", { provider: "kraken" })).toBe(0);
    expect(metrics.value("paygate_price_provider_divergence_ratio", { provider: "coinbase" })).toBeCloseTo(0.0769, 4);
  });
});
