// GraphQL subscriptions without a browser: graphql-ws over a real WebSocket and graphql-sse over
// fetch, against the real app and database. Each change of a transaction (initiate, a partial
// payment, completion, expiry) reaches the subscriber; refusals carry the core's codes and messages.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { subscribeSse, subscribeWs, type Delivery, type Updates } from "../support/subscriptions.ts";
import { TransactionUpdatedDocument, type TransactionUpdatedSubscription } from "./generated/operations.ts";
import { initializeBody } from "../support/builders.ts";

type Update = TransactionUpdatedSubscription;

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
let other: Awaited<ReturnType<TestGateway["merchant"]>>;
const open: Updates<unknown>[] = [];

beforeAll(async () => {
  t = await startTestGateway();
  keys = await t.merchant({ name: "Acme Stores" });
  other = await t.merchant({ name: "Other Ltd" });
});
afterAll(async () => {
  await Promise.all(open.map((u) => u.close()));
  await t.close();
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function initialize(publicKey = keys.testPublicKey): Promise<string> {
  const res = await t.post("/v1/transaction", initializeBody(), bearer(publicKey));
  expect(res.status).toBe(201);
  return res.body.data.id;
}
/** 100 USD in BTC at the test rate of 65,000 USD/BTC, rounded up. */
const OWED = "0.00153847";

async function initiate(id: string, secretKey = keys.testSecretKey) {
  const res = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(secretKey));
  expect(res.status).toBe(200);
  expect(String(res.body.data.payment_amount)).toBe(OWED);
}
async function pay(id: string, body: Record<string, string> = {}) {
  const res = await t.post(`/v1/test_helpers/transaction/${id}/payment`, body, bearer(keys.testSecretKey));
  expect(res.status).toBe(200);
}
async function expire(id: string) {
  const res = await t.post(`/v1/test_helpers/transaction/${id}/expire`, {}, bearer(keys.testSecretKey));
  expect(res.status).toBe(200);
}

function ws(id: string, key: string | null = keys.testPublicKey, headers?: Record<string, string>) {
  const updates = subscribeWs(t.url, TransactionUpdatedDocument, { id }, { authorization: key === null ? undefined : `Bearer ${key}`, headers });
  open.push(updates);
  return updates;
}
function sse(id: string, key: string | null = keys.testPublicKey) {
  const updates = subscribeSse(t.url, TransactionUpdatedDocument, { id }, { authorization: key === null ? undefined : `Bearer ${key}` });
  open.push(updates);
  return updates;
}

/** The one GraphQL error a refused subscription delivered (graphql-ws and graphql-sse deliver it as a result). */
function refusal(delivery: Delivery<Update>) {
  if ("thrown" in delivery) throw new Error(`expected an error result, the client threw ${JSON.stringify(delivery.thrown)}`);
  expect(delivery.result.data ?? null).toBeNull();
  expect(delivery.result.errors).toHaveLength(1);
  return delivery.result.errors![0]!;
}

async function waitUntil(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("transactionUpdated over WebSocket (graphql-ws)", () => {
  it("sends the state now, then initiate, a partial payment, and completion with amountPaid", async () => {
    const id = await initialize();
    const updates = ws(id);
    expect((await updates.data()).transactionUpdated).toMatchObject({ id, status: "INITIATED", paymentState: null, customer: null });

    await initiate(id);
    expect((await updates.data()).transactionUpdated).toMatchObject({ id, status: "PENDING", paymentState: "AWAITING_PAYMENT", paymentAmount: OWED });

    await pay(id, { amount: "0.0005" });
    expect((await updates.data()).transactionUpdated).toMatchObject({ status: "PENDING", paymentState: "UNDERPAID", amountPaid: "0.0005" });

    await pay(id);
    expect((await updates.data()).transactionUpdated).toMatchObject({ status: "SUCCESSFUL", paymentState: "PAID", amountPaid: OWED });
    await updates.nothingWithin(200);
  });

  it("sends the expiry: ABANDONED", async () => {
    const id = await initialize();
    await initiate(id);
    const updates = ws(id);
    expect((await updates.data()).transactionUpdated.status).toBe("PENDING");
    await expire(id);
    expect((await updates.data()).transactionUpdated).toMatchObject({ status: "ABANDONED", paymentState: "EXPIRED" });
  });

  it("shows the customer to a secret-key subscriber only", async () => {
    const id = await initialize();
    expect((await ws(id, keys.testSecretKey).data()).transactionUpdated.customer).toEqual({ email: "ada@example.com" });
    expect((await ws(id, keys.testPublicKey).data()).transactionUpdated.customer).toBeNull();
  });

  it("sends only the followed transaction's changes", async () => {
    const followed = await initialize();
    const unrelated = await initialize();
    const updates = ws(followed);
    expect((await updates.data()).transactionUpdated.id).toBe(followed);
    await initiate(unrelated);
    await pay(unrelated);
    await updates.nothingWithin(300);
    await initiate(followed);
    expect((await updates.data()).transactionUpdated).toMatchObject({ id: followed, status: "PENDING" });
  });

  it("finds no transaction of another merchant, and none for an unknown id, and sends nothing after", async () => {
    const id = await initialize();
    const foreign = ws(id, other.testPublicKey);
    const error = refusal(await foreign.next());
    expect(error.message).toBe(`No transaction with id '${id}'`);
    expect(error.extensions).toMatchObject({ code: "NOT_FOUND", status: 404, reason: "transaction_not_found" });
    await initiate(id);
    await foreign.nothingWithin(300);

    const unknown = "00000000-0000-4000-8000-000000000000";
    expect(refusal(await ws(unknown).next())).toMatchObject({ message: `No transaction with id '${unknown}'`, extensions: { code: "NOT_FOUND" } });
    // Test keys do not see live transactions: the mode is part of the identity, as on REST.
    expect(refusal(await ws(id, other.liveSecretKey).next()).extensions).toMatchObject({ code: "NOT_FOUND", status: 404 });
  });

  it("refuses a subscriber without a key, or with an unknown one, with the core's message", async () => {
    const id = await initialize();
    expect(refusal(await ws(id, null).next())).toMatchObject({
      message: "Missing API key: send Authorization: Bearer pub_… or sec_…, or a client secret",
      extensions: { code: "UNAUTHENTICATED", status: 401 },
    });
    expect(refusal(await ws(id, "pub_test_nosuchkey").next()).extensions).toMatchObject({ code: "UNAUTHENTICATED", status: 401 });
  });

  it("closes a browser's connection that carries a secret key (4403, with the reason)", async () => {
    const id = await initialize();
    const updates = ws(id, keys.testSecretKey, { origin: "https://shop.example" });
    const closed = await updates.closeEvent;
    expect(closed).toEqual({ code: 4403, reason: "Secret keys belong on your server; from a browser use the public key (pub_…)" });
    // A public key from the same page is welcome.
    expect((await ws(id, keys.testPublicKey, { origin: "https://shop.example" }).data()).transactionUpdated.id).toBe(id);
  });

  it("serves subscriptions only, within the limits of POST /graphql", async () => {
    const queryDoc = await rawWs(`query { transaction(id: "x") { id } }`);
    expect(queryDoc).toEqual([
      expect.objectContaining({
        message: "Only subscriptions are served here; send a query to POST /graphql",
        extensions: expect.objectContaining({ code: "BAD_REQUEST", status: 400 }),
      }),
    ]);
    const aliases = Array.from({ length: 11 }, (_, i) => `a${i}: id`).join(" ");
    const tooMany = await rawWs(`subscription { transactionUpdated(id: "x") { ${aliases} } }`);
    expect(tooMany[0]).toMatchObject({
      message: expect.stringContaining("Aliases limit of 10 exceeded"),
      extensions: { code: "GRAPHQL_VALIDATION_FAILED", status: 400 },
    });
    const unknownField = await rawWs(`subscription { transactionUpdated(id: "x") { nope } }`);
    expect(unknownField[0]).toMatchObject({
      message: expect.stringContaining('Cannot query field "nope" on type "Transaction"'),
      extensions: { code: "GRAPHQL_VALIDATION_FAILED", status: 400 },
    });
  });

  it("stops following a transaction when its subscriber leaves", async () => {
    const id = await initialize();
    const before = t.gateway.payments.followedTransactions;
    const updates = ws(id);
    await updates.data();
    expect(t.gateway.payments.followedTransactions).toBe(before + 1);
    await updates.close();
    await waitUntil(() => t.gateway.payments.followedTransactions === before);
  });
});

describe("transactionUpdated over Server-Sent Events (graphql-sse)", () => {
  it("sends the state now, then initiate and completion", async () => {
    const id = await initialize();
    const updates = sse(id);
    expect((await updates.data()).transactionUpdated).toMatchObject({ id, status: "INITIATED" });
    await initiate(id);
    expect((await updates.data()).transactionUpdated).toMatchObject({ status: "PENDING", paymentAmount: OWED });
    await pay(id);
    expect((await updates.data()).transactionUpdated).toMatchObject({ status: "SUCCESSFUL", amountPaid: OWED });
  });

  it("refuses without a key, with the core's message, and ends the stream", async () => {
    const id = await initialize();
    const updates = sse(id, null);
    expect(refusal(await updates.next())).toMatchObject({
      message: "Missing API key: send Authorization: Bearer pub_… or sec_…, or a client secret",
      extensions: { code: "UNAUTHENTICATED", status: 401 },
    });
    await waitUntil(() => updates.ended);
  });

  it("answers a request that is not an event stream or not a subscription with 400 and a message", async () => {
    const notStream = await fetch(`${t.url}/graphql/stream`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(keys.testPublicKey) },
      body: JSON.stringify({ query: 'subscription { transactionUpdated(id: "x") { id } }' }),
    });
    expect(notStream.status).toBe(400);
    expect(await notStream.json()).toMatchObject({
      errors: [{ message: "Send Accept: text/event-stream", extensions: { code: "BAD_REQUEST", status: 400 } }],
    });

    const mutation = await fetch(`${t.url}/graphql/stream`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", ...bearer(keys.testPublicKey) },
      body: JSON.stringify({ query: 'mutation { initiatePayment(transactionId: "x", input: { currencyId: "4" }) { id } }' }),
    });
    expect(mutation.status).toBe(400);
    expect(await mutation.json()).toMatchObject({ errors: [{ message: "Only subscriptions are served here; send a mutation to POST /graphql" }] });
  });

  it("answers a page's preflight (CORS) and refuses a secret key from a browser with 403", async () => {
    const preflight = await fetch(`${t.url}/graphql/stream`, {
      method: "OPTIONS",
      headers: {
        origin: "https://shop.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization,content-type",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");

    const fromBrowser = await fetch(`${t.url}/graphql/stream`, {
      method: "POST",
      headers: { origin: "https://shop.example", "content-type": "application/json", accept: "text/event-stream", ...bearer(keys.testSecretKey) },
      body: JSON.stringify({ query: 'subscription { transactionUpdated(id: "x") { id } }' }),
    });
    expect(fromBrowser.status).toBe(403);
    expect(await fromBrowser.json()).toMatchObject({
      errors: [
        { message: "Secret keys belong on your server; from a browser use the public key (pub_…)", extensions: { code: "FORBIDDEN", status: 403 } },
      ],
    });
  });
});

/** Sends one raw graphql-ws subscribe and returns the errors of its `error` message ([] when it started). */
async function rawWs(query: string): Promise<{ message: string; extensions?: Record<string, unknown> }[]> {
  const { default: WebSocket } = await import("ws");
  const socket = new WebSocket(`${t.url.replace(/^http/, "ws")}/graphql`, "graphql-transport-ws");
  await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
  const messages: { type: string; payload?: unknown }[] = [];
  socket.on("message", (data) => messages.push(JSON.parse(String(data))));
  socket.send(JSON.stringify({ type: "connection_init", payload: { authorization: `Bearer ${keys.testPublicKey}` } }));
  await waitUntil(() => messages.some((m) => m.type === "connection_ack"));
  socket.send(JSON.stringify({ id: "1", type: "subscribe", payload: { query } }));
  await waitUntil(() => messages.some((m) => m.type === "error" || m.type === "next"));
  socket.close();
  const error = messages.find((m) => m.type === "error");
  return error ? (error.payload as { message: string }[]) : [];
}
