// The fee rate a merchant chooses for a BTC or LTC transaction it signs (a refund, a consolidation):
// one rule for both (docs/refunds.md, docs/settlement.md).
import { Decimal } from "./amounts.ts";

/** UTXO coins take a fee rate in sat/vB; from 1 to 10,000 covers every fee market seen. */
export const FEE_RATE_MAX = new Decimal(10_000);
export const FEE_RATE_COINS: readonly string[] = ["BTC", "LTC"];

/** Why `rate` (a decimal string of sat/vB) is refused, naming `field`; null when it is within bounds. */
export function feeRateProblem(rate: string, field = "fee_rate"): string | null {
  const value = new Decimal(rate);
  if (value.lt(1) || value.gt(FEE_RATE_MAX) || value.decimalPlaces() > 3) {
    return `${field} must be from 1 to ${FEE_RATE_MAX.toFixed()} sat/vB, with at most 3 decimal places`;
  }
  return null;
}
