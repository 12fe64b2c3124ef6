// Test mode's rates: the defaults, changed per pair in the test_rates table.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cryptoBySlug, fiatBySlug, type CryptoCurrency, type FiatCurrency } from "../../../src/core/money/currencies.ts";
import { openDatabaseOn, type OpenDatabase } from "../../../src/db/database.ts";
import { PaygateError } from "../../../src/core/errors.ts";
import { DEFAULT_TEST_RATES, listTestRates, operatorTestRates, parseTestRate, setTestRate } from "../../../src/core/test-rates.ts";
import { prismaStores } from "../../../src/db/stores/index.ts";
import { StoredTestRatesFeed, TestRatesFeed } from "../../../src/rails/prices/test-rates.ts";
import { createTestDatabase } from "../../support/test-database.ts";

const BTC = cryptoBySlug("BTC") as CryptoCurrency;
const ETH = cryptoBySlug("ETH") as CryptoCurrency;
const USD = fiatBySlug("USD") as FiatCurrency;
const NGN = fiatBySlug("NGN") as FiatCurrency;

let database: OpenDatabase;
beforeAll(async () => {
  const testDb = await createTestDatabase();
  database = await openDatabaseOn({ factory: testDb.factory, close: testDb.close, query: testDb.query }, { migrate: false });
});
afterAll(() => database.close());

describe("test rates", () => {
  it("prices from the defaults while the table is empty", async () => {
    const feed = new StoredTestRatesFeed(operatorTestRates(prismaStores(database.db).testRates));
    const quote = await feed.quote(BTC, USD);
    expect(quote).toMatchObject({ source: "test-rates" });
    expect(quote.rate.toFixed()).toBe("65000");
    expect((await feed.quote(ETH, NGN)).rate.toFixed()).toBe(DEFAULT_TEST_RATES.ETH?.NGN);
    expect((await listTestRates({ stores: prismaStores(database.db) })).every((r) => r.origin === "default")).toBe(true);
  });

  it("uses a rate an operator set at once, for that pair only", async () => {
    const change = await setTestRate({ stores: prismaStores(database.db) }, { crypto: "btc", fiat: "usd", rate: "70000.123456789012345678" });
    expect(change).toMatchObject({ crypto: "BTC", fiat: "USD", rate: "70000.123456789012345678", previous: { rate: "65000", origin: "default" } });
    const feed = new StoredTestRatesFeed(operatorTestRates(prismaStores(database.db).testRates));
    expect((await feed.quote(BTC, USD)).rate.toFixed()).toBe("70000.123456789012345678");
    expect((await feed.quote(BTC, NGN)).rate.toFixed()).toBe("97500000");

    const again = await setTestRate({ stores: prismaStores(database.db) }, { crypto: "BTC", fiat: "USD", rate: "71000" });
    expect(again.previous).toEqual({ rate: "70000.123456789012345678", origin: "set" });
    expect((await feed.quote(BTC, USD)).rate.toFixed()).toBe("71000");

    const rows = await listTestRates({ stores: prismaStores(database.db) });
    // Six coins (USDC is issue 43's extension) × two fiats.
    expect(rows).toHaveLength(12);
    expect(rows.find((r) => r.crypto === "BTC" && r.fiat === "USD")).toMatchObject({ rate: "71000", origin: "set" });
    expect(rows.find((r) => r.crypto === "BTC" && r.fiat === "NGN")).toMatchObject({ rate: "97500000", origin: "default", updatedAt: null });
  });

  const bad: [string, { crypto: string; fiat: string; rate: string }, RegExp][] = [
    ["an unknown coin", { crypto: "DOGE", fiat: "USD", rate: "1" }, /CRYPTO must be one of USDT, BTC, BNB, ETH, LTC, USDC/],
    ["a fiat as the coin", { crypto: "USD", fiat: "USD", rate: "1" }, /CRYPTO must be one of/],
    ["an unknown fiat", { crypto: "BTC", fiat: "EUR", rate: "1" }, /FIAT must be one of USD, NGN/],
    ["zero", { crypto: "BTC", fiat: "USD", rate: "0" }, /greater than 0/],
    ["a negative rate", { crypto: "BTC", fiat: "USD", rate: "-5" }, /positive decimal/],
    ["an exponent", { crypto: "BTC", fiat: "USD", rate: "6.5e4" }, /positive decimal/],
    ["separators", { crypto: "BTC", fiat: "USD", rate: "65,000" }, /positive decimal/],
    ["text", { crypto: "BTC", fiat: "USD", rate: "lots" }, /positive decimal/],
    ["19 decimals", { crypto: "BTC", fiat: "USD", rate: "1.0000000000000000001" }, /more than 18 decimal places/],
    ["a rate too large for the column", { crypto: "BTC", fiat: "USD", rate: "100000000000000000000" }, /below 1e20/],
  ];
  for (const [name, input, message] of bad) {
    it(`refuses ${name}`, () => {
      expect(() => parseTestRate(input)).toThrow(PaygateError);
      expect(() => parseTestRate(input)).toThrow(message);
    });
  }

  it("keeps the in-memory table for the contract tests", async () => {
    expect((await new TestRatesFeed().quote(BTC, USD)).rate.toFixed()).toBe("65000");
    await expect(new TestRatesFeed({}).quote(BTC, USD)).rejects.toThrow(/No test rate for BTC\/USD/);
  });
});
