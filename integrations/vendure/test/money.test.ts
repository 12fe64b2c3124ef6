// The plugin's exact money: Vendure's minor units to paygate's decimal strings and back, never a float.
import { describe, expect, it } from "vitest";
import { decimalMinus, jsonNumberToDecimal, minorToDecimal } from "../src/money.ts";

describe("money", () => {
  it("writes minor units as a decimal string", () => {
    expect(minorToDecimal(10000, 2)).toBe("100.00");
    expect(minorToDecimal(5, 2)).toBe("0.05");
    expect(minorToDecimal(0, 2)).toBe("0.00");
    expect(minorToDecimal(123, 0)).toBe("123");
    expect(minorToDecimal(Number.MAX_SAFE_INTEGER, 2)).toBe("90071992547409.91");
  });

  it("refuses what is not a whole, non-negative number of minor units", () => {
    expect(() => minorToDecimal(-1, 2)).toThrow("not an amount in minor units: -1");
    expect(() => minorToDecimal(1.5, 2)).toThrow("not an amount in minor units: 1.5");
    expect(() => minorToDecimal(2 ** 60, 2)).toThrow("not an amount in minor units: 1152921504606847000");
  });

  it("subtracts decimal strings exactly", () => {
    expect(decimalMinus("10", "1.25")).toBe("8.75");
    expect(decimalMinus("0.3", "0.1")).toBe("0.2");
    expect(decimalMinus("1.25000001", "1.25")).toBe("0.00000001");
    expect(decimalMinus("1", "1.00")).toBe("0");
    expect(decimalMinus("1", "3")).toBe("-2");
    expect(() => decimalMinus("1e3", "1")).toThrow("not a decimal amount: 1e3");
  });

  it("reads paygate's JSON amounts back as the decimals it printed, or refuses", () => {
    expect(jsonNumberToDecimal(1.25)).toBe("1.25");
    expect(jsonNumberToDecimal(0.00153847)).toBe("0.00153847");
    expect(jsonNumberToDecimal(12345678.1234567)).toBe("12345678.1234567");
    expect(() => jsonNumberToDecimal(1e-7)).toThrow("not an exact decimal amount: 1e-7");
    expect(() => jsonNumberToDecimal(12345678.12345678)).toThrow("not an exact decimal amount: 12345678.12345678");
    expect(() => jsonNumberToDecimal(-1)).toThrow("not an exact decimal amount: -1");
  });
});
