// Issue 41, item 2: the per-payment policies loosen what a merchant accepts, so they are the
// merchant's rules. A customer's credential (a public key, a payment link: both ship in browsers)
// may not send them (403, nothing created); the merchant's server sends them with its secret key in
// the Authorization header and the public key in the body (or GraphQL's input.publicKey).
import { GraphQLClient } from "graphql-request";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CUSTOMER_FIELDS, InitializeBody, MERCHANT_RULE_FIELDS } from "../../src/core/transactions/requests.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { initializeBody } from "../support/builders.ts";
import { graphqlFailure } from "../support/graphql-errors.ts";

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
let other: Awaited<ReturnType<TestGateway["merchant"]>>;
let link: string;
beforeAll(async () => {
  t = await startTestGateway();
  keys = await t.merchant({ kyb: "VERIFIED" });
  other = await t.merchant({ name: "Other Shop", kyb: "VERIFIED" });
  link = (await t.db.paymentLink.create({ data: { merchantId: keys.id, isLive: false, slug: "pl_rulesTest" } })).slug;
});
afterAll(() => t.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const count = () => t.db.transaction.count();
const HOW =
  "send it from your server with your secret key in Authorization: Bearer sec_… and your public key in the body's public_key (GraphQL: input.publicKey)";
const needsSecretKey = (field: string) => `${field} is the merchant's rule, not the customer's: a public key or a payment link cannot set it; ${HOW}`;

// Each of the four fields, as REST and GraphQL send it, and what is stored and shown.
const RULES: { field: string; rest: Record<string, unknown>; graph: Record<string, unknown> }[] = [
  { field: "underpayment_tolerance", rest: { underpayment_tolerance: "10" }, graph: { underpaymentTolerance: "10" } },
  { field: "confirmations", rest: { confirmations: { BTC: 1 } }, graph: { confirmations: { BTC: 1 } } },
  { field: "expires_in", rest: { expires_in: 604_800 }, graph: { expiresIn: 604_800 } },
  {
    field: "late_payment",
    rest: { late_payment: { accept_if_rate_moved_below: "10" } },
    graph: { latePayment: { acceptIfRateMovedBelow: "10" } },
  },
];

describe("the one list of what a customer's credential may send", () => {
  it("is the spec's fields and the checkout's; every other field of initialize is the merchant's rule", () => {
    expect([...CUSTOMER_FIELDS].sort()).toEqual(
      ["amount", "cancel_url", "currency", "customer", "description", "locale", "meta", "payment_link", "public_key", "return_url"].sort(),
    );
    expect(MERCHANT_RULE_FIELDS).toEqual(["expires_in", "underpayment_tolerance", "confirmations", "late_payment"]);
    expect([...CUSTOMER_FIELDS, ...MERCHANT_RULE_FIELDS].sort()).toEqual(Object.keys(InitializeBody.shape).sort());
  });
});

describe("REST initialize: the merchant's rules need the secret key", () => {
  it("a payment link with underpayment_tolerance: 403 naming the field, nothing created", async () => {
    const before = await count();
    const res = await t.post("/v1/transaction", initializeBody({ payment_link: link, underpayment_tolerance: "10" }));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      status: "error",
      code: "forbidden",
      reason: "merchant_rule_needs_secret_key",
      message: needsSecretKey("underpayment_tolerance"),
      errors: [{ field: "underpayment_tolerance", message: "underpayment_tolerance is the merchant's rule: send it with the secret key" }],
    });
    expect(await count()).toBe(before);
  });

  for (const { field, rest } of RULES) {
    it(`a public key alone with ${field}: 403, nothing created (header or body)`, async () => {
      const before = await count();
      const byHeader = await t.post("/v1/transaction", initializeBody(rest), bearer(keys.testPublicKey));
      expect(byHeader.status).toBe(403);
      expect(byHeader.body).toMatchObject({ code: "forbidden", reason: "merchant_rule_needs_secret_key", message: needsSecretKey(field) });
      const byBody = await t.post("/v1/transaction", initializeBody({ ...rest, public_key: keys.testPublicKey }));
      expect(byBody.status).toBe(403);
      expect(byBody.body.message).toBe(needsSecretKey(field));
      expect(await count()).toBe(before);
    });
  }

  it("names every merchant's rule sent, in one message", async () => {
    const res = await t.post("/v1/transaction", initializeBody({ expires_in: 600, underpayment_tolerance: "1" }), bearer(keys.testPublicKey));
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(
      `expires_in and underpayment_tolerance are the merchant's rules, not the customer's: a public key or a payment link cannot set them; ${HOW.replace("send it", "send them")}`,
    );
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(["expires_in", "underpayment_tolerance"]);
  });

  it("a null merchant's rule is no rule: the public key alone creates the transaction", async () => {
    const res = await t.post("/v1/transaction", initializeBody({ expires_in: null, underpayment_tolerance: null }), bearer(keys.testPublicKey));
    expect(res.status).toBe(201);
  });

  it("the public key in the body with the secret key in the header: 201, the policies stored and shown", async () => {
    const all = Object.assign({}, ...RULES.map((r) => r.rest));
    const res = await t.post("/v1/transaction", initializeBody({ ...all, public_key: keys.testPublicKey }), bearer(keys.testSecretKey));
    expect(res.status).toBe(201);
    const shown = {
      underpayment_tolerance: "10",
      confirmations: { BTC: 1 },
      expires_in: 604_800,
      late_payment: { accept_if_rate_moved_below: "10", decision: null },
    };
    expect(res.body.data.policies).toEqual(shown);
    expect(res.body.data.merchant.id).toBe(keys.id);
    const stored = await t.db.transaction.findUniqueOrThrow({ where: { id: res.body.data.id } });
    expect([stored.policyUnderpaymentTolerance?.toString(), stored.policyConfirmations, stored.policyExpiresIn, stored.isLive]).toEqual([
      "10",
      { BTC: 1 },
      604_800,
      false,
    ]);
    const read = await fetch(`${t.url}/v1/transaction/${res.body.data.id}`, { headers: bearer(keys.testSecretKey) });
    expect(((await read.json()) as { data: { policies: unknown } }).data.policies).toEqual(shown);
  });

  it("the secret key in the header with the public key and no policies: 201 as the public key alone", async () => {
    const res = await t.post("/v1/transaction", initializeBody({ public_key: keys.testPublicKey }), bearer(keys.testSecretKey));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ status: "INITIATED", is_live: false, merchant: { id: keys.id } });
  });

  it("the other mode's secret key: 400 naming the modes, nothing created", async () => {
    const before = await count();
    const res = await t.post("/v1/transaction", initializeBody({ public_key: keys.testPublicKey, expires_in: 600 }), bearer(keys.liveSecretKey));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      message: "Validation Error",
      reason: "secret_key_mismatch",
      errors: [
        {
          field: "public_key",
          message:
            "the secret key in the Authorization header is a live key and public_key a test key: send the secret key of the public key's merchant and mode",
        },
      ],
    });
    expect(await count()).toBe(before);
  });

  it("another merchant's secret key: 400, nothing created", async () => {
    const before = await count();
    const res = await t.post("/v1/transaction", initializeBody({ public_key: keys.testPublicKey, expires_in: 600 }), bearer(other.testSecretKey));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      message: "Validation Error",
      reason: "secret_key_mismatch",
      errors: [
        {
          field: "public_key",
          message:
            "the secret key in the Authorization header is another merchant's than public_key: send the secret key of the public key's merchant and mode",
        },
      ],
    });
    expect(await count()).toBe(before);
  });

  it("an unknown secret key with the public key: 401 Invalid Secret Key, nothing created", async () => {
    const before = await count();
    const res = await t.post("/v1/transaction", initializeBody({ public_key: keys.testPublicKey, expires_in: 600 }), bearer("sec_test_unknown"));
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: "unauthenticated", message: "Invalid Secret Key", reason: "invalid_secret_key" });
    expect(await count()).toBe(before);
  });

  it("an unknown public key with a valid secret key: the spec's 404 Invalid Public Key", async () => {
    const res = await t.post("/v1/transaction", initializeBody({ public_key: "pub_test_unknown", expires_in: 600 }), bearer(keys.testSecretKey));
    expect(res.status).toBe(404);
    expect(res.body.message).toBe("Invalid Public Key");
  });

  it("a secret key alone, without public_key, creates nothing: the spec's 404 Invalid Public Key, policies or not", async () => {
    const before = await count();
    for (const extra of [{}, { underpayment_tolerance: "10" }]) {
      const res = await t.post("/v1/transaction", initializeBody(extra), bearer(keys.testSecretKey));
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ status: "error", message: "Invalid Public Key", reason: "invalid_public_key" });
    }
    expect(await count()).toBe(before);
  });

  it("a secret key with a payment link: still the 400 of a key and a link together", async () => {
    const before = await count();
    const res = await t.post("/v1/transaction", initializeBody({ payment_link: link, underpayment_tolerance: "1" }), bearer(keys.testSecretKey));
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toEqual({
      field: "payment_link",
      message: "send either a public key (Authorization header or public_key) or payment_link, not both",
    });
    expect(await count()).toBe(before);
  });

  it("a pub_ header that differs from the body's public_key: still 400", async () => {
    const res = await t.post("/v1/transaction", initializeBody({ public_key: other.testPublicKey }), bearer(keys.testPublicKey));
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toEqual({
      field: "public_key",
      message: "public_key differs from the key in the Authorization header; send one of them",
    });
  });

  it("the spec's request, without policies, is unchanged: 201 with the public key, or a payment link", async () => {
    const byKey = await t.post("/v1/transaction", initializeBody(), bearer(keys.testPublicKey));
    expect(byKey.status).toBe(201);
    expect(byKey.body.data).toMatchObject({ status: "INITIATED", amount_paid: null, payment_address: null });
    const byLink = await t.post("/v1/transaction", initializeBody({ payment_link: link }));
    expect(byLink.status).toBe(201);
    expect(byLink.body.data.policies).toEqual({ expires_in: null, underpayment_tolerance: null, confirmations: null, late_payment: null });
  });
});

const INITIALIZE = `mutation Initialize($input: InitializeTransactionInput!) {
  initializeTransaction(input: $input) { id policies { expiresIn underpaymentTolerance confirmations latePayment { acceptIfRateMovedBelow } } }
}`;
const graphInput = (extra: Record<string, unknown>) => ({ customer: { email: "ada@example.com" }, currency: "USD", amount: "10", ...extra });
const graph = (key?: string) => new GraphQLClient(`${t.url}/graphql`, { headers: key ? bearer(key) : {} });

describe("GraphQL initializeTransaction: the same rule", () => {
  for (const { field, graph: input } of RULES) {
    it(`the public key alone with ${field}: FORBIDDEN with REST's message, nothing created`, async () => {
      const before = await count();
      for (const [client, extra] of [
        [graph(keys.testPublicKey), {}],
        [graph(), { publicKey: keys.testPublicKey }],
      ] as const) {
        const failure = await graphqlFailure(client.request(INITIALIZE, { input: graphInput({ ...input, ...extra }) }));
        expect(failure.message).toBe(needsSecretKey(field));
        expect(failure.extensions).toMatchObject({ code: "FORBIDDEN", status: 403, reason: "merchant_rule_needs_secret_key" });
      }
      expect(await count()).toBe(before);
    });
  }

  it("a payment link with underpaymentTolerance: FORBIDDEN, the field in the graph's name", async () => {
    const before = await count();
    const failure = await graphqlFailure(graph().request(INITIALIZE, { input: graphInput({ paymentLink: link, underpaymentTolerance: "10" }) }));
    expect(failure.message).toBe(needsSecretKey("underpayment_tolerance"));
    expect(failure.extensions).toMatchObject({
      code: "FORBIDDEN",
      status: 403,
      errors: [{ field: "underpaymentTolerance", message: "underpayment_tolerance is the merchant's rule: send it with the secret key" }],
    });
    expect(await count()).toBe(before);
  });

  it("the secret key in the header with input.publicKey: the policies stored and shown", async () => {
    const { initializeTransaction: made } = await graph(keys.testSecretKey).request<{ initializeTransaction: { id: string; policies: unknown } }>(
      INITIALIZE,
      { input: graphInput({ publicKey: keys.testPublicKey, expiresIn: 120, underpaymentTolerance: "1.25", confirmations: { LTC: 3 } }) },
    );
    expect(made.policies).toEqual({ expiresIn: 120, underpaymentTolerance: "1.25", confirmations: { LTC: 3 }, latePayment: null });
    const stored = await t.db.transaction.findUniqueOrThrow({ where: { id: made.id } });
    expect([stored.merchantId, stored.policyExpiresIn, stored.policyConfirmations]).toEqual([keys.id, 120, { LTC: 3 }]);
  });

  it("another merchant's or the other mode's secret key: refused, nothing created", async () => {
    const before = await count();
    for (const secret of [other.testSecretKey, keys.liveSecretKey]) {
      const failure = await graphqlFailure(
        graph(secret).request(INITIALIZE, { input: graphInput({ publicKey: keys.testPublicKey, expiresIn: 120 }) }),
      );
      expect(failure.message).toBe("Validation Error");
      expect(failure.extensions).toMatchObject({
        code: "BAD_USER_INPUT",
        status: 400,
        reason: "secret_key_mismatch",
        errors: [{ field: "publicKey" }],
      });
    }
    expect(await count()).toBe(before);
  });

  it("the secret key alone: Invalid Public Key, as REST", async () => {
    const before = await count();
    const failure = await graphqlFailure(graph(keys.testSecretKey).request(INITIALIZE, { input: graphInput({ expiresIn: 120 }) }));
    expect(failure.message).toBe("Invalid Public Key");
    expect(failure.extensions).toMatchObject({ code: "NOT_FOUND", status: 404 });
    expect(await count()).toBe(before);
  });

  it("without policies the public key alone still initializes", async () => {
    const { initializeTransaction: made } = await graph(keys.testPublicKey).request<{ initializeTransaction: { policies: unknown } }>(INITIALIZE, {
      input: graphInput({}),
    });
    expect(made.policies).toEqual({ expiresIn: null, underpaymentTolerance: null, confirmations: null, latePayment: null });
  });
});
