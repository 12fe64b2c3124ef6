// The checkout page's exact arithmetic on the API's decimal strings (web/shared/decimal.ts).
import { describe, expect, it } from "vitest";
import { fromUnits, subtract, sum, toUnits } from "../../web/shared/decimal.ts";

describe("decimal strings as scaled integers", () => {
  it("reads and writes amounts to the last digit, where floats would not", () => {
    expect(toUnits("0.00153847", 8)).toBe(153847n);
    expect(toUnits("12", 6)).toBe(12_000_000n);
    expect(toUnits("0.10", 1)).toBe(1n); // trailing zeros beyond the scale are fine
    expect(fromUnits(153847n, 8)).toBe("0.00153847");
    expect(fromUnits(12_000_000n, 6)).toBe("12");
    expect(fromUnits(-5n, 2)).toBe("-0.05");
    expect(sum(8, "0.1", "0.2")).toBe("0.3"); // 0.1 + 0.2 is 0.30000000000000004 in binary floats
    expect(sum(8, null, "0.00000001", undefined)).toBe("0.00000001");
    expect(subtract(8, "0.00153847", "0.001", null, "0.0002")).toBe("0.00033847");
    expect(subtract(6, "100", "100")).toBe("0");
  });

  it("refuses what is not a decimal or has more digits than the currency", () => {
    expect(() => toUnits("1e-8", 8)).toThrow('not a decimal number: "1e-8"');
    expect(() => toUnits("abc", 8)).toThrow("not a decimal number");
    expect(() => toUnits("0.000000001", 8)).toThrow("0.000000001 has more than 8 decimal places");
  });
});
