// REST initiate in live mode priced by the median of four real clients talking to local servers
// that answer as CoinGecko, Kraken, Coinbase and Binance do: the locked quote records each
// provider's part (stored, and shown in the transaction view), and a quote the providers cannot
// agree on is a 503 quote_unavailable naming them and why. On PGlite, and PostgreSQL with DATABASE_URL.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Decimal } from "../../../src/core/money/amounts.ts";
import { cryptoBySlug, type CryptoCurrency } from "../../../src/core/money/currencies.ts";
import { BinanceFeed } from "../../../src/rails/prices/binance.ts";
import { CoinbaseFeed } from "../../../src/rails/prices/coinbase.ts";
import { CoinGeckoFeed } from "../../../src/rails/prices/coingecko.ts";
import { ModeRoutedFeed } from "../../../src/rails/prices/index.ts";
import { KrakenFeed } from "../../../src/rails/prices/kraken.ts";
import { MedianFeed } from "../../../src/rails/prices/median.ts";
import { TestRatesFeed } from "../../../src/rails/prices/test-rates.ts";
import { initializeBody } from "../../support/builders.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { binanceReply, coinbaseReply, coingeckoBody, DEFAULT_COINBASE, krakenBody, startFakeUpstream, type FakeUpstream } from "./fake-upstream.ts";

// BIP84's published account key ("abandon … about"), a mainnet BTC wallet for live mode.
const BIP84_ZPUB = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs";
const BTC = cryptoBySlug("BTC") as CryptoCurrency;

let coingecko: FakeUpstream;
let kraken: FakeUpstream;
let coinbase: FakeUpstream;
let binance: FakeUpstream;
let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;

beforeAll(async () => {
  [coingecko, kraken, coinbase, binance] = await Promise.all([startFakeUpstream(), startFakeUpstream(), startFakeUpstream(), startFakeUpstream()]);
  // No cache: every initiate asks every provider and sees what the test set.
  const common = { cacheSeconds: 0, maxAgeSeconds: 0, timeoutMs: 1500 };
  const live = new MedianFeed(
    [
      new CoinGeckoFeed({ ...common, baseUrl: coingecko.url }),
      new KrakenFeed({ ...common, baseUrl: kraken.url }),
      new CoinbaseFeed({ ...common, baseUrl: coinbase.url }),
      new BinanceFeed({ ...common, baseUrl: binance.url }),
    ],
    { quorum: 2, maxSpreadPercent: new Decimal("2") },
  );
  t = await startTestGateway({ prices: new ModeRoutedFeed({ test: new TestRatesFeed(), live }) });
  keys = await t.merchant({ name: "Median Stores", kyb: "VERIFIED", wallets: [{ currency: BTC, isLive: true, extendedPublicKey: BIP84_ZPUB }] });
});
afterAll(async () => {
  await t?.close();
  await Promise.all([coingecko, kraken, coinbase, binance].map((u) => u?.close()));
});
beforeEach(() => {
  coingecko.reply({ body: coingeckoBody() });
  kraken.reply({ body: krakenBody() });
  coinbase.reply(coinbaseReply());
  binance.reply(binanceReply());
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
async function initialize(currency: string, amount: string): Promise<string> {
  const res = await t.post("/v1/transaction", initializeBody({ currency, amount }), bearer(keys.livePublicKey));
  expect(res.status).toBe(201);
  return res.body.data.id as string;
}
const pay = (id: string) => t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.liveSecretKey));

describe("live initiate priced by the median of the providers", () => {
  it("locks the median, leaves the wrong provider out, and shows every provider's part in the transaction", async () => {
    coinbase.reply(coinbaseReply({ ...DEFAULT_COINBASE, BTC: { USD: "90000", NGN: "1" } }));
    const id = await initialize("USD", "100");
    const res = await pay(id);
    expect(res.status).toBe(200);
    const quote = res.body.data.meta.quote;
    expect(quote).toMatchObject({ rate: "65000.12345678", source: "median" });
    expect(quote.sources).toEqual([
      {
        provider: "coingecko",
        rate: "65000.12345678",
        quoted_at: expect.any(String),
        used: true,
        reason: null,
        detail: "0% from the median 65000.12345678",
      },
      {
        provider: "kraken",
        rate: "65000.12345678",
        quoted_at: expect.any(String),
        used: true,
        reason: null,
        detail: "0% from the median 65000.12345678",
      },
      {
        provider: "coinbase",
        rate: "90000",
        quoted_at: expect.any(String),
        used: false,
        reason: "out_of_spread",
        detail: "38.46% from the median 65000.12345678",
      },
      {
        provider: "binance",
        rate: "64990.01",
        quoted_at: expect.any(String),
        used: true,
        reason: null,
        detail: "BTCUSDT 64990.01, USDT at par with USD; 0.02% from the median 65000.12345678",
      },
    ]);

    const row = await t.db.transaction.findUniqueOrThrow({ where: { id } });
    expect(row.quoteRate?.toString()).toBe("65000.12345678");
    expect(row.quoteSource).toBe("median");
    expect(row.quoteSources).toEqual(
      expect.arrayContaining([expect.objectContaining({ provider: "coinbase", rate: "90000", used: false, reason: "out_of_spread" })]),
    );

    const view = await fetch(`${t.url}/v1/transaction/${id}`, { headers: bearer(keys.liveSecretKey) });
    expect(view.status).toBe(200);
    expect(((await view.json()) as { data: { meta: { quote: unknown } } }).data.meta.quote).toEqual(quote);
  });

  it("shows the sources in GraphQL too", async () => {
    coinbase.reply(coinbaseReply({ ...DEFAULT_COINBASE, BTC: { USD: "90000", NGN: "1" } }));
    const id = await initialize("USD", "50");
    expect((await pay(id)).status).toBe(200);
    const res = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { ...bearer(keys.liveSecretKey), "content-type": "application/json" },
      body: JSON.stringify({ query: `{ transaction(id: "${id}") { quote { rate source sources { provider rate used reason } } } }` }),
    });
    const body = (await res.json()) as { data: { transaction: { quote: unknown } } };
    expect(body.data.transaction.quote).toEqual({
      rate: "65000.12345678",
      source: "median",
      sources: [
        { provider: "coingecko", rate: "65000.12345678", used: true, reason: null },
        { provider: "kraken", rate: "65000.12345678", used: true, reason: null },
        { provider: "coinbase", rate: "90000", used: false, reason: "out_of_spread" },
        { provider: "binance", rate: "64990.01", used: true, reason: null },
      ],
    });
  });

  it("answers 503 quote_unavailable naming each provider and why, changes nothing, and succeeds once two agree", async () => {
    coingecko.reply({ status: 403, body: { status: { error_code: 10010, error_message: "API key required" } } });
    kraken.reply({ body: { error: ["EQuery:Unknown asset pair"] } });
    coinbase.reply({ body: "<html>Just a moment…</html>" });
    const id = await initialize("USD", "25");
    const res = await pay(id);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ status: "error", code: "upstream_unavailable", reason: "quote_unavailable" });
    expect(res.body.message).toBe(
      "No price quote for BTC/USD is available right now (1 of the 2 providers needed agree within 2% of the median: " +
        "coingecko forbidden; kraken garbage; coinbase garbage; binance 64990.01); retry shortly",
    );
    const row = await t.db.transaction.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ status: "INITIATED", quoteRate: null, quoteSources: null });

    coingecko.reply({ body: coingeckoBody() });
    const retry = await pay(id);
    expect(retry.status).toBe(200);
    // coingecko 65000.12345678 and binance 64990.01 (kraken and coinbase still garbage).
    expect(retry.body.data.meta.quote.rate).toBe("64995.06672839");
  });

  // Last of the live tests: Kraken's Retry-After outlasts it.
  it("answers 503 when a provider hangs, one is rate limited, and the one left cannot make the quorum alone", async () => {
    coingecko.reply("hang");
    kraken.reply({ status: 429, body: "", headers: { "retry-after": "5" } });
    coinbase.reply({ status: 500, body: { errors: [{ id: "internal_server_error", message: "Internal server error" }] } });
    const id = await initialize("USD", "10");
    const res = await pay(id);
    expect(res.status).toBe(503);
    expect(res.body.message).toMatch(/coingecko timeout; kraken rate_limited; coinbase http_error; binance 64990.01\); retry shortly$/);
  });

  it("leaves test mode on the test rates, with no sources", async () => {
    const res0 = await t.post("/v1/transaction", initializeBody({ currency: "USD", amount: "100" }), bearer(keys.testPublicKey));
    const res = await t.post(`/v1/transaction/${res0.body.data.id}/pay`, { currency_id: "4" }, bearer(keys.testSecretKey));
    expect(res.status).toBe(200);
    expect(res.body.data.meta.quote).toEqual({
      rate: "65000",
      market_rate: "65000",
      spread_percent: "0",
      source: "test-rates",
      quoted_at: expect.any(String),
    });
  });
});
