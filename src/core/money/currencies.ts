// The currency catalogue (spec 2.4). Fiat and crypto share one id space; these ids are part of
// the public contract, so they never change. The database table `currencies` is filled from here.

export type FiatSlug = "USD" | "NGN";
export type CryptoSlug = "USDT" | "BTC" | "BNB" | "ETH" | "LTC" | "USDC";

interface CurrencyBase {
  id: number;
  name: string;
  /** Digits after the point; crypto amounts are rounded up to it. */
  decimals: number;
}
export interface FiatCurrency extends CurrencyBase {
  kind: "FIAT";
  slug: FiatSlug;
}
export interface CryptoCurrency extends CurrencyBase {
  kind: "CRYPTO";
  slug: CryptoSlug;
}
export type Currency = FiatCurrency | CryptoCurrency;

export const FIAT_CURRENCIES: readonly FiatCurrency[] = [
  { id: 1, kind: "FIAT", slug: "USD", name: "US Dollar", decimals: 2 },
  { id: 2, kind: "FIAT", slug: "NGN", name: "Nigerian Naira", decimals: 2 },
];

export const CRYPTO_CURRENCIES: readonly CryptoCurrency[] = [
  { id: 3, kind: "CRYPTO", slug: "USDT", name: "Tether", decimals: 6 },
  { id: 4, kind: "CRYPTO", slug: "BTC", name: "Bitcoin", decimals: 8 },
  { id: 5, kind: "CRYPTO", slug: "BNB", name: "BNB", decimals: 8 },
  { id: 6, kind: "CRYPTO", slug: "ETH", name: "Ethereum", decimals: 8 },
  { id: 7, kind: "CRYPTO", slug: "LTC", name: "Litecoin", decimals: 8 },
  // An extension of spec 2.4's table: the next id. 6 digits, as on every network but BSC, whose
  // 18-digit token is paid exact to its own base unit (core/networks.ts).
  { id: 8, kind: "CRYPTO", slug: "USDC", name: "USD Coin", decimals: 6 },
];

export const ALL_CURRENCIES: readonly Currency[] = [...FIAT_CURRENCIES, ...CRYPTO_CURRENCIES];

export function fiatBySlug(slug: string): FiatCurrency | undefined {
  return FIAT_CURRENCIES.find((c) => c.slug === slug);
}
export function fiatById(id: number): FiatCurrency | undefined {
  return FIAT_CURRENCIES.find((c) => c.id === id);
}
export function cryptoById(id: number): CryptoCurrency | undefined {
  return CRYPTO_CURRENCIES.find((c) => c.id === id);
}
export function cryptoBySlug(slug: string): CryptoCurrency | undefined {
  return CRYPTO_CURRENCIES.find((c) => c.slug === slug);
}

// What messages and the API documents (OpenAPI, schema.graphql) say of the coins, written from the
// table above so that a new coin changes them all at once (schema.graphql's copies are checked by
// test/graphql/currency-words.test.ts).
const CRYPTO_IDS = CRYPTO_CURRENCIES.map((c) => c.id);
/** The crypto ids as a range: "3–8". */
export const CRYPTO_ID_RANGE = `${Math.min(...CRYPTO_IDS)}–${Math.max(...CRYPTO_IDS)}`;
/** The crypto slugs: "USDT, BTC, BNB, ETH, LTC, USDC". */
export const CRYPTO_SLUG_LIST = CRYPTO_CURRENCIES.map((c) => c.slug).join(", ");
/** Each crypto id with its slug: "3 USDT, 4 BTC, 5 BNB, 6 ETH, 7 LTC, 8 USDC". */
export const CRYPTO_ID_NAMES = CRYPTO_CURRENCIES.map((c) => `${c.id} ${c.slug}`).join(", ");
/** How a filter names a coin: "an id (3–8) or a slug (USDT, BTC, BNB, ETH, LTC, USDC)". */
export const CRYPTO_ID_OR_SLUG = `an id (${CRYPTO_ID_RANGE}) or a slug (${CRYPTO_SLUG_LIST})`;
