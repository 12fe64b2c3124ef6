// GET /v1/transaction/:id (not in the spec): the transaction in the shape of table 2.2.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { initializeBody } from "../support/builders.ts";

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
beforeAll(async () => {
  t = await startTestGateway();
  keys = await t.merchant();
});
afterAll(() => t.close());

const get = async (id: string, key?: string) => {
  const res = await fetch(`${t.url}/v1/transaction/${id}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  return { status: res.status, body: (await res.json()) as any };
};

describe("GET /v1/transaction/:id", () => {
  it("shows the transaction before and after initiation, to the public and the secret key", async () => {
    const init = await t.post("/v1/transaction", initializeBody({ customer: { email: "a@example.com" }, meta: { m: 1 } }), {
      authorization: `Bearer ${keys.testPublicKey}`,
    });
    const id = init.body.data.id as string;
    const before = await get(id, keys.testPublicKey);
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({
      status: "success",
      meta: { m: 1 },
      data: { id, status: "INITIATED", payment_amount: null, qrCode: null, initialized_currency: "USD" },
    });

    await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, { authorization: `Bearer ${keys.testSecretKey}` });
    const after = await get(id, keys.testSecretKey);
    expect(after.body.data).toMatchObject({ status: "PENDING", payment_amount: 0.00153847, payment_currency: 4 });
    expect(after.body.data.qrCode).toMatch(/^data:image\/png;base64,/);
  });

  it("answers 404 for another merchant's or mode's transaction and 401 without a key", async () => {
    const init = await t.post("/v1/transaction", initializeBody({ customer: { email: "a@example.com" }, amount: "1" }), {
      authorization: `Bearer ${keys.testPublicKey}`,
    });
    const id = init.body.data.id as string;
    const other = await t.merchant({ name: "Other" });
    for (const res of [await get(id, other.testSecretKey), await get(id, keys.livePublicKey)]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ status: "error", reason: "transaction_not_found" });
    }
    const none = await get(id);
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ status: "error", code: "unauthenticated" });
  });
});
