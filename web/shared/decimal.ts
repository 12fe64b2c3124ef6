// Exact arithmetic on the API's decimal strings ("0.00153847"): scaled BigInts, never binary
// floats, so what the page shows is what the customer must send, to the last digit.

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/** The value times 10^scale as a BigInt; digits beyond the scale are an error, not rounded away. */
export function toUnits(value: string, scale: number): bigint {
  const match = DECIMAL.exec(value.trim());
  if (!match) throw new Error(`not a decimal number: ${JSON.stringify(value)}`);
  const [, sign = "", whole = "0", fraction = ""] = match;
  const significant = fraction.replace(/0+$/, "");
  if (significant.length > scale) throw new Error(`${value} has more than ${scale} decimal places`);
  const units = BigInt(whole + fraction.padEnd(scale, "0").slice(0, scale));
  return sign === "-" ? -units : units;
}

/** Units back to a decimal string without trailing zeros ("0.0015", "12"). */
export function fromUnits(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, "0");
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

/** a − b − c …, exactly, at the currency's scale. */
export function subtract(scale: number, a: string, ...rest: (string | null | undefined)[]): string {
  let units = toUnits(a, scale);
  for (const value of rest) if (value) units -= toUnits(value, scale);
  return fromUnits(units, scale);
}

/** The sum of the values given (null ones count as nothing), exactly. */
export function sum(scale: number, ...values: (string | null | undefined)[]): string {
  let units = 0n;
  for (const value of values) if (value) units += toUnits(value, scale);
  return fromUnits(units, scale);
}
