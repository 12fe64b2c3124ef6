// Exact money for the plugin: Vendure keeps amounts as integers in minor units (cents), paygate
// takes fiat as decimal strings ("12.34") and shows coin amounts as decimal strings. No floats.

/** The fiat currencies paygate prices in, each with its minor-unit places. */
export const PAYGATE_FIAT: Readonly<Record<string, number>> = { USD: 2, NGN: 2 };

/** Vendure's integer minor units as paygate's decimal string: 12345 USD cents → "123.45". */
export function minorToDecimal(minor: number, places: number): string {
  if (!Number.isSafeInteger(minor) || minor < 0) throw new Error(`not an amount in minor units: ${minor}`);
  const digits = BigInt(minor)
    .toString()
    .padStart(places + 1, "0");
  return places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`;
}

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

function scaled(value: string, scale: number): bigint {
  const match = DECIMAL.exec(value);
  if (!match) throw new Error(`not a decimal amount: ${value}`);
  const fraction = (match[2] ?? "").padEnd(scale, "0");
  if (fraction.length > scale) throw new Error(`too many decimal places: ${value}`);
  return BigInt(match[1] + fraction);
}

function places(value: string): number {
  return (DECIMAL.exec(value)?.[2] ?? "").length;
}

/** a − b for non-negative decimal strings, exactly ("0.0015" − "0.001" = "0.0005"); negative results start with "-". */
export function decimalMinus(a: string, b: string): string {
  const scale = Math.max(places(a), places(b));
  const difference = scaled(a, scale) - scaled(b, scale);
  const sign = difference < 0n ? "-" : "";
  const digits = (difference < 0n ? -difference : difference).toString().padStart(scale + 1, "0");
  const whole = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return sign + (scale === 0 ? whole : whole.replace(/\.?0+$/, ""));
}

/**
 * A JSON number paygate printed from an exact decimal (`payment_amount`: at most 8 places), back as
 * that decimal. JavaScript prints the shortest text that reads back to the same number, which is the
 * text paygate sent for any amount of up to 15 significant digits; anything else is refused rather than
 * rounded.
 */
export function jsonNumberToDecimal(value: number): string {
  const text = String(value);
  if (!Number.isFinite(value) || value < 0 || !DECIMAL.test(text) || text.replace(/\D/g, "").replace(/^0+/, "").length > 15) {
    throw new Error(`not an exact decimal amount: ${text}`);
  }
  return text;
}
