// The dashboard's management operations at the gateway, on a real database and real HTTP: webhook
// secret rotation with its 24-hour overlap, test events, webhook URLs, API key rolling, wallets
// (preview, set, gap limit), payment links and the settings read. Each checks the actor's role first.
import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { DashboardActor } from "../../src/core/access/roles.ts";
import type { DashboardRole } from "../../src/core/records/dashboard.ts";
import { Credentials } from "../../src/core/credentials.ts";
import { cryptoBySlug } from "../../src/core/money/currencies.ts";
import { HdWalletRails } from "../../src/rails/wallets/index.ts";
import { freshActor } from "../support/dashboard.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { manualClock } from "../support/clock.ts";
import { initializeBody } from "../support/builders.ts";

/** BIP84's test vector: account 0 of "abandon … about", and its first receive addresses (bips/bip-0084.mediawiki). */
const BIP84_ZPUB = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs";
const BIP84_ADDRESSES = ["bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", "bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g"];

const HOUR = 60 * 60 * 1000;
const BTC = cryptoBySlug("BTC")!;
const clock = manualClock();
let t: TestGateway;
let receiver: WebhookReceiver;

beforeAll(async () => {
  // The receivers are on 127.0.0.1: the operator's setting shows their test events' status and latency (issue 41).
  t = await startTestGateway({ clock, env: { PAYGATE_WEBHOOK_TEST_EVENT_DETAILS: "true" } });
});
afterAll(() => t.close());
beforeEach(async () => {
  receiver = await startWebhookReceiver();
});
afterEach(() => receiver.close());

const actor = (merchantId: number, role: DashboardRole = "owner"): DashboardActor => freshActor(merchantId, role, clock, "usr_test");
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function get(path: string, key: string): Promise<{ status: number; body: any }> {
  const res = await fetch(t.url + path, { headers: bearer(key) });
  return { status: res.status, body: await res.json() };
}

async function initialize(publicKey: string): Promise<string> {
  const res = await t.post("/v1/transaction", initializeBody({ amount: "25" }), bearer(publicKey));
  expect(res.status).toBe(201);
  return res.body.data.id;
}

/** Standard Webhooks' own verification, as a receiver runs it at `at` (its timestamp check reads the system time). */
function verify(secret: string, request: ReceivedWebhook, at: Date): unknown {
  vi.useFakeTimers({ toFake: ["Date"], now: at });
  try {
    return new Webhook(secret).verify(request.body, {
      "webhook-id": String(request.headers["webhook-id"]),
      "webhook-timestamp": String(request.headers["webhook-timestamp"]),
      "webhook-signature": String(request.headers["webhook-signature"]),
    });
  } finally {
    vi.useRealTimers();
  }
}

/** Expects the promise to reject with a PaygateError of this code and reason, its message matching. */
async function refused(promise: Promise<unknown>, code: string, reason: string, message: RegExp): Promise<void> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toMatchObject({ name: "PaygateError", code, reason });
  expect((error as Error).message).toMatch(message);
}

const forbidden = (promise: Promise<unknown>) => refused(promise, "forbidden", "role_forbidden", /Your role \(\w+\) cannot/);

describe("webhook signing secret rotation", () => {
  it("signs with the old and the new secret for 24 hours, then with the new one only", async () => {
    const keys = await t.merchant({ name: "Rotating Ltd", testWebhookUrl: receiver.url });
    const owner = actor(keys.id);
    const rotated = await t.gateway.merchants.rotateWebhookSecret(t.gateway.access.dashboard(owner));
    expect(rotated.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(rotated.webhookSecret).not.toBe(keys.webhookSecret);
    expect(rotated.previousSecretExpiresAt.getTime()).toBe(clock.now().getTime() + 24 * HOUR);

    const settings = await t.gateway.merchants.settings(t.gateway.access.dashboard(owner));
    expect(settings.webhookSecret).toEqual({ rotatedAt: rotated.rotatedAt, previousSecretExpiresAt: rotated.previousSecretExpiresAt });
    expect(JSON.stringify(settings)).not.toContain("whsec_");

    // Within the overlap: one delivery, two signatures, each secret verifies it.
    await initialize(keys.testPublicKey);
    expect((await t.dispatcher().drain()).map((r) => r.outcome.state)).toEqual(["DELIVERED"]);
    const during = receiver.received[0]!;
    expect(String(during.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verify(keys.webhookSecret, during, clock.now())).toMatchObject({ event: "payment.initiated" });
    expect(verify(rotated.webhookSecret, during, clock.now())).toMatchObject({ event: "payment.initiated" });

    // 24 hours later: the new secret only.
    clock.advance(24 * HOUR);
    await initialize(keys.testPublicKey);
    await t.dispatcher().drain();
    const after = receiver.received[1]!;
    expect(String(after.headers["webhook-signature"]).split(" ")).toHaveLength(1);
    expect(verify(rotated.webhookSecret, after, clock.now())).toMatchObject({ event: "payment.initiated" });
    expect(() => verify(keys.webhookSecret, after, clock.now())).toThrow(/No matching signature/);
    expect((await t.gateway.merchants.settings(t.gateway.access.dashboard(owner))).webhookSecret).toEqual({
      rotatedAt: rotated.rotatedAt,
      previousSecretExpiresAt: null,
    });
  });

  it("drops the secret before the previous one at a second rotation", async () => {
    const keys = await t.merchant({ name: "Twice Rotated", testWebhookUrl: receiver.url });
    const first = await t.gateway.merchants.rotateWebhookSecret(t.gateway.access.operator(keys.id));
    const second = await t.gateway.merchants.rotateWebhookSecret(t.gateway.access.operator(keys.id));
    const attempt = await t.gateway.operator.sendTestEvent(keys.id, "test");
    expect(attempt.statusCode).toBe(200);
    const request = receiver.received[0]!;
    expect(String(request.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verify(second.webhookSecret, request, clock.now())).toMatchObject({ event: "webhook.test" });
    expect(verify(first.webhookSecret, request, clock.now())).toMatchObject({ event: "webhook.test" });
    expect(() => verify(keys.webhookSecret, request, clock.now())).toThrow(/No matching signature/);
  });

  it("refuses a viewer and an unknown merchant, changing nothing", async () => {
    const keys = await t.merchant({ name: "Viewer Refused" });
    await forbidden(t.gateway.merchants.rotateWebhookSecret(t.gateway.access.dashboard(actor(keys.id, "viewer"))));
    expect((await t.gateway.merchants.settings(t.gateway.access.operator(keys.id))).webhookSecret.rotatedAt).toBeNull();
    await refused(
      t.gateway.merchants.rotateWebhookSecret(t.gateway.access.operator(999_999)),
      "not_found",
      "merchant_not_found",
      /No merchant with id 999999/,
    );
    // A developer may.
    expect((await t.gateway.merchants.rotateWebhookSecret(t.gateway.access.dashboard(actor(keys.id, "developer")))).webhookSecret).toMatch(/^whsec_/);
  });
});

describe("test events", () => {
  it("POSTs a signed webhook.test to the mode's URL now and returns the attempt; nothing is stored", async () => {
    const keys = await t.merchant({ name: "Test Event Ltd", testWebhookUrl: receiver.url });
    receiver.answer = () => ({ status: 200, body: "received, thanks" });
    const attempt = await t.gateway.merchants.sendTestEvent(t.gateway.access.dashboard(actor(keys.id, "developer")), "test");
    // The receiver is on 127.0.0.1: a dashboard user sees the status, never what a private address answered.
    expect(attempt).toMatchObject({
      ok: true,
      statusCode: 200,
      responseBody: null,
      privateAddress: true,
      error: null,
      mode: "test",
      url: receiver.url,
    });
    expect(attempt.id).toMatch(/^evt_test_[0-9A-Za-z]{24}$/);
    assert.ok(!attempt.detailsWithheld);
    expect(attempt.latencyMs).toBeGreaterThanOrEqual(0);

    const request = receiver.received[0]!;
    expect(request.headers["webhook-id"]).toBe(attempt.id);
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.body).toBe(attempt.body);
    expect(verify(keys.webhookSecret, request, clock.now())).toEqual({
      event: "webhook.test",
      data: {
        merchant_name: "Test Event Ltd",
        mode: "test",
        sent_at: attempt.attemptedAt.toISOString(),
        message: expect.stringMatching(/not a payment/),
      },
    });
    // Not a payment event: not in the outbox, not in the Events API.
    expect(await t.db.webhookEvent.count({ where: { merchantId: keys.id } })).toBe(0);
    const events = await get("/v1/events", keys.testSecretKey);
    expect(events.status).toBe(200);
    expect(events.body.data).toEqual([]);
  });

  it("returns a failed attempt as it came: the status and the start of the body, or the error", async () => {
    const keys = await t.merchant({ name: "Failing Receiver", testWebhookUrl: receiver.url });
    receiver.answer = () => ({ status: 500, body: "x".repeat(5000) });
    // The operator's own call (the CLI) gets the body, a private address's included.
    const failed = await t.gateway.operator.sendTestEvent(keys.id, "test");
    expect(failed).toMatchObject({ ok: false, statusCode: 500, error: null, privateAddress: true });
    expect(failed.responseBody).toHaveLength(1024);

    const closed = await startWebhookReceiver();
    await closed.close();
    await t.gateway.merchants.setWebhookUrl(t.gateway.access.operator(keys.id), "test", closed.url);
    const refusedConnection = await t.gateway.operator.sendTestEvent(keys.id, "test");
    expect(refusedConnection).toMatchObject({ ok: false, statusCode: null, responseBody: null });
    expect(refusedConnection.error).toEqual(expect.any(String));
  });

  it("refuses a mode without a URL (422, saying to set one), a bad mode and a viewer", async () => {
    const keys = await t.merchant({ name: "No Live URL", testWebhookUrl: receiver.url });
    await refused(
      t.gateway.merchants.sendTestEvent(t.gateway.access.dashboard(actor(keys.id)), "live"),
      "invalid_state",
      "webhook_url_missing",
      /^No live webhook URL is set, so there is nowhere to send a test event; set the live webhook URL first$/,
    );
    await refused(
      t.gateway.merchants.sendTestEvent(t.gateway.access.dashboard(actor(keys.id)), "staging" as "test"),
      "validation_error",
      "invalid_merchant_settings",
      /mode must be test or live \(got 'staging'\)/,
    );
    await forbidden(t.gateway.merchants.sendTestEvent(t.gateway.access.dashboard(actor(keys.id, "viewer")), "test"));
    expect(receiver.received).toHaveLength(0);
  });
});

describe("webhook URLs per mode", () => {
  it("sets and removes each mode's URL with the checks of today", async () => {
    const keys = await t.merchant({ name: "URL Setter" });
    const owner = actor(keys.id);
    expect((await t.gateway.merchants.setWebhookUrl(t.gateway.access.dashboard(owner), "test", receiver.url)).webhookUrls).toEqual({
      test: receiver.url,
      live: null,
    });
    expect(
      (await t.gateway.merchants.setWebhookUrl(t.gateway.access.dashboard(actor(keys.id, "developer")), "live", "https://shop.example.com/hooks"))
        .webhookUrls,
    ).toEqual({
      test: receiver.url,
      live: "https://shop.example.com/hooks",
    });
    await refused(
      t.gateway.merchants.setWebhookUrl(t.gateway.access.dashboard(owner), "live", "http://127.0.0.1:4000/hooks"),
      "validation_error",
      "invalid_merchant_settings",
      /Live webhook URL 'http:\/\/127\.0\.0\.1:4000\/hooks' is refused: live-mode webhook URLs must use https/,
    );
    await refused(
      t.gateway.merchants.setWebhookUrl(t.gateway.access.dashboard(owner), "test", "not a url"),
      "validation_error",
      "invalid_merchant_settings",
      /not a valid absolute URL/,
    );
    await forbidden(t.gateway.merchants.setWebhookUrl(t.gateway.access.dashboard(actor(keys.id, "viewer")), "test", null));
    expect((await t.gateway.merchants.settings(t.gateway.access.dashboard(actor(keys.id, "viewer")))).webhookUrls.live).toBe(
      "https://shop.example.com/hooks",
    );
    expect((await t.gateway.merchants.setWebhookUrl(t.gateway.access.dashboard(owner), "live", null)).webhookUrls).toEqual({
      test: receiver.url,
      live: null,
    });
    await refused(
      t.gateway.merchants.setWebhookUrl(t.gateway.access.operator(999_999), "test", null),
      "not_found",
      "merchant_not_found",
      /No merchant with id 999999/,
    );
  });

  it("reads the settings: name, KYB, URLs, rotation state, never a secret", async () => {
    const keys = await t.merchant({ name: "Settings Ltd", kyb: "PENDING", testWebhookUrl: receiver.url });
    expect(await t.gateway.merchants.settings(t.gateway.access.dashboard(actor(keys.id, "viewer")))).toEqual({
      id: keys.id,
      name: "Settings Ltd",
      active: true,
      kybStatus: "PENDING",
      webhookUrls: { test: receiver.url, live: null },
      webhookSecret: { rotatedAt: null, previousSecretExpiresAt: null },
    });
  });
});

describe("API key rolling", () => {
  it("keeps the old secret key working until its chosen end, then refuses it with the usual 401", async () => {
    const keys = await t.merchant({ name: "Key Roller" });
    const rolled = await t.gateway.merchants.rollApiKey(t.gateway.access.dashboard(actor(keys.id, "developer")), {
      mode: "test",
      kind: "secret",
      oldExpires: "1h",
    });
    expect(rolled.key).toMatch(/^sec_test_[0-9A-Za-z]{40}$/);
    expect(rolled.prefix).toBe(`${rolled.key.slice(0, 13)}…`);
    expect(rolled.replaced).toEqual([{ prefix: `${keys.testSecretKey.slice(0, 13)}…`, expiresAt: new Date(clock.now().getTime() + HOUR) }]);

    expect((await get("/v1/transactions", keys.testSecretKey)).status).toBe(200);
    expect((await get("/v1/transactions", rolled.key)).status).toBe(200);
    clock.advance(HOUR - 1000);
    expect((await get("/v1/transactions", keys.testSecretKey)).status).toBe(200);
    clock.advance(1000);
    const old = await get("/v1/transactions", keys.testSecretKey);
    expect(old.status).toBe(401);
    expect(old.body).toEqual({ status: "error", code: "unauthenticated", reason: "invalid_secret_key", message: "Invalid Secret Key", errors: [] });
    expect((await get("/v1/transactions", rolled.key)).status).toBe(200);
    // The live secret key was not touched.
    expect((await get("/v1/transactions", keys.liveSecretKey)).status).toBe(200);
  });

  it("ends the old public key now when asked, and a later 'now' roll cuts an earlier overlap short", async () => {
    const keys = await t.merchant({ name: "Public Roller" });
    const first = await t.gateway.merchants.rollApiKey(t.gateway.access.operator(keys.id), { mode: "test", kind: "public", oldExpires: "24h" });
    expect(first.key).toMatch(/^pub_test_/);
    await initialize(keys.testPublicKey); // still works within its 24 hours
    const second = await t.gateway.merchants.rollApiKey(t.gateway.access.operator(keys.id), { mode: "test", kind: "public", oldExpires: "now" });
    expect(second.replaced.map((r) => r.prefix).sort()).toEqual([first.key, keys.testPublicKey].sort());
    for (const old of [keys.testPublicKey, first.key]) {
      const res = await t.post("/v1/transaction", initializeBody({ amount: "25" }), bearer(old));
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: "not_found", message: "Invalid Public Key" });
    }
    await initialize(second.key);

    const list = await t.gateway.merchants.listApiKeys(t.gateway.access.dashboard(actor(keys.id, "viewer")));
    expect(list).toHaveLength(6);
    for (const key of list)
      expect(Object.keys(key).sort()).toEqual(["createdAt", "expiresAt", "id", "kind", "mode", "prefix", "revokedAt", "status"]);
    const testPublic = list.filter((k) => k.kind === "public" && k.mode === "test");
    expect(testPublic.map((k) => [k.prefix, k.status])).toEqual([
      [second.key, "active"],
      [first.key, "expired"],
      [keys.testPublicKey, "expired"],
    ]);
    expect(list.filter((k) => k.status === "active")).toHaveLength(4);
    expect(JSON.stringify(list)).not.toContain(keys.testSecretKey);
  });

  it("refuses an expired key at its end even when the key was remembered (the found-key cache)", async () => {
    const keys = await t.merchant({ name: "Cached Roller" });
    await t.gateway.merchants.rollApiKey(t.gateway.access.operator(keys.id), { mode: "live", kind: "secret", oldExpires: "1h" });
    const cached = new Credentials(t.stores.credentials, { cacheMs: 24 * HOUR, clock });
    expect((await cached.authenticateSecret(keys.liveSecretKey)).keyKind).toBe("SECRET");
    clock.advance(HOUR);
    await expect(cached.authenticateSecret(keys.liveSecretKey)).rejects.toMatchObject({ code: "unauthenticated", message: "Invalid Secret Key" });
  });

  it("ends a key the gateway's credential cache remembers at once when rolled with 'now'", async () => {
    const cached = await startTestGateway({ clock, credentialCacheMs: 24 * HOUR, sameDatabaseAs: t });
    try {
      const keys = await cached.merchant({ name: "Forgetful" });
      const list = async (key: string) => (await fetch(`${cached.url}/v1/transactions`, { headers: bearer(key) })).status;
      expect(await list(keys.testSecretKey)).toBe(200); // now remembered for 24 hours
      const rolled = await cached.gateway.merchants.rollApiKey(cached.gateway.access.operator(keys.id), {
        mode: "test",
        kind: "secret",
        oldExpires: "now",
      });
      expect(await list(keys.testSecretKey)).toBe(401);
      expect(await list(rolled.key)).toBe(200);

      const link = await cached.gateway.merchants.createPaymentLink(cached.gateway.access.operator(keys.id), "test");
      const start = () => cached.post("/v1/transaction", initializeBody({ payment_link: link.slug, amount: "25" }));
      expect((await start()).status).toBe(201); // remembered
      await cached.gateway.merchants.deactivatePaymentLink(cached.gateway.access.operator(keys.id), link.slug);
      expect((await start()).status).toBe(404);
    } finally {
      await cached.close();
    }
  });

  it("refuses a bad mode, kind or overlap (naming it), a viewer and an unknown merchant", async () => {
    const keys = await t.merchant({ name: "Bad Roll" });
    const owner = actor(keys.id);
    await refused(
      t.gateway.merchants.rollApiKey(t.gateway.access.dashboard(owner), { mode: "prod" as "live", kind: "secret", oldExpires: "now" }),
      "validation_error",
      "invalid_merchant_settings",
      /mode must be test or live/,
    );
    await refused(
      t.gateway.merchants.rollApiKey(t.gateway.access.dashboard(owner), { mode: "live", kind: "private" as "secret", oldExpires: "now" }),
      "validation_error",
      "invalid_merchant_settings",
      /kind must be public or secret \(got 'private'\)/,
    );
    await refused(
      t.gateway.merchants.rollApiKey(t.gateway.access.dashboard(owner), { mode: "live", kind: "secret", oldExpires: "2h" as "1h" }),
      "validation_error",
      "invalid_merchant_settings",
      /oldExpires must be one of now, 1h, 24h \(got '2h'\)/,
    );
    await forbidden(
      t.gateway.merchants.rollApiKey(t.gateway.access.dashboard(actor(keys.id, "viewer")), { mode: "live", kind: "secret", oldExpires: "now" }),
    );
    await refused(
      t.gateway.merchants.rollApiKey(t.gateway.access.operator(999_999), { mode: "live", kind: "secret", oldExpires: "now" }),
      "not_found",
      "merchant_not_found",
      /No merchant with id 999999/,
    );
    expect((await t.gateway.merchants.listApiKeys(t.gateway.access.operator(keys.id))).every((k) => k.status === "active")).toBe(true);
    expect((await get("/v1/transactions", keys.liveSecretKey)).status).toBe(200);
  });
});

describe("wallets", () => {
  it("previews the first three addresses of a new key, BIP84's own, and stores nothing", async () => {
    const keys = await t.merchant({ name: "Previewer" });
    const preview = await t.gateway.merchants.previewWallet(t.gateway.access.dashboard(actor(keys.id, "developer")), {
      currency: "btc",
      mode: "live",
      extendedPublicKey: ` ${BIP84_ZPUB} `,
    });
    expect(preview.currency).toBe("BTC");
    expect(preview.mode).toBe("live");
    expect(preview.addresses.map((a) => a.index)).toEqual([0, 1, 2]);
    expect(preview.addresses.slice(0, 2).map((a) => a.address)).toEqual(BIP84_ADDRESSES);
    expect(preview.addresses[2]!.address).toBe(new HdWalletRails().deriveAddress(BTC, true, BIP84_ZPUB, 2));
    const live = (await t.gateway.merchants.listWallets(t.gateway.access.dashboard(actor(keys.id, "viewer")))).find(
      (w) => w.currency === "BTC" && w.mode === "live",
    );
    expect(live).toEqual({
      currency: "BTC",
      network: "bitcoin",
      networkName: "Bitcoin",
      mode: "live",
      extendedPublicKey: null,
      nextIndex: null,
      unpaidAtEnd: 0,
      gapWarning: null,
    });
  });

  it("refuses in a preview what setting would refuse: a wrong network, an unknown coin, another merchant's key", async () => {
    const keys = await t.merchant({ name: "Preview Checks" });
    const owner = actor(keys.id);
    await refused(
      t.gateway.merchants.previewWallet(t.gateway.access.dashboard(owner), { currency: "ETH", mode: "live", extendedPublicKey: BIP84_ZPUB }),
      "validation_error",
      "invalid_merchant_settings",
      /^ETH wallet: expected a mainnet key \(xpub\)/,
    );
    await refused(
      t.gateway.merchants.previewWallet(t.gateway.access.dashboard(owner), { currency: "BTC", mode: "test", extendedPublicKey: BIP84_ZPUB }),
      "validation_error",
      "invalid_merchant_settings",
      /^BTC wallet: /,
    );
    await refused(
      t.gateway.merchants.previewWallet(t.gateway.access.dashboard(owner), { currency: "DOGE", mode: "live", extendedPublicKey: BIP84_ZPUB }),
      "validation_error",
      "invalid_merchant_settings",
      /currency must be one of USDT, BTC, BNB, ETH, LTC, USDC \(got 'DOGE'\)/,
    );
    await refused(
      t.gateway.merchants.previewWallet(t.gateway.access.dashboard(owner), { currency: "BTC", mode: "live", extendedPublicKey: "  " }),
      "validation_error",
      "invalid_merchant_settings",
      /give the account-level extended public key/,
    );
    await forbidden(
      t.gateway.merchants.previewWallet(t.gateway.access.dashboard(actor(keys.id, "viewer")), {
        currency: "BTC",
        mode: "live",
        extendedPublicKey: BIP84_ZPUB,
      }),
    );

    const holder = await t.merchant({ name: "Key Holder" });
    await t.gateway.merchants.setWallet(t.gateway.access.dashboard(actor(holder.id)), {
      currency: "BTC",
      mode: "live",
      extendedPublicKey: BIP84_ZPUB,
    });
    await refused(
      t.gateway.merchants.previewWallet(t.gateway.access.dashboard(owner), { currency: "BTC", mode: "live", extendedPublicKey: BIP84_ZPUB }),
      "validation_error",
      "invalid_merchant_settings",
      /BTC wallet: this key already belongs to another merchant/,
    );
    await refused(
      t.gateway.merchants.previewWallet(t.gateway.access.operator(999_999), {
        currency: "BTC",
        mode: "test",
        extendedPublicKey: await testKey(keys.id),
      }),
      "not_found",
      "merchant_not_found",
      /No merchant with id 999999/,
    );
  });

  it("sets a wallet with today's rules and shows it shortened with its next index", async () => {
    const keys = await t.merchant({ name: "Wallet Setter" });
    const key = await testKey(keys.id);
    // A fresh test-network key that nobody holds, made as a new merchant's are.
    const fresh = new HdWalletRails().createTestWallet(BTC);
    const set = await t.gateway.merchants.setWallet(t.gateway.access.dashboard(actor(keys.id, "developer")), {
      currency: "BTC",
      mode: "test",
      extendedPublicKey: fresh,
    });
    expect(set).toEqual({
      currency: "BTC",
      network: "bitcoin",
      networkName: "Bitcoin testnet",
      mode: "test",
      extendedPublicKey: `${fresh.slice(0, 10)}…${fresh.slice(-6)}`,
      nextIndex: 0,
      unpaidAtEnd: 0,
      gapWarning: null,
    });
    await forbidden(
      t.gateway.merchants.setWallet(t.gateway.access.dashboard(actor(keys.id, "viewer")), { currency: "BTC", mode: "test", extendedPublicKey: key }),
    );
    await refused(
      t.gateway.merchants.setWallet(t.gateway.access.dashboard(actor(keys.id)), {
        currency: "BTC",
        mode: "live",
        extendedPublicKey: "xpub-nonsense",
      }),
      "validation_error",
      "invalid_merchant_settings",
      /^BTC wallet: /,
    );
    const wallets = await t.gateway.merchants.listWallets(t.gateway.access.dashboard(actor(keys.id, "viewer")));
    // A wallet per coin and mode, and in test mode one per network too (issue 43: 14 test wallets, 6 live coins).
    expect(wallets).toHaveLength(20);
    expect(wallets.filter((w) => w.mode === "test").every((w) => w.nextIndex === 0)).toBe(true);
    expect(wallets.filter((w) => w.mode === "live").every((w) => w.extendedPublicKey === null)).toBe(true);
  });

  it("warns once 20 handed-out addresses at the end are unpaid, and resumes a known key's preview at its next index", async () => {
    const keys = await t.merchant({ name: "Gap Limit" });
    const pay = async () => {
      const id = await initialize(keys.testPublicKey);
      const res = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.testSecretKey));
      expect(res.status).toBe(200);
      return id;
    };
    const first = await pay();
    await t.gateway.payments.recordTestPayment({ bearerToken: keys.testSecretKey, transactionId: first });
    for (let i = 0; i < 19; i++) await pay();
    const btc = async () =>
      (await t.gateway.merchants.listWallets(t.gateway.access.operator(keys.id))).find((w) => w.currency === "BTC" && w.mode === "test")!;
    expect(await btc()).toMatchObject({ nextIndex: 20, unpaidAtEnd: 19, gapWarning: null });
    await pay();
    const warned = await btc();
    expect(warned).toMatchObject({ nextIndex: 21, unpaidAtEnd: 20 });
    expect(warned.gapWarning).toMatch(
      /^The last 20 BTC addresses handed out received nothing\. Wallets stop looking for payments after 20 unused addresses/,
    );

    const preview = await t.gateway.merchants.previewWallet(t.gateway.access.operator(keys.id), {
      currency: "BTC",
      mode: "test",
      extendedPublicKey: await testKey(keys.id),
    });
    expect(preview.addresses.map((a) => a.index)).toEqual([21, 22, 23]);
  });
});

/** The merchant's test-mode BTC key, as made at creation. */
async function testKey(merchantId: number): Promise<string> {
  const wallet = await t.db.wallet.findFirstOrThrow({ where: { merchantId, currencyId: 4, isLive: false } });
  return wallet.extendedPublicKey;
}

describe("payment links", () => {
  it("lists links with mode, state and transaction count; a deactivated link starts no more transactions", async () => {
    const keys = await t.merchant({ name: "Link Lister" });
    const owner = actor(keys.id);
    const test = await t.gateway.merchants.createPaymentLink(t.gateway.access.dashboard(owner), "test");
    const live = await t.gateway.merchants.createPaymentLink(t.gateway.access.dashboard(owner), "live");
    const start = (slug: string) => t.post("/v1/transaction", initializeBody({ payment_link: slug, amount: "25" }));
    expect((await start(test.slug)).status).toBe(201);

    const links = await t.gateway.merchants.listPaymentLinks(t.gateway.access.dashboard(actor(keys.id, "viewer")));
    expect(links.map((l) => [l.slug, l.mode, l.active, l.transactionCount])).toEqual([
      [live.slug, "live", true, 0],
      [test.slug, "test", true, 1],
    ]);
    expect(links[0]!.createdAt).toBeInstanceOf(Date);

    const deactivated = await t.gateway.merchants.deactivatePaymentLink(t.gateway.access.dashboard(owner), test.slug);
    expect(deactivated).toMatchObject({ slug: test.slug, active: false, transactionCount: 1 });
    const res = await start(test.slug);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: "not_found", reason: "invalid_payment_link", message: "Invalid Public Key" });
    expect((await t.gateway.merchants.deactivatePaymentLink(t.gateway.access.dashboard(owner), test.slug)).active).toBe(false); // again is fine
  });

  it("refuses another merchant's link, a developer and a viewer", async () => {
    const keys = await t.merchant({ name: "Link Owner" });
    const other = await t.merchant({ name: "Link Thief" });
    const link = await t.gateway.merchants.createPaymentLink(t.gateway.access.dashboard(actor(keys.id)), "test");
    await refused(
      t.gateway.merchants.deactivatePaymentLink(t.gateway.access.dashboard(actor(other.id)), link.slug),
      "not_found",
      "payment_link_not_found",
      /This merchant has no payment link 'pl_/,
    );
    await forbidden(t.gateway.merchants.deactivatePaymentLink(t.gateway.access.dashboard(actor(keys.id, "developer")), link.slug));
    await forbidden(t.gateway.merchants.createPaymentLink(t.gateway.access.dashboard(actor(keys.id, "viewer")), "test"));
    await refused(
      t.gateway.merchants.createPaymentLink(t.gateway.access.dashboard(actor(keys.id)), "prod" as "live"),
      "validation_error",
      "invalid_merchant_settings",
      /mode must be test or live/,
    );
    await refused(
      t.gateway.merchants.listPaymentLinks(t.gateway.access.operator(999_999)),
      "not_found",
      "merchant_not_found",
      /No merchant with id 999999/,
    );
    expect((await t.gateway.merchants.listPaymentLinks(t.gateway.access.operator(keys.id)))[0]!.active).toBe(true);
  });
});
