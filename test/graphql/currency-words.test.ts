// schema.graphql is a file, not code: its words for the coins are checked here against the currency
// table (core/money/currencies.ts), which the REST messages and the OpenAPI document read directly.
import { readFileSync } from "node:fs";
import { buildSchema, type GraphQLInputObjectType, type GraphQLObjectType } from "graphql";
import { describe, expect, it } from "vitest";
import { CRYPTO_CURRENCIES, CRYPTO_ID_NAMES, CRYPTO_ID_OR_SLUG, CRYPTO_ID_RANGE, CRYPTO_SLUG_LIST } from "../../src/core/money/currencies.ts";

const schema = buildSchema(readFileSync(new URL("../../schema.graphql", import.meta.url), "utf8"));
const field = (type: string, name: string) =>
  (schema.getType(type) as GraphQLObjectType | GraphQLInputObjectType | undefined)?.getFields()[name]?.description;

describe("the coins' words", () => {
  it("are built from every crypto currency of the table", () => {
    const ids = CRYPTO_CURRENCIES.map((c) => c.id);
    expect(CRYPTO_ID_RANGE).toBe(`${ids[0]}–${ids.at(-1)}`);
    expect(CRYPTO_SLUG_LIST.split(", ")).toEqual(CRYPTO_CURRENCIES.map((c) => c.slug));
    expect(CRYPTO_ID_NAMES.split(", ")).toEqual(CRYPTO_CURRENCIES.map((c) => `${c.id} ${c.slug}`));
    expect(CRYPTO_SLUG_LIST).toContain("USDC");
  });

  it.each([
    ["CryptoCurrency", "id", `${CRYPTO_ID_NAMES}.`],
    ["InitiatePaymentInput", "currencyId", `${CRYPTO_ID_NAMES}.`],
    ["TransactionFilter", "paymentCurrency", `The coin chosen: ${CRYPTO_ID_OR_SLUG}.`],
  ])("schema.graphql's %s.%s says what the table says", (type, name, words) => {
    expect(field(type, name)).toBe(words);
  });
});
