// Payment request URIs: BIP21 for Bitcoin-style chains, EIP-681 for EVM chains. Amounts are
// decimal.js values turned into exact strings (no binary floats, no exponents).
import { Decimal } from "decimal.js";

type DecimalLike = Decimal;

export function assertPositive(amount: DecimalLike): void {
  if (!amount.isFinite() || !amount.gt(0)) {
    throw new RangeError(`a payment amount must be a positive number, got ${amount.toString()}`);
  }
}

/**
 * `amount` in base units (satoshis, wei, token units) as an integer string. Finer fractions are
 * rounded up so the merchant is never short. toDecimalPlaces/toFixed are exact whatever the
 * Decimal precision setting, unlike multiplication.
 */
export function toBaseUnits(amount: DecimalLike, decimals: number): string {
  assertPositive(amount);
  const fixed = amount.toDecimalPlaces(decimals, Decimal.ROUND_UP).toFixed(decimals);
  return BigInt(fixed.replace(".", "")).toString();
}

/** `amount` as a plain decimal with at most `decimals` places (rounded up) and no trailing zeros. */
export function plainAmount(amount: DecimalLike, decimals: number): string {
  assertPositive(amount);
  const fixed = amount.toDecimalPlaces(decimals, Decimal.ROUND_UP).toFixed(decimals);
  return fixed.includes(".") ? fixed.replace(/0+$/, "").replace(/\.$/, "") : fixed;
}

/** BIP21: `bitcoin:ADDRESS?amount=0.001234`. */
export function bip21Uri(scheme: string, address: string, amount: DecimalLike, decimals: number): string {
  return `${scheme}:${address}?amount=${plainAmount(amount, decimals)}`;
}

/** EIP-681 transfer of a chain's native coin: `ethereum:0xADDR@CHAIN?value=WEI`. */
export function eip681NativeUri(address: string, chainId: number, amount: DecimalLike, decimals: number): string {
  return `ethereum:${address}@${chainId}?value=${toBaseUnits(amount, decimals)}`;
}

/** EIP-681 ERC-20 transfer: `ethereum:0xTOKEN@CHAIN/transfer?address=0xADDR&uint256=UNITS`. */
export function eip681TokenUri(contract: string, chainId: number, recipient: string, amount: DecimalLike, decimals: number): string {
  return `ethereum:${contract}@${chainId}/transfer?address=${recipient}&uint256=${toBaseUnits(amount, decimals)}`;
}
