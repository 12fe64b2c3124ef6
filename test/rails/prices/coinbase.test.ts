// The Coinbase feed against a local server speaking Coinbase's public exchange-rates API.
import { describe, expect, it } from "vitest";
import { cryptoBySlug, fiatBySlug, type CryptoCurrency, type FiatCurrency } from "../../../src/core/money/currencies.ts";
import { CoinbaseFeed, type CoinbaseOptions } from "../../../src/rails/prices/coinbase.ts";
import { coinbaseBody, coinbaseReply, DEFAULT_COINBASE, manualClock, fakeProvider, itRefuses, type FakeUpstream } from "./fake-upstream.ts";

const crypto = (slug: string) => cryptoBySlug(slug) as CryptoCurrency;
const USD = fiatBySlug("USD") as FiatCurrency;
const NGN = fiatBySlug("NGN") as FiatCurrency;

const upstream = fakeProvider(() => coinbaseReply());

function feed(options: Partial<CoinbaseOptions> = {}) {
  const clock = manualClock();
  const logs: string[] = [];
  const instance = new CoinbaseFeed({
    baseUrl: upstream.url,
    cacheSeconds: 30,
    maxAgeSeconds: 60,
    timeoutMs: 1000,
    now: clock.now,
    log: (l) => logs.push(l),
    ...options,
  });
  return { feed: instance, clock, logs };
}

describe("Coinbase: prices", () => {
  it("prices every coin in USD and NGN from one exchange-rates call per coin, exactly", async () => {
    const { feed: f } = feed();
    const btc = await f.quote(crypto("BTC"), NGN);
    expect(btc).toMatchObject({ source: "coinbase" });
    expect(btc.rate.toFixed()).toBe("99460000.25");
    expect((await f.quote(crypto("BTC"), USD)).rate.toFixed()).toBe("65010.5");
    expect((await f.quote(crypto("USDT"), NGN)).rate.toFixed()).toBe("1531.5");
    expect((await f.quote(crypto("LTC"), USD)).rate.toFixed()).toBe("80.2");
    expect(upstream.requests.map((r) => r.path)).toEqual(Array(5).fill("/v2/exchange-rates"));
    expect(upstream.requests.map((r) => r.url.searchParams.get("currency")).sort()).toEqual(["BNB", "BTC", "ETH", "LTC", "USDT"]);
  });

  it("keeps every digit of Coinbase's rate strings", async () => {
    upstream.reply(coinbaseReply({ ...DEFAULT_COINBASE, BTC: { USD: "65000.123456789012345678", NGN: "1" } }));
    expect((await feed().feed.quote(crypto("BTC"), USD)).rate.toFixed()).toBe("65000.123456789012345678");
  });

  it("still prices the other coins when Coinbase does not know one (its 400 error), and says why for that one", async () => {
    const { BNB: _gone, ...rest } = DEFAULT_COINBASE;
    upstream.reply(coinbaseReply(rest));
    const { feed: f } = feed();
    await expect(f.quote(crypto("BNB"), USD)).rejects.toThrow(/coinbase: HTTP 400.*Invalid currency/);
    expect((await f.quote(crypto("ETH"), USD)).rate.toFixed()).toBe("3000.5");
  });
});

describe("Coinbase: failures", () => {
  const withBtc = (rates: Record<string, unknown>) => (request: { url: URL }) =>
    request.url.searchParams.get("currency") === "BTC" ? { body: { data: { currency: "BTC", rates } } } : coinbaseReply()(request as never);
  const cases: [string, Parameters<FakeUpstream["reply"]>[0], RegExp, string][] = [
    ["HTTP 500 on every call", { status: 500, body: "" }, /coinbase: HTTP 500/, "http_error"],
    [
      "HTTP 403 with Coinbase's error body",
      { status: 403, body: { errors: [{ id: "forbidden", message: "Forbidden" }] } },
      /coinbase: HTTP 403/,
      "forbidden",
    ],
    ["an HTML page", { body: "<html>Just a moment…</html>" }, /coinbase: the answer is not JSON/, "garbage"],
    [
      "an errors array with status 200",
      { body: { errors: [{ id: "internal_server_error", message: "boom" }] } },
      /internal_server_error: boom/,
      "garbage",
    ],
    ["no data", { body: { warnings: [] } }, /no 'data.rates' object/, "garbage"],
    ["another coin's rates", { body: coinbaseBody("ETH", { USD: "3000" }) }, /asked for BTC rates, the answer is for 'ETH'/, "no_price"],
    ["a rate as a JSON number", withBtc({ USD: 65000.1 }), /the BTC rate in USD is not a string/, "no_price"],
    ["a missing currency", withBtc({ EUR: "60000" }), /the BTC answer has no USD rate/, "no_price"],
    ["a zero rate", withBtc({ USD: "0" }), /BTC in USD: the price 0 is not positive/, "no_price"],
    ["a rate that is not a number", withBtc({ USD: "65,000.00" }), /'65,000.00' is not a decimal number/, "no_price"],
  ];
  itRefuses(upstream, () => feed().feed.quote(crypto("BTC"), USD), cases);

  it("backs off the whole provider after a 429 on any coin, for its Retry-After", async () => {
    upstream.reply((request) =>
      request.url.searchParams.get("currency") === "ETH"
        ? { status: 429, body: { errors: [{ id: "rate_limit_exceeded", message: "Too many requests" }] }, headers: { "retry-after": "7" } }
        : coinbaseReply()(request),
    );
    const { feed: f, clock } = feed();
    await expect(f.quote(crypto("BTC"), USD)).rejects.toMatchObject({
      reason: "rate_limited",
      message: expect.stringMatching(/next attempt in 7 s/),
    });
    const calls = upstream.requests.length;
    await expect(f.quote(crypto("BTC"), USD)).rejects.toThrow(/rate limited/);
    expect(upstream.requests).toHaveLength(calls);
    upstream.reply(coinbaseReply());
    clock.advance(8);
    expect((await f.quote(crypto("BTC"), USD)).rate.toFixed()).toBe("65010.5");
  });

  it("times out, and logs once when it goes bad and once when it comes back", async () => {
    upstream.reply("hang");
    // One timeout for the hung answers and the good ones after: room for a loaded machine (CI once took over 150 ms to answer).
    const { feed: f, clock, logs } = feed({ timeoutMs: 1000, cacheSeconds: 0, maxAgeSeconds: 0 });
    await expect(f.quote(crypto("BTC"), USD)).rejects.toMatchObject({ reason: "timeout" });
    await expect(f.quote(crypto("BTC"), USD)).rejects.toMatchObject({ reason: "timeout" });
    expect(logs).toEqual([expect.stringMatching(/^price feed coinbase failed: coinbase: no complete answer within 1000 ms/)]);
    upstream.reply(coinbaseReply());
    clock.advance(20);
    await f.quote(crypto("BTC"), USD);
    await f.quote(crypto("BTC"), USD);
    expect(logs).toHaveLength(2);
    expect(logs[1]).toBe("price feed coinbase is back after 20 s of failures");
  });
});
