// The strict JSON reader that keeps numbers as their text.
import { describe, expect, it } from "vitest";
import { JsonNumber, parseExactJson, type ExactJson } from "../../../src/rails/prices/exact-json.ts";

/** Back to plain values, numbers as their text, to compare. */
function plain(value: ExactJson): unknown {
  if (value instanceof JsonNumber) return `#${value.text}`;
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [k, plain(v)]));
  if (Array.isArray(value)) return value.map(plain);
  return value;
}

describe("parseExactJson", () => {
  it("reads every JSON value, numbers as written", () => {
    const text = ' {"a": [1, -0.5, 2e10, 1.25E-7, 65000.123456789012345678], "b": {"c": null, "d": true, "e": false},\n "s": "x\\"y\\u00e9\\n"} ';
    expect(plain(parseExactJson(text))).toEqual({
      a: ["#1", "#-0.5", "#2e10", "#1.25E-7", "#65000.123456789012345678"],
      b: { c: null, d: true, e: false },
      s: 'x"yé\n',
    });
  });

  it("agrees with JSON.parse on structure", () => {
    const text = JSON.stringify({ tether: { usd: 1, ngn: 1500 }, nested: [[[]], {}], unicode: "naïra ₦", empty: "" });
    const viaExact = plain(parseExactJson(text));
    const viaParse = JSON.parse(text, (_k, v) => (typeof v === "number" ? `#${String(v)}` : v));
    expect(viaExact).toEqual(viaParse);
  });

  it("keeps __proto__ as plain data", () => {
    const value = parseExactJson('{"__proto__": {"polluted": 1}}');
    expect(value).toBeInstanceOf(Map);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  const malformed = [
    "",
    "{",
    "}",
    "[1,]",
    '{"a":1,}',
    "{'a':1}",
    '{"a" 1}',
    "01",
    "1.",
    ".5",
    "+1",
    "-",
    "1e",
    "NaN",
    "Infinity",
    '"unterminated',
    '"bad \\x escape"',
    '"tab\there"',
    "[1] [2]",
    "tru",
    "nul",
    '{"a":1}}',
  ];
  for (const text of malformed) {
    it(`rejects ${JSON.stringify(text.length > 20 ? `${text.slice(0, 20)}…` : text)}`, () => {
      expect(() => parseExactJson(text)).toThrow(SyntaxError);
      expect(() => JSON.parse(text)).toThrow();
    });
  }

  it("refuses nesting deeper than 64 levels (a price body is two)", () => {
    expect(() => parseExactJson("[".repeat(64) + "]".repeat(64))).not.toThrow();
    expect(() => parseExactJson("[".repeat(100) + "]".repeat(100))).toThrow(/nested too deeply/);
  });
});
