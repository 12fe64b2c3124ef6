// Base units (satoshi, wei, a token's smallest unit) to coin units, exactly: the decimal point is
// placed in the digits, so no division and no precision limit applies.
import { Decimal } from "../../core/money/amounts.ts";

export function fromBaseUnits(units: bigint, decimals: number): Decimal {
  if (units < 0n) throw new RangeError("A base-unit amount cannot be negative");
  const digits = units.toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals);
  return new Decimal(decimals === 0 ? whole : `${whole}.${fraction}`);
}
