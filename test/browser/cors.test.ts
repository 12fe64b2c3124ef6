// @module-tag browser
// A checkout page on another origin, in a real Chromium: it calls paygate's GraphQL and REST with
// the public key and reads the answers; a secret key from the same page is blocked by the browser
// and refused by paygate; Apollo's CSRF prevention still holds; PAYGATE_CORS_ORIGINS narrows who may call.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SECRET_KEY_IN_BROWSER } from "../../src/edge/cors.ts";
import { launchBrowser } from "../support/browser.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { initializeBody } from "../support/builders.ts";

/** The shop's checkout page: its script is what a front end would do with fetch. */
const CHECKOUT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Checkout</title></head>
<body><main><h1>Checkout</h1></main>
<script>
async function call(url, init) {
  try {
    const res = await fetch(url, init);
    return {
      ok: true,
      status: res.status,
      body: await res.json(),
      requestId: res.headers.get("x-request-id"),
      replayed: res.headers.get("idempotent-replayed"),
    };
  } catch (error) {
    return { ok: false, error: error.name + ": " + error.message };
  }
}
const bearer = (key) => ({ authorization: "Bearer " + key });
window.paygate = {
  graphql: (api, key, query, variables) =>
    call(api + "/graphql", { method: "POST", headers: { "content-type": "application/json", ...bearer(key) }, body: JSON.stringify({ query, variables }) }),
  initialize: (api, key, body, idempotencyKey) =>
    call(api + "/v1/transaction", {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(key), ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}) },
      body: JSON.stringify(body),
    }),
  retrieve: (api, key, id) => call(api + "/v1/transaction/" + id, { headers: bearer(key) }),
  initiate: (api, key, id, body) =>
    call(api + "/v1/transaction/" + id + "/pay", { method: "POST", headers: { "content-type": "application/json", ...bearer(key) }, body: JSON.stringify(body) }),
  // What a plain HTML form could send: no preflight.
  formLike: (api, text) => call(api + "/graphql", { method: "POST", headers: { "content-type": "text/plain" }, body: text }),
};
</script></body></html>`;

const TRANSACTION_FIELDS = "id reference status initializedAmount initializedCurrency { slug } isLive merchant { id name } customer { email }";
const INITIALIZE = `mutation ($input: InitializeTransactionInput!) { initializeTransaction(input: $input) { ${TRANSACTION_FIELDS} } }`;
const GET_TRANSACTION = `query ($id: ID!) { transaction(id: $id) { ${TRANSACTION_FIELDS} } }`;
const INITIATE = `mutation ($id: ID!) { initiatePayment(transactionId: $id, input: { currencyId: 4 }) { id status } }`;
const ORDER = initializeBody({ customer: { email: "ada@example.com", name: "Ada Obi" }, amount: "25.50", description: "Order #7" });

interface PageCall {
  ok: boolean;
  status?: number;
  body?: any;
  requestId?: string | null;
  replayed?: string | null;
  error?: string;
}

let browser: Browser;
let shop: { server: Server; origin: string };
let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;

beforeAll(async () => {
  [browser, shop, t] = await Promise.all([launchBrowser(), serveCheckoutPage(), startTestGateway()]);
  keys = await t.merchant({ name: "Acme Stores" });
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => shop?.server.close(resolve));
  await t?.close();
});

async function serveCheckoutPage(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(CHECKOUT_PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** The checkout page, in a fresh browser context (no cache, no preflight remembered). */
async function openCheckout(): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(shop.origin);
  expect(await page.title()).toBe("Checkout");
  return page;
}

type PaygateInPage = Record<string, (...args: unknown[]) => Promise<PageCall>>;
/** Runs one of the page's own functions (window.paygate) in the page. */
const inPage = (page: Page, name: string, ...args: unknown[]): Promise<PageCall> =>
  page.evaluate(([fn, rest]) => (globalThis as unknown as { paygate: PaygateInPage }).paygate[fn as string]!(...(rest as unknown[])), [
    name,
    args,
  ] as const);

const transactionCount = (merchantId: number) => t.db.transaction.count({ where: { merchantId } });
const requestLines = (gateway: TestGateway) =>
  gateway.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === "request");

describe("a checkout page on another origin, with the public key", () => {
  it("initializes a transaction and reads it back through GraphQL", async () => {
    const page = await openCheckout();
    const created = await inPage(page, "graphql", t.url, keys.testPublicKey, INITIALIZE, { input: ORDER });
    expect(created).toMatchObject({ ok: true, status: 200 });
    const tx = created.body.data.initializeTransaction;
    expect(tx).toMatchObject({
      status: "INITIATED",
      initializedAmount: "25.5",
      initializedCurrency: { slug: "USD" },
      isLive: false,
      merchant: { id: keys.id, name: "Acme Stores" },
      customer: null,
    });
    expect(tx.reference).toMatch(/^bq_/);

    const read = await inPage(page, "graphql", t.url, keys.testPublicKey, GET_TRANSACTION, { id: tx.id });
    expect(read).toMatchObject({ ok: true, status: 200, body: { data: { transaction: tx } } });
    expect(read.requestId).toMatch(/^[0-9a-f-]{36}$/); // X-Request-Id is exposed to the page
    await page.context().close();
  });

  it("initializes (with an Idempotency-Key, replayed) and retrieves a transaction over REST, reading the exposed headers", async () => {
    const page = await openCheckout();
    const before = await transactionCount(keys.id);
    const first = await inPage(page, "initialize", t.url, keys.testPublicKey, ORDER, "checkout-7");
    expect(first).toMatchObject({
      ok: true,
      status: 201,
      replayed: null,
      body: { status: "success", data: { status: "INITIATED", initialized_amount: 25.5, merchant: { id: keys.id } } },
    });
    expect(first.requestId).toMatch(/^[0-9a-f-]{36}$/);
    const again = await inPage(page, "initialize", t.url, keys.testPublicKey, ORDER, "checkout-7");
    expect(again).toMatchObject({ ok: true, status: 201, replayed: "true", body: { data: { id: first.body.data.id } } });
    expect(await transactionCount(keys.id)).toBe(before + 1);

    const read = await inPage(page, "retrieve", t.url, keys.testPublicKey, first.body.data.id);
    expect(read).toMatchObject({ ok: true, status: 200, body: { status: "success", data: { id: first.body.data.id, status: "INITIATED" } } });
    await page.context().close();
  });

  it("reads paygate's error answers: an unknown public key is a 404 the page can show", async () => {
    const page = await openCheckout();
    const refused = await inPage(page, "initialize", t.url, "pub_test_unknown", ORDER);
    expect(refused).toMatchObject({ ok: true, status: 404, body: { status: "error", message: "Invalid Public Key", reason: "invalid_public_key" } });
    const graph = await inPage(page, "graphql", t.url, keys.testPublicKey, GET_TRANSACTION, { id: "00000000-0000-0000-0000-000000000000" });
    expect(graph).toMatchObject({ ok: true, status: 200, body: { data: { transaction: null } } });
    await page.context().close();
  });
});

describe("a secret key in the page", () => {
  it("fails in the browser, and paygate refused it with 403 before doing anything", async () => {
    const created = await t.post("/v1/transaction", ORDER, { authorization: `Bearer ${keys.testPublicKey}` });
    const id = created.body.data.id as string;
    const page = await openCheckout();
    const linesBefore = requestLines(t).length;

    const graph = await inPage(page, "graphql", t.url, keys.testSecretKey, INITIATE, { id });
    const read = await inPage(page, "retrieve", t.url, keys.testSecretKey, id);
    const pay = await inPage(page, "initiate", t.url, keys.testSecretKey, id, { currency_id: "4" });
    for (const call of [graph, read, pay]) expect(call).toEqual({ ok: false, error: "TypeError: Failed to fetch" });

    // The GraphQL and GET requests reached paygate and were refused; initiate's preflight got no
    // CORS answer, so the browser never sent the POST.
    const lines = requestLines(t).slice(linesBefore);
    const refused = lines.filter((line) => line.status === 403);
    expect(refused.map((line) => [line.method, line.error])).toEqual([
      ["POST", "secret_key_in_browser"],
      ["GET", "secret_key_in_browser"],
    ]);
    expect(lines.filter((line) => line.route === "/v1/transaction/:transaction_id/pay" && line.method === "POST")).toEqual([]);
    expect((await t.db.transaction.findUniqueOrThrow({ where: { id } })).status).toBe("INITIATED");

    // The same request from a server (no Origin) works: the key itself is fine.
    const server = await fetch(`${t.url}/v1/transaction/${id}`, { headers: { authorization: `Bearer ${keys.testSecretKey}` } });
    expect(server.status).toBe(200);
    await page.context().close();
  });

  it("is refused on paygate's own GraphQL page too, which shows why", async () => {
    const dev = await startTestGateway({ graphql: { introspection: true, landingPage: true } });
    try {
      const devKeys = await dev.merchant();
      const page = await browser.newPage();
      await page.goto(`${dev.url}/graphql`);
      await page.fill("#key", devKeys.testSecretKey);
      await page.fill("#query", "{ __typename }");
      await page.fill("#variables", "{}");
      await page.click("button[type=submit]");
      await expect.poll(() => page.textContent("#result")).toMatch(/^HTTP 403\n/);
      expect(await page.textContent("#result")).toContain(SECRET_KEY_IN_BROWSER);
      await page.fill("#key", devKeys.testPublicKey);
      await page.click("button[type=submit]");
      await expect.poll(() => page.textContent("#result")).toMatch(/^HTTP 200\n/);
      expect(await page.textContent("#result")).toContain('"__typename": "Query"');
      await page.close();
    } finally {
      await dev.close();
    }
  });
});

describe("Apollo's CSRF prevention", () => {
  it("still refuses a form-like text/plain POST from the page, and runs nothing", async () => {
    const page = await openCheckout();
    const before = await transactionCount(keys.id);
    const body = JSON.stringify({ query: INITIALIZE, variables: { input: { ...ORDER, publicKey: keys.testPublicKey } } });
    const refused = await inPage(page, "formLike", t.url, body);
    expect(refused).toMatchObject({ ok: true, status: 400 });
    expect(refused.body.errors[0].message).toMatch(/^This operation has been blocked as a potential Cross-Site Request Forgery \(CSRF\)/);
    expect(await transactionCount(keys.id)).toBe(before);
    await page.context().close();
  });
});

describe("PAYGATE_CORS_ORIGINS", () => {
  it("set to another origin: the page's calls are blocked and nothing is created", async () => {
    const narrowed = await startTestGateway({ cors: { origins: ["https://shop.example.com"] } });
    try {
      const own = await narrowed.merchant();
      const page = await openCheckout();
      const calls = [
        await inPage(page, "graphql", narrowed.url, own.testPublicKey, INITIALIZE, { input: ORDER }),
        await inPage(page, "initialize", narrowed.url, own.testPublicKey, ORDER),
        await inPage(page, "retrieve", narrowed.url, own.testPublicKey, "00000000-0000-0000-0000-000000000000"),
      ];
      for (const call of calls) expect(call).toEqual({ ok: false, error: "TypeError: Failed to fetch" });
      expect(await narrowed.db.transaction.count()).toBe(0);
      // Only preflights arrived (answered, but without Access-Control-Allow-Origin).
      expect(requestLines(narrowed).map((line) => [line.method, line.status])).toEqual([
        ["OPTIONS", 204],
        ["OPTIONS", 204],
        ["OPTIONS", 204],
      ]);
      await page.context().close();
    } finally {
      await narrowed.close();
    }
  });

  it("listing the page's origin: the page's calls work", async () => {
    const listed = await startTestGateway({ cors: { origins: ["https://shop.example.com", shop.origin] } });
    try {
      const own = await listed.merchant();
      const page = await openCheckout();
      const created = await inPage(page, "initialize", listed.url, own.testPublicKey, ORDER);
      expect(created).toMatchObject({ ok: true, status: 201, body: { data: { status: "INITIATED" } } });
      const graph = await inPage(page, "graphql", listed.url, own.testPublicKey, GET_TRANSACTION, { id: created.body.data.id });
      expect(graph).toMatchObject({ ok: true, status: 200, body: { data: { transaction: { id: created.body.data.id, status: "INITIATED" } } } });
      await page.context().close();
    } finally {
      await listed.close();
    }
  });
});
