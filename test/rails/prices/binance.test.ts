// The Binance feed against a local server speaking Binance's public spot ticker/price API.
import { describe, expect, it } from "vitest";
import { cryptoBySlug, fiatBySlug, type CryptoCurrency, type FiatCurrency } from "../../../src/core/money/currencies.ts";
import { Decimal } from "../../../src/core/money/amounts.ts";
import { BinanceFeed, type BinanceOptions } from "../../../src/rails/prices/binance.ts";
import { binanceReply, DEFAULT_BINANCE, manualClock, fakeProvider, itRefuses, type FakeUpstream } from "./fake-upstream.ts";

const crypto = (slug: string) => cryptoBySlug(slug) as CryptoCurrency;
const USD = fiatBySlug("USD") as FiatCurrency;
const NGN = fiatBySlug("NGN") as FiatCurrency;

const upstream = fakeProvider(() => binanceReply());

function feed(options: Partial<BinanceOptions> = {}) {
  const clock = manualClock();
  return {
    clock,
    feed: new BinanceFeed({ baseUrl: upstream.url, cacheSeconds: 30, maxAgeSeconds: 60, timeoutMs: 1000, now: clock.now, ...options }),
  };
}

describe("Binance: prices", () => {
  it("prices BTC, ETH, BNB and LTC in USD from their USDT markets in one call, saying USDT is taken at par", async () => {
    const { feed: f } = feed();
    const btc = await f.quote(crypto("BTC"), USD);
    expect(btc).toMatchObject({ source: "binance", detail: "BTCUSDT 64990.01, USDT at par with USD" });
    expect(btc.rate.toFixed()).toBe("64990.01");
    expect((await f.quote(crypto("BNB"), USD)).rate.toFixed()).toBe("600.1");
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]?.path).toBe("/api/v3/ticker/price");
    expect(JSON.parse(upstream.requests[0]?.url.searchParams.get("symbols") ?? "")).toEqual(["BTCUSDT", "ETHUSDT", "BNBUSDT", "LTCUSDT"]);
  });

  it("refuses NGN without a configured naira market and USDT/USD at once, without asking Binance", async () => {
    const { feed: f } = feed();
    await expect(f.quote(crypto("BTC"), NGN)).rejects.toMatchObject({
      reason: "unsupported",
      message: expect.stringMatching(/no NGN market configured/),
    });
    await expect(f.quote(crypto("USDT"), USD)).rejects.toThrow(/binance: Binance quotes in USDT; it has no USDT\/USD price/);
    expect(upstream.requests).toHaveLength(0);
  });

  it("prices NGN through USDT when USDTNGN is configured: coin/USDT × USDT/NGN, exactly, with the conversion shown", async () => {
    const { feed: f } = feed({ ngnSymbol: "USDTNGN" });
    const btc = await f.quote(crypto("BTC"), NGN);
    const expected = new Decimal("64990.01").times("1530");
    expect(btc.rate.toFixed()).toBe(expected.toFixed());
    expect(btc.rate.toFixed()).toBe("99434715.3");
    expect(btc.detail).toBe("BTCUSDT 64990.01 × USDTNGN 1530");
    expect((await f.quote(crypto("USDT"), NGN)).rate.toFixed()).toBe("1530");
    expect(JSON.parse(upstream.requests[0]?.url.searchParams.get("symbols") ?? "")).toContain("USDTNGN");
  });

  it("keeps the product's digits: 8-decimal prices multiply to 16 decimals, none rounded away", async () => {
    upstream.reply(binanceReply({ ...DEFAULT_BINANCE, BTCUSDT: "64990.01234567", USDTNGN: "1530.12345678" }));
    const rate = (await feed({ ngnSymbol: "USDTNGN" }).feed.quote(crypto("BTC"), NGN)).rate;
    expect(rate.toFixed()).toBe("99442742.3465314566651426");
  });
});

describe("Binance: failures", () => {
  const cases: [string, Parameters<FakeUpstream["reply"]>[0], RegExp, string][] = [
    ["its unknown-symbol error", { status: 400, body: { code: -1121, msg: "Invalid symbol." } }, /binance: HTTP 400.*Invalid symbol/, "http_error"],
    ["HTTP 403 (a WAF refusing the caller)", { status: 403, body: "" }, /binance: HTTP 403/, "forbidden"],
    [
      "an error object with status 200",
      { body: { code: -1003, msg: "Too much request weight used" } },
      /binance: error -1003: Too much request weight/,
      "garbage",
    ],
    ["malformed JSON", { body: "[{" }, /binance: the answer is not JSON/, "garbage"],
    ["an object instead of the array", { body: { symbol: "BTCUSDT", price: "1" } }, /not a JSON array of prices/, "garbage"],
    ["a missing symbol", { body: [{ symbol: "ETHUSDT", price: "3000" }] }, /the answer has no BTCUSDT price/, "no_price"],
    ["a price as a JSON number", { body: [{ symbol: "BTCUSDT", price: 64990.01 }] }, /the BTCUSDT price is not a string/, "no_price"],
    ["a zero price", { body: [{ symbol: "BTCUSDT", price: "0.00000000" }] }, /BTCUSDT: the price 0.00000000 is not positive/, "no_price"],
  ];
  itRefuses(upstream, () => feed().feed.quote(crypto("BTC"), USD), cases);

  it("fails NGN when the naira market is gone (-1121 for the whole answer)", async () => {
    const { USDTNGN: _gone, ...rest } = DEFAULT_BINANCE;
    upstream.reply(binanceReply(rest));
    await expect(feed({ ngnSymbol: "USDTNGN" }).feed.quote(crypto("BTC"), NGN)).rejects.toThrow(/Invalid symbol/);
  });

  for (const status of [429, 418]) {
    it(`leaves Binance alone for the Retry-After of an HTTP ${status}`, async () => {
      upstream.reply({
        status,
        body: { code: -1003, msg: "Way too much request weight used; IP banned until 1700000000000." },
        headers: { "retry-after": "9" },
      });
      const { feed: f, clock } = feed();
      await expect(f.quote(crypto("BTC"), USD)).rejects.toMatchObject({
        reason: "rate_limited",
        message: expect.stringMatching(new RegExp(`HTTP ${status}\\); next attempt in 9 s`)),
      });
      upstream.reply(binanceReply());
      clock.advance(5);
      await expect(f.quote(crypto("BTC"), USD)).rejects.toThrow(/rate limited/);
      expect(upstream.requests).toHaveLength(1);
      clock.advance(5);
      await expect(f.quote(crypto("BTC"), USD)).resolves.toMatchObject({ source: "binance" });
    });
  }

  it("times out", async () => {
    upstream.reply("hang");
    await expect(feed({ timeoutMs: 150 }).feed.quote(crypto("BTC"), USD)).rejects.toMatchObject({ reason: "timeout" });
  });
});
