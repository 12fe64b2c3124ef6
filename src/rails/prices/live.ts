// The live feed the configuration asks for (PAYGATE_PRICE_FEED and friends; see README).
import type { PriceFeedMetrics } from "../../observability/hooks.ts";
import type { PriceConfig } from "../../config.ts";
import type { PriceFeed } from "../../core/ports.ts";
import { CoinGeckoFeed } from "./coingecko.ts";
import { FallbackFeed } from "./index.ts";
import { KrakenFeed } from "./kraken.ts";

export function createLiveFeed(config: PriceConfig, log?: (line: string) => void, metrics?: PriceFeedMetrics): PriceFeed {
  const common = { cacheSeconds: config.cacheSeconds, maxAgeSeconds: config.maxAgeSeconds, timeoutMs: config.timeoutMs, log, metrics };
  const providers: Record<PriceConfig["feeds"][number], () => PriceFeed> = {
    coingecko: () => new CoinGeckoFeed({ ...common, baseUrl: config.coingecko.url, apiKey: config.coingecko.apiKey, plan: config.coingecko.plan }),
    kraken: () => new KrakenFeed({ ...common, baseUrl: config.kraken.url }),
  };
  const feeds = config.feeds.map((name) => providers[name]());
  const [only] = feeds;
  return feeds.length === 1 && only ? only : new FallbackFeed(feeds);
}
