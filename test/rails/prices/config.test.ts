// The price variables of the environment, and the live feed they build.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.ts";
import { ConfigError } from "../../../src/env.ts";
import { CoinGeckoFeed } from "../../../src/rails/prices/coingecko.ts";
import { FallbackFeed } from "../../../src/rails/prices/index.ts";
import { KrakenFeed } from "../../../src/rails/prices/kraken.ts";
import { BinanceFeed } from "../../../src/rails/prices/binance.ts";
import { CoinbaseFeed } from "../../../src/rails/prices/coinbase.ts";
import { MedianFeed } from "../../../src/rails/prices/median.ts";
import { createLiveFeed } from "../../../src/rails/prices/live.ts";

describe("price configuration", () => {
  it("defaults to CoinGecko's public API, a 30 s cache, 60 s max age and a 3 s timeout", () => {
    expect(loadConfig({}).prices).toEqual({
      feeds: ["coingecko"],
      coingecko: { url: "https://api.coingecko.com", apiKey: undefined, plan: "demo" },
      kraken: { url: "https://api.kraken.com" },
      coinbase: { url: "https://api.coinbase.com" },
      binance: { url: "https://api.binance.com", ngnSymbol: undefined },
      strategy: "first",
      quorum: 2,
      maxSpreadPercent: "2",
      cacheSeconds: 30,
      maxAgeSeconds: 60,
      timeoutMs: 3000,
    });
    expect(createLiveFeed(loadConfig({}).prices)).toBeInstanceOf(CoinGeckoFeed);
  });

  it("reads every variable", () => {
    const prices = loadConfig({
      PAYGATE_PRICE_FEED: " Kraken , coingecko",
      PAYGATE_COINGECKO_URL: "http://127.0.0.1:9999/cg",
      PAYGATE_COINGECKO_API_KEY: "CG-key",
      PAYGATE_COINGECKO_PLAN: "pro",
      PAYGATE_KRAKEN_URL: "http://127.0.0.1:9998",
      PAYGATE_PRICE_CACHE_SECONDS: "0",
      PAYGATE_PRICE_MAX_AGE_SECONDS: "0",
      PAYGATE_PRICE_TIMEOUT_MS: "500",
      PAYGATE_COINBASE_URL: "http://127.0.0.1:9997",
      PAYGATE_BINANCE_URL: "http://127.0.0.1:9996/",
      PAYGATE_BINANCE_NGN_SYMBOL: "USDTNGN",
      PAYGATE_PRICE_STRATEGY: "first",
      PAYGATE_PRICE_QUORUM: "3",
      PAYGATE_PRICE_MAX_SPREAD_PERCENT: "0.75",
    }).prices;
    expect(prices).toEqual({
      feeds: ["kraken", "coingecko"],
      coingecko: { url: "http://127.0.0.1:9999/cg", apiKey: "CG-key", plan: "pro" },
      kraken: { url: "http://127.0.0.1:9998" },
      coinbase: { url: "http://127.0.0.1:9997" },
      binance: { url: "http://127.0.0.1:9996/", ngnSymbol: "USDTNGN" },
      strategy: "first",
      quorum: 3,
      maxSpreadPercent: "0.75",
      cacheSeconds: 0,
      maxAgeSeconds: 0,
      timeoutMs: 500,
    });
    expect(createLiveFeed(prices)).toBeInstanceOf(FallbackFeed);
    expect(createLiveFeed({ ...prices, feeds: ["kraken"] })).toBeInstanceOf(KrakenFeed);
    expect(createLiveFeed({ ...prices, feeds: ["coinbase"] })).toBeInstanceOf(CoinbaseFeed);
    expect(createLiveFeed({ ...prices, feeds: ["binance"] })).toBeInstanceOf(BinanceFeed);
  });

  it("builds the median of every listed provider with PAYGATE_PRICE_STRATEGY=median", () => {
    const prices = loadConfig({ PAYGATE_PRICE_FEED: "coingecko,coinbase,kraken,binance", PAYGATE_PRICE_STRATEGY: "median" }).prices;
    expect(prices).toMatchObject({ strategy: "median", quorum: 2, maxSpreadPercent: "2" });
    expect(createLiveFeed(prices)).toBeInstanceOf(MedianFeed);
  });

  it("uses the Pro API's address on the Pro plan", () => {
    expect(loadConfig({ PAYGATE_COINGECKO_PLAN: "pro", PAYGATE_COINGECKO_API_KEY: "k" }).prices.coingecko.url).toBe("https://pro-api.coingecko.com");
  });

  const bad: [Record<string, string>, RegExp][] = [
    [{ PAYGATE_PRICE_FEED: "bitstamp" }, /PAYGATE_PRICE_FEED.*'bitstamp' is not a provider; use coingecko, kraken, coinbase, binance/],
    [{ PAYGATE_PRICE_STRATEGY: "mean" }, /PAYGATE_PRICE_STRATEGY/],
    [{ PAYGATE_PRICE_STRATEGY: "median" }, /PAYGATE_PRICE_QUORUM: 2 is more than the 1 provider\(s\) of PAYGATE_PRICE_FEED/],
    [{ PAYGATE_PRICE_QUORUM: "0" }, /PAYGATE_PRICE_QUORUM/],
    [{ PAYGATE_PRICE_QUORUM: "two" }, /PAYGATE_PRICE_QUORUM/],
    [{ PAYGATE_PRICE_MAX_SPREAD_PERCENT: "0" }, /PAYGATE_PRICE_MAX_SPREAD_PERCENT: must be more than 0 and at most 50/],
    [{ PAYGATE_PRICE_MAX_SPREAD_PERCENT: "51" }, /PAYGATE_PRICE_MAX_SPREAD_PERCENT: must be more than 0 and at most 50/],
    [{ PAYGATE_PRICE_MAX_SPREAD_PERCENT: "-1" }, /PAYGATE_PRICE_MAX_SPREAD_PERCENT: must be a percentage/],
    [{ PAYGATE_PRICE_MAX_SPREAD_PERCENT: "2%" }, /PAYGATE_PRICE_MAX_SPREAD_PERCENT: must be a percentage/],
    [{ PAYGATE_COINBASE_URL: "coinbase.com" }, /PAYGATE_COINBASE_URL: must be an http/],
    [{ PAYGATE_BINANCE_URL: "ftp://binance" }, /PAYGATE_BINANCE_URL: must be an http/],
    [{ PAYGATE_BINANCE_NGN_SYMBOL: "usdt/ngn" }, /PAYGATE_BINANCE_NGN_SYMBOL: must be a Binance symbol/],
    [{ PAYGATE_PRICE_FEED: "kraken,kraken" }, /PAYGATE_PRICE_FEED: names a provider twice/],
    [{ PAYGATE_COINGECKO_URL: "api.coingecko.com" }, /PAYGATE_COINGECKO_URL: must be an http/],
    [{ PAYGATE_KRAKEN_URL: "ftp://kraken" }, /PAYGATE_KRAKEN_URL: must be an http/],
    [{ PAYGATE_COINGECKO_PLAN: "free" }, /PAYGATE_COINGECKO_PLAN/],
    [{ PAYGATE_COINGECKO_PLAN: "pro" }, /PAYGATE_COINGECKO_API_KEY: is required with PAYGATE_COINGECKO_PLAN=pro/],
    [{ PAYGATE_PRICE_CACHE_SECONDS: "-1" }, /PAYGATE_PRICE_CACHE_SECONDS/],
    [{ PAYGATE_PRICE_CACHE_SECONDS: "90" }, /PAYGATE_PRICE_MAX_AGE_SECONDS: must be at least PAYGATE_PRICE_CACHE_SECONDS \(90\)/],
    [{ PAYGATE_PRICE_TIMEOUT_MS: "50" }, /PAYGATE_PRICE_TIMEOUT_MS/],
    [{ PAYGATE_PRICE_TIMEOUT_MS: "3s" }, /PAYGATE_PRICE_TIMEOUT_MS/],
  ];
  for (const [env, message] of bad) {
    it(`stops on ${JSON.stringify(env)}`, () => {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(message);
    });
  }
});
