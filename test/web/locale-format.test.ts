// The checkout's languages (web/checkout/i18n.ts): which one is chosen, and amounts formatted in
// each exactly, digit for digit, where a float would round.
import { describe, expect, it } from "vitest";
import { CHECKOUT_LOCALES } from "../../src/core/transactions/locales.ts";
import { chooseLocale, directionOf, formatCrypto, formatDecimal, formatFiat, LOCALES, MESSAGES } from "../../web/checkout/i18n.ts";

describe("the checkout's language", () => {
  it("offers exactly the API's list, each with every text", () => {
    expect([...LOCALES]).toEqual([...CHECKOUT_LOCALES]);
    const keys = Object.keys(MESSAGES.en).sort();
    for (const l of LOCALES) expect(Object.keys(MESSAGES[l]).sort(), l).toEqual(keys);
    expect(MESSAGES.fr.chooseTitle).not.toBe(MESSAGES.en.chooseTitle);
  });

  it("is the customer's pick, else the merchant's, else the browser's first supported one, else English", () => {
    expect(chooseLocale("de", "fr", ["es-MX"])).toBe("de");
    expect(chooseLocale(null, "fr", ["es-MX"])).toBe("fr");
    expect(chooseLocale("xx", null, ["it-IT", "pt-BR", "en"])).toBe("pt");
    expect(chooseLocale(null, null, ["ja", "zh-CN"])).toBe("en");
    expect(directionOf("ar")).toBe("rtl");
    expect(directionOf("de")).toBe("ltr");
  });
});

describe("amounts in each language", () => {
  it("keep every digit of a long decimal (a float would not)", () => {
    const amount = "123456789012345678.123456789012345678";
    expect(Number(amount).toString()).not.toContain("123456789012345678"); // what a float would lose
    expect(formatDecimal(amount, "en")).toBe("123,456,789,012,345,678.123456789012345678");
    expect(formatDecimal(amount, "de")).toBe("123.456.789.012.345.678,123456789012345678");
    expect(formatDecimal("0.00153847", "fr")).toBe("0,00153847");
    expect(formatCrypto("25000.5", "USDT", "es")).toBe("25.000,5 USDT");
  });

  it("use the locale's digits and separators for Arabic", () => {
    const digits = new Intl.NumberFormat("ar").format(1234567);
    const shown = formatDecimal("1234567.89", "ar");
    expect(shown.startsWith(digits)).toBe(true);
    const decimal = new Intl.NumberFormat("ar").formatToParts(1.5).find((p) => p.type === "decimal")?.value;
    expect(shown).toBe(`${digits}${decimal}${new Intl.NumberFormat("ar").format(8)}${new Intl.NumberFormat("ar").format(9)}`);
  });

  it("format fiat with the locale's currency pattern and the currency's places, exactly", () => {
    expect(formatFiat("100", "USD", "en")).toBe("$100.00");
    expect(formatFiat("25000", "NGN", "en")).toBe(new Intl.NumberFormat("en", { style: "currency", currency: "NGN" }).format(25000));
    expect(formatFiat("999999999999.99", "NGN", "fr")).toBe(
      new Intl.NumberFormat("fr", { style: "currency", currency: "NGN" }).format("999999999999.99" as Intl.StringNumericLiteral),
    );
    expect(formatFiat("1234.5", "USD", "de")).toBe("1.234,50\u00a0$"); // a no-break space before the symbol
    expect(formatFiat("1", "XXX-not-a-currency", "en")).toBe("1 XXX-not-a-currency");
  });
});

describe("amounts in a right-to-left text", () => {
  it("are isolated (FSI … PDI) in Arabic so the coin's code stays after the number, and only there", () => {
    expect(formatCrypto("1.5", "USDT", "ar")).toMatch(/^\u2068.+ USDT\u2069$/);
    expect(formatFiat("100", "USD", "ar").startsWith("\u2068")).toBe(true);
    expect(formatCrypto("1.5", "USDT", "en")).toBe("1.5 USDT");
  });
});
