// CORS over plain HTTP (the browser's view is test/browser/cors.test.ts): the headers of preflights
// and of actual responses, the narrowed origin list, the 403 for a secret key from a browser, and
// Apollo's CSRF prevention alongside.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, SECRET_KEY_IN_BROWSER } from "../../src/edge/cors.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { initializeBody } from "../support/builders.ts";

const SHOP = "https://shop.example.com";
const ORDER = initializeBody({ amount: "10" });
const NO_SUCH_ID = "00000000-0000-0000-0000-000000000000";

let t: TestGateway;
let narrowed: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
let narrowedKeys: Awaited<ReturnType<TestGateway["merchant"]>>;
beforeAll(async () => {
  [t, narrowed] = await Promise.all([startTestGateway(), startTestGateway({ cors: { origins: [SHOP, "http://localhost:5173"] } })]);
  [keys, narrowedKeys] = await Promise.all([t.merchant(), narrowed.merchant()]);
});
afterAll(async () => {
  await t?.close();
  await narrowed?.close();
});

const preflight = (base: string, path: string, method: string, origin = SHOP) =>
  fetch(base + path, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": method, "access-control-request-headers": "authorization,content-type,idempotency-key" },
  });

const corsHeaders = (res: Response) => Object.fromEntries([...res.headers].filter(([name]) => name.startsWith("access-control-") || name === "vary"));

async function initialize(gateway: TestGateway, key: string): Promise<string> {
  const res = await gateway.post("/v1/transaction", ORDER, { authorization: `Bearer ${key}` });
  expect(res.status).toBe(201);
  return res.body.data.id as string;
}

describe("preflights", () => {
  for (const [path, method, methods] of [
    ["/graphql", "POST", "GET,POST"],
    ["/v1/transaction", "POST", "POST"],
    [`/v1/transaction/${NO_SUCH_ID}`, "GET", "GET"],
  ] as const) {
    it(`OPTIONS ${path} answers 204 with the CORS headers, for any origin by default`, async () => {
      const res = await preflight(t.url, path, method);
      expect(res.status).toBe(204);
      expect(await res.text()).toBe("");
      expect(corsHeaders(res)).toEqual({
        "access-control-allow-origin": "*",
        "access-control-allow-methods": methods,
        "access-control-allow-headers": CORS_ALLOWED_HEADERS.join(","),
        "access-control-expose-headers": CORS_EXPOSED_HEADERS.join(","),
        "access-control-max-age": "600",
      });
      expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    });
  }

  it("allows the headers a checkout needs, Apollo's CSRF headers included, and exposes the rate-limit headers", () => {
    expect(CORS_ALLOWED_HEADERS).toEqual(["Authorization", "Content-Type", "Idempotency-Key", "Apollo-Require-Preflight", "X-Apollo-Operation-Name"]);
    expect(CORS_EXPOSED_HEADERS).toEqual([
      "X-Request-Id",
      "Idempotent-Replayed",
      "Retry-After",
      "RateLimit",
      "RateLimit-Limit",
      "RateLimit-Remaining",
      "RateLimit-Reset",
      "RateLimit-Policy",
    ]);
  });

  it("are answered before Apollo, which answered OPTIONS /graphql with 400", async () => {
    const res = await fetch(`${t.url}/graphql`, { method: "OPTIONS" });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("are not answered for the secret-key routes (initiate, test helpers) nor the probes: no CORS there", async () => {
    for (const path of [`/v1/transaction/${NO_SUCH_ID}/pay`, `/v1/test_helpers/transaction/${NO_SUCH_ID}/payment`, "/livez", "/readyz"]) {
      const res = await preflight(t.url, path, path === "/livez" || path === "/readyz" ? "GET" : "POST");
      expect(corsHeaders(res)).toEqual({});
    }
  });
});

describe("actual requests", () => {
  it("POST /v1/transaction with a public key carries Access-Control-Allow-Origin and the exposed headers, never credentials", async () => {
    const res = await fetch(`${t.url}/v1/transaction`, {
      method: "POST",
      headers: { origin: SHOP, "content-type": "application/json", authorization: `Bearer ${keys.testPublicKey}` },
      body: JSON.stringify(ORDER),
    });
    expect(res.status).toBe(201);
    expect(corsHeaders(res)).toEqual({ "access-control-allow-origin": "*", "access-control-expose-headers": CORS_EXPOSED_HEADERS.join(",") });
    expect(res.headers.has("access-control-allow-credentials")).toBe(false);
  });

  it("POST /v1/transaction with a payment link in the body (no Authorization) is a browser request too", async () => {
    const res = await fetch(`${t.url}/v1/transaction`, {
      method: "POST",
      headers: { origin: SHOP, "content-type": "application/json" },
      body: JSON.stringify({ ...ORDER, payment_link: "pl_unknown" }),
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ message: "Invalid Public Key", reason: "invalid_payment_link" });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("GET /v1/transaction/:id and POST /graphql with a public key carry them too, on errors as well", async () => {
    const id = await initialize(t, keys.testPublicKey);
    const read = await fetch(`${t.url}/v1/transaction/${id}`, { headers: { origin: SHOP, authorization: `Bearer ${keys.testPublicKey}` } });
    expect(read.status).toBe(200);
    expect(read.headers.get("access-control-allow-origin")).toBe("*");

    const unknown = await fetch(`${t.url}/v1/transaction/${NO_SUCH_ID}`, {
      headers: { origin: SHOP, authorization: `Bearer ${keys.testPublicKey}` },
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ message: `No transaction with id '${NO_SUCH_ID}'`, reason: "transaction_not_found" });
    expect(unknown.headers.get("access-control-allow-origin")).toBe("*");

    const graph = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { origin: SHOP, "content-type": "application/json", authorization: `Bearer ${keys.testPublicKey}` },
      body: JSON.stringify({ query: "query ($id: ID!) { transaction(id: $id) { id status } }", variables: { id } }),
    });
    expect(graph.status).toBe(200);
    expect(await graph.json()).toEqual({ data: { transaction: { id, status: "INITIATED" } } });
    expect(corsHeaders(graph)).toEqual({ "access-control-allow-origin": "*", "access-control-expose-headers": CORS_EXPOSED_HEADERS.join(",") });
  });

  it("initiate gets no CORS headers even from a server", async () => {
    const id = await initialize(t, keys.testPublicKey);
    const res = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, { authorization: `Bearer ${keys.testSecretKey}` });
    expect(res.status).toBe(200);
    const raw = await fetch(`${t.url}/v1/transaction/${id}/pay`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${keys.testSecretKey}` },
      body: JSON.stringify({ currency_id: "4" }),
    });
    expect(raw.status).toBe(422);
    expect(await raw.json()).toMatchObject({ message: "The transaction is not initiated", reason: "transaction_not_initiated" });
    expect(corsHeaders(raw)).toEqual({});
  });
});

describe("a secret key with an Origin header (a browser)", () => {
  const expectRefused = async (res: Response) => {
    expect(res.status).toBe(403);
    expect(corsHeaders(res)).toEqual({});
    return res.json();
  };
  const restRefusal = { status: "error", message: SECRET_KEY_IN_BROWSER, code: "forbidden", reason: "secret_key_in_browser", errors: [] };

  it("is refused with 403 on GET /v1/transaction/:id, without CORS headers, and works from a server", async () => {
    expect(SECRET_KEY_IN_BROWSER).toBe("Secret keys belong on your server; from a browser use the public key (pub_…)");
    const id = await initialize(t, keys.testPublicKey);
    const refused = await fetch(`${t.url}/v1/transaction/${id}`, { headers: { origin: SHOP, authorization: `Bearer ${keys.testSecretKey}` } });
    expect(await expectRefused(refused)).toEqual(restRefusal);
    const server = await fetch(`${t.url}/v1/transaction/${id}`, { headers: { authorization: `Bearer ${keys.testSecretKey}` } });
    expect(server.status).toBe(200);
  });

  it("is refused on initiate and the test helpers before anything changes", async () => {
    const id = await initialize(t, keys.testPublicKey);
    const send = (path: string, body: unknown) =>
      fetch(t.url + path, {
        method: "POST",
        headers: { origin: SHOP, "content-type": "application/json", authorization: `bearer ${keys.testSecretKey}` },
        body: JSON.stringify(body),
      });
    expect(await expectRefused(await send(`/v1/transaction/${id}/pay`, { currency_id: "4" }))).toEqual(restRefusal);
    expect(await expectRefused(await send(`/v1/test_helpers/transaction/${id}/expire`, {}))).toEqual(restRefusal);
    expect((await t.db.transaction.findUniqueOrThrow({ where: { id } })).status).toBe("INITIATED");
  });

  it("is refused on POST /v1/transaction, where it would be an invalid public key from a server", async () => {
    const headers = { "content-type": "application/json", authorization: `Bearer ${keys.testSecretKey}` };
    const refused = await fetch(`${t.url}/v1/transaction`, { method: "POST", headers: { ...headers, origin: SHOP }, body: JSON.stringify(ORDER) });
    expect(await expectRefused(refused)).toEqual(restRefusal);
    const server = await t.post("/v1/transaction", ORDER, headers);
    expect(server.status).toBe(404);
    expect(server.body).toMatchObject({ message: "Invalid Public Key", reason: "invalid_public_key" });
  });

  it("is refused on /graphql in the GraphQL error shape, and the mutation does not run", async () => {
    const id = await initialize(t, keys.testPublicKey);
    const refused = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { origin: "null", "content-type": "application/json", authorization: `Bearer ${keys.testSecretKey}` },
      body: JSON.stringify({
        query: "mutation ($id: ID!) { initiatePayment(transactionId: $id, input: { currencyId: 4 }) { id status } }",
        variables: { id },
      }),
    });
    expect(await expectRefused(refused)).toEqual({
      errors: [{ message: SECRET_KEY_IN_BROWSER, extensions: { code: "FORBIDDEN", status: 403, reason: "secret_key_in_browser", errors: [] } }],
    });
    expect((await t.db.transaction.findUniqueOrThrow({ where: { id } })).status).toBe("INITIATED");
  });

  it("is logged as a 403 with its reason, and refused from an origin outside the list too", async () => {
    const refused = await fetch(`${narrowed.url}/v1/transaction/${NO_SUCH_ID}`, {
      headers: { origin: "https://evil.example", authorization: `Bearer ${narrowedKeys.testSecretKey}` },
    });
    expect(await expectRefused(refused)).toEqual(restRefusal);
    const line = narrowed.logs.map((l) => JSON.parse(l)).find((l) => l.status === 403);
    expect(line).toMatchObject({ level: "warn", method: "GET", status: 403, error: "secret_key_in_browser", merchant_id: null });
  });

  it("never reaches a server caller: Node's fetch sends no Origin header, on GET or POST", async () => {
    const seen: (string | undefined)[] = [];
    const echo = createServer((req, res) => {
      seen.push(req.headers.origin);
      res.end();
    });
    await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/`;
    await (await fetch(url, { headers: { authorization: `Bearer ${keys.testSecretKey}` } })).text();
    await (await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).text();
    await new Promise((resolve) => echo.close(resolve));
    expect(seen).toEqual([undefined, undefined]);
  });

  it("leaves preflights alone (they carry no key) and public keys with an Origin pass", async () => {
    const res = await preflight(t.url, `/v1/transaction/${NO_SUCH_ID}`, "GET");
    expect(res.status).toBe(204);
    const pub = await fetch(`${t.url}/v1/transaction/${NO_SUCH_ID}`, { headers: { origin: SHOP, authorization: `Bearer ${keys.testPublicKey}` } });
    expect(pub.status).toBe(404);
  });
});

describe("PAYGATE_CORS_ORIGINS as a list", () => {
  it("echoes a listed origin with Vary: Origin, on preflights and actual requests", async () => {
    const pre = await preflight(narrowed.url, "/graphql", "POST", "http://localhost:5173");
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    expect(pre.headers.get("vary")).toBe("Origin");

    const res = await fetch(`${narrowed.url}/v1/transaction`, {
      method: "POST",
      headers: { origin: SHOP, "content-type": "application/json", authorization: `Bearer ${narrowedKeys.testPublicKey}` },
      body: JSON.stringify(ORDER),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("access-control-allow-origin")).toBe(SHOP);
    expect(res.headers.get("vary")).toBe("Origin");
  });

  it("gives another origin no Access-Control-Allow-Origin (the browser then blocks the call), still with Vary: Origin", async () => {
    for (const origin of ["https://evil.example", "https://shop.example.com.evil.example", "null"]) {
      const pre = await preflight(narrowed.url, "/v1/transaction", "POST", origin);
      expect(pre.status).toBe(204);
      expect(pre.headers.has("access-control-allow-origin")).toBe(false);
      expect(pre.headers.get("vary")).toBe("Origin");
    }
    const res = await fetch(`${narrowed.url}/v1/transaction/${NO_SUCH_ID}`, {
      headers: { origin: "https://evil.example", authorization: `Bearer ${narrowedKeys.testPublicKey}` },
    });
    expect(res.status).toBe(404);
    expect(res.headers.has("access-control-allow-origin")).toBe(false);
    expect(res.headers.get("vary")).toBe("Origin");
  });

  it("answers `*` without Vary: Origin", async () => {
    const res = await preflight(t.url, "/graphql", "POST");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.has("vary")).toBe(false);
  });
});

describe("Apollo's CSRF prevention, with CORS on", () => {
  const CSRF = /^This operation has been blocked as a potential Cross-Site Request Forgery \(CSRF\)\. Please either specify a 'content-type' header/;
  const mutation = () => ({
    query: "mutation ($input: InitializeTransactionInput!) { initializeTransaction(input: $input) { id } }",
    variables: { input: { ...ORDER, publicKey: keys.testPublicKey } },
  });

  it("refuses a simple cross-origin POST (text/plain) with 400, and runs nothing", async () => {
    const before = await t.db.transaction.count();
    const res = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { origin: SHOP, "content-type": "text/plain" },
      body: JSON.stringify(mutation()),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: { message: string; extensions: Record<string, unknown> }[] };
    expect(body.errors[0]?.message).toMatch(CSRF);
    expect(body.errors[0]?.extensions).toMatchObject({ code: "BAD_REQUEST", status: 400 });
    expect(await t.db.transaction.count()).toBe(before);
  });

  it("refuses a GET query without a preflight header, and runs one that carries apollo-require-preflight", async () => {
    const url = `${t.url}/graphql?query=${encodeURIComponent("{ __typename }")}`;
    const bare = await fetch(url, { headers: { origin: SHOP } });
    expect(bare.status).toBe(400);
    expect(((await bare.json()) as { errors: { message: string }[] }).errors[0]?.message).toMatch(CSRF);
    const preflighted = await fetch(url, { headers: { origin: SHOP, "apollo-require-preflight": "1" } });
    expect(preflighted.status).toBe(200);
    expect(await preflighted.json()).toEqual({ data: { __typename: "Query" } });
    expect(preflighted.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("runs a JSON POST (which a browser preflights)", async () => {
    const res = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { origin: SHOP, "content-type": "application/json" },
      body: JSON.stringify(mutation()),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { initializeTransaction: { id: string } } }).data.initializeTransaction.id).toMatch(/^[0-9a-f-]{36}$/);
  });
});
