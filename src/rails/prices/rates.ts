// A provider's price text turned into a rate the gateway may lock: a plain decimal, positive and
// finite, that fits the database column (NUMERIC(38,18)) so the stored rate is the one used.
import { Decimal, MAX_RATE, RATE_DECIMALS } from "../../core/money/amounts.ts";
import type { CryptoSlug, FiatSlug } from "../../core/money/currencies.ts";
import { PriceFeedError } from "./errors.ts";

/** `BTC/USD`: one coin priced in one fiat currency. */
export type PairKey = `${CryptoSlug}/${FiatSlug}`;
export const pairKey = (crypto: CryptoSlug, fiat: FiatSlug): PairKey => `${crypto}/${fiat}`;

/** The JSON number grammar: what both providers send, as a number token or inside a string. */
const DECIMAL_TEXT = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

export type RateCheck = { ok: true; rate: Decimal } | { ok: false; problem: string };

/**
 * The rate in `text`, exactly as written. More than 18 decimals are rounded half-up to 18 (the
 * precision the transaction keeps), so the rate stored is the one the amount was computed from.
 */
export function checkRate(text: string): RateCheck {
  if (!DECIMAL_TEXT.test(text)) return { ok: false, problem: `'${clip(text)}' is not a decimal number` };
  const rate = new Decimal(text).toDecimalPlaces(RATE_DECIMALS, Decimal.ROUND_HALF_UP);
  if (!rate.isFinite() || rate.lte(0)) return { ok: false, problem: `the price ${text} is not positive` };
  if (rate.gte(MAX_RATE)) return { ok: false, problem: `the price ${text} is implausibly large` };
  return { ok: true, rate };
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** A JSON object (not an array, not null), as JSON.parse gives it. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A provider's body through JSON.parse (for providers that send prices as strings); not JSON is its garbage. */
export function parseJsonBody(provider: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new PriceFeedError(`${provider}: the answer is not JSON (${(error as Error).message})`);
  }
}
