// Spec 4.1, 5 and 7 (Initialize) over HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { initializeBody } from "../support/builders.ts";

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;

beforeAll(async () => {
  t = await startTestGateway();
  keys = await t.merchant({ name: "Acme Stores" });
});
afterAll(() => t.close());

const customer = { name: "Ada Obi", email: "ada@example.com" };
const body = (extra: Record<string, unknown> = {}) => ({ customer, currency: "NGN", amount: "15000.50", ...extra });
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const count = () => t.db.transaction.count();

describe("POST /v1/transaction: success", () => {
  it("creates an INITIATED transaction with exactly the fields of table 2.1", async () => {
    const res = await t.post("/v1/transaction", body({ description: "Order #42", meta: { order_id: 42, tags: ["a"] } }), bearer(keys.testPublicKey));
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["data", "meta", "status"]);
    expect(res.body.status).toBe("success");
    expect(res.body.meta).toEqual({ order_id: 42, tags: ["a"] });
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual(
      [
        "amount_paid",
        "description",
        "id",
        "initialized_amount",
        "initialized_currency",
        "is_live",
        "merchant",
        "payment_address",
        "payment_amount",
        "payment_currency",
        "reference",
        "status",
        "expires_at", // not in table 2.1: when the transaction is abandoned if not initiated
        "client_secret", // not in table 2.1: the customer's browser reads and pays this transaction with it
        "checkout_url", // not in table 2.1: the hosted checkout page
        "return_url", // not in table 2.1: where that page sends the customer back
        "cancel_url", // not in table 2.1: that page's "back to the shop" link before paying
        "locale", // not in table 2.1: that page's language
        "policies", // not in table 2.1: the per-payment policies (expires_in, underpayment_tolerance, confirmations)
      ].sort(),
    );
    // The window for initiate: 24 hours by default.
    expect(new Date(data.expires_at).getTime() - Date.now()).toBeGreaterThan(24 * 3_600_000 - 60_000);
    expect(new Date(data.expires_at).getTime() - Date.now()).toBeLessThanOrEqual(24 * 3_600_000);
    expect(data).toMatchObject({
      status: "INITIATED",
      description: "Order #42",
      initialized_amount: 15000.5,
      initialized_currency: 2,
      amount_paid: null,
      payment_amount: null,
      payment_address: null,
      payment_currency: null,
      is_live: false,
      merchant: { id: keys.id, name: "Acme Stores" },
    });
    expect(typeof data.id).toBe("string");
    expect(data.reference).toMatch(/^bq_[0-9A-Za-z]{24}$/);
    const stored = await t.db.transaction.findUniqueOrThrow({ where: { id: data.id } });
    expect(stored.initializedAmount.toString()).toBe("15000.5");
    expect(stored).toMatchObject({ customerEmail: "ada@example.com", customerName: "Ada Obi" });
  });

  it("takes the public key from the body as well as from the header (rule 2)", async () => {
    const res = await t.post("/v1/transaction", body({ public_key: keys.testPublicKey, currency: "USD", amount: "10" }));
    expect(res.status).toBe(201);
    expect(res.body.data.initialized_currency).toBe(1);
    expect(res.body.data.initialized_amount).toBe(10);
  });

  it("answers meta {} and description null when they are omitted", async () => {
    const res = await t.post("/v1/transaction", initializeBody({ customer: { email: "b@example.com" }, amount: "1" }), bearer(keys.testPublicKey));
    expect(res.status).toBe(201);
    expect(res.body.meta).toEqual({});
    expect(res.body.data.description).toBeNull();
  });

  it("accepts the same key in header and body, and a payment link alone", async () => {
    const same = await t.post("/v1/transaction", body({ public_key: keys.testPublicKey }), bearer(keys.testPublicKey));
    expect(same.status).toBe(201);
    const link = await t.db.paymentLink.create({ data: { merchantId: keys.id, isLive: false, slug: "pl_testlinkABC" } });
    const res = await t.post("/v1/transaction", body({ payment_link: link.slug }));
    expect(res.status).toBe(201);
    expect(res.body.data.merchant.id).toBe(keys.id);
    const stored = await t.db.transaction.findUniqueOrThrow({ where: { id: res.body.data.id } });
    expect(stored.paymentLinkId).toBe(link.id);
  });

  it("creates a live transaction for a KYB-verified merchant's live key", async () => {
    const verified = await t.merchant({ name: "Verified Ltd", kyb: "VERIFIED" });
    const res = await t.post("/v1/transaction", body(), bearer(verified.livePublicKey));
    expect(res.status).toBe(201);
    expect(res.body.data.is_live).toBe(true);
  });
});

describe("POST /v1/transaction: 400 Validation Error", () => {
  const cases: [string, unknown, string][] = [
    ["customer.email missing", { customer: { name: "x" }, currency: "USD", amount: "1" }, "customer.email"],
    ["customer missing", { currency: "USD", amount: "1" }, "customer"],
    ["invalid e-mail", initializeBody({ customer: { email: "not-an-email" }, amount: "1" }), "customer.email"],
    ["amount missing", { customer, currency: "USD" }, "amount"],
    ["amount not numeric", { customer, currency: "USD", amount: "ten" }, "amount"],
    ["amount in exponent form", { customer, currency: "USD", amount: "1e3" }, "amount"],
    ["amount negative", { customer, currency: "USD", amount: "-5" }, "amount"],
    ["amount as a JSON number", { customer, currency: "USD", amount: 10 }, "amount"],
    ["amount zero", { customer, currency: "USD", amount: "0" }, "amount"],
    ["amount beyond the currency's precision", { customer, currency: "USD", amount: "1.005" }, "amount"],
    ["currency missing (no silent NGN)", { customer, amount: "1" }, "currency"],
    ["meta not an object", { customer, currency: "USD", amount: "1", meta: [1, 2] }, "meta"],
  ];
  for (const [name, payload, field] of cases) {
    it(`${name}: 400 and nothing stored`, async () => {
      const before = await count();
      const res = await t.post("/v1/transaction", payload, bearer(keys.testPublicKey));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ status: "error", message: "Validation Error", code: "validation_error" });
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
      expect(await count()).toBe(before);
    });
  }

  it("refuses public_key and payment_link together", async () => {
    const res = await t.post("/v1/transaction", body({ public_key: keys.testPublicKey, payment_link: "pl_testlinkABC" }));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Validation Error");
    expect(res.body.errors[0]).toEqual({
      field: "payment_link",
      message: "send either a public key (Authorization header or public_key) or payment_link, not both",
    });
  });

  it("refuses a header key together with a payment link", async () => {
    const res = await t.post("/v1/transaction", body({ payment_link: "pl_testlinkABC" }), bearer(keys.testPublicKey));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Validation Error");
  });

  it("refuses a body key that differs from the header key", async () => {
    const other = await t.merchant({ name: "Other" });
    const res = await t.post("/v1/transaction", body({ public_key: other.testPublicKey }), bearer(keys.testPublicKey));
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe("public_key");
  });

  it("asks for a credential when there is none", async () => {
    const res = await t.post("/v1/transaction", body());
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Validation Error");
    expect(res.body.errors[0]).toMatchObject({ field: "public_key" });
  });

  it("answers malformed JSON with the same 400", async () => {
    const res = await t.post("/v1/transaction", '{"customer": ', bearer(keys.testPublicKey));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: "error", message: "Validation Error", errors: [{ field: "body" }] });
  });

  it("answers a body over 64 KB with 413 and stores nothing", async () => {
    const before = await count();
    const res = await t.post("/v1/transaction", body({ description: "x".repeat(70_000) }), bearer(keys.testPublicKey));
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ status: "error", message: "Request body is too large (limit 64 KB)", code: "payload_too_large" });
    expect(await count()).toBe(before);
  });

  it("answers a body that is not JSON with 415", async () => {
    const res = await t.post("/v1/transaction", "amount=1", { ...bearer(keys.testPublicKey), "content-type": "application/x-www-form-urlencoded" });
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ status: "error", message: "Content-Type must be application/json", code: "unsupported_media_type" });
  });
});

describe("POST /v1/transaction: 404 Invalid Public Key", () => {
  it("for an unknown public key", async () => {
    const res = await t.post("/v1/transaction", body(), bearer("pub_test_doesnotexist"));
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: "error", message: "Invalid Public Key", reason: "invalid_public_key" });
  });

  it("for an unknown payment link", async () => {
    const res = await t.post("/v1/transaction", body({ payment_link: "pl_nope" }));
    expect(res.status).toBe(404);
    expect(res.body.message).toBe("Invalid Public Key");
  });

  it("for a secret key sent as the bearer (spec 5: looked up as a public key)", async () => {
    const before = await count();
    const res = await t.post("/v1/transaction", body(), bearer(keys.testSecretKey));
    expect(res.status).toBe(404);
    expect(res.body.message).toBe("Invalid Public Key");
    expect(await count()).toBe(before);
  });

  it("for an inactive merchant, by key and by payment link", async () => {
    const inactive = await t.merchant({ name: "Sleepy", active: false });
    const link = await t.db.paymentLink.create({ data: { merchantId: inactive.id, isLive: false, slug: "pl_sleepy" } });
    const byKey = await t.post("/v1/transaction", body(), bearer(inactive.testPublicKey));
    const byLink = await t.post("/v1/transaction", body({ payment_link: link.slug }));
    for (const res of [byKey, byLink]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ message: "Invalid Public Key", reason: "merchant_inactive" });
    }
  });

  it("for an unsupported fiat currency", async () => {
    const res = await t.post("/v1/transaction", body({ currency: "EUR" }), bearer(keys.testPublicKey));
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ message: "Invalid Public Key", reason: "unsupported_currency" });
  });
});

describe("POST /v1/transaction: 422 without KYB for live mode", () => {
  for (const kyb of ["NONE", "PENDING", "REJECTED"] as const) {
    it(`refuses a live key while KYB is ${kyb}, with a message for that status`, async () => {
      const m = await t.merchant({ name: `KYB ${kyb}`, kyb });
      const before = await count();
      const res = await t.post("/v1/transaction", body(), bearer(m.livePublicKey));
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ status: "error", code: "kyb_required", reason: `kyb_${kyb.toLowerCase()}` });
      expect(res.body.message).toMatch(/verification \(KYB\)/);
      expect(await count()).toBe(before);
      // Test mode stays open to the same merchant.
      expect((await t.post("/v1/transaction", body(), bearer(m.testPublicKey))).status).toBe(201);
    });
  }

  it("gives each KYB status its own message", async () => {
    const messages = new Set<string>();
    for (const kyb of ["NONE", "PENDING", "REJECTED"] as const) {
      const m = await t.merchant({ name: `Msg ${kyb}`, kyb });
      messages.add((await t.post("/v1/transaction", body(), bearer(m.livePublicKey))).body.message);
    }
    expect(messages.size).toBe(3);
  });
});
