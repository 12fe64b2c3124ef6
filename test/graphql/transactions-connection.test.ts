// Query.transactions (issue 13): the Relay connection over the core's one list operation, as
// GET /v1/transactions serves it, with the same checks and messages in the graph's names.
import { GraphQLClient } from "graphql-request";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { ListTransactionsDocument, type ListTransactionsQueryVariables } from "./generated/operations.ts";
import { graphqlFailure } from "../support/graphql-errors.ts";
import { initializeBody } from "../support/builders.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

type Keys = Awaited<ReturnType<TestGateway["merchant"]>>;

const client = (key?: string) => new GraphQLClient(`${t.url}/graphql`, { headers: key ? { authorization: `Bearer ${key}` } : {} });

const init = async (publicKey: string, email = "ada@example.com", currency = "USD") => {
  const res = await t.post("/v1/transaction", initializeBody({ customer: { email }, currency, amount: "10" }), {
    authorization: `Bearer ${publicKey}`,
  });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; reference: string; client_secret: string };
};

const failure = graphqlFailure;

describe("Query.transactions", () => {
  it("pages newest first with pageInfo, without duplicates or gaps while transactions are made between pages", async () => {
    const keys = await t.merchant({ name: "Graph pages" });
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await init(keys.testPublicKey)).id);
    const expected = [...made].reverse();
    const gql = client(keys.testSecretKey);

    const first = (await gql.request(ListTransactionsDocument, { first: 2 })).transactions;
    expect(first.edges.map((e) => e.node.id)).toEqual(expected.slice(0, 2));
    expect(first.edges.map((e) => e.cursor)).toEqual(expected.slice(0, 2));
    expect(first.pageInfo).toEqual({ hasNextPage: true, endCursor: expected[1] });

    await init(keys.testPublicKey);
    const second = (await gql.request(ListTransactionsDocument, { first: 2, after: first.pageInfo.endCursor })).transactions;
    expect(second.edges.map((e) => e.node.id)).toEqual(expected.slice(2, 4));

    await init(keys.testPublicKey);
    const third = (await gql.request(ListTransactionsDocument, { first: 2, after: second.pageInfo.endCursor })).transactions;
    expect(third.edges.map((e) => e.node.id)).toEqual(expected.slice(4));
    expect(third.pageInfo).toEqual({ hasNextPage: false, endCursor: expected[4] });

    // The secret key sees the customer and the client secret, as on REST.
    expect(third.edges[0]?.node).toMatchObject({ customer: { email: "ada@example.com" }, isLive: false, status: "INITIATED" });
    expect(third.edges[0]?.node.clientSecret).toMatch(/_secret_/);
  });

  it("serves the same list as GET /v1/transactions for the same filters", async () => {
    const keys = await t.merchant({ name: "Graph filters" });
    const a = await init(keys.testPublicKey, "Zed@Example.com", "NGN");
    await init(keys.testPublicKey, "other@example.com");
    const c = await init(keys.testPublicKey, "zed@example.com", "NGN");
    await t.post(`/v1/transaction/${c.id}/pay`, { currency_id: "4" }, { authorization: `Bearer ${keys.testSecretKey}` });
    const gql = client(keys.testSecretKey);
    const ids = async (filter: Record<string, unknown>) =>
      (await gql.request(ListTransactionsDocument, { filter })).transactions.edges.map((e) => e.node.id);

    expect(await ids({ search: "ZED@example.com" })).toEqual([c.id, a.id]);
    expect(await ids({ search: a.reference })).toEqual([a.id]);
    expect(await ids({ currency: "NGN", status: "PENDING" })).toEqual([c.id]);
    expect(await ids({ paymentCurrency: "btc" })).toEqual([c.id]);
    expect(await ids({ createdLt: "2000-01-01T00:00:00Z" })).toEqual([]);
    const rest = await fetch(`${t.url}/v1/transactions?currency=NGN`, { headers: { authorization: `Bearer ${keys.testSecretKey}` } });
    const restIds = ((await rest.json()) as { data: { id: string }[] }).data.map((d) => d.id);
    expect(await ids({ currency: "NGN" })).toEqual(restIds);
  });

  it("shows only the key's merchant and mode", async () => {
    const keys = await t.merchant({ name: "Graph own", kyb: "VERIFIED" });
    const other = await t.merchant({ name: "Graph other" });
    const mine = await init(keys.testPublicKey);
    await init(other.testPublicKey);
    const live = await init(keys.livePublicKey);
    const test = (await client(keys.testSecretKey).request(ListTransactionsDocument, {})).transactions;
    expect(test.edges.map((e) => e.node.id)).toEqual([mine.id]);
    const liveList = (await client(keys.liveSecretKey).request(ListTransactionsDocument, {})).transactions;
    expect(liveList.edges.map((e) => [e.node.id, e.node.isLive])).toEqual([[live.id, true]]);
  });

  describe("refusals", () => {
    let keys: Keys;
    beforeAll(async () => {
      keys = await t.merchant({ name: "Graph refusals" });
    });

    it("refuses a public key, a client secret and no key as UNAUTHENTICATED (401)", async () => {
      const { client_secret } = await init(keys.testPublicKey);
      for (const [key, message] of [
        [keys.testPublicKey, "Invalid Secret Key: this operation needs a secret key (sec_…)"],
        [client_secret, "Invalid Secret Key: this operation needs a secret key (sec_…)"],
        [undefined, "Missing secret key: send Authorization: Bearer sec_…"],
      ] as const) {
        const error = await failure(client(key).request(ListTransactionsDocument, {}));
        expect(error.message).toBe(message);
        expect(error.extensions).toMatchObject({ code: "UNAUTHENTICATED", status: 401, reason: "invalid_secret_key" });
      }
    });

    it.each<[ListTransactionsQueryVariables, string, string]>([
      [{ first: 0 }, "first", "must be an integer from 1 to 100"],
      [{ first: 101 }, "first", "must be an integer from 1 to 100"],
      [{ first: -1 }, "first", "must be an integer from 1 to 100"],
      [{ after: "bq_1" }, "after", "must be the id (a UUID) of a transaction of the previous page"],
      [{ filter: { currency: "EUR" } }, "filter.currency", "must be a fiat currency: USD or NGN"],
      [
        { filter: { paymentCurrency: "DOGE" } },
        "filter.paymentCurrency",
        "must be a crypto currency id (3–8) or slug (USDT, BTC, BNB, ETH, LTC, USDC)",
      ],
      [{ filter: { createdGte: "today" } }, "filter.createdGte", "must be an ISO 8601 date-time with a time zone, e.g. 2026-11-01T00:00:00Z"],
      [{ filter: { search: "" } }, "filter.search", "must not be empty"],
    ])("answers BAD_USER_INPUT (400) naming the argument for %j", async (variables, field, message) => {
      const error = await failure(client(keys.testSecretKey).request(ListTransactionsDocument, variables));
      expect(error.message).toBe(`Invalid query parameter: ${field} ${message}`);
      expect(error.extensions).toMatchObject({ code: "BAD_USER_INPUT", status: 400, reason: "invalid_list_parameter", errors: [{ field, message }] });
    });

    it("answers BAD_USER_INPUT for an `after` that names no transaction of the merchant and mode", async () => {
      const other = await t.merchant({ name: "Graph cursor" });
      const { id } = await init(other.testPublicKey);
      const error = await failure(client(keys.testSecretKey).request(ListTransactionsDocument, { after: id }));
      expect(error.message).toBe(
        `Invalid query parameter: after names no object of this merchant and mode ('${id}'); pass the id of the last object of the previous page`,
      );
      expect(error.extensions).toMatchObject({ code: "BAD_USER_INPUT", status: 400, reason: "unknown_cursor" });
    });
  });
});
