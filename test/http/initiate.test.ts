// Spec 4.2, 5 and 7 (Initiate) over HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cryptoBySlug } from "../../src/core/money/currencies.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { decodeQr } from "../support/qr.ts";
import { initializeBody } from "../support/builders.ts";

// BIP84's published account key ("abandon … about"), a mainnet BTC wallet for live mode.
const BIP84_ZPUB = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs";

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;

beforeAll(async () => {
  t = await startTestGateway();
  keys = await t.merchant({ name: "Acme Stores" });
});
afterAll(() => t.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function initialize(publicKey: string, amount = "100", currency = "USD", meta?: object): Promise<string> {
  const res = await t.post("/v1/transaction", initializeBody({ currency, amount, description: "Order", meta }), bearer(publicKey));
  expect(res.status).toBe(201);
  return res.body.data.id;
}
const pay = (id: string, body: unknown, key = keys.testSecretKey) => t.post(`/v1/transaction/${id}/pay`, body, bearer(key));
const stored = (id: string) => t.db.transaction.findUniqueOrThrow({ where: { id } });

describe("POST /v1/transaction/:id/pay: success", () => {
  it("moves INITIATED to PENDING with exactly the fields of table 2.2", async () => {
    const id = await initialize(keys.testPublicKey, "100", "USD", { cart: 7 });
    const res = await pay(id, { currency_id: "4", refund_address: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx" });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["data", "meta", "status"]);
    expect(res.body.status).toBe("success");
    expect(res.body.meta).toEqual({ cart: 7 });
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
        "meta",
        "payment_address",
        "payment_amount",
        "payment_currency",
        "qrCode",
        "reference",
        "status",
        "expires_at", // not in table 2.2: the end of the checkout window
        "payment_uri", // not in table 2.2: what the QR code encodes
        "checkout_url", // not in table 2.2: the hosted checkout page
        "return_url", // not in table 2.2: where that page sends the customer back
        "client_secret", // not in table 2.2: for the secret key only
        "receipts", // not in table 2.2: what arrived at the address
        "payment_network", // not in table 2.2: the network it is paid on
        "payment_network_name", // not in table 2.2: that network's display name
        "amount_owed", // not in table 2.2: what is still to send
        "cancel_url", // not in table 2.2: the hosted checkout's "back to the shop" link
        "locale", // not in table 2.2: the hosted checkout's language
        "reversed_at", // not in table 2.2: when the counted payment left the chain
        "policies", // not in table 2.2: the per-payment policies given at initialize
      ].sort(),
    );
    // Just initiated: nothing can have arrived yet.
    expect(data.receipts).toEqual([]);
    // The checkout window: 30 minutes by default.
    expect(new Date(data.expires_at).getTime() - Date.now()).toBeGreaterThan(30 * 60_000 - 60_000);
    expect(new Date(data.expires_at).getTime() - Date.now()).toBeLessThanOrEqual(30 * 60_000);
    expect(data.meta.payment).toEqual({
      state: "awaiting_payment",
      amount_confirmed: "0",
      amount_unconfirmed: "0",
      confirmations: null,
      required_confirmations: null,
    });
    expect(data).toMatchObject({
      id,
      status: "PENDING",
      description: "Order",
      initialized_amount: 100,
      initialized_currency: "USD",
      // 100 USD at the test rate of 65000 USD/BTC is 0.0015384615…, rounded up to 8 places.
      payment_amount: 0.00153847,
      amount_paid: null,
      payment_currency: 4,
      is_live: false,
      merchant: { id: keys.id, name: "Acme Stores" },
    });
    expect(data.reference).toMatch(/^bq_/);
    expect(data.payment_address).toMatch(/^tb1q[02-9ac-hj-np-z]{38}$/);
    expect(data.meta.refund_address).toBe("tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx");
    expect(data.meta.quote).toMatchObject({ rate: "65000", source: "test-rates" });
    expect(new Date(data.meta.quote.quoted_at).toISOString()).toBe(data.meta.quote.quoted_at);
    expect(data.qrCode).toMatch(/^data:image\/png;base64,/);
    expect(decodeQr(data.qrCode).text).toBe(`bitcoin:${data.payment_address}?amount=0.00153847`);
    expect(data.payment_uri).toBe(`bitcoin:${data.payment_address}?amount=0.00153847`);

    const row = await stored(id);
    expect(row.status).toBe("PENDING");
    expect(row.paymentAmount?.toString()).toBe("0.00153847");
    expect(row.quoteRate?.toString()).toBe("65000");
    expect(row.quoteSource).toBe("test-rates");
    expect(row.refundAddress).toBe("tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx");
    expect(row.derivationIndex).toBe(0);
  });

  it("rounds crypto amounts up to each currency's precision, from NGN too", async () => {
    const expectations: [string, string, string, number][] = [
      ["15000.50", "NGN", "4", 0.00015386], // 15000.50 / 97,500,000 = 0.000153851…
      ["100", "USD", "6", 0.03333334], // 100 / 3000
      ["10", "USD", "3", 10], // USDT at 1
      ["1", "USD", "5", 0.00166667], // 1 / 600
      ["99.99", "USD", "7", 1.249875], // 99.99 / 80, exact
    ];
    for (const [amount, fiat, currencyId, expected] of expectations) {
      const id = await initialize(keys.testPublicKey, amount, fiat);
      const res = await pay(id, { currency_id: currencyId });
      expect(res.status).toBe(200);
      expect(res.body.data.payment_amount).toBe(expected);
      expect(res.body.data.initialized_currency).toBe(fiat);
    }
  });

  it("hands out EIP-55 addresses for the EVM currencies and accepts a numeric currency_id", async () => {
    const id = await initialize(keys.testPublicKey);
    const res = await pay(id, { currency_id: 6 });
    expect(res.status).toBe(200);
    expect(res.body.data.payment_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(res.body.data.meta.refund_address).toBeNull();
  });

  it("gives every transaction an address no other has", async () => {
    const addresses = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const id = await initialize(keys.testPublicKey);
      const res = await pay(id, { currency_id: "7" });
      expect(res.status).toBe(200);
      expect(res.body.data.payment_address).toMatch(/^tltc1q/);
      addresses.add(res.body.data.payment_address);
    }
    expect(addresses.size).toBe(6);
  });
});

describe("POST /v1/transaction/:id/pay: 400 Missing or invalid payload fields", () => {
  const cases: [string, unknown, string][] = [
    ["currency_id missing", {}, "currency_id"],
    ["currency_id not numeric", { currency_id: "BTC" }, "currency_id"],
    ["currency_id negative", { currency_id: "-4" }, "currency_id"],
    ["refund_address badly formed", { currency_id: "4", refund_address: "not an address" }, "refund_address"],
    [
      "refund_address of another network (mainnet in test mode)",
      { currency_id: "4", refund_address: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4" },
      "refund_address",
    ],
    ["refund_address of another chain", { currency_id: "6", refund_address: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx" }, "refund_address"],
  ];
  for (const [name, payload, field] of cases) {
    it(`${name}: 400 and the transaction is unchanged`, async () => {
      const id = await initialize(keys.testPublicKey);
      const res = await pay(id, payload);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ status: "error", message: "Missing or invalid payload fields", code: "validation_error" });
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
      expect((await stored(id)).status).toBe("INITIATED");
    });
  }

  it("answers malformed JSON with the same 400", async () => {
    const id = await initialize(keys.testPublicKey);
    const res = await pay(id, "{currency_id:");
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Missing or invalid payload fields");
  });
});

describe("POST /v1/transaction/:id/pay: 415 Unsupported media type", () => {
  it("answers a text/plain body with 415 and the documented error body, and the transaction stays INITIATED", async () => {
    const id = await initialize(keys.testPublicKey);
    const res = await t.post(`/v1/transaction/${id}/pay`, JSON.stringify({ currency_id: "4" }), {
      ...bearer(keys.testSecretKey),
      "content-type": "text/plain",
    });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({
      status: "error",
      message: "Content-Type must be application/json",
      code: "unsupported_media_type",
      reason: "unsupported_media_type",
      errors: [],
    });
    const row = await stored(id);
    expect(row.status).toBe("INITIATED");
    expect(row.paymentCurrencyId).toBeNull();
    expect(row.paymentAddress).toBeNull();

    // The same body as application/json goes through: the 415 was the media type alone.
    expect((await pay(id, { currency_id: "4" })).status).toBe(200);
  });
});

describe("POST /v1/transaction/:id/pay: authentication (401)", () => {
  it("refuses a missing, public, or unknown key and changes nothing", async () => {
    const id = await initialize(keys.testPublicKey);
    const none = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" });
    const pub = await pay(id, { currency_id: "4" }, keys.testPublicKey);
    const wrong = await pay(id, { currency_id: "4" }, "sec_test_wrongwrongwrong");
    for (const res of [none, pub, wrong]) {
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ status: "error", code: "unauthenticated" });
    }
    expect(none.body.message).toMatch(/Missing secret key/);
    expect(pub.body.message).toMatch(/needs a secret key/);
    expect(wrong.body.message).toBe("Invalid Secret Key");
    expect((await stored(id)).status).toBe("INITIATED");
  });
});

describe("POST /v1/transaction/:id/pay: 404", () => {
  it("for an unknown transaction id", async () => {
    const res = await pay("00000000-0000-0000-0000-000000000000", { currency_id: "4" });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: "error", code: "not_found", reason: "transaction_not_found" });
    expect(res.body.message).toMatch(/No transaction/);
  });

  it("for another merchant's transaction, and across modes", async () => {
    const other = await t.merchant({ name: "Other", kyb: "VERIFIED" });
    const id = await initialize(keys.testPublicKey);
    const byOther = await pay(id, { currency_id: "4" }, other.testSecretKey);
    const byLive = await pay(id, { currency_id: "4" }, keys.liveSecretKey);
    for (const res of [byOther, byLive]) {
      expect(res.status).toBe(404);
      expect(res.body.reason).toBe("transaction_not_found");
    }
    const liveId = await initialize(other.livePublicKey);
    const testOnLive = await pay(liveId, { currency_id: "4" }, other.testSecretKey);
    expect(testOnLive.status).toBe(404);
    expect((await stored(id)).status).toBe("INITIATED");
  });

  it("for a currency outside the allowed set (2, 9, 99)", async () => {
    const id = await initialize(keys.testPublicKey);
    // 8 is USDC since issue 43: the first id past the crypto ids is 9.
    for (const currency_id of ["2", "9", "99"]) {
      const res = await pay(id, { currency_id });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ status: "error", reason: "currency_not_supported" });
      expect(res.body.message).toMatch(/not supported/);
    }
  });

  it("when the merchant has no wallet for that currency in that mode", async () => {
    const live = await t.merchant({
      name: "Live Only BTC",
      kyb: "VERIFIED",
      wallets: [{ currency: cryptoBySlug("BTC")!, isLive: true, extendedPublicKey: BIP84_ZPUB }],
    });
    const id = await initialize(live.livePublicKey);
    const res = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "6" }, bearer(live.liveSecretKey));
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: "error", reason: "processor_not_configured" });
    expect(res.body.message).toMatch(/No ETH wallet is configured for live mode/);
    expect((await stored(id)).status).toBe("INITIATED");

    // With the wallet it has, live mode derives from the merchant's own key: BIP84's first address.
    const ok = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(live.liveSecretKey));
    expect(ok.status).toBe(200);
    expect(ok.body.data.is_live).toBe(true);
    expect(ok.body.data.payment_address).toBe("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu");
  });
});

describe("POST /v1/transaction/:id/pay: 422 The transaction is not initiated", () => {
  it("when the transaction is already PENDING", async () => {
    const id = await initialize(keys.testPublicKey);
    expect((await pay(id, { currency_id: "4" })).status).toBe(200);
    const address = (await stored(id)).paymentAddress;
    const again = await pay(id, { currency_id: "6" });
    expect(again.status).toBe(422);
    expect(again.body).toMatchObject({
      status: "error",
      message: "The transaction is not initiated",
      code: "invalid_state",
      reason: "transaction_not_initiated",
    });
    const row = await stored(id);
    expect(row.paymentCurrencyId).toBe(4);
    expect(row.paymentAddress).toBe(address);
  });

  it("when the merchant account is inactive", async () => {
    const m = await t.merchant({ name: "Soon inactive" });
    const id = await initialize(m.testPublicKey);
    await t.db.merchant.update({ where: { id: m.id }, data: { active: false } });
    const res = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(m.testSecretKey));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ message: "The transaction is not initiated", reason: "merchant_inactive" });
    expect((await stored(id)).status).toBe("INITIATED");
  });

  it("lets exactly one of several concurrent initiates through", async () => {
    const id = await initialize(keys.testPublicKey);
    const results = await Promise.all(["4", "6", "7", "4", "3"].map((currency_id) => pay(id, { currency_id })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 422, 422, 422, 422]);
    const winner = results.find((r) => r.status === 200)!;
    const row = await stored(id);
    expect(row.status).toBe("PENDING");
    expect(row.paymentAddress).toBe(winner.body.data.payment_address);
  });
});

describe("POST /v1/transaction/:id/pay: 503 address_unavailable", () => {
  it("answers 503 when the wallet key cannot derive an address, and frees the wallet index for the next initiate", async () => {
    const m = await t.merchant({ name: "Broken wallet" });
    const processor = await t.db.paymentProcessor.findUniqueOrThrow({
      where: { merchantId_currencyId_network_isLive: { merchantId: m.id, currencyId: cryptoBySlug("BTC")!.id, network: "bitcoin", isLive: false } },
      include: { wallet: true },
    });
    const goodKey = processor.wallet.extendedPublicKey;
    // One successful initiate first, so the index that must not move is not the default 0.
    const first = await initialize(m.testPublicKey);
    expect((await t.post(`/v1/transaction/${first}/pay`, { currency_id: "4" }, bearer(m.testSecretKey))).status).toBe(200);
    expect((await t.db.wallet.findUniqueOrThrow({ where: { id: processor.walletId } })).nextIndex).toBe(1);

    // Same length and alphabet, last character changed: the base58check checksum no longer matches.
    const corrupt = goodKey.slice(0, -1) + (goodKey.endsWith("A") ? "B" : "A");
    await t.db.wallet.update({ where: { id: processor.walletId }, data: { extendedPublicKey: corrupt } });

    const id = await initialize(m.testPublicKey);
    const res = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(m.testSecretKey));
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      status: "error",
      message: "A BTC payment address could not be generated; retry shortly, or check the merchant's wallet key",
      code: "upstream_unavailable",
      reason: "address_unavailable",
      errors: [],
    });
    const row = await stored(id);
    expect(row.status).toBe("INITIATED");
    expect(row.paymentAddress).toBeNull();
    expect(row.paymentCurrencyId).toBeNull();
    expect(row.walletId).toBeNull();
    expect(row.derivationIndex).toBeNull();
    // The index the failure took is free again (a lease past its end), for the next initiate.
    expect((await t.db.wallet.findUniqueOrThrow({ where: { id: processor.walletId } })).nextIndex).toBe(2);
    const held = await t.db.walletIndexSlot.findMany({ where: { walletId: processor.walletId, derivationIndex: { not: null } } });
    expect(held.map((s) => [s.derivationIndex, s.leasedUntil <= new Date()])).toEqual([[1, true]]);

    // With the key repaired, the same transaction gets the index the failure did not use.
    await t.db.wallet.update({ where: { id: processor.walletId }, data: { extendedPublicKey: goodKey } });
    const retry = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(m.testSecretKey));
    expect(retry.status).toBe(200);
    expect((await stored(id)).derivationIndex).toBe(1);
    expect(await t.db.walletIndexSlot.count({ where: { walletId: processor.walletId, derivationIndex: { not: null } } })).toBe(0);
  });
});
