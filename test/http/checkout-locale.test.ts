// Issue 28: initialize's optional `locale` (the hosted checkout's language) and `cancel_url` (its
// "back to the shop" link before paying), on REST and GraphQL: stored, shown, refused with a 400
// naming the field and creating nothing.
import { GraphQLClient } from "graphql-request";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { initializeBody } from "../support/builders.ts";
import { graphqlFailure } from "../support/graphql-errors.ts";

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
beforeAll(async () => {
  t = await startTestGateway();
  keys = await t.merchant();
});
afterAll(() => t.close());

const order = (extra: Record<string, unknown> = {}) => initializeBody({ customer: { email: "ada@example.com" }, ...extra });
const post = (extra: Record<string, unknown>) => t.post("/v1/transaction", order(extra), { authorization: `Bearer ${keys.testPublicKey}` });
const count = () => t.db.transaction.count();

const INITIALIZE = `mutation Initialize($input: InitializeTransactionInput!) {
  initializeTransaction(input: $input) { id locale cancelUrl returnUrl }
}`;
const READ = `query Read($id: ID!) { transaction(id: $id) { id locale cancelUrl } }`;
const graph = (key: string) => new GraphQLClient(`${t.url}/graphql`, { headers: { authorization: `Bearer ${key}` } });
const graphInput = (extra: Record<string, unknown>) => ({ customer: { email: "ada@example.com" }, currency: "USD", amount: "10", ...extra });

describe("REST initialize with locale and cancel_url", () => {
  it("stores both and shows them in the transaction's views", async () => {
    const res = await post({ locale: "ar", cancel_url: "https://shop.example.com/cart?step=2" });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ locale: "ar", cancel_url: "https://shop.example.com/cart?step=2" });
    const stored = await t.db.transaction.findUniqueOrThrow({ where: { id: res.body.data.id } });
    expect({ locale: stored.locale, cancelUrl: stored.cancelUrl }).toEqual({ locale: "ar", cancelUrl: "https://shop.example.com/cart?step=2" });
    const read = await fetch(`${t.url}/v1/transaction/${res.body.data.id}`, { headers: { authorization: `Bearer ${keys.testSecretKey}` } });
    expect(((await read.json()) as { data: unknown }).data).toMatchObject({ locale: "ar", cancel_url: "https://shop.example.com/cart?step=2" });
  });

  it("shows null for both when none was given", async () => {
    const res = await post({});
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ locale: null, cancel_url: null });
  });

  it("refuses an unsupported locale with 400 naming the field and the allowed values, creating nothing", async () => {
    const before = await count();
    for (const locale of ["it", "EN", "fr-FR", 5]) {
      const res = await post({ locale });
      expect(res.status, String(locale)).toBe(400);
      expect(res.body, String(locale)).toMatchObject({
        status: "error",
        message: "Validation Error",
        errors: [{ field: "locale", message: "locale must be one of en, fr, es, pt, de, ar" }],
      });
    }
    expect(await count()).toBe(before);
  });

  it("refuses a cancel_url that is not an http(s) URL with 400 naming the field, creating nothing", async () => {
    const before = await count();
    for (const [url, message] of [
      ["not a url", "cancel_url: cancel URL is not a valid absolute URL; use a full URL such as https://shop.example.com/cart"],
      ["javascript:alert(1)", "cancel_url: cancel URLs must use http or https (got javascript:)"],
      ["https://u:p@shop.example.com/", "cancel_url: cancel URLs must not contain a username or password; the customer's browser would show them"],
    ] as const) {
      const res = await post({ cancel_url: url });
      expect(res.status, url).toBe(400);
      expect(res.body, url).toMatchObject({ message: "Validation Error", errors: [{ field: "cancel_url", message }] });
    }
    expect(await count()).toBe(before);
  });

  it("must be https on a public host in live mode", async () => {
    const live = await t.merchant({ name: "Live Ltd", kyb: "VERIFIED" });
    const res = await t.post("/v1/transaction", order({ cancel_url: "http://shop.example.com/cart" }), {
      authorization: `Bearer ${live.livePublicKey}`,
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: "cancel_url", message: "cancel_url: live-mode cancel URLs must use https (got http:)" }]);
  });
});

describe("GraphQL initializeTransaction with locale and cancelUrl", () => {
  it("stores both and shows them on the transaction", async () => {
    const data = await graph(keys.testPublicKey).request<{ initializeTransaction: { id: string; locale: string; cancelUrl: string } }>(INITIALIZE, {
      input: graphInput({ locale: "pt", cancelUrl: "http://localhost:5173/cart" }),
    });
    expect(data.initializeTransaction).toMatchObject({ locale: "pt", cancelUrl: "http://localhost:5173/cart" });
    const read = await graph(keys.testSecretKey).request<{ transaction: { locale: string; cancelUrl: string } }>(READ, {
      id: data.initializeTransaction.id,
    });
    expect(read.transaction).toMatchObject({ locale: "pt", cancelUrl: "http://localhost:5173/cart" });
  });

  it("refuses a bad locale or cancelUrl with BAD_USER_INPUT, status 400 and the field's message, creating nothing", async () => {
    const before = await count();
    const locale = await graphqlFailure(graph(keys.testPublicKey).request(INITIALIZE, { input: graphInput({ locale: "klingon" }) }));
    expect(locale.message).toBe("Validation Error");
    expect(locale.extensions).toMatchObject({
      code: "BAD_USER_INPUT",
      status: 400,
      errors: [{ field: "locale", message: "locale must be one of en, fr, es, pt, de, ar" }],
    });
    const cancel = await graphqlFailure(
      graph(keys.testPublicKey).request(INITIALIZE, { input: graphInput({ cancelUrl: "ftp://shop.example.com" }) }),
    );
    expect(cancel.extensions).toMatchObject({
      status: 400,
      errors: [{ field: "cancelUrl", message: "cancel_url: cancel URLs must use http or https (got ftp:)" }],
    });
    expect(await count()).toBe(before);
  });
});
