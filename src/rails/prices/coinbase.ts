// Coinbase's public exchange rates (no key): one call per coin prices it in every currency
// Coinbase knows, NGN included.
//
//   GET {base}/v2/exchange-rates?currency=BTC
//   → { "data": { "currency": "BTC", "rates": { "USD": "65000.125", "NGN": "99450188.88", … } } }
//   errors: { "errors": [ { "id": "invalid_request", "message": "Invalid currency" } ] } (4xx), 429 when throttled
//
// Rates are strings, so plain JSON.parse keeps them exact; a rate that is not a string is refused.
// The coins are asked in parallel; a coin Coinbase refuses is a problem of its pairs only, but a
// 429 (or every call failing) fails the whole answer, so the provider is left alone as asked.
import type { CryptoSlug, FiatSlug } from "../../core/money/currencies.ts";
import { CachedPriceFeed, type CachedFeedOptions, type RateSet } from "./cached-feed.ts";
import { PriceFeedError } from "./errors.ts";
import { getText } from "./http.ts";
import { checkRate, isRecord, pairKey, parseJsonBody } from "./rates.ts";

export const COINBASE_URL = "https://api.coinbase.com";
const COINS: readonly CryptoSlug[] = ["USDT", "BTC", "BNB", "ETH", "LTC"];
const FIATS: readonly FiatSlug[] = ["USD", "NGN"];

export interface CoinbaseOptions extends CachedFeedOptions {
  baseUrl?: string;
}

export class CoinbaseFeed extends CachedPriceFeed {
  readonly name = "coinbase";
  private readonly base: string;

  constructor(options: CoinbaseOptions) {
    super(options);
    this.base = (options.baseUrl ?? COINBASE_URL).replace(/\/+$/, "");
  }

  protected async fetchRates(): Promise<RateSet> {
    const answers = await Promise.allSettled(COINS.map((coin) => this.ratesOf(coin)));
    const failures = answers.flatMap((a) => (a.status === "rejected" ? [a.reason as unknown] : []));
    const limited = failures.find((f) => f instanceof PriceFeedError && f.retryAfterMs !== undefined);
    if (limited !== undefined) throw limited;
    if (failures.length === COINS.length) throw failures[0];

    const set: RateSet = { rates: new Map(), problems: new Map() };
    answers.forEach((answer, i) => {
      const coin = COINS[i] as CryptoSlug;
      const coinSet = answer.status === "fulfilled" ? answer.value : null;
      for (const fiat of FIATS) {
        const key = pairKey(coin, fiat);
        if (coinSet === null) set.problems.set(key, messageOf(answer.status === "rejected" ? answer.reason : null));
        else {
          const rate = coinSet.rates.get(key);
          if (rate) set.rates.set(key, rate);
          else set.problems.set(key, coinSet.problems.get(key) ?? `the answer has no ${fiat} rate`);
        }
      }
    });
    return set;
  }

  private async ratesOf(coin: CryptoSlug): Promise<RateSet> {
    const url = new URL(`${this.base}/v2/exchange-rates`);
    url.searchParams.set("currency", coin);
    return parseCoinbaseRates(await getText(url, { provider: this.name, timeoutMs: this.timeoutMs }), coin);
  }
}

/** The USD and NGN rates of `coin` in an exchange-rates body. */
export function parseCoinbaseRates(text: string, coin: CryptoSlug): RateSet {
  const body = parseJsonBody("coinbase", text);
  if (!isRecord(body)) throw new PriceFeedError("coinbase: the answer is not a JSON object");
  // Coinbase's error shape, which may come with status 200 behind some proxies.
  if (Array.isArray(body.errors) && body.errors.length > 0) {
    const messages = body.errors.map((e) => (isRecord(e) ? `${String(e.id ?? "error")}: ${String(e.message ?? "")}` : String(e)));
    throw new PriceFeedError(`coinbase: ${messages.join("; ")}`);
  }
  const data = body.data;
  if (!isRecord(data) || !isRecord(data.rates)) throw new PriceFeedError("coinbase: the answer has no 'data.rates' object");
  if (data.currency !== coin) throw new PriceFeedError(`coinbase: asked for ${coin} rates, the answer is for '${String(data.currency)}'`);
  const rates = data.rates;

  const set: RateSet = { rates: new Map(), problems: new Map() };
  for (const fiat of FIATS) {
    const key = pairKey(coin, fiat);
    const value = Object.hasOwn(rates, fiat) ? rates[fiat] : undefined;
    if (value === undefined) set.problems.set(key, `the ${coin} answer has no ${fiat} rate`);
    else if (typeof value !== "string") set.problems.set(key, `the ${coin} rate in ${fiat} is not a string`);
    else {
      const check = checkRate(value);
      if (check.ok) set.rates.set(key, check.rate);
      else set.problems.set(key, `${coin} in ${fiat}: ${check.problem}`);
    }
  }
  return set;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message.replace(/^coinbase: /, "") : "no answer";
}
