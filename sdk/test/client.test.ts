// The SDK against the real service: initialize → initiate → retrieve over REST, the lists and events,
// the GraphQL documents, and paygate's refusals as PaygateApiError / PaygateGraphQLError.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewMerchant } from "../../src/core/merchants/merchants.ts";
import { startTestGateway, type TestGateway } from "../../test/support/gateway.ts";
import {
  createPaygate,
  InitializeTransactionDocument,
  InitiatePaymentDocument,
  PaygateApiError,
  PaygateGraphQLError,
  TransactionDocument,
} from "../src/index.ts";

let t: TestGateway;
let keys: NewMerchant;

beforeAll(async () => {
  t = await startTestGateway();
  keys = await t.merchant({ name: "SDK Shop" });
});
afterAll(() => t?.close());

describe("createPaygate over REST", () => {
  it("initializes with the public key, initiates and retrieves with the secret key, and lists", async () => {
    const browser = createPaygate({ baseUrl: t.url, publicKey: keys.testPublicKey });
    const server = createPaygate({ baseUrl: `${t.url}/`, secretKey: keys.testSecretKey });
    const initialized = await browser.transactions.initialize(
      { customer: { email: "ada@example.com", name: "Ada" }, currency: "USD", amount: "42.50", meta: { order: "A-1" } },
      { idempotencyKey: "sdk-order-A-1" },
    );
    expect(initialized.status).toBe("INITIATED");
    expect(initialized.checkout_url).toMatch(/^http/);
    // The Idempotency-Key went along: the same key answers with the same transaction.
    const replay = await browser.transactions.initialize(
      { customer: { email: "ada@example.com", name: "Ada" }, currency: "USD", amount: "42.50", meta: { order: "A-1" } },
      { idempotencyKey: "sdk-order-A-1" },
    );
    expect(replay.id).toBe(initialized.id);

    const initiated = await server.transactions.initiate(initialized.id, { currency_id: "4" });
    expect(initiated.id).toBe(initialized.id);
    expect(initiated.payment_address).toEqual(expect.any(String));

    const retrieved = await server.transactions.retrieve(initialized.id);
    expect(retrieved.reference).toBe(initialized.reference);
    expect(retrieved.payment_currency).toBe(4);

    const list = await server.transactions.list({ limit: "5" });
    expect(list.data.map((x) => x.id)).toContain(initialized.id);

    const events = await server.events.list({ transaction: initialized.id });
    expect(events.data.map((e) => e.type).sort()).toEqual(["payment.initiated", "payment.pending"]);
    const [first] = events.data;
    const event = await server.events.retrieve(first?.id ?? "");
    expect(event.transaction).toBe(initialized.id);

    // A server holding both keys initializes with the public one (spec 4) and does the rest with the secret one.
    const both = createPaygate({ baseUrl: t.url, publicKey: keys.testPublicKey, secretKey: keys.testSecretKey });
    const second = await both.transactions.initialize({ customer: { email: "ada@example.com" }, currency: "USD", amount: "5" });
    expect((await both.transactions.retrieve(second.id)).client_secret).toEqual(expect.any(String));

    // The generated client reaches every route, typed (here the same retrieve, by hand).
    const { data, response } = await server.rest.GET("/v1/transaction/{transaction_id}", { params: { path: { transaction_id: initialized.id } } });
    expect(response.status).toBe(200);
    expect(data?.data.id).toBe(initialized.id);
  });

  it("sends the merchant's rules with the secret key and the public key in the body, when it holds both (issue 41)", async () => {
    const both = createPaygate({ baseUrl: t.url, publicKey: keys.testPublicKey, secretKey: keys.testSecretKey });
    const made = await both.transactions.initialize({
      customer: { email: "ada@example.com" },
      currency: "USD",
      amount: "5",
      underpayment_tolerance: "2.5",
      confirmations: { BTC: 2 },
    });
    expect(made.policies).toMatchObject({ underpayment_tolerance: "2.5", confirmations: { BTC: 2 } });

    // A browser holds the public key only: paygate refuses the merchant's rules from it.
    const browser = createPaygate({ baseUrl: t.url, publicKey: keys.testPublicKey });
    const refused = await browser.transactions
      .initialize({ customer: { email: "ada@example.com" }, currency: "USD", amount: "5", expires_in: 600 })
      .then(
        () => null,
        (e: unknown) => e as PaygateApiError,
      );
    expect(refused).toBeInstanceOf(PaygateApiError);
    expect([refused?.status, refused?.reason]).toEqual([403, "merchant_rule_needs_secret_key"]);
    expect(refused?.message).toMatch(/^403: expires_in is the merchant's rule, not the customer's/);
  });

  it("throws paygate's refusals as PaygateApiError with status, reason and message", async () => {
    const wrongKey = createPaygate({ baseUrl: t.url, secretKey: "sec_test_nope" });
    const refused = await wrongKey.transactions.retrieve("00000000-0000-4000-8000-000000000000").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PaygateApiError);
    expect((refused as PaygateApiError).status).toBe(401);
    expect((refused as PaygateApiError).message).toMatch(/^401: Invalid Secret Key/);

    const server = createPaygate({ baseUrl: t.url, secretKey: keys.testSecretKey });
    const invalid = await server.transactions
      .initialize({ customer: { email: "not-an-email" }, currency: "USD", amount: "10" })
      .catch((e: unknown) => e as PaygateApiError);
    expect(invalid).toBeInstanceOf(PaygateApiError);
    expect((invalid as PaygateApiError).status).toBe(400);
    expect((invalid as PaygateApiError).errors.map((e) => e.field)).toContain("customer.email");

    expect(() => createPaygate({ baseUrl: t.url })).toThrow(/needs a secretKey \(sec_…\) or a publicKey/);
    expect(() => createPaygate({ baseUrl: t.url, secretKey: keys.testPublicKey })).toThrow(/secretKey must be a secret key/);
  });
});

describe("the SDK's GraphQL documents", () => {
  it("initializeTransaction, initiatePayment and transaction, typed", async () => {
    const browser = createPaygate({ baseUrl: t.url, publicKey: keys.testPublicKey });
    const server = createPaygate({ baseUrl: t.url, secretKey: keys.testSecretKey });
    const { initializeTransaction } = await browser.graphql(InitializeTransactionDocument, {
      input: { customer: { email: "grace@example.com" }, currency: "NGN", amount: "15000" },
    });
    expect(initializeTransaction.status).toBe("INITIATED");
    expect(initializeTransaction.initializedCurrency.slug).toBe("NGN");
    const { initiatePayment } = await server.graphql(InitiatePaymentDocument, {
      transactionId: initializeTransaction.id,
      input: { currencyId: "4" },
    });
    expect(initiatePayment.paymentAddress).toEqual(expect.any(String));
    const { transaction } = await server.graphql(TransactionDocument, { id: initializeTransaction.id });
    expect(transaction?.reference).toBe(initializeTransaction.reference);
    expect(transaction?.paymentCurrency?.id).toBe(4);

    const refused = await server.graphql(InitiatePaymentDocument, { transactionId: "nope", input: { currencyId: "4" } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PaygateGraphQLError);
    expect((refused as PaygateGraphQLError).message).toMatch(/transaction/i);
  });
});
