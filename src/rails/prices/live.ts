// The live feed the configuration asks for (PAYGATE_PRICE_FEED and friends; see docs/configuration.md, Prices).
import type { PriceFeedMetrics } from "../../observability/hooks.ts";
import type { PriceConfig } from "./config.ts";
import { Decimal } from "../../core/money/amounts.ts";
import type { PriceFeed } from "../../core/ports.ts";
import { BinanceFeed } from "./binance.ts";
import { CoinbaseFeed } from "./coinbase.ts";
import { CoinGeckoFeed } from "./coingecko.ts";
import { FallbackFeed } from "./index.ts";
import { KrakenFeed } from "./kraken.ts";
import { MedianFeed, type NamedFeed } from "./median.ts";

export function createLiveFeed(config: PriceConfig, log?: (line: string) => void, metrics?: PriceFeedMetrics): PriceFeed {
  const feeds = createProviderFeeds(config, log, metrics);
  if (config.strategy === "median") {
    return new MedianFeed(feeds, { quorum: config.quorum, maxSpreadPercent: new Decimal(config.maxSpreadPercent), log, metrics });
  }
  const [only] = feeds;
  return feeds.length === 1 && only ? only : new FallbackFeed(feeds);
}

/** One client per provider of PAYGATE_PRICE_FEED, in its order, each with its own cache. */
export function createProviderFeeds(config: PriceConfig, log?: (line: string) => void, metrics?: PriceFeedMetrics): NamedFeed[] {
  const common = { cacheSeconds: config.cacheSeconds, maxAgeSeconds: config.maxAgeSeconds, timeoutMs: config.timeoutMs, log, metrics };
  const providers: Record<PriceConfig["feeds"][number], () => NamedFeed> = {
    coingecko: () => new CoinGeckoFeed({ ...common, baseUrl: config.coingecko.url, apiKey: config.coingecko.apiKey, plan: config.coingecko.plan }),
    kraken: () => new KrakenFeed({ ...common, baseUrl: config.kraken.url }),
    coinbase: () => new CoinbaseFeed({ ...common, baseUrl: config.coinbase.url }),
    binance: () => new BinanceFeed({ ...common, baseUrl: config.binance.url, ngnSymbol: config.binance.ngnSymbol }),
  };
  return config.feeds.map((name) => providers[name]());
}
