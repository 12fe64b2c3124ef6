// Test mode's prices. Defaults in DEFAULT_TEST_RATES, so test amounts are predictable; an operator
// can change any pair with `paygate test-rates set CRYPTO FIAT RATE`, which writes the
// `test_rates` table. A pair without a row is priced from the defaults (the table is filled
// lazily, by `set`). The stored feed reads its one row per quote, so a change applies at once,
// to every instance sharing the database.
import { Decimal } from "../../core/money/amounts.ts";
import {
  CRYPTO_CURRENCIES,
  cryptoBySlug,
  FIAT_CURRENCIES,
  fiatBySlug,
  type CryptoCurrency,
  type CryptoSlug,
  type FiatCurrency,
  type FiatSlug,
} from "../../core/money/currencies.ts";
import type { PriceFeed, PriceQuote } from "../../core/ports.ts";
import type { Database } from "../../db/types.ts";
import { PriceFeedError } from "./errors.ts";
import { RATE_DECIMALS } from "./rates.ts";

export type RateTable = Partial<Record<CryptoSlug, Partial<Record<FiatSlug, string>>>>;

export const DEFAULT_TEST_RATES: RateTable = {
  USDT: { USD: "1", NGN: "1500" },
  BTC: { USD: "65000", NGN: "97500000" },
  BNB: { USD: "600", NGN: "900000" },
  ETH: { USD: "3000", NGN: "4500000" },
  LTC: { USD: "80", NGN: "120000" },
};

export const TEST_RATES_SOURCE = "test-rates";

/** Test prices from a fixed table in memory (the defaults unless given one). */
export class TestRatesFeed implements PriceFeed {
  constructor(
    private readonly table: RateTable = DEFAULT_TEST_RATES,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async quote(crypto: CryptoCurrency, fiat: FiatCurrency): Promise<PriceQuote> {
    const rate = this.table[crypto.slug]?.[fiat.slug];
    if (rate === undefined) throw new PriceFeedError(`No test rate for ${crypto.slug}/${fiat.slug}`);
    return { rate: new Decimal(rate), source: TEST_RATES_SOURCE, quotedAt: this.now() };
  }
}

/** Test prices from the `test_rates` table, falling back to the defaults: what the service uses. */
export class StoredTestRatesFeed implements PriceFeed {
  constructor(
    private readonly db: Database,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async quote(crypto: CryptoCurrency, fiat: FiatCurrency): Promise<PriceQuote> {
    const row = await this.db.testRate.findUnique({
      where: { cryptoSlug_fiatSlug: { cryptoSlug: crypto.slug, fiatSlug: fiat.slug } },
      select: { rate: true },
    });
    const rate = row ? row.rate.toString() : DEFAULT_TEST_RATES[crypto.slug]?.[fiat.slug];
    if (rate === undefined) throw new PriceFeedError(`No test rate for ${crypto.slug}/${fiat.slug}`);
    return { rate: new Decimal(rate), source: TEST_RATES_SOURCE, quotedAt: this.now() };
  }
}

export interface TestRateRow {
  crypto: CryptoSlug;
  fiat: FiatSlug;
  /** Fiat per one coin, as a plain decimal string. */
  rate: string;
  /** "set" when an operator set it, "default" when it comes from DEFAULT_TEST_RATES. */
  origin: "set" | "default";
  /** When it was set; null for a default. */
  updatedAt: string | null;
}

/** Every pair of the catalogue with the rate test mode uses for it now. */
export async function listTestRates(db: Database): Promise<TestRateRow[]> {
  const rows = await db.testRate.findMany();
  const stored = new Map(rows.map((r) => [`${r.cryptoSlug}/${r.fiatSlug}`, r]));
  const out: TestRateRow[] = [];
  for (const crypto of CRYPTO_CURRENCIES) {
    for (const fiat of FIAT_CURRENCIES) {
      const row = stored.get(`${crypto.slug}/${fiat.slug}`);
      const fallback = DEFAULT_TEST_RATES[crypto.slug]?.[fiat.slug];
      if (row) {
        out.push({ crypto: crypto.slug, fiat: fiat.slug, rate: plain(row.rate.toString()), origin: "set", updatedAt: row.updatedAt.toISOString() });
      } else if (fallback !== undefined) {
        out.push({ crypto: crypto.slug, fiat: fiat.slug, rate: plain(fallback), origin: "default", updatedAt: null });
      }
    }
  }
  return out;
}

export class TestRateInputError extends Error {}

export interface TestRateChange {
  crypto: CryptoSlug;
  fiat: FiatSlug;
  rate: string;
  previous: { rate: string; origin: "set" | "default" } | null;
  updatedAt: string;
}

/** Sets one pair's test rate. Slugs are case-insensitive; the rate a positive decimal such as "70000.5". */
export async function setTestRate(db: Database, input: { crypto: string; fiat: string; rate: string }): Promise<TestRateChange> {
  const { crypto, fiat, rate } = parseTestRate(input);
  const before = (await listTestRates(db)).find((r) => r.crypto === crypto.slug && r.fiat === fiat.slug);
  const key = { cryptoSlug: crypto.slug, fiatSlug: fiat.slug };
  const row = await db.testRate.upsert({
    where: { cryptoSlug_fiatSlug: key },
    create: { ...key, rate: rate.toFixed() },
    update: { rate: rate.toFixed() },
  });
  return {
    crypto: crypto.slug,
    fiat: fiat.slug,
    rate: plain(row.rate.toString()),
    previous: before ? { rate: before.rate, origin: before.origin } : null,
    updatedAt: row.updatedAt.toISOString(),
  };
}

const RATE_TEXT = /^(?:0|[1-9]\d*)(?:\.\d+)?$/;
/** NUMERIC(38,18): 20 digits before the point. */
const MAX_RATE = new Decimal("1e20");

/** Checks a pair and rate as an operator typed them; throws TestRateInputError saying what is wrong. */
export function parseTestRate(input: { crypto: string; fiat: string; rate: string }): { crypto: CryptoCurrency; fiat: FiatCurrency; rate: Decimal } {
  const crypto = cryptoBySlug(input.crypto.trim().toUpperCase());
  if (!crypto) throw new TestRateInputError(`CRYPTO must be one of ${CRYPTO_CURRENCIES.map((c) => c.slug).join(", ")}; got '${input.crypto}'.`);
  const fiat = fiatBySlug(input.fiat.trim().toUpperCase());
  if (!fiat) throw new TestRateInputError(`FIAT must be one of ${FIAT_CURRENCIES.map((c) => c.slug).join(", ")}; got '${input.fiat}'.`);
  const text = input.rate.trim();
  if (!RATE_TEXT.test(text)) {
    throw new TestRateInputError(`RATE must be a positive decimal such as 65000 or 0.25 (no sign, exponent or separators); got '${input.rate}'.`);
  }
  const rate = new Decimal(text);
  if (rate.lte(0)) throw new TestRateInputError(`RATE must be greater than 0; got '${input.rate}'.`);
  if (rate.decimalPlaces() > RATE_DECIMALS) throw new TestRateInputError(`RATE has more than ${RATE_DECIMALS} decimal places; got '${input.rate}'.`);
  if (rate.gte(MAX_RATE)) throw new TestRateInputError(`RATE must be below 1e20; got '${input.rate}'.`);
  return { crypto, fiat, rate };
}

/** "65000.000000000000000000" → "65000": what the operator typed, without the column's padding. */
function plain(text: string): string {
  return new Decimal(text).toFixed();
}
