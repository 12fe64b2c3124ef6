// Issue 46: the usual key mistakes answer with a hint beside the spec's message. A secret key sent to
// initialize, a currency paygate does not price in, a key of the other mode: each got the spec's bare
// 404 ("Invalid Public Key", or no such transaction) and nothing saying what to change.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initializeBody } from "../support/builders.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
beforeAll(async () => {
  t = await startTestGateway();
  keys = await t.merchant({ name: "Hinted Ltd", kyb: "VERIFIED" });
});
afterAll(() => t.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const SECRET_KEY_HINT =
  "A secret key (sec_…) was sent where initialize takes the public key (pub_…): send the public key, and keep the secret key on your server";

describe("initialize's 404 Invalid Public Key (spec 5 and 7) with a hint", () => {
  it("says a secret key was sent, in the header or the body, and creates nothing", async () => {
    const before = await t.db.transaction.count();
    for (const res of [
      await t.post("/v1/transaction", initializeBody(), bearer(keys.testSecretKey)),
      await t.post("/v1/transaction", { ...initializeBody(), public_key: keys.testSecretKey }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ status: "error", message: "Invalid Public Key", reason: "invalid_public_key", hint: SECRET_KEY_HINT });
    }
    expect(await t.db.transaction.count()).toBe(before);
  });

  it("says what a public key looks like when the value is none, and nothing when it is an unknown pub_ key", async () => {
    const garbled = await t.post("/v1/transaction", initializeBody(), bearer("test_123"));
    expect(garbled.status).toBe(404);
    expect(garbled.body.hint).toBe("A public key starts with pub_test_ or pub_live_: copy it whole from the dashboard or `paygate merchant create`");
    const unknown = await t.post("/v1/transaction", initializeBody(), bearer("pub_test_unknown"));
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ status: "error", message: "Invalid Public Key", code: "not_found", reason: "invalid_public_key", errors: [] });
  });

  it("names the currencies paygate prices in", async () => {
    const res = await t.post("/v1/transaction", initializeBody({ currency: "EUR" }), bearer(keys.testPublicKey));
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      message: "Invalid Public Key",
      reason: "unsupported_currency",
      hint: '"EUR" is not a currency paygate prices in: send USD or NGN',
    });
  });

  it("GraphQL carries the hint in the error's extensions", async () => {
    const res = await t.post(
      "/graphql",
      { query: 'mutation { initializeTransaction(input: { customer: { email: "ada@example.com" }, currency: USD, amount: "5" }) { id } }' },
      bearer(keys.testSecretKey),
    );
    expect(res.body.errors?.[0]).toMatchObject({
      message: "Invalid Public Key",
      extensions: { reason: "invalid_public_key", hint: SECRET_KEY_HINT },
    });
  });
});

describe("a key of the other mode", () => {
  it("initiate and retrieve with the live key say the transaction is a test-mode one; an unknown id gets no hint", async () => {
    const init = await t.post("/v1/transaction", initializeBody(), bearer(keys.testPublicKey));
    const id: string = init.body.data.id;
    const hint = "The key sent is a live-mode key and this is a test-mode transaction: use the test key (pub_test_… or sec_test_…)";
    const pay = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.liveSecretKey));
    expect(pay.status).toBe(404);
    expect(pay.body).toMatchObject({ message: `No transaction with id '${id}'`, reason: "transaction_not_found", hint });
    const read = await fetch(`${t.url}/v1/transaction/${id}`, { headers: bearer(keys.liveSecretKey) });
    expect(read.status).toBe(404);
    expect(await read.json()).toMatchObject({ reason: "transaction_not_found", hint });
    const refunds = await fetch(`${t.url}/v1/transaction/${id}/refunds`, { headers: bearer(keys.liveSecretKey) });
    expect(((await refunds.json()) as { hint?: string }).hint).toBe(hint);
    // Another merchant's key learns nothing of it.
    const other = await t.merchant({ name: "Someone Else Ltd" });
    const stranger = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(other.liveSecretKey));
    expect(stranger.status).toBe(404);
    expect(stranger.body.hint).toBeUndefined();
    const unknown = await t.post("/v1/transaction/00000000-0000-4000-8000-000000000000/pay", { currency_id: "4" }, bearer(keys.liveSecretKey));
    expect(unknown.body.hint).toBeUndefined();
  });
});

describe("the test helper's payment on a transaction not yet initiated", () => {
  it('says to initiate it first (it used to answer the spec\'s "The transaction is not initiated", which says the opposite)', async () => {
    const init = await t.post("/v1/transaction", initializeBody(), bearer(keys.testPublicKey));
    const res = await t.post(`/v1/test_helpers/transaction/${init.body.data.id}/payment`, {}, bearer(keys.testSecretKey));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      reason: "transaction_not_initiated",
      message:
        "This transaction has no coin or payment address yet: initiate it first (POST /v1/transaction/:id/pay with a currency_id), then record its test payment",
    });
    expect((await t.db.transaction.findUniqueOrThrow({ where: { id: init.body.data.id } })).status).toBe("INITIATED");
  });
});
