// The wiring of src/runtime.ts: live mode from the configured provider, test mode from test_rates.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.ts";
import { cryptoBySlug, fiatBySlug, type CryptoCurrency, type FiatCurrency } from "../../../src/core/money/currencies.ts";
import { createLiveFeed } from "../../../src/rails/prices/live.ts";
import { startRuntime, type Runtime } from "../../../src/runtime.ts";
import { createTestDatabase } from "../../support/test-database.ts";
import { coingeckoBody, krakenBody, startFakeUpstream, type FakeUpstream } from "./fake-upstream.ts";

const BTC = cryptoBySlug("BTC") as CryptoCurrency;
const USD = fiatBySlug("USD") as FiatCurrency;
const NGN = fiatBySlug("NGN") as FiatCurrency;

let coingecko: FakeUpstream;
let kraken: FakeUpstream;
let runtime: Runtime;
let dataDir: string;
let closeDb = async () => {};
const logs: string[] = [];

beforeAll(async () => {
  [coingecko, kraken] = await Promise.all([startFakeUpstream(), startFakeUpstream()]);
  coingecko.reply({ body: coingeckoBody() });
  kraken.reply({ body: krakenBody() });
  dataDir = mkdtempSync(path.join(tmpdir(), "paygate-prices-"));
  const env: Record<string, string | undefined> = {
    PAYGATE_DATA_DIR: dataDir,
    PAYGATE_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString("base64"),
    PAYGATE_PRICE_FEED: "kraken,coingecko",
    PAYGATE_KRAKEN_URL: kraken.url,
    PAYGATE_COINGECKO_URL: coingecko.url,
  };
  if (process.env.DATABASE_URL) {
    const db = await createTestDatabase();
    env.DATABASE_URL = db.url ?? undefined;
    closeDb = db.close;
  }
  runtime = await startRuntime(loadConfig(env), { log: (line) => logs.push(line) });
});
afterAll(async () => {
  await runtime?.close();
  await closeDb();
  await Promise.all([coingecko?.close(), kraken?.close()]);
  rmSync(dataDir, { recursive: true, force: true });
});

describe("runtime price wiring", () => {
  it("prices live mode from the configured providers in order, sharing one cache", async () => {
    const prices = runtime.prices;
    expect(await prices.quote(BTC, USD, true)).toMatchObject({ source: "kraken" });
    expect(await prices.quote(BTC, NGN, true)).toMatchObject({ source: "coingecko" });
    await prices.quote(BTC, USD, true);
    expect(kraken.requests).toHaveLength(1);
    expect(coingecko.requests).toHaveLength(1);
  });

  it("logs a failed upstream call", async () => {
    const gone = await startFakeUpstream();
    await gone.close(); // nothing listens there now
    const config = loadConfig({ PAYGATE_PRICE_FEED: "coingecko", PAYGATE_COINGECKO_URL: gone.url, PAYGATE_PRICE_CACHE_SECONDS: "0" });
    const lines: string[] = [];
    await expect(createLiveFeed(config.prices, (line) => lines.push(line)).quote(BTC, USD, true)).rejects.toThrow(/request failed/);
    expect(lines).toEqual([expect.stringMatching(/^price feed coingecko failed: coingecko: request failed/)]);
  });

  it("prices test mode from test_rates, falling back to the defaults, and sees a change at once", async () => {
    const prices = runtime.prices;
    expect(await prices.quote(BTC, USD, false)).toMatchObject({ source: "test-rates" });
    expect((await prices.quote(BTC, USD, false)).rate.toFixed()).toBe("65000");
    await runtime.gateway.operator.setTestRate({ crypto: "BTC", fiat: "USD", rate: "42000.5" });
    expect((await prices.quote(BTC, USD, false)).rate.toFixed()).toBe("42000.5");
    expect((await prices.quote(BTC, NGN, false)).rate.toFixed()).toBe("97500000");
  });
});
