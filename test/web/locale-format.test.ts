// The checkout's languages (web/checkout/i18n.ts): which one is chosen, and amounts formatted in
// each exactly, digit for digit, where a float would round.
import { describe, expect, it } from "vitest";
import { CHECKOUT_LOCALES } from "../../src/core/transactions/locales.ts";
import {
  chooseLocale,
  coinNameIn,
  directionOf,
  formatCrypto,
  formatDecimal,
  formatFiat,
  LOCALES,
  MESSAGES,
  networkLabelIn,
} from "../../web/checkout/i18n.ts";

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

/** Every text of a locale, its functions called with sample arguments (a string, a count). */
function textsOf(value: unknown, where: string): [string, string][] {
  if (typeof value === "string") return [[where, value]];
  if (typeof value === "function") return [[where, String(Reflect.apply(value, undefined, ["X", 3, "Y", "Z"]))]];
  if (typeof value === "object" && value !== null) return Object.entries(value).flatMap(([key, inner]) => textsOf(inner, `${where}.${key}`));
  return [];
}

describe("typography and names in each language (issue 46)", () => {
  it("French: a no-break space before ':' and ';', so no line of the page starts with one", () => {
    const texts = textsOf(MESSAGES.fr, "fr");
    expect(texts.length).toBeGreaterThan(100);
    const breakable = texts.filter(([, text]) => /[ \t\n][:;?!]/.test(text)).map(([where]) => where);
    expect(breakable).toEqual([]);
    // The test-mode banner broke before its colon at 1,280 px.
    expect(MESSAGES.fr.testModeText).toContain("test\u00a0: aucun");
  });

  it("Arabic: a coin is named in Arabic letters, as its network line names it", () => {
    const ar = MESSAGES.ar;
    const bitcoin = coinNameIn({ slug: "BTC", name: "Bitcoin" }, ar);
    expect(bitcoin).toBe(networkLabelIn({ slug: "bitcoin", name: "Bitcoin", standard: null }, true, ar));
    expect(ar.payWith(bitcoin)).not.toMatch(/[A-Za-z]/);
    for (const [slug, name] of <[string, string][]>[
      ["USDT", "Tether"],
      ["BTC", "Bitcoin"],
      ["BNB", "BNB"],
      ["ETH", "Ethereum"],
      ["LTC", "Litecoin"],
    ]) {
      expect(coinNameIn({ slug, name }, ar), slug).not.toMatch(/[A-Za-z]/);
      // The languages in Latin letters keep the API's name; an unknown coin keeps it everywhere.
      expect(coinNameIn({ slug, name }, MESSAGES.fr), slug).toBe(name);
    }
    expect(coinNameIn({ slug: "XMR", name: "Monero" }, ar)).toBe("Monero");
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
