// Test mode's prices. Defaults in DEFAULT_TEST_RATES, so test amounts are predictable; an operator
// can change any pair (`paygate test-rates set CRYPTO FIAT RATE`), which the TestRateStore keeps. A
// pair without a stored rate is priced from the defaults. The service's test-mode feed
// (src/rails/prices/test-rates.ts) reads the store per quote, so a change applies at once, everywhere.
import type { CoreDeps } from "./deps.ts";
import { errors } from "./errors.ts";
import type { TestRateStore } from "./stores/test-rates.ts";
import { Decimal, isNumericString, MAX_RATE, RATE_DECIMALS } from "./money/amounts.ts";
import {
  CRYPTO_CURRENCIES,
  cryptoBySlug,
  FIAT_CURRENCIES,
  fiatBySlug,
  type CryptoCurrency,
  type CryptoSlug,
  type FiatCurrency,
  type FiatSlug,
} from "./money/currencies.ts";

export type RateTable = Partial<Record<CryptoSlug, Partial<Record<FiatSlug, string>>>>;

export const DEFAULT_TEST_RATES: RateTable = {
  USDT: { USD: "1", NGN: "1500" },
  BTC: { USD: "65000", NGN: "97500000" },
  BNB: { USD: "600", NGN: "900000" },
  ETH: { USD: "3000", NGN: "4500000" },
  LTC: { USD: "80", NGN: "120000" },
  USDC: { USD: "1", NGN: "1500" },
};

/** The test rate of a pair now: the stored one, else the default; undefined when neither exists. */
export async function testRateOf(store: TestRateStore, crypto: CryptoCurrency, fiat: FiatCurrency): Promise<string | undefined> {
  return (await store.get(crypto.slug, fiat.slug)) ?? DEFAULT_TEST_RATES[crypto.slug]?.[fiat.slug];
}

/** What test mode's price feed (src/rails/prices/test-rates.ts) is given: each pair's rate now, by the rule above. */
export interface TestRateBook {
  rateOf(crypto: CryptoCurrency, fiat: FiatCurrency): Promise<string | undefined>;
}

/** The operator's test rates (read at each quote, so a change applies at once), else the defaults. */
export function operatorTestRates(store: TestRateStore): TestRateBook {
  return { rateOf: (crypto, fiat) => testRateOf(store, crypto, fiat) };
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
export async function listTestRates(deps: Pick<CoreDeps, "stores">): Promise<TestRateRow[]> {
  const rows = await deps.stores.testRates.list();
  const stored = new Map(rows.map((r) => [`${r.crypto}/${r.fiat}`, r]));
  const out: TestRateRow[] = [];
  for (const crypto of CRYPTO_CURRENCIES) {
    for (const fiat of FIAT_CURRENCIES) {
      const row = stored.get(`${crypto.slug}/${fiat.slug}`);
      const fallback = DEFAULT_TEST_RATES[crypto.slug]?.[fiat.slug];
      if (row) {
        out.push({ crypto: crypto.slug, fiat: fiat.slug, rate: plain(row.rate), origin: "set", updatedAt: row.updatedAt.toISOString() });
      } else if (fallback !== undefined) {
        out.push({ crypto: crypto.slug, fiat: fiat.slug, rate: plain(fallback), origin: "default", updatedAt: null });
      }
    }
  }
  return out;
}

export interface TestRateChange {
  crypto: CryptoSlug;
  fiat: FiatSlug;
  rate: string;
  previous: { rate: string; origin: "set" | "default" } | null;
  updatedAt: string;
}

/** Sets one pair's test rate. Slugs are case-insensitive; the rate a positive decimal such as "70000.5". */
export async function setTestRate(deps: Pick<CoreDeps, "stores">, input: { crypto: string; fiat: string; rate: string }): Promise<TestRateChange> {
  const { crypto, fiat, rate } = parseTestRate(input);
  const before = (await listTestRates(deps)).find((r) => r.crypto === crypto.slug && r.fiat === fiat.slug);
  const row = await deps.stores.testRates.set(crypto.slug, fiat.slug, rate.toFixed());
  return {
    crypto: crypto.slug,
    fiat: fiat.slug,
    rate: plain(row.rate),
    previous: before ? { rate: before.rate, origin: before.origin } : null,
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Checks a pair and rate as an operator typed them; refuses (invalid_test_rate) saying what is wrong. */
export function parseTestRate(input: { crypto: string; fiat: string; rate: string }): { crypto: CryptoCurrency; fiat: FiatCurrency; rate: Decimal } {
  const crypto = cryptoBySlug(input.crypto.trim().toUpperCase());
  if (!crypto) throw errors.invalidTestRate(`CRYPTO must be one of ${CRYPTO_CURRENCIES.map((c) => c.slug).join(", ")}; got '${input.crypto}'.`);
  const fiat = fiatBySlug(input.fiat.trim().toUpperCase());
  if (!fiat) throw errors.invalidTestRate(`FIAT must be one of ${FIAT_CURRENCIES.map((c) => c.slug).join(", ")}; got '${input.fiat}'.`);
  const text = input.rate.trim();
  if (!isNumericString(text)) {
    throw errors.invalidTestRate(`RATE must be a positive decimal such as 65000 or 0.25 (no sign, exponent or separators); got '${input.rate}'.`);
  }
  const rate = new Decimal(text);
  if (rate.lte(0)) throw errors.invalidTestRate(`RATE must be greater than 0; got '${input.rate}'.`);
  if (rate.decimalPlaces() > RATE_DECIMALS) throw errors.invalidTestRate(`RATE has more than ${RATE_DECIMALS} decimal places; got '${input.rate}'.`);
  if (rate.gte(MAX_RATE)) throw errors.invalidTestRate(`RATE must be below 1e20; got '${input.rate}'.`);
  return { crypto, fiat, rate };
}

/** "65000.000000000000000000" → "65000": what the operator typed, without the column's padding. */
function plain(text: string): string {
  return new Decimal(text).toFixed();
}
