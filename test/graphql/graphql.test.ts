// The graph over HTTP with a real GraphQL client: the same core, the same rules and messages as REST.
import { GraphQLClient } from "graphql-request";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cryptoBySlug } from "../../src/core/money/currencies.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { SwitchableFeed } from "../support/prices.ts";
import { decodeQr } from "../support/qr.ts";
import {
  GetTransactionDocument,
  InitializeTransactionDocument,
  InitiatePaymentDocument,
  type InitializeTransactionMutationVariables,
} from "./generated/operations.ts";
import { graphqlFailure } from "../support/graphql-errors.ts";

const ZPUB = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs";

const feed = new SwitchableFeed();
let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;

beforeAll(async () => {
  t = await startTestGateway({ prices: feed });
  keys = await t.merchant({ name: "Acme Stores" });
});
afterAll(() => t.close());

const client = (key?: string) => new GraphQLClient(`${t.url}/graphql`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
const input = (extra: Partial<InitializeTransactionMutationVariables["input"]> = {}): InitializeTransactionMutationVariables["input"] => ({
  customer: { email: "ada@example.com", name: "Ada Obi" },
  currency: "USD",
  amount: "100",
  description: "Order #42",
  meta: { order: 42 },
  ...extra,
});

async function initialize(key = keys.testPublicKey): Promise<string> {
  const data = await client(key).request(InitializeTransactionDocument, { input: input() });
  return data.initializeTransaction.id;
}

const failure = graphqlFailure;

describe("initializeTransaction", () => {
  it("creates an INITIATED transaction with exact amounts and no customer for a public key", async () => {
    const data = await client(keys.testPublicKey).request(InitializeTransactionDocument, { input: input() });
    const tx = data.initializeTransaction;
    expect(tx).toMatchObject({
      status: "INITIATED",
      description: "Order #42",
      initializedAmount: "100",
      initializedCurrency: { id: 1, slug: "USD", name: "US Dollar" },
      paymentAmount: null,
      amountPaid: null,
      amountUnconfirmed: null,
      paymentState: null,
      paymentCurrency: null,
      paymentAddress: null,
      paymentUri: null,
      qrCode: null,
      quote: null,
      isLive: false,
      merchant: { id: keys.id, name: "Acme Stores" },
      meta: { order: 42 },
      customer: null,
    });
    expect(tx.reference).toMatch(/^bq_/);
    expect(new Date(tx.createdAt).toISOString()).toBe(tx.createdAt);
    // Never initiated, it is abandoned after the 24-hour window.
    expect(new Date(tx.expiresAt!).getTime() - new Date(tx.createdAt).getTime()).toBe(24 * 3_600_000);
  });

  it("takes the public key from the input, or a payment link", async () => {
    const byInput = await client().request(InitializeTransactionDocument, { input: input({ publicKey: keys.testPublicKey }) });
    expect(byInput.initializeTransaction.merchant.id).toBe(keys.id);
    const link = await t.db.paymentLink.create({ data: { merchantId: keys.id, isLive: false, slug: "pl_graphLink" } });
    const byLink = await client().request(InitializeTransactionDocument, { input: input({ paymentLink: link.slug }) });
    expect(byLink.initializeTransaction.status).toBe("INITIATED");
  });

  it("answers validation failures with BAD_USER_INPUT, status 400 and the REST message", async () => {
    const error = await failure(
      client(keys.testPublicKey).request(InitializeTransactionDocument, { input: input({ customer: { email: "nope" }, amount: "ten" }) }),
    );
    expect(error.message).toBe("Validation Error");
    expect(error.extensions).toMatchObject({ code: "BAD_USER_INPUT", status: 400 });
    const fields = (error.extensions?.errors as { field: string }[]).map((e) => e.field);
    expect(fields).toEqual(expect.arrayContaining(["customer.email", "amount"]));
    expect(error.extensions).not.toHaveProperty("stacktrace");
  });

  it("names fields in the graph's spelling", async () => {
    const error = await failure(
      client().request(InitializeTransactionDocument, { input: input({ publicKey: keys.testPublicKey, paymentLink: "pl_graphLink" }) }),
    );
    expect(error.extensions).toMatchObject({ code: "BAD_USER_INPUT", status: 400, errors: [{ field: "paymentLink" }] });
  });

  it("answers a wrong key with NOT_FOUND, 404, Invalid Public Key", async () => {
    const error = await failure(client("pub_test_nope").request(InitializeTransactionDocument, { input: input() }));
    expect(error.message).toBe("Invalid Public Key");
    expect(error.extensions).toMatchObject({ code: "NOT_FOUND", status: 404, reason: "invalid_public_key" });
  });

  it("answers live mode without KYB with KYB_REQUIRED and 422", async () => {
    const error = await failure(client(keys.livePublicKey).request(InitializeTransactionDocument, { input: input() }));
    expect(error.extensions).toMatchObject({ code: "KYB_REQUIRED", status: 422, reason: "kyb_none" });
  });

  it("refuses a fiat currency outside the enum before the core sees it", async () => {
    const error = await failure(
      client(keys.testPublicKey).request(InitializeTransactionDocument, { input: { ...input(), currency: "EUR" as "USD" } }),
    );
    expect(error.extensions).toMatchObject({ code: "BAD_USER_INPUT", status: 400 });
  });
});

describe("initiatePayment", () => {
  it("moves the transaction to PENDING and shows the customer to the secret key", async () => {
    const id = await initialize();
    const data = await client(keys.testSecretKey).request(InitiatePaymentDocument, {
      transactionId: id,
      input: { currencyId: "4", refundAddress: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx" },
    });
    const tx = data.initiatePayment;
    expect(tx).toMatchObject({
      id,
      status: "PENDING",
      paymentAmount: "0.00153847",
      paymentCurrency: { id: 4, slug: "BTC", name: "Bitcoin", decimals: 8 },
      refundAddress: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx",
      quote: { rate: "65000", source: "test-rates" },
      customer: { email: "ada@example.com", name: "Ada Obi" },
      paymentState: "AWAITING_PAYMENT",
      amountPaid: null,
      amountUnconfirmed: null,
    });
    expect(new Date(tx.expiresAt!).getTime() - Date.now()).toBeGreaterThan(29 * 60_000);
    expect(tx.paymentAddress).toMatch(/^tb1q/);
    expect(tx.paymentUri).toBe(`bitcoin:${tx.paymentAddress}?amount=0.00153847`);
    expect(decodeQr(tx.qrCode!).text).toBe(tx.paymentUri);
  });

  it("maps every core failure to its code, status and message", async () => {
    const id = await initialize();
    const secret = client(keys.testSecretKey);
    const pay = (currencyId: string, key = secret, transactionId = id) =>
      failure(key.request(InitiatePaymentDocument, { transactionId, input: { currencyId } }));

    expect(await pay("4", client(keys.testPublicKey))).toMatchObject({ extensions: { code: "UNAUTHENTICATED", status: 401 } });
    expect(await pay("abc")).toMatchObject({
      message: "Missing or invalid payload fields",
      extensions: { code: "BAD_USER_INPUT", status: 400, errors: [{ field: "currencyId" }] },
    });
    expect(await pay("99")).toMatchObject({ extensions: { code: "NOT_FOUND", status: 404, reason: "currency_not_supported" } });
    expect(await pay("4", secret, "00000000-0000-0000-0000-000000000000")).toMatchObject({
      extensions: { code: "NOT_FOUND", status: 404, reason: "transaction_not_found" },
    });

    feed.down = true;
    try {
      expect(await pay("4")).toMatchObject({ extensions: { code: "UPSTREAM_UNAVAILABLE", status: 503, reason: "quote_unavailable" } });
    } finally {
      feed.down = false;
    }
    await secret.request(InitiatePaymentDocument, { transactionId: id, input: { currencyId: "4" } });
    expect(await pay("6")).toMatchObject({
      message: "The transaction is not initiated",
      extensions: { code: "INVALID_STATE", status: 422, reason: "transaction_not_initiated" },
    });
  });

  it("answers a missing wallet with NOT_FOUND (processor not configured)", async () => {
    const live = await t.merchant({
      name: "Live BTC",
      kyb: "VERIFIED",
      wallets: [{ currency: cryptoBySlug("BTC")!, isLive: true, extendedPublicKey: ZPUB }],
    });
    const id = await initialize(live.livePublicKey);
    const error = await failure(client(live.liveSecretKey).request(InitiatePaymentDocument, { transactionId: id, input: { currencyId: "5" } }));
    expect(error.extensions).toMatchObject({ code: "NOT_FOUND", status: 404, reason: "processor_not_configured" });
  });
});

describe("transaction query", () => {
  it("shows a checkout page the transaction without the customer, and the merchant with it", async () => {
    const id = await initialize();
    const asCheckout = await client(keys.testPublicKey).request(GetTransactionDocument, { id });
    expect(asCheckout.transaction).toMatchObject({ id, status: "INITIATED", customer: null });
    const asMerchant = await client(keys.testSecretKey).request(GetTransactionDocument, { id });
    expect(asMerchant.transaction?.customer).toEqual({ email: "ada@example.com", name: "Ada Obi" });
  });

  it("answers null for another merchant's or mode's transaction, as if it did not exist", async () => {
    const id = await initialize();
    const other = await t.merchant({ name: "Other" });
    expect((await client(other.testPublicKey).request(GetTransactionDocument, { id })).transaction).toBeNull();
    expect((await client(other.testSecretKey).request(GetTransactionDocument, { id })).transaction).toBeNull();
    expect((await client(keys.livePublicKey).request(GetTransactionDocument, { id })).transaction).toBeNull();
    expect((await client(keys.testPublicKey).request(GetTransactionDocument, { id: "no-such-id" })).transaction).toBeNull();
  });

  it("requires a key", async () => {
    const id = await initialize();
    const none = await failure(client().request(GetTransactionDocument, { id }));
    expect(none.extensions).toMatchObject({ code: "UNAUTHENTICATED", status: 401 });
    const wrong = await failure(client("pub_test_wrong").request(GetTransactionDocument, { id }));
    expect(wrong).toMatchObject({ message: "Invalid API Key", extensions: { code: "UNAUTHENTICATED", status: 401 } });
  });
});

describe("production hygiene", () => {
  it("refuses introspection by default", async () => {
    const error = await failure(client(keys.testPublicKey).request("{ __schema { types { name } } }"));
    expect(error.extensions).toMatchObject({ code: "GRAPHQL_VALIDATION_FAILED", status: 400 });
    expect(error.message).toMatch(/introspection/i);
  });

  it("refuses alias floods", async () => {
    const aliases = Array.from({ length: 12 }, (_, i) => `a${i}: transaction(id: "x") { id }`).join(" ");
    const error = await failure(client(keys.testPublicKey).request(`{ ${aliases} }`));
    expect(error.extensions).toMatchObject({ code: "GRAPHQL_VALIDATION_FAILED", status: 400 });
    expect(error.message).toMatch(/aliases/i);
  });

  it("masks unexpected errors as Internal Server Error without a stack", async () => {
    // A failure nobody planned for: every new transaction now raises inside the database.
    await t.db.$executeRawUnsafe(`CREATE FUNCTION refuse_transactions() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'transactions refused by a test trigger'; END $$`);
    await t.db.$executeRawUnsafe("CREATE TRIGGER refuse BEFORE INSERT ON transactions FOR EACH ROW EXECUTE FUNCTION refuse_transactions()");
    try {
      const error = await failure(client(keys.testPublicKey).request(InitializeTransactionDocument, { input: input() }));
      expect(error.message).toBe("Internal Server Error");
      expect(error.extensions).toEqual({ code: "INTERNAL_SERVER_ERROR", status: 500, reason: "internal_error", errors: [] });
      const logged = t.logs.map((line) => JSON.parse(line)).find((line) => line.msg === "unexpected error in a GraphQL resolver");
      expect(logged.err.stack).toContain("transactions refused by a test trigger");
      expect(logged.request_id).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await t.db.$executeRawUnsafe("DROP TRIGGER refuse ON transactions");
      await t.db.$executeRawUnsafe("DROP FUNCTION refuse_transactions()");
    }
  });
});

describe("configured limits", () => {
  it("enforces a configured depth limit and serves introspection when enabled", async () => {
    const strict = await startTestGateway({ graphql: { introspection: true, landingPage: false, maxDepth: 2 } });
    try {
      const m = await strict.merchant();
      const c = new GraphQLClient(`${strict.url}/graphql`, { headers: { authorization: `Bearer ${m.testPublicKey}` } });
      const deep = await failure(c.request(`{ transaction(id: "x") { merchant { id } } }`));
      expect(deep.message).toMatch(/depth/i);
      const shallow = await c.request<{ transaction: null }>(`{ transaction(id: "x") { id } }`);
      expect(shallow.transaction).toBeNull();
      const schema = await c.request<{ __schema: { queryType: { name: string } } }>("{ __schema { queryType { name } } }");
      expect(schema.__schema.queryType.name).toBe("Query");
    } finally {
      await strict.close();
    }
  });
});
