// CoinGecko's simple price API: one call prices all five coins in USD and NGN.
//
//   GET {base}/api/v3/simple/price?ids=tether,bitcoin,binancecoin,ethereum,litecoin&vs_currencies=usd,ngn&precision=full
//   → { "bitcoin": { "usd": 65000.12, "ngn": 97500000 }, "tether": { "usd": 1.0002, "ngn": 1530.1 }, … }
//
// Prices are JSON numbers, read from the body's text (exact-json.ts), never through a float.
// `precision=full` asks for every digit CoinGecko has rather than its display rounding.
// Without a key this is the public API; with one, the Demo or Pro plan's header is sent
// (`x-cg-demo-api-key` / `x-cg-pro-api-key`; the Pro plan is served from pro-api.coingecko.com).
import type { CryptoSlug, FiatSlug } from "../../core/money/currencies.ts";
import { CachedPriceFeed, type CachedFeedOptions, type RateSet } from "./cached-feed.ts";
import { PriceFeedError } from "./errors.ts";
import { isExactObject, JsonNumber, parseExactJson, type ExactJson } from "./exact-json.ts";
import { getText } from "./http.ts";
import { checkRate, pairKey } from "./rates.ts";

export type CoinGeckoPlan = "demo" | "pro";

export const COINGECKO_URLS: Record<CoinGeckoPlan, string> = {
  demo: "https://api.coingecko.com",
  pro: "https://pro-api.coingecko.com",
};

/** CoinGecko's coin ids of the catalogue's currencies. */
export const COINGECKO_IDS: Record<CryptoSlug, string> = {
  USDT: "tether",
  BTC: "bitcoin",
  BNB: "binancecoin",
  ETH: "ethereum",
  LTC: "litecoin",
  USDC: "usd-coin",
};
export const VS_CURRENCIES: Record<FiatSlug, string> = { USD: "usd", NGN: "ngn" };

export interface CoinGeckoOptions extends CachedFeedOptions {
  /** Default: the public API of the plan. */
  baseUrl?: string;
  apiKey?: string;
  plan?: CoinGeckoPlan;
}

export class CoinGeckoFeed extends CachedPriceFeed {
  readonly name = "coingecko";
  private readonly url: URL;
  private readonly headers: Record<string, string>;

  constructor(options: CoinGeckoOptions) {
    super(options);
    const plan = options.plan ?? "demo";
    const base = (options.baseUrl ?? COINGECKO_URLS[plan]).replace(/\/+$/, "");
    this.url = new URL(`${base}/api/v3/simple/price`);
    this.url.searchParams.set("ids", Object.values(COINGECKO_IDS).join(","));
    this.url.searchParams.set("vs_currencies", Object.values(VS_CURRENCIES).join(","));
    this.url.searchParams.set("precision", "full");
    this.headers = options.apiKey ? { [plan === "pro" ? "x-cg-pro-api-key" : "x-cg-demo-api-key"]: options.apiKey } : {};
  }

  protected async fetchRates(): Promise<RateSet> {
    const text = await getText(this.url, { provider: this.name, headers: this.headers, timeoutMs: this.timeoutMs });
    return parseCoinGeckoPrices(text);
  }
}

/** The rates in a simple/price body; a coin or currency missing or unusable is a problem of its pairs. */
export function parseCoinGeckoPrices(text: string): RateSet {
  let body: ExactJson;
  try {
    body = parseExactJson(text);
  } catch (error) {
    throw new PriceFeedError(`coingecko: the answer is not JSON (${(error as Error).message})`);
  }
  if (!isExactObject(body)) throw new PriceFeedError("coingecko: the answer is not a JSON object");
  // An error answer with status 200, e.g. {"status":{"error_code":…,"error_message":"…"}} or {"error":"…"}.
  const complaint = errorMessageOf(body.get("status")) ?? errorMessageOf(body.get("error"));
  if (complaint !== null) throw new PriceFeedError(`coingecko: ${complaint}`);

  const set: RateSet = { rates: new Map(), problems: new Map() };
  for (const [crypto, id] of Object.entries(COINGECKO_IDS) as [CryptoSlug, string][]) {
    const coin = body.get(id);
    for (const [fiat, vs] of Object.entries(VS_CURRENCIES) as [FiatSlug, string][]) {
      const key = pairKey(crypto, fiat);
      if (!isExactObject(coin)) {
        set.problems.set(key, `the answer has no prices for '${id}'`);
        continue;
      }
      const price = coin.get(vs);
      if (price === undefined) {
        set.problems.set(key, `the answer has no '${vs}' price for '${id}'`);
      } else if (!(price instanceof JsonNumber)) {
        set.problems.set(key, `the '${vs}' price of '${id}' is not a number`);
      } else {
        const check = checkRate(price.text);
        if (check.ok) set.rates.set(key, check.rate);
        else set.problems.set(key, `${id} in ${vs}: ${check.problem}`);
      }
    }
  }
  return set;
}

function errorMessageOf(value: ExactJson | undefined): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "string") return value;
  if (isExactObject(value)) {
    const message = value.get("error_message");
    if (typeof message === "string") return message;
    const code = value.get("error_code");
    if (code instanceof JsonNumber) return `error ${code.text}`;
  }
  return null;
}
