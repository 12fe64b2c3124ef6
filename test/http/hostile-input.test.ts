// Hostile and broken requests: each is a clear 4xx in the error shape of docs/rest-api.md, and changes
// nothing (row counts and the transaction rows are the same before and after).
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { rawRequest, type RawRequest, type RawResponse } from "../support/raw-http.ts";
import { snapshotStore, type StoreSnapshot } from "../support/snapshot.ts";
import { initializeBody } from "../support/builders.ts";

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
let pendingId: string;
let initiatedId: string;

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const order = (extra: Record<string, unknown> = {}) => initializeBody({ amount: "10", ...extra });

beforeAll(async () => {
  t = await startTestGateway();
  keys = await t.merchant();
  initiatedId = (await t.post("/v1/transaction", order(), bearer(keys.testPublicKey))).body.data.id;
  pendingId = (await t.post("/v1/transaction", order(), bearer(keys.testPublicKey))).body.data.id;
  expect((await t.post(`/v1/transaction/${pendingId}/pay`, { currency_id: "4" }, bearer(keys.testSecretKey))).status).toBe(200);
});
afterAll(() => t.close());

let before: StoreSnapshot;
beforeEach(async () => {
  before = await snapshotStore(t.db);
});
const unchanged = async () => expect(await snapshotStore(t.db)).toEqual(before);

const send = (request: RawRequest) => rawRequest(t.url, request);
const json = (body: unknown, headers: Record<string, string | string[]> = {}) => ({
  headers: { "content-type": "application/json", ...headers },
  body: typeof body === "string" ? body : JSON.stringify(body),
});

function expectError(res: RawResponse, status: number, fields: Record<string, unknown>) {
  expect(res.status).toBe(status);
  expect(res.json).toMatchObject({ status: "error", ...fields });
  expect(typeof res.json.message).toBe("string");
}

describe("text PostgreSQL cannot store", () => {
  it.each([
    ["customer.name", order({ customer: { email: "ada@example.com", name: "Ada\u0000Obi" } })],
    ["description", order({ description: "Order\u0000#42" })],
    ["description", order({ description: "broken \ud800 surrogate" })],
  ])("refuses a NUL or broken Unicode in %s with 400", async (field, body) => {
    const res = await send({ method: "POST", path: "/v1/transaction", ...json(body, bearer(keys.testPublicKey)) });
    expectError(res, 400, {
      message: "Validation Error",
      code: "validation_error",
      errors: [{ field, message: `${field} must not contain NUL characters or broken Unicode` }],
    });
    await unchanged();
  });

  it.each([
    ["a value", { note: "a\u0000b" }, "meta.note must not contain NUL characters or broken Unicode"],
    ["a nested value", { items: [{ sku: "x\u0000" }] }, "meta.items.0.sku must not contain NUL characters or broken Unicode"],
    ["a key", { "k\u0000": 1 }, "meta has a key that must not contain NUL characters or broken Unicode"],
  ])("refuses a NUL in %s of meta with 400", async (_what, meta, message) => {
    const res = await send({ method: "POST", path: "/v1/transaction", ...json(order({ meta }), bearer(keys.testPublicKey)) });
    expectError(res, 400, { message: "Validation Error", errors: [{ field: "meta", message }] });
    await unchanged();
  });

  it("refuses a NUL in refund_address with 400", async () => {
    const res = await send({
      method: "POST",
      path: `/v1/transaction/${initiatedId}/pay`,
      ...json({ currency_id: "4", refund_address: "tb1\u0000" }, bearer(keys.testSecretKey)),
    });
    expectError(res, 400, { message: "Missing or invalid payload fields", errors: [{ field: "refund_address" }] });
    await unchanged();
  });

  it("refuses a NUL in a payment link with 400", async () => {
    const res = await send({ method: "POST", path: "/v1/transaction", ...json(order({ payment_link: "pl_\u0000" })) });
    expectError(res, 400, { message: "Validation Error", errors: [{ field: "payment_link" }] });
    await unchanged();
  });

  it.each(["GET", "POST pay", "POST payment", "POST expire"])(
    "answers a NUL in the transaction id (%s) with 404 and never queries it",
    async (route) => {
      const path = {
        GET: "/v1/transaction/a%00b",
        "POST pay": "/v1/transaction/a%00b/pay",
        "POST payment": "/v1/test_helpers/transaction/a%00b/payment",
        "POST expire": "/v1/test_helpers/transaction/a%00b/expire",
      }[route] as string;
      const res = await send({
        method: route === "GET" ? "GET" : "POST",
        path,
        ...(route === "GET" ? { headers: bearer(keys.testSecretKey) } : json({ currency_id: "4" }, bearer(keys.testSecretKey))),
      });
      expectError(res, 404, { code: "not_found", reason: "transaction_not_found", message: "No transaction with id 'a\\u0000b'" });
      await unchanged();
    },
  );
});

describe("malformed paths", () => {
  it.each(["%", "%ZZ", "%E0%A4%A", "%C0%AF"])("answers the percent-encoding %s with 400", async (segment) => {
    for (const [method, path] of [
      ["GET", `/v1/transaction/${segment}`],
      ["POST", `/v1/transaction/${segment}/pay`],
    ] as const) {
      const res = await send({
        method,
        path,
        ...(method === "POST" ? json({ currency_id: "4" }, bearer(keys.testSecretKey)) : { headers: bearer(keys.testSecretKey) }),
      });
      expectError(res, 400, { code: "bad_request", reason: "malformed_path", message: expect.stringContaining("percent-encoding") });
    }
    await unchanged();
  });
});

describe("meta's shape", () => {
  const nested = (depth: number): Record<string, unknown> => {
    let value: Record<string, unknown> = { leaf: true };
    for (let level = 1; level < depth; level++) value = { a: value };
    return value;
  };

  it("refuses meta nested thousands of levels deep with 400, without exhausting the stack", async () => {
    const body = `{"customer":{"email":"ada@example.com"},"currency":"USD","amount":"5","meta":{"a":${"[".repeat(5000)}${"]".repeat(5000)}}}`;
    const res = await send({ method: "POST", path: "/v1/transaction", ...json(body, bearer(keys.testPublicKey)) });
    expectError(res, 400, { message: "Validation Error", errors: [{ field: "meta", message: expect.stringContaining("at most 8 levels deep") }] });
    await unchanged();
  });

  it("takes 8 levels and refuses 9", async () => {
    const ok = await t.post("/v1/transaction", order({ meta: nested(8) }), bearer(keys.testPublicKey));
    expect(ok.status).toBe(201);
    expect(ok.body.meta).toEqual(nested(8));
    before = await snapshotStore(t.db);
    const deep = await t.post("/v1/transaction", order({ meta: nested(9) }), bearer(keys.testPublicKey));
    expect(deep.status).toBe(400);
    expect(deep.body.errors).toEqual([{ field: "meta", message: "meta may nest at most 8 levels deep (meta.a.a.a.a.a.a.a.a is deeper)" }]);
    await unchanged();
  });

  it("refuses a __proto__ key in meta with 400 instead of dropping it", async () => {
    for (const body of [
      '{"customer":{"email":"ada@example.com"},"currency":"USD","amount":"5","meta":{"__proto__":{"admin":true},"b":2}}',
      '{"customer":{"email":"ada@example.com"},"currency":"USD","amount":"5","meta":{"cart":{"__proto__":1}}}',
    ]) {
      const res = await send({ method: "POST", path: "/v1/transaction", ...json(body, bearer(keys.testPublicKey)) });
      expectError(res, 400, {
        message: "Validation Error",
        errors: [{ field: "meta", message: expect.stringMatching(/has the key "__proto__", which is not accepted/) }],
      });
    }
    await unchanged();
  });
});

describe("bodies the server cannot read", () => {
  const body = JSON.stringify(order());

  it("answers a charset other than UTF-8 with 415", async () => {
    const res = await send({
      method: "POST",
      path: "/v1/transaction",
      headers: { "content-type": "application/json; charset=latin1", ...bearer(keys.testPublicKey) },
      body,
    });
    expectError(res, 415, { code: "unsupported_media_type", message: 'The charset "latin1" is not supported: send the JSON body in UTF-8' });
    await unchanged();
  });

  it("answers an unknown Content-Encoding with 415", async () => {
    const res = await send({
      method: "POST",
      path: "/v1/transaction",
      headers: { "content-type": "application/json", "content-encoding": "snappy", ...bearer(keys.testPublicKey) },
      body,
    });
    expectError(res, 415, { code: "unsupported_media_type", message: expect.stringContaining('Content-Encoding "snappy" is not supported') });
    await unchanged();
  });

  it("answers a corrupt gzip body with 400, and takes a good one", async () => {
    const headers = { "content-type": "application/json", "content-encoding": "gzip", ...bearer(keys.testPublicKey) };
    const corrupt = await send({ method: "POST", path: "/v1/transaction", headers, body: Buffer.from("this is not gzip") });
    expectError(corrupt, 400, { code: "bad_request", reason: "unreadable_body" });
    const truncated = await send({ method: "POST", path: "/v1/transaction", headers, body: gzipSync(body).subarray(0, 12) });
    expectError(truncated, 400, { code: "bad_request", reason: "unreadable_body" });
    await unchanged();
    const good = await send({ method: "POST", path: "/v1/transaction", headers, body: gzipSync(body) });
    expect(good.status).toBe(201);
  });
});

describe("credentials", () => {
  it("refuses two Authorization headers with 400 on REST and GraphQL", async () => {
    const two = { authorization: [`Bearer ${keys.testSecretKey}`, "Bearer sec_test_other"] };
    const rest = await send({ method: "GET", path: `/v1/transaction/${pendingId}`, headers: two });
    expectError(rest, 400, { code: "bad_request", reason: "ambiguous_credential", message: "Send one Authorization header; this request has 2" });
    const pay = await send({ method: "POST", path: `/v1/transaction/${initiatedId}/pay`, ...json({ currency_id: "4" }, two) });
    expectError(pay, 400, { reason: "ambiguous_credential" });
    const graphql = await send({ method: "POST", path: "/graphql", ...json({ query: `{ transaction(id: "${pendingId}") { id } }` }, two) });
    expect(graphql.status).toBe(400);
    expect(graphql.json.errors[0]).toMatchObject({
      message: "Send one Authorization header; this request has 2",
      extensions: { code: "BAD_REQUEST", status: 400, reason: "ambiguous_credential" },
    });
    await unchanged();
  });
});

describe("test helpers", () => {
  it("refuses a test payment beyond any coin's supply with 400", async () => {
    const res = await send({
      method: "POST",
      path: `/v1/test_helpers/transaction/${pendingId}/payment`,
      ...json({ amount: `1${"0".repeat(30)}` }, bearer(keys.testSecretKey)),
    });
    expectError(res, 400, {
      message: "Missing or invalid payload fields",
      errors: [{ field: "amount", message: expect.stringContaining("at most 999999999999999") }],
    });
    await unchanged();
  });

  it("refuses to move a deactivated merchant's transactions with 422", async () => {
    const other = await t.merchant({ name: "Closing Shop" });
    const id = (await t.post("/v1/transaction", order(), bearer(other.testPublicKey))).body.data.id;
    expect((await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(other.testSecretKey))).status).toBe(200);
    await t.db.merchant.update({ where: { id: other.id }, data: { active: false } });
    before = await snapshotStore(t.db);
    for (const helper of ["payment", "expire"]) {
      const res = await t.post(`/v1/test_helpers/transaction/${id}/${helper}`, {}, bearer(other.testSecretKey));
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({
        code: "invalid_state",
        reason: "merchant_inactive",
        message: "The merchant account is not active; its transactions cannot move",
      });
    }
    await unchanged();
  });
});

describe("GraphQL requests", () => {
  const graphql = (body: string | object, headers: Record<string, string> = {}) =>
    send({ method: "POST", path: "/graphql", ...json(body, { "apollo-require-preflight": "1", ...headers }) });

  it("answers invalid JSON with 400 and logs none of the body", async () => {
    const secretTail = keys.testSecretKey.slice(-12);
    const res = await graphql(`{"query": "${secretTail}\nforged log line`);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      errors: [{ message: "The body is not valid JSON", extensions: { code: "BAD_REQUEST", status: 400, reason: "invalid_json", errors: [] } }],
    });
    const log = t.logs.join("");
    expect(log).not.toContain(secretTail);
    expect(log).not.toContain("forged");
    for (const line of t.logs) expect(() => JSON.parse(line)).not.toThrow();
    await unchanged();
  });

  it("answers a syntax error and the token limit with HTTP 400", async () => {
    const syntax = await graphql({ query: "{ transaction(id: " });
    expect(syntax.status).toBe(400);
    expect(syntax.json.errors[0]).toMatchObject({ extensions: { code: "GRAPHQL_PARSE_FAILED", status: 400 } });
    const tokens = await graphql({ query: `{ ${"a ".repeat(3000)}}` });
    expect(tokens.status).toBe(400);
    expect(tokens.json.errors[0].message).toMatch(/more than? 2000 tokens|more that 2000 tokens/);
  });

  it("answers a charset other than UTF-8 or an unknown Content-Encoding with 415, and a corrupt gzip body with 400", async () => {
    const body = '{"query":"{ __typename }"}';
    const charset = await send({ method: "POST", path: "/graphql", headers: { "content-type": "application/json; charset=latin1" }, body });
    expect(charset.status).toBe(415);
    expect(charset.json.errors[0]).toMatchObject({ extensions: { code: "BAD_REQUEST", status: 415, reason: "unsupported_media_type" } });
    const encoding = await send({
      method: "POST",
      path: "/graphql",
      headers: { "content-type": "application/json", "content-encoding": "snappy" },
      body,
    });
    expect(encoding.status).toBe(415);
    expect(encoding.json.errors[0].message).toMatch(/Content-Encoding "snappy" is not supported/);
    const corrupt = await send({
      method: "POST",
      path: "/graphql",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      body: Buffer.from("not gzip at all"),
    });
    expect(corrupt.status).toBe(400);
    expect(corrupt.json.errors[0]).toMatchObject({ extensions: { code: "BAD_REQUEST", status: 400, reason: "unreadable_body" } });
  });

  it("does not suggest enum values when introspection is off", async () => {
    const res = await graphql(
      { query: 'mutation { initializeTransaction(input: {customer: {email: "a@b.co"}, currency: USDX, amount: "1"}) { id } }' },
      bearer(keys.testPublicKey),
    );
    expect(res.status).toBe(400);
    expect(res.json.errors[0].message).toBe('Value "USDX" does not exist in "FiatCurrencySlug" enum.');
    expect(res.text).not.toMatch(/Did you mean/);
    await unchanged();
  });

  it("refuses a NUL in a variable as the REST API does, and finds no transaction by a NUL id", async () => {
    const init = await graphql(
      {
        query: "mutation($input: InitializeTransactionInput!) { initializeTransaction(input: $input) { id } }",
        variables: { input: initializeBody({ customer: { email: "ada@example.com", name: "Ada\u0000" }, amount: "5" }) },
      },
      bearer(keys.testPublicKey),
    );
    expect(init.json.errors[0]).toMatchObject({
      message: "Validation Error",
      extensions: { code: "BAD_USER_INPUT", status: 400, errors: [{ field: "customer.name" }] },
    });
    const read = await graphql(
      { query: "query($id: ID!) { transaction(id: $id) { id } }", variables: { id: "a\u0000b" } },
      bearer(keys.testSecretKey),
    );
    expect(read.status).toBe(200);
    expect(read.json).toEqual({ data: { transaction: null } });
    await unchanged();
  });
});
