// The use cases answer with all a reply shows (src/core/transactions/details.ts): the adapters only
// shape it, so the REST reply, GraphQL's and the gateway's answer agree, and a reader who may not
// see the client secret never gets it from the core.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initializeBody } from "../support/builders.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
beforeAll(async () => {
  t = await startTestGateway();
  keys = await t.merchant();
});
afterAll(() => t.close());

const body = initializeBody();

describe("the use cases' details", () => {
  it("initialize answers with the client secret and checkout URL, nothing payable yet", async () => {
    const initialized = await t.gateway.payments.initializeTransaction({ bearerToken: keys.testPublicKey, body });
    const id = initialized.transaction.id;
    expect(initialized.checkout?.clientSecret).toMatch(new RegExp(`^${id}_secret_[0-9A-Za-z]{32}$`));
    expect(initialized.checkout?.checkoutUrl).toBe(`${t.gateway.publicUrl}/checkout/${initialized.checkout?.clientSecret}`);
    expect(initialized).toMatchObject({ paymentRequest: null, receipts: [], view: { paymentCurrency: null, payment: null } });
    // The secret handed out is the one sealed in the row: a replay (which opens it) shows the same.
    const replay = await t.gateway.payments.initializeTransaction({ bearerToken: keys.testPublicKey, body, idempotencyKey: `k-${id}` });
    const again = await t.gateway.payments.initializeTransaction({ bearerToken: keys.testPublicKey, body, idempotencyKey: `k-${id}` });
    expect(again.replayed).toBe(true);
    expect(again.checkout).toEqual(replay.checkout);
    const read = await t.gateway.payments.transactionDetails(keys.testSecretKey, id);
    expect(read.details?.checkout).toEqual(initialized.checkout);
  });

  it("initiate answers with the QR image, payment URI and checkout link, and REST shows exactly those", async () => {
    const { transaction } = await t.gateway.payments.initializeTransaction({ bearerToken: keys.testPublicKey, body });
    const initiated = await t.gateway.payments.initiatePayment({
      bearerToken: keys.testSecretKey,
      transactionId: transaction.id,
      body: { currency_id: "4" },
    });
    expect(initiated.transaction.status).toBe("PENDING");
    expect(initiated.paymentRequest?.uri).toMatch(new RegExp(`^bitcoin:${initiated.transaction.paymentAddress}\\?amount=`));
    expect(initiated.paymentRequest?.qrCode).toMatch(/^data:image\/png;base64,/);
    expect(initiated.view.payment?.state).toBe("awaiting_payment");

    const res = await fetch(`${t.url}/v1/transaction/${transaction.id}`, { headers: { authorization: `Bearer ${keys.testSecretKey}` } });
    const data = ((await res.json()) as { data: Record<string, unknown> }).data;
    expect(data).toMatchObject({
      qrCode: initiated.paymentRequest?.qrCode,
      payment_uri: initiated.paymentRequest?.uri,
      client_secret: initiated.checkout?.clientSecret,
      checkout_url: initiated.checkout?.checkoutUrl,
    });
  });

  it("gives a public-key reader no client secret: the core does not open it", async () => {
    const { transaction } = await t.gateway.payments.initializeTransaction({ bearerToken: keys.testPublicKey, body });
    const read = await t.gateway.payments.transactionDetails(keys.testPublicKey, transaction.id);
    expect(read.details?.transaction.id).toBe(transaction.id);
    expect(read.details?.checkout).toBeNull();
    const res = await fetch(`${t.url}/v1/transaction/${transaction.id}`, { headers: { authorization: `Bearer ${keys.testPublicKey}` } });
    const data = ((await res.json()) as { data: Record<string, unknown> }).data;
    expect(data).not.toHaveProperty("client_secret");
    expect(data).not.toHaveProperty("checkout_url");
  });

  it("lists every transaction of a page with its details, in the list's order", async () => {
    const page = await t.gateway.payments.listTransactionDetails(keys.testSecretKey, { limit: "3" });
    expect(page.details.map((d) => d.transaction.id)).toEqual(page.transactions.map((tx) => tx.id));
    for (const d of page.details) expect(d.checkout?.clientSecret.startsWith(`${d.transaction.id}_secret_`)).toBe(true);
  });
});
