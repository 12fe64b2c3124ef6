// Exact money: decimal.js throughout the core, never binary floats.
import { Decimal as DecimalBase } from "decimal.js";
import type { Currency } from "./currencies.ts";

/** Enough precision for a 12-digit fiat amount divided by a rate with 18 decimals. */
export const Decimal = DecimalBase.clone({ precision: 64, rounding: DecimalBase.ROUND_HALF_UP, toExpNeg: -40, toExpPos: 40 });
export type Decimal = DecimalBase;

/** The largest fiat amount accepted (not shown by the spec; documented in docs/rest-api.md, Requests). */
export const MAX_FIAT_AMOUNT = new Decimal("999999999999.99");

/**
 * The largest crypto amount one payment may carry (not shown by the spec): far beyond any coin's
 * supply, and small enough that sums of many stay inside the columns' NUMERIC(38, 18).
 */
export const MAX_CRYPTO_AMOUNT = new Decimal("999999999999999");

/** A locked rate's column, NUMERIC(38,18): 18 decimal places, and below 10^20. */
export const RATE_DECIMALS = 18;
export const MAX_RATE = new Decimal("1e20");

/** A plain, unsigned decimal as a person writes it: `100`, `0.25`; no sign, exponent or separators. */
const NUMERIC = /^(?:0|[1-9]\d*)(?:\.\d+)?$/;

export function isNumericString(text: string): boolean {
  return NUMERIC.test(text);
}

/** Problems with a fiat amount once its currency is known, or null when it is fine. */
export function fiatAmountProblem(amount: Decimal, currency: Currency): string | null {
  if (amount.lte(0)) return "amount must be greater than 0";
  if (amount.gt(MAX_FIAT_AMOUNT)) return `amount must be at most ${MAX_FIAT_AMOUNT.toFixed(2)}`;
  if (amount.decimalPlaces() > currency.decimals) {
    return `amount has more than ${currency.decimals} decimal places, the precision of ${currency.slug}`;
  }
  return null;
}

/** The crypto amount that pays `fiatAmount` at `rate` (fiat per coin), rounded up so the merchant is never short. */
export function cryptoAmountFor(fiatAmount: Decimal, rate: Decimal, crypto: Currency): Decimal {
  if (rate.lte(0)) throw new RangeError("A price must be positive");
  return fiatAmount.div(rate).toDecimalPlaces(crypto.decimals, Decimal.ROUND_UP);
}

/** A decimal as a JSON number, as the spec's tables type amounts. Exact for the digits amounts carry. */
export function toJsonNumber(value: { toString(): string }): number {
  return Number(value.toString());
}
