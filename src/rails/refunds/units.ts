// Exact conversions between decimal coin amounts and base units (satoshi, wei, token units).
import { Decimal } from "../../core/money/amounts.ts";

/** A decimal string as base units, rounded down (exact whatever Decimal's precision: toFixed is). */
export function toBaseUnits(amount: string, decimals: number): bigint {
  return BigInt(new Decimal(amount).toFixed(decimals, Decimal.ROUND_DOWN).replace(".", ""));
}

/** Base units as a plain decimal string without trailing zeros. */
export function fromBaseUnits(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, "0");
  const text = `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`.replace(/0+$/, "").replace(/\.$/, "");
  return negative ? `-${text}` : text;
}
