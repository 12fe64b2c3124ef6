// The management pages' API (/dashboard/api: settings, webhook URL, secret rotation, test events,
// API keys, wallets, payment links) over HTTP with a session: each route's success, its bad input
// (400 naming the field), a viewer (403 role_forbidden, nothing changed) and a change without the
// CSRF header (403). The rules themselves are tested at the gateway (management.test.ts).
import { describe, expect, it } from "vitest";
import { signedInAs, type DashboardAnswer, type DashboardClient } from "../support/dashboard.ts";
import type { NewMerchant } from "../../src/core/merchants/merchants.ts";
import { CRYPTO_CURRENCIES } from "../../src/core/money/currencies.ts";
import { networksOf } from "../../src/core/networks.ts";
import { gatewayAndReceiverForFile, type TestGateway } from "../support/gateway.ts";
import type { WebhookReceiver } from "../support/webhook-receiver.ts";

const BIP84_ZPUB = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs";
const BIP84_ADDRESSES = ["bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", "bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g"];
const API = "/dashboard/api";

let t: TestGateway;
let receiver: WebhookReceiver;
let merchant: NewMerchant;
let owner: DashboardClient;
let viewer: DashboardClient;
gatewayAndReceiverForFile(
  async (started) => {
    ({ t, receiver } = started);
    merchant = await t.merchant({ name: "Pages Ltd", testWebhookUrl: receiver.url });
    owner = await signedInAs(t, merchant.id, "owner");
    viewer = await signedInAs(t, merchant.id, "viewer");
    // The receiver is on 127.0.0.1: the operator's setting shows its test event's status (issue 41).
  },
  { env: { PAYGATE_WEBHOOK_TEST_EVENT_DETAILS: "true" } },
);

function expectError(answer: DashboardAnswer, status: number, reason: string, message: RegExp | string) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body).toMatchObject({ status: "error", reason });
  expect(answer.body.message).toMatch(message);
}

describe("reads (any role, the mode of ?mode=)", () => {
  it("settings: the mode's webhook URL, the rotation, KYB; never a secret", async () => {
    const answer = await viewer.get(`${API}/settings?mode=test`);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({
      mode: "test",
      kyb_status: expect.any(String),
      webhook_url: receiver.url,
      webhook_secret: { rotated_at: null, previous_secret_expires_at: null },
    });
    expect((await viewer.get(`${API}/settings?mode=live`)).body.data).toMatchObject({ mode: "live", webhook_url: null });
  });

  it("API keys, wallets and payment links of the mode only", async () => {
    const keys = await viewer.get(`${API}/api-keys?mode=live`);
    expect(keys.status).toBe(200);
    expect(keys.body.data.map((k: { kind: string; mode: string; status: string }) => [k.kind, k.mode, k.status]).sort()).toEqual([
      ["public", "live", "active"],
      ["secret", "live", "active"],
    ]);
    expect(keys.body.data[0]).toEqual(
      expect.objectContaining({ prefix: expect.any(String), created_at: expect.any(String), expires_at: null, revoked_at: null }),
    );
    const wallets = await viewer.get(`${API}/wallets?mode=test`);
    expect(wallets.status).toBe(200);
    // One row per coin, set or not (the Wallets page takes its coins from here); a new merchant's test
    // mode has a wallet on each of the coin's networks (issue 43), so each is a row too.
    expect(wallets.body.data.map((w: { currency: string; network: string; mode: string }) => `${w.currency} ${w.network} ${w.mode}`)).toEqual(
      CRYPTO_CURRENCIES.flatMap((c) => networksOf(c.slug).map(({ network }) => `${c.slug} ${network} test`)),
    );
    expect((await viewer.get(`${API}/payment-links?mode=test`)).body.data).toEqual([]);
  });

  it("refuses a bad mode (400 naming mode) and no session (401)", async () => {
    for (const path of ["/settings", "/api-keys", "/wallets", "/payment-links"]) {
      expectError(await viewer.get(`${API}${path}?mode=prod`), 400, "invalid_list_parameter", /mode/);
      const anonymous = await fetch(`${t.url}${API}${path}`);
      expect(anonymous.status).toBe(401);
    }
  });
});

interface Change {
  name: string;
  method: string;
  path: string;
  body: unknown;
  /** Checks the successful answer. */
  ok(answer: DashboardAnswer): void;
  bad?: { body: unknown; path?: string; status?: number; reason: string; message: RegExp | string };
}

const CHANGES: Change[] = [
  {
    name: "set the webhook URL",
    method: "PUT",
    path: "/webhook-url?mode=live",
    body: { url: "https://shop.example.com/hooks" },
    ok: (a) => expect(a.body.data).toMatchObject({ mode: "live", webhook_url: "https://shop.example.com/hooks" }),
    bad: { body: { url: "not a url" }, reason: "invalid_merchant_settings", message: /URL/i },
  },
  {
    name: "clear the webhook URL",
    method: "PUT",
    path: "/webhook-url?mode=live",
    body: { url: null },
    ok: (a) => expect(a.body.data).toMatchObject({ mode: "live", webhook_url: null }),
    bad: { body: { url: 42 }, reason: "invalid_merchant_settings", message: "url must be an https URL, or null to remove it" },
  },
  {
    name: "rotate the webhook secret",
    method: "POST",
    path: "/webhook-secret/rotate",
    body: {},
    ok: (a) => {
      expect(a.status).toBe(201);
      expect(a.body.data.webhook_secret).toMatch(/^whsec_/);
      expect(Date.parse(a.body.data.previous_secret_expires_at) - Date.parse(a.body.data.rotated_at)).toBe(24 * 3_600_000);
    },
  },
  {
    name: "send a test event",
    method: "POST",
    path: "/webhook-test?mode=test",
    body: {},
    // The receiver is on 127.0.0.1: its answer's body is never shown to a dashboard user.
    ok: (a) =>
      expect(a.body.data).toMatchObject({
        ok: true,
        status_code: 200,
        url: receiver.url,
        response_body: null,
        response_body_withheld: true,
        error: null,
      }),
    bad: { body: {}, path: "/webhook-test?mode=live", status: 422, reason: "webhook_url_missing", message: /^No live webhook URL is set/ },
  },
  {
    name: "roll a key",
    method: "POST",
    path: "/api-keys/roll?mode=test",
    body: { kind: "secret", old_expires: "1h" },
    ok: (a) => {
      expect(a.status).toBe(201);
      expect(a.body.data).toMatchObject({ mode: "test", kind: "secret", key: expect.any(String) });
      expect(a.body.data.replaced).toHaveLength(1);
    },
    bad: {
      body: { kind: "secret", old_expires: "2h" },
      reason: "invalid_merchant_settings",
      message: "oldExpires must be one of now, 1h, 24h (got '2h')",
    },
  },
  {
    name: "preview a wallet",
    method: "POST",
    path: "/wallets/preview?mode=live",
    body: { currency: "BTC", extended_public_key: BIP84_ZPUB },
    ok: (a) => {
      expect(a.body.data.addresses.map((x: { address: string }) => x.address).slice(0, 2)).toEqual(BIP84_ADDRESSES);
      expect(a.body.data.addresses).toHaveLength(3);
    },
    bad: { body: { currency: "BTC" }, reason: "invalid_merchant_settings", message: "extended_public_key is required: give it as a string" },
  },
  {
    name: "set a wallet",
    method: "PUT",
    path: "/wallets/BTC?mode=live",
    body: { extended_public_key: BIP84_ZPUB },
    ok: (a) => expect(a.body.data).toMatchObject({ currency: "BTC", mode: "live", next_index: 0, gap_warning: null }),
    bad: {
      body: { extended_public_key: BIP84_ZPUB },
      path: "/wallets/DOGE?mode=live",
      reason: "invalid_merchant_settings",
      message: /^currency must be one of/,
    },
  },
  {
    name: "create a payment link",
    method: "POST",
    path: "/payment-links?mode=test",
    body: {},
    ok: (a) => {
      expect(a.status).toBe(201);
      expect(a.body.data.slug).toEqual(expect.any(String));
    },
    bad: { body: {}, path: "/payment-links?mode=staging", reason: "invalid_list_parameter", message: /mode/ },
  },
];

describe.each(CHANGES)("$name ($method $path)", (change) => {
  it("works for an owner", async () => {
    const answer = await owner.request(change.method, API + change.path, change.body);
    expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
    change.ok(answer);
  });

  it("refuses a viewer (403 role_forbidden) and a change without the CSRF header (403)", async () => {
    expectError(await viewer.request(change.method, API + change.path, change.body), 403, "role_forbidden", /Your role \(viewer\) cannot/);
    const noCsrf = await owner.request(change.method, API + change.path, change.body, { "x-csrf-token": "" });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.message).toMatch(/X-CSRF-Token/);
  });
});

// Rotating the secret takes no input: it has no bad-input case.
describe.each(CHANGES.filter((change) => change.bad))("$name with bad input", (change) => {
  it("is refused with a 4xx naming what is wrong", async () => {
    const bad = change.bad!;
    const answer = await owner.request(change.method, API + (bad.path ?? change.path), bad.body);
    expectError(answer, bad.status ?? 400, bad.reason, bad.message);
  });
});

describe("deactivating a payment link", () => {
  it("deactivates once; refuses a viewer, no CSRF header, and an unknown slug", async () => {
    const created = await owner.post(`${API}/payment-links?mode=test`);
    const slug: string = created.body.data.slug;
    const path = `${API}/payment-links/${slug}/deactivate`;
    expectError(await viewer.post(path), 403, "role_forbidden", /Your role \(viewer\) cannot/);
    expect((await owner.request("POST", path, {}, { "x-csrf-token": "" })).status).toBe(403);
    const done = await owner.post(path);
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({ slug, active: false, mode: "test", transaction_count: 0 });
    const listed = await viewer.get(`${API}/payment-links?mode=test`);
    expect(listed.body.data.find((l: { slug: string }) => l.slug === slug)).toMatchObject({ active: false });
    const unknown = await owner.post(`${API}/payment-links/nope/deactivate`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toMatch(/nope/);
  });
});
