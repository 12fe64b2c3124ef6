// A live-mode initiate over HTTP, priced by the CoinGecko client talking to a local fake CoinGecko.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { cryptoAmountFor, Decimal } from "../../../src/core/money/amounts.ts";
import { cryptoBySlug, type CryptoCurrency } from "../../../src/core/money/currencies.ts";
import { CoinGeckoFeed } from "../../../src/rails/prices/coingecko.ts";
import { ModeRoutedFeed } from "../../../src/rails/prices/index.ts";
import { TestRatesFeed } from "../../../src/rails/prices/test-rates.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { coingeckoBody, startFakeUpstream, type FakeUpstream } from "./fake-upstream.ts";
import { initializeBody } from "../../support/builders.ts";

// BIP84's published account key ("abandon … about"), a mainnet BTC wallet for live mode.
const BIP84_ZPUB = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs";
const BTC = cryptoBySlug("BTC") as CryptoCurrency;

let upstream: FakeUpstream;
let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  // No cache, so every initiate asks the fake CoinGecko and sees what the test set.
  const live = new CoinGeckoFeed({ baseUrl: upstream.url, cacheSeconds: 0, maxAgeSeconds: 0, timeoutMs: 2000 });
  t = await startTestGateway({ prices: new ModeRoutedFeed({ test: new TestRatesFeed(), live }) });
  keys = await t.merchant({ name: "Live Stores", kyb: "VERIFIED", wallets: [{ currency: BTC, isLive: true, extendedPublicKey: BIP84_ZPUB }] });
});
afterAll(async () => {
  await t?.close();
  await upstream?.close();
});
beforeEach(() => {
  upstream.requests.length = 0;
  upstream.reply({ body: coingeckoBody() });
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
async function initialize(publicKey: string, currency: string, amount: string): Promise<string> {
  const res = await t.post("/v1/transaction", initializeBody({ currency, amount }), bearer(publicKey));
  expect(res.status).toBe(201);
  return res.body.data.id as string;
}

describe("live initiate priced by CoinGecko", () => {
  it("locks CoinGecko's exact USD rate and prices the payment from it", async () => {
    const id = await initialize(keys.livePublicKey, "USD", "100");
    const res = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.liveSecretKey));
    expect(res.status).toBe(200);
    const expected = cryptoAmountFor(new Decimal("100"), new Decimal("65000.12345678"), BTC);
    // 100 / 65000.12345678 = 0.0015384586…, rounded up to 8 places (at a flat 65000 it would be 0.00153847).
    expect(expected.toFixed()).toBe("0.00153846");
    expect(res.body.data).toMatchObject({ status: "PENDING", is_live: true, payment_currency: 4, payment_amount: Number(expected.toFixed()) });
    expect(res.body.data.payment_address).toMatch(/^bc1q/);
    expect(res.body.data.meta.quote).toMatchObject({ rate: "65000.12345678", source: "coingecko" });
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]?.path).toBe("/api/v3/simple/price");

    const row = await t.db.transaction.findUniqueOrThrow({ where: { id } });
    expect(row.quoteRate?.toString()).toBe("65000.12345678");
    expect(row.quoteSource).toBe("coingecko");
    expect(row.paymentAmount?.toString()).toBe("0.00153846");
  });

  it("prices NGN from CoinGecko's NGN rate", async () => {
    upstream.reply({ body: coingeckoBody({ bitcoin: { usd: "65000", ngn: "99450188.888888888" } }) });
    const id = await initialize(keys.livePublicKey, "NGN", "150000.50");
    const res = await t.post(`/v1/transaction/${id}/pay`, { currency_id: 4 }, bearer(keys.liveSecretKey));
    expect(res.status).toBe(200);
    const expected = cryptoAmountFor(new Decimal("150000.50"), new Decimal("99450188.888888888"), BTC);
    expect(res.body.data.payment_amount).toBe(Number(expected.toFixed()));
    expect(res.body.data.meta.quote).toMatchObject({ rate: "99450188.888888888", source: "coingecko" });
  });

  it("answers 503 when CoinGecko answers 500, changes nothing, and succeeds on retry", async () => {
    const id = await initialize(keys.livePublicKey, "USD", "25");
    upstream.reply({ status: 500, body: "upstream down" });
    const res = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.liveSecretKey));
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ status: "error", code: "upstream_unavailable", reason: "quote_unavailable" });
    expect(res.body.message).toMatch(/BTC\/USD.*retry/);
    expect((await t.db.transaction.findUniqueOrThrow({ where: { id } })).status).toBe("INITIATED");

    upstream.reply({ body: coingeckoBody() });
    const retry = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.liveSecretKey));
    expect(retry.status).toBe(200);
    expect(retry.body.data.meta.quote.source).toBe("coingecko");
  });

  it("answers 503 when CoinGecko's answer lacks the coin or prices it at zero", async () => {
    for (const body of [coingeckoBody({ tether: { usd: "1", ngn: "1500" } }), coingeckoBody({ bitcoin: { usd: "0", ngn: "0" } })]) {
      upstream.reply({ body });
      const id = await initialize(keys.livePublicKey, "USD", "10");
      const res = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.liveSecretKey));
      expect(res.status).toBe(503);
      expect(res.body.reason).toBe("quote_unavailable");
    }
  });

  it("leaves test mode on the test rates, without asking CoinGecko", async () => {
    const id = await initialize(keys.testPublicKey, "USD", "100");
    const res = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.testSecretKey));
    expect(res.status).toBe(200);
    expect(res.body.data.meta.quote).toMatchObject({ rate: "65000", source: "test-rates" });
    expect(upstream.requests).toHaveLength(0);
  });
});
