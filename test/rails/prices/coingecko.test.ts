// The CoinGecko feed against a local server speaking CoinGecko's simple/price shape.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { cryptoBySlug, fiatBySlug, type CryptoCurrency, type FiatCurrency } from "../../../src/core/money/currencies.ts";
import { CoinGeckoFeed, type CoinGeckoOptions } from "../../../src/rails/prices/coingecko.ts";
import { PriceFeedError } from "../../../src/rails/prices/errors.ts";
import { coingeckoBody, DEFAULT_COINGECKO, manualClock, startFakeUpstream, type FakeUpstream } from "./fake-upstream.ts";

const BTC = cryptoBySlug("BTC") as CryptoCurrency;
const ETH = cryptoBySlug("ETH") as CryptoCurrency;
const USDT = cryptoBySlug("USDT") as CryptoCurrency;
const USD = fiatBySlug("USD") as FiatCurrency;
const NGN = fiatBySlug("NGN") as FiatCurrency;

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(() => upstream.close());
beforeEach(() => {
  upstream.requests.length = 0;
  upstream.reply({ body: coingeckoBody() });
});

function feed(options: Partial<CoinGeckoOptions> = {}) {
  const clock = manualClock();
  const logs: string[] = [];
  const instance = new CoinGeckoFeed({
    baseUrl: upstream.url,
    cacheSeconds: 30,
    maxAgeSeconds: 60,
    timeoutMs: 1000,
    now: clock.now,
    log: (line) => logs.push(line),
    ...options,
  });
  return { feed: instance, clock, logs };
}

describe("CoinGecko: prices", () => {
  it("prices all five coins in USD and NGN from one call of the real endpoint", async () => {
    const { feed: f, clock } = feed();
    const quote = await f.quote(BTC, USD);
    expect(quote.rate.toFixed()).toBe("65000.12345678");
    expect(quote.source).toBe("coingecko");
    expect(quote.quotedAt.getTime()).toBe(clock.ms);
    expect((await f.quote(BTC, NGN)).rate.toFixed()).toBe("99450188.888888888");
    expect((await f.quote(USDT, USD)).rate.toFixed()).toBe("1.0002");
    expect((await f.quote(ETH, NGN)).rate.toFixed()).toBe("4590015.3");

    expect(upstream.requests).toHaveLength(1);
    const [request] = upstream.requests;
    expect(request?.path).toBe("/api/v3/simple/price");
    expect(request?.url.searchParams.get("ids")).toBe("tether,bitcoin,binancecoin,ethereum,litecoin,usd-coin");
    expect(request?.url.searchParams.get("vs_currencies")).toBe("usd,ngn");
    expect(request?.url.searchParams.get("precision")).toBe("full");
    expect(request?.headers["x-cg-demo-api-key"]).toBeUndefined();
  });

  it("keeps every digit: the rate is read from the body's text, never through a float", async () => {
    // 0.1 + 0.2 style trouble: none of these survive a round trip through a double.
    upstream.reply({
      body: coingeckoBody({
        ...DEFAULT_COINGECKO,
        bitcoin: { usd: "65000.123456789012345678", ngn: "97500000.000000000000000001" },
        ethereum: { usd: "3.0000000000000004e3", ngn: "4500000" },
      }),
    });
    const { feed: f } = feed();
    expect((await f.quote(BTC, USD)).rate.toFixed()).toBe("65000.123456789012345678");
    expect((await f.quote(BTC, NGN)).rate.toFixed()).toBe("97500000.000000000000000001");
    expect((await f.quote(ETH, USD)).rate.toFixed()).toBe("3000.0000000000004");
    expect(Number("65000.123456789012345678").toString()).not.toBe("65000.123456789012345678");
  });

  it("rounds a price with more than 18 decimals to 18, the precision the transaction keeps", async () => {
    upstream.reply({ body: coingeckoBody({ ...DEFAULT_COINGECKO, tether: { usd: "0.99999999999999999951", ngn: "1500" } }) });
    expect((await feed().feed.quote(USDT, USD)).rate.toFixed()).toBe("1");
  });

  it("sends the Demo or Pro plan's key header", async () => {
    await feed({ apiKey: "CG-demo-key" }).feed.quote(BTC, USD);
    await feed({ apiKey: "CG-pro-key", plan: "pro" }).feed.quote(BTC, USD);
    expect(upstream.requests[0]?.headers["x-cg-demo-api-key"]).toBe("CG-demo-key");
    expect(upstream.requests[1]?.headers["x-cg-pro-api-key"]).toBe("CG-pro-key");
    expect(upstream.requests[1]?.headers["x-cg-demo-api-key"]).toBeUndefined();
  });

  it("accepts a base URL with a path and a trailing slash", async () => {
    const f = new CoinGeckoFeed({ baseUrl: `${upstream.url}/proxy/`, cacheSeconds: 0, maxAgeSeconds: 0, timeoutMs: 1000 });
    await f.quote(BTC, USD);
    expect(upstream.requests[0]?.path).toBe("/proxy/api/v3/simple/price");
  });
});

describe("CoinGecko: failures are errors with clear messages", () => {
  const cases: [string, Parameters<FakeUpstream["reply"]>[0], RegExp][] = [
    ["HTTP 500", { status: 500, body: "oops" }, /coingecko: HTTP 500/],
    ["HTTP 503", { status: 503, body: "" }, /coingecko: HTTP 503/],
    ["HTTP 401 with CoinGecko's error body", { status: 401, body: { status: { error_code: 10002, error_message: "API Key Missing" } } }, /HTTP 401/],
    [
      "an error body with status 200",
      { body: { status: { error_code: 10005, error_message: "You need a Pro plan" } } },
      /coingecko: You need a Pro plan/,
    ],
    ["malformed JSON", { body: '{"bitcoin":{"usd":65000,}' }, /coingecko: the answer is not JSON/],
    ["an HTML page", { body: "<html>maintenance</html>" }, /not JSON/],
    ["a JSON array", { body: "[]" }, /not a JSON object/],
    ["a missing coin", { body: coingeckoBody({ tether: DEFAULT_COINGECKO.tether! }) }, /no prices for 'bitcoin'/],
    ["a missing currency", { body: coingeckoBody({ ...DEFAULT_COINGECKO, bitcoin: { ngn: "97500000" } }) }, /no 'usd' price for 'bitcoin'/],
    [
      "a zero price",
      { body: coingeckoBody({ ...DEFAULT_COINGECKO, bitcoin: { usd: "0", ngn: "1" } }) },
      /bitcoin in usd: the price 0 is not positive/,
    ],
    ["a negative price", { body: coingeckoBody({ ...DEFAULT_COINGECKO, bitcoin: { usd: "-65000", ngn: "1" } }) }, /the price -65000 is not positive/],
    ["a price too small to keep", { body: coingeckoBody({ ...DEFAULT_COINGECKO, bitcoin: { usd: "1e-30", ngn: "1" } }) }, /not positive/],
    ["an absurd price", { body: coingeckoBody({ ...DEFAULT_COINGECKO, bitcoin: { usd: "1e400", ngn: "1" } }) }, /implausibly large/],
    [
      "a string price",
      { body: coingeckoBody({ ...DEFAULT_COINGECKO, bitcoin: { usd: '"65000"', ngn: "1" } }) },
      /'usd' price of 'bitcoin' is not a number/,
    ],
    ["a null price", { body: coingeckoBody({ ...DEFAULT_COINGECKO, bitcoin: { usd: "null", ngn: "1" } }) }, /not a number/],
  ];
  for (const [name, reply, message] of cases) {
    it(`rejects ${name}`, async () => {
      upstream.reply(reply);
      const error = await feed()
        .feed.quote(BTC, USD)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PriceFeedError);
      expect((error as Error).message).toMatch(message);
    });
  }

  it("still prices the other pairs when one coin is missing, and logs the gap", async () => {
    upstream.reply({ body: coingeckoBody({ ...DEFAULT_COINGECKO, bitcoin: { usd: "0", ngn: "0" } }) });
    const { feed: f, logs } = feed();
    await expect(f.quote(BTC, USD)).rejects.toThrow(/not positive/);
    expect((await f.quote(ETH, USD)).rate.toFixed()).toBe("3000.01");
    expect(upstream.requests).toHaveLength(1);
    expect(logs.join("\n")).toMatch(/price feed coingecko: BTC\/USD: bitcoin in usd: the price 0 is not positive/);
  });

  it("times out when the server never answers", async () => {
    upstream.reply("hang");
    const { feed: f, logs } = feed({ timeoutMs: 200 });
    const started = Date.now();
    await expect(f.quote(BTC, USD)).rejects.toThrow(/coingecko: no complete answer within 200 ms/);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(logs).toEqual(["price feed coingecko failed: coingecko: no complete answer within 200 ms"]);
  });

  it("times out when the body stalls after the headers", async () => {
    upstream.reply("hang-body");
    const { feed: f } = feed({ timeoutMs: 200 });
    await expect(f.quote(BTC, USD)).rejects.toThrow(/within 200 ms/);
  });

  it("says when nothing listens", async () => {
    const closed = await startFakeUpstream();
    await closed.close();
    const f = new CoinGeckoFeed({ baseUrl: closed.url, cacheSeconds: 0, maxAgeSeconds: 0, timeoutMs: 1000 });
    await expect(f.quote(BTC, USD)).rejects.toThrow("coingecko: request failed: connection refused (ECONNREFUSED)");
  });

  it("leaves the provider alone for Retry-After after an HTTP 429", async () => {
    upstream.reply({ status: 429, body: { status: { error_code: 429, error_message: "Throttled" } }, headers: { "retry-after": "10" } });
    const { feed: f, clock } = feed();
    await expect(f.quote(BTC, USD)).rejects.toThrow(/coingecko: rate limited \(HTTP 429\); next attempt in 10 s/);
    upstream.reply({ body: coingeckoBody() });
    clock.advance(5);
    await expect(f.quote(BTC, USD)).rejects.toThrow(/rate limited/);
    expect(upstream.requests).toHaveLength(1);
    clock.advance(6);
    expect((await f.quote(BTC, USD)).rate.toFixed()).toBe("65000.12345678");
    expect(upstream.requests).toHaveLength(2);
  });

  it("does not cache a failure: the next quote asks again", async () => {
    upstream.reply({ status: 500, body: "" });
    const { feed: f } = feed();
    await expect(f.quote(BTC, USD)).rejects.toThrow(/HTTP 500/);
    upstream.reply({ body: coingeckoBody() });
    expect((await f.quote(BTC, USD)).rate.toFixed()).toBe("65000.12345678");
    expect(upstream.requests).toHaveLength(2);
  });
});

describe("CoinGecko: cache", () => {
  it("makes no upstream call within the cache time, and one after it", async () => {
    const { feed: f, clock } = feed({ cacheSeconds: 30 });
    const first = await f.quote(BTC, USD);
    clock.advance(29);
    const second = await f.quote(BTC, NGN);
    expect(upstream.requests).toHaveLength(1);
    expect(second.quotedAt).toEqual(first.quotedAt);

    upstream.reply({ body: coingeckoBody({ ...DEFAULT_COINGECKO, bitcoin: { usd: "66000", ngn: "99000000" } }) });
    clock.advance(1);
    const third = await f.quote(BTC, USD);
    expect(upstream.requests).toHaveLength(2);
    expect(third.rate.toFixed()).toBe("66000");
    expect(third.quotedAt.getTime()).toBe(clock.ms);
  });

  it("makes one upstream call for many concurrent quotes", async () => {
    const { feed: f } = feed();
    const gate = upstream.hold();
    const quotes = Promise.all(Array.from({ length: 20 }, (_, i) => f.quote(i % 2 ? BTC : ETH, i % 3 ? USD : NGN)));
    await waitFor(() => upstream.requests.length === 1);
    gate.release();
    const results = await quotes;
    expect(results).toHaveLength(20);
    expect(upstream.requests).toHaveLength(1);
  });

  it("shares one failing call among concurrent quotes too", async () => {
    upstream.reply({ status: 502, body: "" });
    const { feed: f } = feed();
    const gate = upstream.hold();
    const quotes = Promise.allSettled(Array.from({ length: 5 }, () => f.quote(BTC, USD)));
    await waitFor(() => upstream.requests.length === 1);
    gate.release();
    const results = await quotes;
    expect(results.every((r) => r.status === "rejected")).toBe(true);
    expect(upstream.requests).toHaveLength(1);
  });

  it("asks on every quote with a cache time of 0", async () => {
    const { feed: f } = feed({ cacheSeconds: 0, maxAgeSeconds: 0 });
    await f.quote(BTC, USD);
    await f.quote(BTC, USD);
    expect(upstream.requests).toHaveLength(2);
  });
});

describe("CoinGecko: staleness", () => {
  it("serves the last price while a refresh fails, until it is older than the max age", async () => {
    const { feed: f, clock } = feed({ cacheSeconds: 30, maxAgeSeconds: 60 });
    const fresh = await f.quote(BTC, USD);
    upstream.reply({ status: 500, body: "" });

    clock.advance(45); // expired, refresh fails, 45 s old: still served, with its own time
    const served = await f.quote(BTC, USD);
    expect(served.rate.toFixed()).toBe("65000.12345678");
    expect(served.quotedAt).toEqual(fresh.quotedAt);
    expect(upstream.requests).toHaveLength(2);

    clock.advance(15); // 60 s old: stale
    const error = await f.quote(BTC, USD).then(
      () => new Error("expected a failure"),
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(PriceFeedError);
    expect(error.message).toMatch(/coingecko: HTTP 500 Internal Server Error; the last price is 60 s old, past the 60 s limit/);

    upstream.reply({ body: coingeckoBody() }); // and recovers as soon as the provider does
    expect((await f.quote(BTC, USD)).quotedAt.getTime()).toBe(clock.ms);
  });

  it("never serves a price older than the max age, even when the cache time is longer", async () => {
    const { feed: f, clock } = feed({ cacheSeconds: 120, maxAgeSeconds: 10 });
    await f.quote(BTC, USD);
    clock.advance(10);
    await f.quote(BTC, USD);
    expect(upstream.requests).toHaveLength(2);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(condition()).toBe(true);
}
