// A deactivated merchant's dashboard is read-only, over HTTP on the test database (PGlite, or
// PostgreSQL with DATABASE_URL): its users still sign in and read everything, and every change is
// refused with 403 merchant_inactive saying who can reactivate it, changing nothing. The session
// tells the pages (merchant.active false, read permissions only), so they hide the controls.
import { describe, expect, it } from "vitest";
import type { NewMerchant } from "../../src/core/merchants/merchants.ts";
import {
  dashboardFetch,
  dashboardUser,
  signIn,
  signedInAs,
  TEST_PASSWORD,
  type DashboardAnswer,
  type DashboardClient,
} from "../support/dashboard.ts";
import { gatewayAndReceiverForFile, type TestGateway } from "../support/gateway.ts";
import type { WebhookReceiver } from "../support/webhook-receiver.ts";
import { initializeBody } from "../support/builders.ts";

const API = "/dashboard/api";
const BIP84_ZPUB = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs";
const READ_ONLY =
  /^This merchant is deactivated, so its dashboard is read-only: nothing can be changed until the operator reactivates it \(paygate merchant update ID --active true\)$/;

let t: TestGateway;
let receiver: WebhookReceiver;
let merchant: NewMerchant;
let owner: DashboardClient;
let developer: DashboardClient;
let viewerId: string;
let linkSlug: string;
let eventId: string;

gatewayAndReceiverForFile(async (started) => {
  ({ t, receiver } = started);
  merchant = await t.merchant({ name: "Closed Ltd", testWebhookUrl: receiver.url });
  owner = await signedInAs(t, merchant.id, "owner");
  developer = await signedInAs(t, merchant.id, "developer");
  viewerId = (await dashboardUser(t, merchant.id, "viewer")).userId;
  linkSlug = (await owner.post(`${API}/payment-links?mode=test`)).body.data.slug;
  const initialized = await t.post("/v1/transaction", initializeBody({ amount: "10" }), { authorization: `Bearer ${merchant.testPublicKey}` });
  eventId = (await owner.get(`${API}/transactions/${initialized.body.data.id}`)).body.data.events[0].id;
  await t.gateway.operator.updateMerchant(merchant.id, { active: false });
});

/** Everything of the merchant a dashboard change could touch (bigints and dates as text). */
async function merchantState(): Promise<string> {
  const where = { merchantId: merchant.id };
  const state = await Promise.all([
    t.db.merchant.findUniqueOrThrow({ where: { id: merchant.id } }),
    t.db.apiKey.findMany({ where, orderBy: { id: "asc" } }),
    t.db.wallet.findMany({ where, orderBy: { id: "asc" } }),
    t.db.paymentLink.findMany({ where, orderBy: { id: "asc" } }),
    t.db.dashboardUser.findMany({ where, orderBy: { id: "asc" } }),
    t.db.dashboardSignInLink.count({ where: { user: where } }),
    t.db.webhookEvent.findMany({ where, orderBy: { id: "asc" } }),
    t.db.webhookDeliveryAttempt.count(),
  ]);
  return JSON.stringify(state, (_key, value) => (typeof value === "bigint" ? value.toString() : value));
}

function expectReadOnly(answer: DashboardAnswer) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(403);
  expect(answer.body).toMatchObject({ status: "error", code: "forbidden", reason: "merchant_inactive" });
  expect(answer.body.message).toMatch(READ_ONLY);
}

const CHANGES: { name: string; method: string; path: () => string; body: unknown }[] = [
  { name: "set the webhook URL", method: "PUT", path: () => "/webhook-url?mode=live", body: { url: "https://attacker.example/hooks" } },
  { name: "clear the webhook URL", method: "PUT", path: () => "/webhook-url?mode=test", body: { url: null } },
  { name: "rotate the webhook secret", method: "POST", path: () => "/webhook-secret/rotate", body: {} },
  { name: "send a test event", method: "POST", path: () => "/webhook-test?mode=test", body: {} },
  { name: "redeliver an event", method: "POST", path: () => `/events/${eventId}/redeliver?mode=test`, body: {} },
  { name: "roll a key", method: "POST", path: () => "/api-keys/roll?mode=live", body: { kind: "secret", old_expires: "now" } },
  { name: "preview a wallet", method: "POST", path: () => "/wallets/preview?mode=live", body: { currency: "BTC", extended_public_key: BIP84_ZPUB } },
  { name: "set a wallet", method: "PUT", path: () => "/wallets/BTC?mode=live", body: { extended_public_key: BIP84_ZPUB } },
  { name: "create a payment link", method: "POST", path: () => "/payment-links?mode=test", body: {} },
  { name: "deactivate a payment link", method: "POST", path: () => `/payment-links/${linkSlug}/deactivate`, body: {} },
  { name: "invite a user", method: "POST", path: () => "/users", body: { email: "new-hire@example.com", role: "owner" } },
  { name: "change a role", method: "PATCH", path: () => `/users/${viewerId}`, body: { role: "owner" } },
  { name: "remove a user", method: "DELETE", path: () => `/users/${viewerId}`, body: undefined },
];

describe("a deactivated merchant's dashboard", () => {
  it.each(CHANGES)("refuses to $name (403 merchant_inactive) and changes nothing", async (change) => {
    const before = await merchantState();
    const sent = receiver.received.length;
    expectReadOnly(await owner.request(change.method, API + change.path(), change.body));
    expect(await merchantState()).toBe(before);
    expect(receiver.received).toHaveLength(sent);
  });

  it("refuses a developer's changes alike, and a viewer's with its role's answer", async () => {
    const before = await merchantState();
    expectReadOnly(await developer.request("POST", `${API}/api-keys/roll?mode=live`, { kind: "public", old_expires: "now" }));
    const viewer = await signIn(t, (await t.db.dashboardUser.findUniqueOrThrow({ where: { id: viewerId } })).email);
    const answer = await viewer.request("POST", `${API}/api-keys/roll?mode=live`, { kind: "public", old_expires: "now" });
    expect(answer.status).toBe(403);
    expect(answer.body.reason).toBe("role_forbidden");
    expect(await merchantState()).toBe(before);
  });

  it("still signs in, and reads everything: settings, keys, wallets, links, users, transactions, the CSV", async () => {
    const again = await signIn(t, owner.email, TEST_PASSWORD);
    for (const path of [
      "/settings?mode=test",
      "/api-keys?mode=live",
      "/wallets?mode=live",
      "/payment-links?mode=test",
      "/users",
      "/transactions?mode=test",
      "/transactions.csv?mode=test",
    ]) {
      const answer = await dashboardFetch(t, "GET", API + path, undefined, { cookie: again.cookie });
      expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).toBe(200);
    }
    expect((await again.get(`${API}/payment-links?mode=test`)).body.data.map((l: { slug: string }) => l.slug)).toEqual([linkSlug]);
  });

  it("tells the pages: merchant.active false and read permissions only", async () => {
    const session = await owner.get(`${API}/session`);
    expect(session.status).toBe(200);
    expect(session.body.data.merchant).toMatchObject({ name: "Closed Ltd", active: false });
    expect(session.body.data.permissions).toContain("read");
    expect(session.body.data.permissions.filter((p: string) => p.startsWith("manage_"))).toEqual([]);
  });

  it("signs out as usual (that changes no merchant setting)", async () => {
    const leaving = await signIn(t, developer.email, TEST_PASSWORD);
    expect((await leaving.delete(`${API}/session`)).status).toBe(200);
    expect((await leaving.get(`${API}/session`)).status).toBe(401);
  });

  it("takes changes again once the operator reactivates the merchant", async () => {
    await t.gateway.operator.updateMerchant(merchant.id, { active: true });
    try {
      const created = await owner.post(`${API}/payment-links?mode=test`);
      expect(created.status).toBe(201);
      expect((await owner.get(`${API}/session`)).body.data.permissions).toContain("manage_payment_links");
    } finally {
      await t.gateway.operator.updateMerchant(merchant.id, { active: false });
    }
  });
});
