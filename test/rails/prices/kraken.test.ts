// The Kraken feed against a local server speaking Kraken's public Ticker shape.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { cryptoBySlug, fiatBySlug, type CryptoCurrency, type FiatCurrency } from "../../../src/core/money/currencies.ts";
import { PriceFeedError } from "../../../src/rails/prices/errors.ts";
import { KrakenFeed, type KrakenOptions } from "../../../src/rails/prices/kraken.ts";
import { DEFAULT_KRAKEN, krakenBody, manualClock, startFakeUpstream, type FakeUpstream } from "./fake-upstream.ts";

const crypto = (slug: string) => cryptoBySlug(slug) as CryptoCurrency;
const USD = fiatBySlug("USD") as FiatCurrency;
const NGN = fiatBySlug("NGN") as FiatCurrency;

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(() => upstream.close());
beforeEach(() => {
  upstream.requests.length = 0;
  upstream.reply({ body: krakenBody() });
});

function feed(options: Partial<KrakenOptions> = {}) {
  const clock = manualClock();
  return {
    clock,
    feed: new KrakenFeed({ baseUrl: upstream.url, cacheSeconds: 30, maxAgeSeconds: 60, timeoutMs: 1000, now: clock.now, ...options }),
  };
}

describe("Kraken: prices", () => {
  it("prices BTC, ETH, LTC and USDT in USD from the last trade of real USD markets, in one call", async () => {
    const { feed: f } = feed();
    const btc = await f.quote(crypto("BTC"), USD);
    expect(btc.rate.toFixed()).toBe("65000.12345678");
    expect(btc.source).toBe("kraken");
    expect((await f.quote(crypto("ETH"), USD)).rate.toFixed()).toBe("3000.01");
    expect((await f.quote(crypto("LTC"), USD)).rate.toFixed()).toBe("80.25");
    expect((await f.quote(crypto("USDT"), USD)).rate.toFixed()).toBe("1.0002");
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]?.path).toBe("/0/public/Ticker");
    expect(upstream.requests[0]?.url.searchParams.get("pair")).toBe("XBTUSD,ETHUSD,LTCUSD,USDTZUSD,USDCUSD");
  });

  it("keeps Kraken's price strings exact", async () => {
    upstream.reply({ body: krakenBody({ ...DEFAULT_KRAKEN, XXBTZUSD: "65000.123456789012345678" }) });
    expect((await feed().feed.quote(crypto("BTC"), USD)).rate.toFixed()).toBe("65000.123456789012345678");
  });

  it("finds a pair keyed by its altname too", async () => {
    const { XXBTZUSD, ...rest } = DEFAULT_KRAKEN;
    upstream.reply({ body: krakenBody({ ...rest, XBTUSD: XXBTZUSD! }) });
    expect((await feed().feed.quote(crypto("BTC"), USD)).rate.toFixed()).toBe("65000.12345678");
  });

  it("refuses NGN and BNB at once, without asking Kraken, rather than inventing a rate", async () => {
    const { feed: f } = feed();
    await expect(f.quote(crypto("BTC"), NGN)).rejects.toThrow(/kraken: Kraken has no NGN markets; no BTC\/NGN rate is invented/);
    await expect(f.quote(crypto("BNB"), USD)).rejects.toThrow(/kraken: this feed does not price BNB/);
    expect(upstream.requests).toHaveLength(0);
  });
});

describe("Kraken: failures", () => {
  const withTicker = (ticker: object) => ({ error: [], result: { ...(krakenBody() as { result: object }).result, XXBTZUSD: ticker } });
  const cases: [string, Parameters<FakeUpstream["reply"]>[0], RegExp][] = [
    ["HTTP 500", { status: 500, body: "" }, /kraken: HTTP 500/],
    ["HTTP 520 from a proxy", { status: 520, body: "" }, /kraken: HTTP 520/],
    ["malformed JSON", { body: '{"error":[],"result":{' }, /kraken: the answer is not JSON/],
    ["an error array", { body: { error: ["EQuery:Unknown asset pair"] } }, /kraken: EQuery:Unknown asset pair/],
    ["no result", { body: { error: [] } }, /kraken: the answer has no 'result' object/],
    ["a missing pair", { body: krakenBody({ XETHZUSD: "3000" }) }, /kraken: the answer has no XXBTZUSD ticker/],
    ["a zero price", { body: krakenBody({ ...DEFAULT_KRAKEN, XXBTZUSD: "0.00000" }) }, /XXBTZUSD: the price 0.00000 is not positive/],
    ["a negative price", { body: krakenBody({ ...DEFAULT_KRAKEN, XXBTZUSD: "-1.0" }) }, /the price -1.0 is not positive/],
    ["a price that is not a decimal", { body: krakenBody({ ...DEFAULT_KRAKEN, XXBTZUSD: "NaN" }) }, /'NaN' is not a decimal number/],
    ["a price sent as a number", { body: withTicker({ c: [65000.1, "1"] }) }, /no last trade price string \(c\[0\]\)/],
    ["a ticker without c", { body: withTicker({ a: ["1", "1", "1"] }) }, /no last trade price string/],
  ];
  for (const [name, reply, message] of cases) {
    it(`rejects ${name}`, async () => {
      upstream.reply(reply);
      const error = await feed()
        .feed.quote(crypto("BTC"), USD)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PriceFeedError);
      expect((error as Error).message).toMatch(message);
    });
  }

  it("backs off after Kraken's in-band rate limit error", async () => {
    upstream.reply({ body: { error: ["EAPI:Rate limit exceeded"] } });
    const { feed: f, clock } = feed();
    await expect(f.quote(crypto("BTC"), USD)).rejects.toThrow(/EAPI:Rate limit exceeded/);
    await expect(f.quote(crypto("BTC"), USD)).rejects.toThrow(/EAPI:Rate limit exceeded/);
    expect(upstream.requests).toHaveLength(1);
    upstream.reply({ body: krakenBody() });
    clock.advance(5);
    await expect(f.quote(crypto("BTC"), USD)).resolves.toMatchObject({ source: "kraken" });
  });

  it("backs off for an HTTP 429's Retry-After given as a date", async () => {
    upstream.reply({ status: 429, body: "", headers: { "retry-after": new Date(Date.now() + 3000).toUTCString() } });
    const { feed: f } = feed();
    await expect(f.quote(crypto("BTC"), USD)).rejects.toThrow(/rate limited \(HTTP 429\); next attempt in [1-3] s/);
  });

  it("times out", async () => {
    upstream.reply("hang");
    await expect(feed({ timeoutMs: 150 }).feed.quote(crypto("BTC"), USD)).rejects.toThrow(/kraken: no complete answer within 150 ms/);
  });
});

describe("Kraken: cache and staleness", () => {
  it("caches, shares concurrent calls, and refuses a price past the max age", async () => {
    const { feed: f, clock } = feed({ cacheSeconds: 10, maxAgeSeconds: 20 });
    await Promise.all([f.quote(crypto("BTC"), USD), f.quote(crypto("ETH"), USD), f.quote(crypto("LTC"), USD)]);
    expect(upstream.requests).toHaveLength(1);
    clock.advance(9);
    await f.quote(crypto("USDT"), USD);
    expect(upstream.requests).toHaveLength(1);

    upstream.reply({ status: 503, body: "" });
    clock.advance(10); // 19 s: refresh fails, last price still usable
    await expect(f.quote(crypto("BTC"), USD)).resolves.toMatchObject({ source: "kraken" });
    clock.advance(1); // 20 s: stale
    await expect(f.quote(crypto("BTC"), USD)).rejects.toThrow(/kraken: HTTP 503.*past the 20 s limit/);
  });
});
