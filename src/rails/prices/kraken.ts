// Kraken's public ticker: real USD markets, no stablecoin standing in for the dollar.
//
//   GET {base}/0/public/Ticker?pair=XBTUSD,ETHUSD,LTCUSD,USDTZUSD
//   → { "error": [], "result": { "XXBTZUSD": { "a": ["65000.10000","1","1.000"], "b": […],
//        "c": ["65000.00000","0.00100000"], "v": […], … }, "XETHZUSD": {…}, "XLTCZUSD": {…}, "USDTZUSD": {…} } }
//
// The rate is `c[0]`, the price of the last trade. Kraken sends prices as strings, so plain
// JSON.parse keeps them exact (a price that is not a string is refused, never read as a float).
//
// What it does not price, it refuses at once (no upstream call), so a fallback feed can answer:
// - NGN: Kraken has no naira markets, and this feed does not invent a cross rate.
// - BNB: not among the pairs asked for; this feed makes one call for its four USD markets.
// `PAYGATE_PRICE_FEED=kraken,coingecko` prices those from CoinGecko and the rest from Kraken.
import type { CryptoCurrency, CryptoSlug, FiatCurrency } from "../../core/money/currencies.ts";
import { CachedPriceFeed, type CachedFeedOptions, type RateSet } from "./cached-feed.ts";
import { PriceFeedError } from "./errors.ts";
import { getText } from "./http.ts";
import { checkRate, isRecord, pairKey, parseJsonBody } from "./rates.ts";

export const KRAKEN_URL = "https://api.kraken.com";

/** The pair asked for, and the names Kraken may key its answer by (its canonical name first). */
export const KRAKEN_PAIRS: Partial<Record<CryptoSlug, { pair: string; keys: string[] }>> = {
  BTC: { pair: "XBTUSD", keys: ["XXBTZUSD", "XBTUSD"] },
  ETH: { pair: "ETHUSD", keys: ["XETHZUSD", "ETHUSD"] },
  LTC: { pair: "LTCUSD", keys: ["XLTCZUSD", "LTCUSD"] },
  USDT: { pair: "USDTZUSD", keys: ["USDTZUSD", "USDTUSD"] },
  USDC: { pair: "USDCUSD", keys: ["USDCUSD"] },
};

export interface KrakenOptions extends CachedFeedOptions {
  baseUrl?: string;
}

export class KrakenFeed extends CachedPriceFeed {
  readonly name = "kraken";
  private readonly url: URL;

  constructor(options: KrakenOptions) {
    super(options);
    const base = (options.baseUrl ?? KRAKEN_URL).replace(/\/+$/, "");
    this.url = new URL(`${base}/0/public/Ticker`);
    this.url.searchParams.set(
      "pair",
      Object.values(KRAKEN_PAIRS)
        .map((p) => p.pair)
        .join(","),
    );
  }

  protected override unsupported(crypto: CryptoCurrency, fiat: FiatCurrency): string | null {
    if (fiat.slug !== "USD") return `Kraken has no ${fiat.slug} markets; no ${crypto.slug}/${fiat.slug} rate is invented`;
    if (!KRAKEN_PAIRS[crypto.slug]) return `this feed does not price ${crypto.slug} (no ${crypto.slug}/USD market asked of Kraken)`;
    return null;
  }

  protected async fetchRates(): Promise<RateSet> {
    return parseKrakenTicker(await getText(this.url, { provider: this.name, timeoutMs: this.timeoutMs }));
  }
}

/** The USD rates in a Ticker body; a pair missing or unusable is a problem of that pair. */
export function parseKrakenTicker(text: string): RateSet {
  const body = parseJsonBody("kraken", text);
  if (!isRecord(body)) throw new PriceFeedError("kraken: the answer is not a JSON object");
  const errors = Array.isArray(body.error) ? body.error.filter((e): e is string => typeof e === "string") : [];
  if (errors.length > 0) {
    // Kraken reports rate limiting inside a 200 answer (EAPI:Rate limit exceeded, EGeneral:Too many requests).
    const limited = errors.some((e) => /rate limit|too many requests/i.test(e));
    throw new PriceFeedError(`kraken: ${errors.join("; ")}`, limited ? { retryAfterMs: 5_000 } : {});
  }
  if (!isRecord(body.result)) throw new PriceFeedError("kraken: the answer has no 'result' object");
  const result = body.result;

  const set: RateSet = { rates: new Map(), problems: new Map() };
  for (const [crypto, { keys }] of Object.entries(KRAKEN_PAIRS) as [CryptoSlug, { keys: string[] }][]) {
    const key = pairKey(crypto, "USD");
    const name = keys.find((k) => Object.hasOwn(result, k));
    const ticker = name === undefined ? undefined : result[name];
    if (name === undefined || !isRecord(ticker)) {
      set.problems.set(key, `the answer has no ${keys[0]} ticker`);
      continue;
    }
    const last = Array.isArray(ticker.c) ? ticker.c[0] : undefined;
    if (typeof last !== "string") {
      set.problems.set(key, `the ${name} ticker has no last trade price string (c[0])`);
      continue;
    }
    const check = checkRate(last);
    if (check.ok) set.rates.set(key, check.rate);
    else set.problems.set(key, `${name}: ${check.problem}`);
  }
  return set;
}
