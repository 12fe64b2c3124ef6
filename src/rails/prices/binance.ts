// Binance's public spot ticker (no key): the last price of its USDT markets, in one call.
//
//   GET {base}/api/v3/ticker/price?symbols=["BTCUSDT","ETHUSDT",…]
//   → [ { "symbol": "BTCUSDT", "price": "65000.12000000" }, … ]
//   errors: { "code": -1121, "msg": "Invalid symbol." } (HTTP 4xx); 429, then 418 (IP banned), with Retry-After
//
// Binance quotes coins in USDT, not dollars: a coin's USD rate is its USDT price, USDT taken at par.
// That is an assumption, stated in the quote; in the median strategy a depegged USDT makes Binance
// disagree with the others and leaves it out. USDT itself is not priced (its par would be invented).
// NGN only through USDT, and only when the operator names Binance's naira market
// (PAYGATE_BINANCE_NGN_SYMBOL, e.g. USDTNGN; Binance delisted its NGN markets in 2024): the coin's
// NGN rate is coin/USDT × USDT/NGN, both prices shown in the quote. One unknown symbol fails
// Binance's whole answer (-1121), so nothing is asked that was not configured.
import type { CryptoCurrency, CryptoSlug, FiatCurrency } from "../../core/money/currencies.ts";
import { Decimal, RATE_DECIMALS } from "../../core/money/amounts.ts";
import { CachedPriceFeed, type CachedFeedOptions, type RateSet } from "./cached-feed.ts";
import { PriceFeedError } from "./errors.ts";
import { getText } from "./http.ts";
import { checkRate, isRecord, pairKey, parseJsonBody } from "./rates.ts";

export const BINANCE_URL = "https://api.binance.com";
/** The USDT market of each coin Binance prices. */
export const BINANCE_SYMBOLS: Partial<Record<CryptoSlug, string>> = { BTC: "BTCUSDT", ETH: "ETHUSDT", BNB: "BNBUSDT", LTC: "LTCUSDT" };

export interface BinanceOptions extends CachedFeedOptions {
  baseUrl?: string;
  /** Binance's USDT/NGN market, e.g. "USDTNGN"; unset: no NGN prices. */
  ngnSymbol?: string;
}

export class BinanceFeed extends CachedPriceFeed {
  readonly name = "binance";
  private readonly url: URL;
  private readonly ngnSymbol: string | undefined;

  constructor(options: BinanceOptions) {
    super(options);
    const base = (options.baseUrl ?? BINANCE_URL).replace(/\/+$/, "");
    this.ngnSymbol = options.ngnSymbol;
    this.url = new URL(`${base}/api/v3/ticker/price`);
    const symbols = [...Object.values(BINANCE_SYMBOLS), ...(this.ngnSymbol ? [this.ngnSymbol] : [])];
    this.url.searchParams.set("symbols", JSON.stringify(symbols));
  }

  protected override unsupported(crypto: CryptoCurrency, fiat: FiatCurrency): string | null {
    if (fiat.slug === "NGN" && !this.ngnSymbol) return "no NGN market configured (PAYGATE_BINANCE_NGN_SYMBOL); no NGN rate is invented";
    if (crypto.slug === "USDT" && fiat.slug === "USD") return "Binance quotes in USDT; it has no USDT/USD price";
    if (crypto.slug !== "USDT" && !BINANCE_SYMBOLS[crypto.slug]) return `this feed does not price ${crypto.slug}`;
    return null;
  }

  protected async fetchRates(): Promise<RateSet> {
    const text = await getText(this.url, { provider: this.name, timeoutMs: this.timeoutMs, waitStatuses: [418] });
    return parseBinancePrices(text, this.ngnSymbol);
  }
}

/** The USD (at USDT par) and, with `ngnSymbol`, NGN rates in a ticker/price body. */
export function parseBinancePrices(text: string, ngnSymbol?: string): RateSet {
  const body = parseJsonBody("binance", text);
  if (isRecord(body) && body.code !== undefined) throw new PriceFeedError(`binance: error ${String(body.code)}: ${String(body.msg ?? "")}`);
  if (!Array.isArray(body)) throw new PriceFeedError("binance: the answer is not a JSON array of prices");
  const prices = new Map<string, string>();
  for (const entry of body) {
    if (isRecord(entry) && typeof entry.symbol === "string") prices.set(entry.symbol, typeof entry.price === "string" ? entry.price : "");
  }

  const set: RateSet = { rates: new Map(), problems: new Map(), notes: new Map() };
  const priceOf = (symbol: string): { ok: true; rate: Decimal } | { ok: false; problem: string } => {
    const price = prices.get(symbol);
    if (price === undefined) return { ok: false, problem: `the answer has no ${symbol} price` };
    if (price === "") return { ok: false, problem: `the ${symbol} price is not a string` };
    const check = checkRate(price);
    return check.ok ? check : { ok: false, problem: `${symbol}: ${check.problem}` };
  };
  const usdtNgn = ngnSymbol ? priceOf(ngnSymbol) : null;

  for (const [crypto, symbol] of Object.entries(BINANCE_SYMBOLS) as [CryptoSlug, string][]) {
    const usdt = priceOf(symbol);
    if (!usdt.ok) {
      set.problems.set(pairKey(crypto, "USD"), usdt.problem);
      if (usdtNgn) set.problems.set(pairKey(crypto, "NGN"), usdt.problem);
      continue;
    }
    set.rates.set(pairKey(crypto, "USD"), usdt.rate);
    set.notes?.set(pairKey(crypto, "USD"), `${symbol} ${usdt.rate.toFixed()}, USDT at par with USD`);
    if (!usdtNgn || !ngnSymbol) continue;
    if (!usdtNgn.ok) set.problems.set(pairKey(crypto, "NGN"), usdtNgn.problem);
    else {
      const rate = usdt.rate.times(usdtNgn.rate).toDecimalPlaces(RATE_DECIMALS, Decimal.ROUND_HALF_UP);
      set.rates.set(pairKey(crypto, "NGN"), rate);
      set.notes?.set(pairKey(crypto, "NGN"), `${symbol} ${usdt.rate.toFixed()} × ${ngnSymbol} ${usdtNgn.rate.toFixed()}`);
    }
  }
  if (usdtNgn && ngnSymbol) {
    if (usdtNgn.ok) {
      set.rates.set(pairKey("USDT", "NGN"), usdtNgn.rate);
      set.notes?.set(pairKey("USDT", "NGN"), `${ngnSymbol} ${usdtNgn.rate.toFixed()}`);
    } else set.problems.set(pairKey("USDT", "NGN"), usdtNgn.problem);
  }
  return set;
}
