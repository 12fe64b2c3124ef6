// Merchant pricing (issue 29): a spread per merchant taken off the market rate in its favour, and
// its choice of price providers and their order. Set over REST (secret key), the dashboard API
// (owners, audited) and the gateway the CLI calls; initiate applies both: the spread exactly (the
// quote shows the market rate, the spread and the rate used), the providers as a subset of the
// median (only they are asked, in the merchant's order) or in order for the first-fresh strategy,
// each a real client against a local server answering as the provider does. Bad input: 400 naming
// the field, nothing changed. On PGlite, and PostgreSQL with DATABASE_URL.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { CoinbaseFeed } from "../../src/rails/prices/coinbase.ts";
import { CoinGeckoFeed } from "../../src/rails/prices/coingecko.ts";
import { FallbackFeed, ModeRoutedFeed } from "../../src/rails/prices/index.ts";
import { KrakenFeed } from "../../src/rails/prices/kraken.ts";
import { BinanceFeed } from "../../src/rails/prices/binance.ts";
import { MedianFeed } from "../../src/rails/prices/median.ts";
import { DEFAULT_TEST_RATES, TestRatesFeed } from "../../src/rails/prices/test-rates.ts";
import { initializeBody } from "../support/builders.ts";
import { signedInAs } from "../support/dashboard.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { binanceReply, coinbaseReply, coingeckoBody, krakenBody, startFakeUpstream, type FakeUpstream } from "../rails/prices/fake-upstream.ts";

// BIP84's published account key ("abandon … about"), a mainnet BTC wallet for live mode.
const BIP84_ZPUB = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs";
const BTC = cryptoBySlug("BTC") as CryptoCurrency;
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

let coingecko: FakeUpstream;
let kraken: FakeUpstream;
let coinbase: FakeUpstream;
let binance: FakeUpstream;
const upstreams = () => [coingecko, kraken, coinbase, binance];

beforeAll(async () => {
  [coingecko, kraken, coinbase, binance] = await Promise.all([startFakeUpstream(), startFakeUpstream(), startFakeUpstream(), startFakeUpstream()]);
});
afterAll(async () => {
  await Promise.all(upstreams().map((u) => u?.close()));
});
beforeEach(() => {
  coingecko.reply({ body: coingeckoBody() });
  kraken.reply({ body: krakenBody() });
  coinbase.reply(coinbaseReply());
  binance.reply(binanceReply());
});

/** The four real clients, uncached: every quote asks the providers it names and sees what the test set. */
function providerFeeds() {
  const common = { cacheSeconds: 0, maxAgeSeconds: 0, timeoutMs: 1500 };
  return [
    new CoinGeckoFeed({ ...common, baseUrl: coingecko.url }),
    new KrakenFeed({ ...common, baseUrl: kraken.url }),
    new CoinbaseFeed({ ...common, baseUrl: coinbase.url }),
    new BinanceFeed({ ...common, baseUrl: binance.url }),
  ];
}

type Keys = Awaited<ReturnType<TestGateway["merchant"]>>;

async function liveMerchant(t: TestGateway, name: string): Promise<Keys> {
  return t.merchant({ name, kyb: "VERIFIED", wallets: [{ currency: BTC, isLive: true, extendedPublicKey: BIP84_ZPUB }] });
}

async function initiate(t: TestGateway, keys: Keys, mode: "test" | "live", amount = "100") {
  const publicKey = mode === "live" ? keys.livePublicKey : keys.testPublicKey;
  const secretKey = mode === "live" ? keys.liveSecretKey : keys.testSecretKey;
  const init = await t.post("/v1/transaction", initializeBody({ amount }), bearer(publicKey));
  expect(init.status).toBe(201);
  return t.post(`/v1/transaction/${init.body.data.id}/pay`, { currency_id: "4" }, bearer(secretKey));
}

const getPricing = async (t: TestGateway, key: string) => {
  const res = await fetch(`${t.url}/v1/merchant/pricing`, { headers: bearer(key) });
  return { status: res.status, body: (await res.json()) as any };
};

describe("merchant pricing with the median of four providers", () => {
  let t: TestGateway;
  let keys: Keys;
  beforeAll(async () => {
    const live = new MedianFeed(providerFeeds(), { quorum: 2, maxSpreadPercent: new Decimal("2") });
    t = await startTestGateway({ prices: new ModeRoutedFeed({ test: new TestRatesFeed(), live }) });
    keys = await liveMerchant(t, "Margin Stores");
  });
  afterAll(() => t?.close());

  it("shows no spread and the operator's providers by default, and the spec's initiate prices at the market rate", async () => {
    const shown = await getPricing(t, keys.testSecretKey);
    expect(shown).toEqual({
      status: 200,
      body: {
        status: "success",
        data: {
          spread_percent: "0",
          sources: [],
          available_sources: ["coingecko", "kraken", "coinbase", "binance"],
          minimum_sources: 2,
          spread_bounds: { min: "0", max: "10" },
        },
        meta: {},
      },
    });
    const paid = await initiate(t, keys, "test");
    expect(paid.status).toBe(200);
    expect(paid.body.data.meta.quote).toMatchObject({ rate: "65000", market_rate: "65000", spread_percent: "0" });
    expect(paid.body.data.payment_amount).toBe(Number(new Decimal(100).div(65000).toDecimalPlaces(8, Decimal.ROUND_UP).toFixed()));
  });

  it("applies the spread exactly, in the merchant's favour, and shows the market rate, the spread and the rate used", async () => {
    const set = await t.post("/v1/merchant/pricing", { spread: "1.5" }, bearer(keys.liveSecretKey));
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({ spread_percent: "1.5", sources: [] });

    const market = new Decimal(DEFAULT_TEST_RATES.BTC?.USD as string);
    const used = market.times(new Decimal(1).minus(new Decimal("1.5").div(100)));
    const paid = await initiate(t, keys, "test", "100");
    expect(paid.status).toBe(200);
    const quote = paid.body.data.meta.quote;
    expect(quote).toMatchObject({ rate: used.toFixed(), market_rate: market.toFixed(), spread_percent: "1.5" });
    expect(quote.rate).toBe("64025");
    // Lower rate: more coin for the same fiat, rounded up to the coin's 8 decimals.
    const due = new Decimal(100).div(used).toDecimalPlaces(8, Decimal.ROUND_UP);
    expect(paid.body.data.payment_amount).toBe(Number(due.toFixed()));
    expect(due.gt(new Decimal(100).div(market))).toBe(true);

    const row = await t.db.transaction.findUniqueOrThrow({ where: { id: paid.body.data.id } });
    expect(row.quoteRate?.toString()).toBe("64025");
    expect(row.quoteMarketRate?.toString()).toBe("65000");
    expect(row.quoteSpreadPercent?.toString()).toBe("1.5");

    // GraphQL shows the same quote.
    const gql = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { ...bearer(keys.testSecretKey), "content-type": "application/json" },
      body: JSON.stringify({ query: `{ transaction(id: "${paid.body.data.id}") { quote { rate marketRate spreadPercent } } }` }),
    });
    expect(((await gql.json()) as any).data.transaction.quote).toEqual({ rate: "64025", marketRate: "65000", spreadPercent: "1.5" });
  });

  it("a rate with more than 18 decimals after the spread is rounded down: never less coin than exact", async () => {
    expect((await t.post("/v1/merchant/pricing", { spread: "0.0003" }, bearer(keys.liveSecretKey))).status).toBe(200);
    const paid = await initiate(t, keys, "test", "100");
    const rate = new Decimal(paid.body.data.meta.quote.rate);
    expect(rate.toFixed()).toBe(new Decimal("65000").times("0.999997").toFixed());
    expect((await t.post("/v1/merchant/pricing", { spread: "0" }, bearer(keys.liveSecretKey))).body.data.spread_percent).toBe("0");
  });

  it("asks only the merchant's providers, in its order, for the median; none chosen again: all of them", async () => {
    const set = await t.post("/v1/merchant/pricing", { sources: ["Coinbase", "kraken"] }, bearer(keys.liveSecretKey));
    expect(set.status).toBe(200);
    expect(set.body.data.sources).toEqual(["coinbase", "kraken"]);
    const before = upstreams().map((u) => u.requests.length);
    const paid = await initiate(t, keys, "live");
    expect(paid.status).toBe(200);
    const quote = paid.body.data.meta.quote;
    expect(quote.sources.map((s: { provider: string }) => s.provider)).toEqual(["coinbase", "kraken"]);
    // The median of the two: (65010.5 + 65000.12345678) / 2.
    expect(quote).toMatchObject({ source: "median", market_rate: "65005.31172839", rate: "65005.31172839", spread_percent: "0" });
    const asked = upstreams().map((u, i) => u.requests.length - (before[i] as number));
    expect(asked[0]).toBe(0); // coingecko
    expect(asked[1]).toBeGreaterThan(0); // kraken
    expect(asked[2]).toBeGreaterThan(0); // coinbase
    expect(asked[3]).toBe(0); // binance

    expect((await t.post("/v1/merchant/pricing", { sources: null }, bearer(keys.liveSecretKey))).body.data.sources).toEqual([]);
    const all = await initiate(t, keys, "live");
    expect(all.body.data.meta.quote.sources.map((s: { provider: string }) => s.provider)).toEqual(["coingecko", "kraken", "coinbase", "binance"]);
  });

  it("refuses bad input with 400 naming the field, and changes nothing", async () => {
    await t.post("/v1/merchant/pricing", { spread: "2", sources: ["kraken", "binance"] }, bearer(keys.liveSecretKey));
    const cases: [unknown, string, string][] = [
      [{ spread: "10.5" }, "spread", "spread must be a decimal string from 0 to 10 (percent), with at most 4 decimal places"],
      [{ spread: "-1" }, "spread", "spread must be a decimal string from 0 to 10 (percent), with at most 4 decimal places"],
      [{ spread: 1.5 }, "spread", "spread must be a decimal string from 0 to 10 (percent), with at most 4 decimal places"],
      [{ spread: "1.23456" }, "spread", "spread must be a decimal string from 0 to 10 (percent), with at most 4 decimal places"],
      [{ spread: "abc" }, "spread", "spread must be a decimal string from 0 to 10 (percent), with at most 4 decimal places"],
      [
        { sources: ["bitstamp", "kraken"] },
        "sources",
        "sources: unknown provider 'bitstamp'; the known ones are coingecko, kraken, coinbase, binance",
      ],
      [
        { sources: ["kraken"] },
        "sources",
        "sources must name at least 2 providers (the quorum of PAYGATE_PRICE_QUORUM), from: coingecko, kraken, coinbase, binance",
      ],
      [{ sources: ["kraken", "kraken"] }, "sources", "sources: name each provider once"],
      [{ sources: "kraken,coinbase" }, "sources", "sources must be a list of price providers, from: coingecko, kraken, coinbase, binance"],
      [{ margin: "1" }, "margin", "margin: unknown field; send spread and/or sources"],
    ];
    for (const [body, field, message] of cases) {
      const res = await t.post("/v1/merchant/pricing", body, bearer(keys.liveSecretKey));
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ status: "error", code: "validation_error", reason: "invalid_pricing", message });
      expect(res.body.errors).toEqual([{ field, message }]);
    }
    const notJson = await fetch(`${t.url}/v1/merchant/pricing`, {
      method: "POST",
      headers: { ...bearer(keys.liveSecretKey), "content-type": "application/json" },
      body: "{",
    });
    expect(notJson.status).toBe(400);
    const array = await t.post("/v1/merchant/pricing", ["kraken"], bearer(keys.liveSecretKey));
    expect(array.status).toBe(400);
    expect(array.body.message).toMatch(/^the body must be a JSON object/);

    const shown = await getPricing(t, keys.testSecretKey);
    expect(shown.body.data).toMatchObject({ spread_percent: "2", sources: ["kraken", "binance"] });
    await t.post("/v1/merchant/pricing", { spread: null, sources: [] }, bearer(keys.liveSecretKey));
  });

  it("takes the secret key only", async () => {
    for (const key of [keys.testPublicKey, "sec_test_unknown"]) {
      const get = await getPricing(t, key);
      expect(get.status).toBe(401);
      expect(get.body).toMatchObject({ status: "error", reason: "invalid_secret_key" });
      const post = await t.post("/v1/merchant/pricing", { spread: "1" }, bearer(key));
      expect(post.status).toBe(401);
    }
    const none = await fetch(`${t.url}/v1/merchant/pricing`);
    expect(none.status).toBe(401);
    expect((await getPricing(t, keys.testSecretKey)).body.data.spread_percent).toBe("0");
  });

  it("the dashboard: every role reads, owners change it (audited), others are refused", async () => {
    const other = await t.merchant({ name: "Dashboard Pricing" });
    const owner = await signedInAs(t, other.id, "owner");
    const developer = await signedInAs(t, other.id, "developer");
    const viewer = await signedInAs(t, other.id, "viewer");
    expect((await viewer.get("/dashboard/api/pricing")).body.data).toMatchObject({ spread_percent: "0", sources: [] });

    for (const client of [developer, viewer]) {
      const refused = await client.request("PUT", "/dashboard/api/pricing", { spread: "1" });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ reason: "role_forbidden" });
      expect(refused.body.message).toMatch(/cannot manage pricing; ask an owner of this merchant for the owner role/);
    }
    const bad = await owner.request("PUT", "/dashboard/api/pricing", { sources: ["kraken", "ftx"] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("sources: unknown provider 'ftx'; the known ones are coingecko, kraken, coinbase, binance");

    const saved = await owner.request("PUT", "/dashboard/api/pricing", { spread: "2.25", sources: ["binance", "coingecko"] });
    expect(saved.status).toBe(200);
    expect(saved.body.data).toMatchObject({ spread_percent: "2.25", sources: ["binance", "coingecko"] });
    const entries = (await owner.get("/dashboard/api/audit-log?limit=5")).body.data.entries as { action: string; target: string }[];
    expect(entries[0]).toMatchObject({ action: "pricing.set", target: "spread 2.25%, sources binance,coingecko" });
    // Its REST view is the same.
    expect((await getPricing(t, other.liveSecretKey)).body.data).toMatchObject({ spread_percent: "2.25", sources: ["binance", "coingecko"] });
  });
});

describe("merchant pricing with the first fresh provider (PAYGATE_PRICE_STRATEGY=first)", () => {
  let t: TestGateway;
  let keys: Keys;
  beforeAll(async () => {
    const live = new FallbackFeed(providerFeeds());
    t = await startTestGateway({ prices: new ModeRoutedFeed({ test: new TestRatesFeed(), live }) });
    keys = await liveMerchant(t, "First Stores");
  });
  afterAll(() => t?.close());

  it("takes the first fresh provider in the merchant's order, and one provider is a valid choice", async () => {
    expect((await getPricing(t, keys.liveSecretKey)).body.data.minimum_sources).toBe(1);
    expect((await t.post("/v1/merchant/pricing", { sources: ["coinbase", "kraken"] }, bearer(keys.liveSecretKey))).status).toBe(200);
    const first = await initiate(t, keys, "live");
    expect(first.body.data.meta.quote).toMatchObject({ source: "coinbase", rate: "65010.5" });

    coinbase.reply({ status: 429, body: { message: "slow down" }, headers: { "retry-after": "0" } });
    const next = await initiate(t, keys, "live");
    expect(next.body.data.meta.quote).toMatchObject({ source: "kraken", rate: "65000.12345678" });

    expect((await t.post("/v1/merchant/pricing", { sources: ["binance"], spread: "1" }, bearer(keys.liveSecretKey))).status).toBe(200);
    const binanceOnly = await initiate(t, keys, "live");
    expect(binanceOnly.body.data.meta.quote).toMatchObject({
      source: "binance",
      market_rate: "64990.01",
      spread_percent: "1",
      rate: new Decimal("64990.01").times("0.99").toFixed(),
    });
  });

  it("the payment options the checkout shows are priced the same way", async () => {
    await t.post("/v1/merchant/pricing", { sources: ["kraken"], spread: "1" }, bearer(keys.liveSecretKey));
    const init = await t.post("/v1/transaction", initializeBody({ amount: "100" }), bearer(keys.livePublicKey));
    const res = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { ...bearer(keys.liveSecretKey), "content-type": "application/json" },
      body: JSON.stringify({ query: `{ paymentOptions(transactionId: "${init.body.data.id}") { options { currency { slug } amount rate } } }` }),
    });
    const body = (await res.json()) as any;
    const btc = body.data.paymentOptions.options.find((o: { currency: { slug: string } }) => o.currency.slug === "BTC");
    const rate = new Decimal("65000.12345678").times("0.99").toDecimalPlaces(18, Decimal.ROUND_DOWN);
    expect(btc).toMatchObject({ rate: rate.toFixed(), amount: new Decimal(100).div(rate).toDecimalPlaces(8, Decimal.ROUND_UP).toFixed() });
  });
});
