// Idempotency-Key on both POSTs (Stripe's model): a retry gets the first request's transaction.
import { type ClientError, GraphQLClient } from "graphql-request";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExpiryScheduler } from "../../src/jobs/expiry-scheduler.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { InitializeTransactionDocument } from "../graphql/generated/operations.ts";
import { initializeBody } from "../support/builders.ts";

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
beforeAll(async () => {
  t = await startTestGateway();
  keys = await t.merchant({ name: "Retry Ltd" });
});
afterAll(() => t.close());

const body = initializeBody({ amount: "42.50", meta: { cart: 1 } });
const auth = (key: string, idempotencyKey?: string) => ({
  authorization: `Bearer ${key}`,
  ...(idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey }),
});
async function post(path: string, payload: unknown, headers: Record<string, string>) {
  const res = await fetch(t.url + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(payload),
  });
  // As in support/gateway.ts: a test reads the reply's fields freely.
  return { status: res.status, replayed: res.headers.get("idempotent-replayed"), body: (await res.json()) as any };
}
const count = () => t.db.transaction.count();

describe("initialize", () => {
  it("answers a retry with the same key with the same transaction, once created", async () => {
    const before = await count();
    const first = await post("/v1/transaction", body, auth(keys.testPublicKey, "order-1001"));
    const again = await post("/v1/transaction", { ...body, meta: { cart: 1 } }, auth(keys.testPublicKey, "order-1001"));
    expect(first.status).toBe(201);
    expect(first.replayed).toBeNull();
    expect(again.status).toBe(201);
    expect(again.replayed).toBe("true");
    expect(again.body.data).toEqual(first.body.data);
    expect(await count()).toBe(before + 1);
    expect(await t.db.webhookEvent.count({ where: { transactionId: first.body.data.id } })).toBe(1);
  });

  it("treats the key in the body and in the header alike", async () => {
    const first = await post("/v1/transaction", body, auth(keys.testPublicKey, "order-1002"));
    const again = await post("/v1/transaction", { ...body, public_key: keys.testPublicKey }, { "idempotency-key": "order-1002" });
    expect(again.body.data.id).toBe(first.body.data.id);
  });

  it("refuses the same key with other parameters (409) and creates nothing", async () => {
    await post("/v1/transaction", body, auth(keys.testPublicKey, "order-1003"));
    const before = await count();
    const other = await post("/v1/transaction", { ...body, amount: "43" }, auth(keys.testPublicKey, "order-1003"));
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({
      status: "error",
      code: "idempotency_conflict",
      reason: "idempotency_key_reused",
      message: "This Idempotency-Key was already used with other parameters; send a new key for a new request",
    });
    expect(await count()).toBe(before);
  });

  it("makes one transaction of concurrent requests with one key", async () => {
    const before = await count();
    const results = await Promise.all([1, 2, 3, 4].map(() => post("/v1/transaction", body, auth(keys.testPublicKey, "order-1004"))));
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
    expect(results.filter((r) => r.replayed === "true")).toHaveLength(3);
    expect(await count()).toBe(before + 1);
  });

  it("keeps keys apart per merchant and per mode", async () => {
    const other = await t.merchant({ name: "Other Ltd" });
    const mine = await post("/v1/transaction", body, auth(keys.testPublicKey, "shared-key"));
    const theirs = await post("/v1/transaction", body, auth(other.testPublicKey, "shared-key"));
    expect(theirs.status).toBe(201);
    expect(theirs.replayed).toBeNull();
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
  });

  it("refuses a malformed key with the spec's 400", async () => {
    for (const bad of ["x".repeat(256), "has space"]) {
      const res = await post("/v1/transaction", body, auth(keys.testPublicKey, bad));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ message: "Validation Error", errors: [{ field: "Idempotency-Key" }] });
    }
  });

  it("works through GraphQL with the same header", async () => {
    const client = new GraphQLClient(`${t.url}/graphql`, { headers: auth(keys.testPublicKey, "graph-1") });
    const input = { customer: { email: "ada@example.com" }, currency: "USD" as const, amount: "9.99" };
    const a = await client.request(InitializeTransactionDocument, { input });
    const b = await client.request(InitializeTransactionDocument, { input });
    expect(b.initializeTransaction.id).toBe(a.initializeTransaction.id);
    const conflict = await client.request(InitializeTransactionDocument, { input: { ...input, amount: "10" } }).then(
      () => null,
      (error: ClientError) => error.response.errors?.[0],
    );
    expect(conflict).toMatchObject({ extensions: { code: "IDEMPOTENCY_CONFLICT", status: 409, reason: "idempotency_key_reused" } });
  });
});

describe("initiate", () => {
  async function initiated(idempotencyKey: string) {
    const init = await post("/v1/transaction", body, auth(keys.testPublicKey));
    const id = init.body.data.id as string;
    const first = await post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, auth(keys.testSecretKey, idempotencyKey));
    expect(first.status).toBe(200);
    return { id, first };
  }

  it("answers a retry with the same key with the PENDING transaction, not 422", async () => {
    const { id, first } = await initiated("pay-1");
    const again = await post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, auth(keys.testSecretKey, "pay-1"));
    expect(again.status).toBe(200);
    expect(again.replayed).toBe("true");
    expect(again.body.data).toMatchObject({
      status: "PENDING",
      payment_address: first.body.data.payment_address,
      payment_amount: first.body.data.payment_amount,
    });
    const withoutKey = await post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, auth(keys.testSecretKey));
    expect(withoutKey.status).toBe(422);
  });

  it("refuses the key for another currency (409) or another transaction (409)", async () => {
    const { id } = await initiated("pay-2");
    const otherCurrency = await post(`/v1/transaction/${id}/pay`, { currency_id: "6" }, auth(keys.testSecretKey, "pay-2"));
    expect(otherCurrency.status).toBe(409);
    const init = await post("/v1/transaction", body, auth(keys.testPublicKey));
    const otherTransaction = await post(`/v1/transaction/${init.body.data.id}/pay`, { currency_id: "4" }, auth(keys.testSecretKey, "pay-2"));
    expect(otherTransaction.status).toBe(409);
    expect((await t.db.transaction.findUniqueOrThrow({ where: { id: init.body.data.id } })).status).toBe("INITIATED");
  });

  it("gives concurrent initiates with one key one answer: all 200, one address", async () => {
    const init = await post("/v1/transaction", body, auth(keys.testPublicKey));
    const id = init.body.data.id as string;
    const results = await Promise.all(
      [1, 2, 3].map(() => post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, auth(keys.testSecretKey, "pay-3"))),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(new Set(results.map((r) => r.body.data.payment_address)).size).toBe(1);
  });
});

describe("keys expire", () => {
  it("forgets a key after 24 hours", async () => {
    const first = await post("/v1/transaction", body, auth(keys.testPublicKey, "old-key"));
    await t.db.idempotencyKey.updateMany({ where: { key: "old-key" }, data: { createdAt: new Date(Date.now() - 25 * 3_600_000) } });
    await new ExpiryScheduler(t.gateway, 1000).tick();
    const later = await post("/v1/transaction", body, auth(keys.testPublicKey, "old-key"));
    expect(later.status).toBe(201);
    expect(later.body.data.id).not.toBe(first.body.data.id);
  });
});
