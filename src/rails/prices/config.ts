// The price feeds' configuration (PAYGATE_PRICE_…): their schema, with each variable's description, and what
// the feeds are given (src/config.ts composes it into the service's).
import { z } from "zod";
import { ConfigError, httpUrl } from "../../env.ts";

export const PRICE_PROVIDERS = ["coingecko", "kraken", "coinbase", "binance"] as const;
export type PriceProvider = (typeof PRICE_PROVIDERS)[number];

/** Live price feeds (src/rails/prices; docs/wallets-and-chains.md, Prices). */
export const PriceEnvSchema = z.object({
  /** One provider, or several tried in order: `coingecko,kraken`. */
  PAYGATE_PRICE_FEED: z
    .string()
    .default("coingecko")
    .transform((v) => v.split(",").map((name) => name.trim().toLowerCase()))
    .pipe(
      z
        .array(z.enum(PRICE_PROVIDERS, { error: (issue) => `'${String(issue.input)}' is not a provider; use ${PRICE_PROVIDERS.join(", ")}` }))
        .min(1)
        .refine((names) => new Set(names).size === names.length, "names a provider twice"),
    )
    .describe(
      "Live price providers: `coingecko`, `kraken`, `coinbase`, `binance`, or a list (`coingecko,coinbase,kraken`): tried in order with PAYGATE_PRICE_STRATEGY=first, all asked with `median`. Test mode always uses the test rates. Default: `coingecko`.",
    ),
  PAYGATE_COINGECKO_URL: httpUrl
    .optional()
    .describe(
      "CoinGecko base URL; the feed calls `{url}/api/v3/simple/price`. Default: `https://api.coingecko.com` (`https://pro-api.coingecko.com` on the Pro plan).",
    ),
  PAYGATE_COINGECKO_API_KEY: z
    .string()
    .optional()
    .describe("CoinGecko key, sent as `x-cg-demo-api-key` or `x-cg-pro-api-key`. Unset: the keyless public API. Default: unset."),
  PAYGATE_COINGECKO_PLAN: z
    .enum(["demo", "pro"])
    .default("demo")
    .describe("`demo` or `pro`: which header carries the key, and the default URL. `pro` requires the key. Default: `demo`."),
  PAYGATE_KRAKEN_URL: httpUrl
    .default("https://api.kraken.com")
    .describe("Kraken base URL; the feed calls `{url}/0/public/Ticker`. Default: `https://api.kraken.com`."),
  PAYGATE_COINBASE_URL: httpUrl
    .default("https://api.coinbase.com")
    .describe(
      "Coinbase base URL; the feed calls `{url}/v2/exchange-rates?currency=…` once per coin (public, no key). Default: `https://api.coinbase.com`.",
    ),
  PAYGATE_BINANCE_URL: httpUrl
    .default("https://api.binance.com")
    .describe(
      "Binance base URL; the feed calls `{url}/api/v3/ticker/price?symbols=[…]` (public, no key; USDT markets, USDT taken at par with USD). Default: `https://api.binance.com`.",
    ),
  PAYGATE_BINANCE_NGN_SYMBOL: z
    .string()
    .regex(/^[A-Z0-9]{2,20}$/, "must be a Binance symbol such as USDTNGN (capital letters and digits)")
    .optional()
    .describe(
      "Binance's USDT/NGN market (e.g. `USDTNGN`), through which Binance prices NGN (coin/USDT × USDT/NGN). Only if Binance lists it: an unknown symbol fails Binance's whole answer. Default: unset (Binance prices no NGN).",
    ),
  PAYGATE_PRICE_STRATEGY: z
    .enum(["first", "median"])
    .default("first")
    .describe(
      "`first`: the first provider of PAYGATE_PRICE_FEED that has a fresh price sets the rate. `median`: every provider is asked and the rate is the median of the fresh prices, refused (503 quote_unavailable) unless PAYGATE_PRICE_QUORUM of them agree within PAYGATE_PRICE_MAX_SPREAD_PERCENT; the quote records what each gave. Default: `first`.",
    ),
  PAYGATE_PRICE_QUORUM: z.coerce
    .number()
    .int()
    .min(1)
    .max(10)
    .default(2)
    .describe(
      "With PAYGATE_PRICE_STRATEGY=median: how many providers must give a fresh price within the spread of the median (1–10, at most the providers listed). Default: `2`.",
    ),
  PAYGATE_PRICE_MAX_SPREAD_PERCENT: z
    .string()
    .regex(/^\d{1,2}(\.\d{1,4})?$/, "must be a percentage such as 2 or 0.5")
    .default("2")
    .refine((v) => Number(v) > 0 && Number(v) <= 50, "must be more than 0 and at most 50")
    .describe(
      "With PAYGATE_PRICE_STRATEGY=median: how far from the median, in percent of it, a provider's price may be and still count (more than 0, at most 50). Default: `2` percent.",
    ),
  PAYGATE_PRICE_CACHE_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3600)
    .default(30)
    .describe("How long one provider answer is reused by every request of the process (0–3600; 0 asks on every quote). Default: `30` seconds."),
  PAYGATE_PRICE_MAX_AGE_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3600)
    .default(60)
    .describe("The oldest price ever used; must be at least the cache seconds. Default: `60` seconds."),
  PAYGATE_PRICE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(60_000)
    .default(3000)
    .describe("Timeout of one upstream call, headers and body (100–60000). Default: `3000` ms."),
});

export interface PriceConfig {
  /** Tried in order; the first that quotes a pair prices it. */
  feeds: PriceProvider[];
  coingecko: { url: string; apiKey: string | undefined; plan: "demo" | "pro" };
  kraken: { url: string };
  coinbase: { url: string };
  binance: { url: string; ngnSymbol: string | undefined };
  /** first: the first provider that quotes; median: the median of all, with a quorum within a spread. */
  strategy: "first" | "median";
  quorum: number;
  /** A decimal string, percent. */
  maxSpreadPercent: string;
  cacheSeconds: number;
  maxAgeSeconds: number;
  timeoutMs: number;
}

type PriceEnv = z.output<typeof PriceEnvSchema>;

export function priceConfig(e: PriceEnv): PriceConfig {
  const problems: string[] = [];
  if (e.PAYGATE_PRICE_MAX_AGE_SECONDS < e.PAYGATE_PRICE_CACHE_SECONDS) {
    problems.push(`  PAYGATE_PRICE_MAX_AGE_SECONDS: must be at least PAYGATE_PRICE_CACHE_SECONDS (${e.PAYGATE_PRICE_CACHE_SECONDS})`);
  }
  if (e.PAYGATE_COINGECKO_PLAN === "pro" && !e.PAYGATE_COINGECKO_API_KEY) {
    problems.push("  PAYGATE_COINGECKO_API_KEY: is required with PAYGATE_COINGECKO_PLAN=pro");
  }
  if (e.PAYGATE_PRICE_STRATEGY === "median" && e.PAYGATE_PRICE_QUORUM > e.PAYGATE_PRICE_FEED.length) {
    problems.push(
      `  PAYGATE_PRICE_QUORUM: ${e.PAYGATE_PRICE_QUORUM} is more than the ${e.PAYGATE_PRICE_FEED.length} provider(s) of PAYGATE_PRICE_FEED; list more providers or lower the quorum`,
    );
  }
  if (problems.length > 0) {
    throw new ConfigError(`Invalid configuration:\n${problems.join("\n")}\nFix these environment variables (see docs/configuration.md).`);
  }
  return {
    feeds: e.PAYGATE_PRICE_FEED,
    coingecko: {
      url: e.PAYGATE_COINGECKO_URL ?? (e.PAYGATE_COINGECKO_PLAN === "pro" ? "https://pro-api.coingecko.com" : "https://api.coingecko.com"),
      apiKey: e.PAYGATE_COINGECKO_API_KEY,
      plan: e.PAYGATE_COINGECKO_PLAN,
    },
    kraken: { url: e.PAYGATE_KRAKEN_URL },
    coinbase: { url: e.PAYGATE_COINBASE_URL },
    binance: { url: e.PAYGATE_BINANCE_URL, ngnSymbol: e.PAYGATE_BINANCE_NGN_SYMBOL },
    strategy: e.PAYGATE_PRICE_STRATEGY,
    quorum: e.PAYGATE_PRICE_QUORUM,
    maxSpreadPercent: e.PAYGATE_PRICE_MAX_SPREAD_PERCENT,
    cacheSeconds: e.PAYGATE_PRICE_CACHE_SECONDS,
    maxAgeSeconds: e.PAYGATE_PRICE_MAX_AGE_SECONDS,
    timeoutMs: e.PAYGATE_PRICE_TIMEOUT_MS,
  };
}
