// Sudo mode over real HTTP on the test database: a fresh sign-in may change wallets, webhooks, keys,
// users and second factors; ten minutes later (test clock) each of those changes is refused with
// 403 reauthentication_required and changes nothing, until POST /session/reauthenticate proves the
// password (and the second factor, when on) again. Wrong passwords there are throttled per user.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewMerchant } from "../../src/core/merchants/merchants.ts";
import { cryptoBySlug } from "../../src/core/money/currencies.ts";
import { manualClock } from "../support/clock.ts";
import {
  dashboardUser,
  enrolSecondFactor,
  expectDashboardError,
  signIn,
  signedInAs,
  TEST_PASSWORD,
  totpCode,
  type DashboardAnswer,
  type DashboardClient,
} from "../support/dashboard.ts";
import { initializeBody } from "../support/builders.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

const BIP84_ZPUB = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs";
const API = "/dashboard/api";
const MINUTE = 60_000;
const BTC = cryptoBySlug("BTC")!;
const REAUTHENTICATION_MESSAGE =
  "This change needs your password again (and your authentication code, if you have a second factor): you last confirmed it more than 10 minutes ago. Confirm it (POST /dashboard/api/session/reauthenticate), then retry; nothing was changed";

const clock = manualClock();
let t: TestGateway;
let merchant: NewMerchant;
beforeAll(async () => {
  t = await startTestGateway({ clock });
  merchant = await t.merchant({ name: "Sudo Shop", kyb: "VERIFIED", testWebhookUrl: "https://shop.example.com/hooks" });
});
afterAll(async () => {
  await t?.close();
});

/** What the sensitive changes would change: compared before and after a refusal. */
async function state() {
  const row = await t.db.merchant.findUniqueOrThrow({ where: { id: merchant.id }, include: { dashboardUsers: { orderBy: { id: "asc" } } } });
  return {
    wallets: await t.db.paymentProcessor.findMany({ where: { merchantId: merchant.id }, orderBy: { id: "asc" } }),
    testWebhookUrl: row.testWebhookUrl,
    webhookSecretEnc: row.webhookSecretEnc,
    apiKeys: await t.db.apiKey.count({ where: { merchantId: merchant.id } }),
    users: row.dashboardUsers.map((u) => [u.id, u.role, u.totpSecretEnc]),
    audit: await t.db.auditLogEntry.count({ where: { merchantId: merchant.id } }),
  };
}

/** Every change sudo mode guards, as the dashboard sends it. */
function sensitiveChanges(owner: DashboardClient, other: { userId: string }): [string, () => Promise<DashboardAnswer>][] {
  return [
    ["set a wallet", () => owner.request("PUT", `${API}/wallets/BTC?mode=live`, { extended_public_key: BIP84_ZPUB })],
    ["preview a wallet", () => owner.post(`${API}/wallets/preview?mode=live`, { currency: "BTC", extended_public_key: BIP84_ZPUB })],
    ["set the webhook URL", () => owner.request("PUT", `${API}/webhook-url?mode=test`, { url: "https://attacker.example/hooks" })],
    ["rotate the webhook secret", () => owner.post(`${API}/webhook-secret/rotate`)],
    ["roll a key", () => owner.post(`${API}/api-keys/roll?mode=test`, { kind: "secret", old_expires: "now" })],
    ["invite a user", () => owner.post(`${API}/users`, { email: "attacker@example.com", role: "owner" })],
    ["change a role", () => owner.patch(`${API}/users/${other.userId}`, { role: "owner" })],
    ["remove a user", () => owner.delete(`${API}/users/${other.userId}`)],
    ["set up a second factor", () => owner.post(`${API}/second-factor`)],
  ];
}

describe("sudo mode", () => {
  it("lets a fresh sign-in change a wallet, and refuses every sensitive change 10 minutes later (403) with nothing changed", async () => {
    const owner = await signedInAs(t, merchant.id, "owner");
    const other = await dashboardUser(t, merchant.id, "developer");
    expect((await owner.get(`${API}/session`)).body.data.reauthenticate_after).toBe(new Date(clock.now().getTime() + 10 * MINUTE).toISOString());
    clock.advance(9 * MINUTE);
    const testKey = await t.db.wallet.findFirstOrThrow({ where: { merchantId: merchant.id, currencyId: BTC.id, isLive: false } });
    const fresh = await owner.request("PUT", `${API}/wallets/BTC?mode=test`, { extended_public_key: testKey.extendedPublicKey });
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(200);

    clock.advance(1 * MINUTE);
    const before = await state();
    for (const [what, change] of sensitiveChanges(owner, other)) {
      const answer = await change();
      expect(answer.body, what).toEqual({
        status: "error",
        code: "forbidden",
        reason: "reauthentication_required",
        message: REAUTHENTICATION_MESSAGE,
        errors: [],
      });
      expect(answer.status, what).toBe(403);
    }
    expect(await state()).toEqual(before);
    // Reads and other changes need no re-authentication.
    expect((await owner.get(`${API}/wallets?mode=live`)).status).toBe(200);
    expect((await owner.post(`${API}/payment-links?mode=test`)).status).toBe(201);
  });

  it("accepts the change again after POST /session/reauthenticate with the password; a wrong password changes nothing", async () => {
    const owner = await signedInAs(t, merchant.id, "owner");
    clock.advance(30 * MINUTE);
    const refused = await owner.request("PUT", `${API}/wallets/BTC?mode=live`, { extended_public_key: BIP84_ZPUB });
    expectDashboardError(refused, 403, "reauthentication_required", REAUTHENTICATION_MESSAGE);

    expectDashboardError(await owner.post(`${API}/session/reauthenticate`, {}), 400, "invalid_dashboard_user", /password is required/);
    expectDashboardError(
      await owner.post(`${API}/session/reauthenticate`, { password: "not the password" }),
      401,
      "reauthentication_failed",
      "The password is incorrect",
    );
    expectDashboardError(
      await owner.request("PUT", `${API}/wallets/BTC?mode=live`, { extended_public_key: BIP84_ZPUB }),
      403,
      "reauthentication_required",
      /needs your password again/,
    );

    const proved = await owner.post(`${API}/session/reauthenticate`, { password: TEST_PASSWORD });
    expect(proved.status).toBe(200);
    expect(proved.body.data.reauthenticate_after).toBe(new Date(clock.now().getTime() + 10 * MINUTE).toISOString());
    const set = await owner.request("PUT", `${API}/wallets/BTC?mode=live`, { extended_public_key: BIP84_ZPUB });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.data).toMatchObject({ currency: "BTC", mode: "live", extended_public_key: "zpub6rFR7y…GutZYs" });
    // The session's other properties are kept: its token, its CSRF token.
    expect(proved.body.data.csrf_token).toBe(owner.csrfToken);
  });

  it("asks a user with a second factor for a code too", async () => {
    const user = await dashboardUser(t, merchant.id, "developer");
    const client = await signIn(t, user.email);
    const { secret } = await enrolSecondFactor(client, clock.now());
    clock.advance(11 * MINUTE);
    expectDashboardError(
      await client.post(`${API}/session/reauthenticate`, { password: TEST_PASSWORD }),
      400,
      "invalid_dashboard_user",
      /code is required/,
    );
    expectDashboardError(
      await client.post(`${API}/session/reauthenticate`, { password: TEST_PASSWORD, code: "000000" }),
      401,
      "second_factor_failed",
      /incorrect/,
    );
    expectDashboardError(
      await client.post(`${API}/api-keys/roll?mode=test`, { kind: "public", old_expires: "1h" }),
      403,
      "reauthentication_required",
      /needs your password again/,
    );
    const proved = await client.post(`${API}/session/reauthenticate`, { password: TEST_PASSWORD, code: await totpCode(secret, clock.now()) });
    expect(proved.status).toBe(200);
    expect((await client.post(`${API}/api-keys/roll?mode=test`, { kind: "public", old_expires: "1h" })).status).toBe(201);
  });

  it("answers a viewer's stale change with role_forbidden (its role decides first)", async () => {
    const viewer = await signedInAs(t, merchant.id, "viewer");
    clock.advance(11 * MINUTE);
    expectDashboardError(
      await viewer.request("PUT", `${API}/wallets/BTC?mode=live`, { extended_public_key: BIP84_ZPUB }),
      403,
      "role_forbidden",
      /Your role \(viewer\)/,
    );
  });

  it("throttles wrong passwords per user (429 after 3), the right one included, so a stolen cookie cannot guess the password", async () => {
    const limited = await startTestGateway({ sameDatabaseAs: t, clock, dashboard: { secondFactorLimit: { limit: 3, windowMs: 15 * MINUTE } } });
    try {
      const owner = await signedInAs(limited, merchant.id, "owner");
      const wrong = await Promise.all(
        Array.from({ length: 6 }, () => owner.post(`${API}/session/reauthenticate`, { password: "guess guess guess" })),
      );
      expect(wrong.map((answer) => answer.status).sort()).toEqual([401, 401, 401, 429, 429, 429]);
      expectDashboardError(
        await owner.post(`${API}/session/reauthenticate`, { password: TEST_PASSWORD }),
        429,
        "second_factor_throttled",
        /^Too many wrong codes or passwords for this account \(3 per 15 minutes\); retry after \d+ s$/,
      );
    } finally {
      await limited.close();
    }
  });
});

describe("sudo mode for refunds (issue 41)", () => {
  /** A test-mode LTC transaction the test helper paid; with no refund address, a refund of it hands out a claim link. */
  async function paid(keys: NewMerchant, refundAddress?: string): Promise<string> {
    const init = await t.post("/v1/transaction", initializeBody({ amount: "100" }), { authorization: `Bearer ${keys.testPublicKey}` });
    const id: string = init.body.data.id;
    const secret = { authorization: `Bearer ${keys.testSecretKey}` };
    const pay = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "7", ...(refundAddress ? { refund_address: refundAddress } : {}) }, secret);
    expect(pay.status).toBe(200);
    expect((await t.post(`/v1/test_helpers/transaction/${id}/payment`, {}, secret)).status).toBe(200);
    return id;
  }
  const LTC_TEST_ADDRESS = "tltc1q33andx3shykl4uhyerlfhkl7u64mwvz9sa0pdn";
  const REFUND = { amount_kind: "custom", amount: "0.001", amount_currency: "LTC" };

  it("refuses a stale session's refund (403) with no refund made, and makes it with its claim link after re-authenticating", async () => {
    const keys = await t.merchant({ name: "Refund Sudo" });
    const id = await paid(keys);
    const owner = await signedInAs(t, keys.id, "owner");
    clock.advance(30 * MINUTE);

    const refused = await owner.post(`${API}/transactions/${id}/refunds?mode=test`, REFUND);
    expectDashboardError(refused, 403, "reauthentication_required", REAUTHENTICATION_MESSAGE);
    expect(refused.body.message).toBe(REAUTHENTICATION_MESSAGE);
    expect(await t.db.refund.count({ where: { transactionId: id } })).toBe(0);
    expect(await t.db.auditLogEntry.count({ where: { merchantId: keys.id, action: { startsWith: "refund." } } })).toBe(0);

    expect((await owner.post(`${API}/session/reauthenticate`, { password: TEST_PASSWORD })).status).toBe(200);
    const made = await owner.post(`${API}/transactions/${id}/refunds?mode=test`, REFUND);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.data).toMatchObject({ state: "pending", destination_source: "claim" });
    expect(made.body.data.refund_url).toMatch(/\/refund\/[0-9A-Za-z]{32}$/);
    expect(await t.db.refund.count({ where: { transactionId: id } })).toBe(1);
  });

  it("lets a stale session cancel a refund and mark one paid: neither moves money nor hands out a link", async () => {
    const keys = await t.merchant({ name: "Refund Sudo Later" });
    const owner = await signedInAs(t, keys.id, "owner");
    const first = await owner.post(`${API}/transactions/${await paid(keys)}/refunds?mode=test`, REFUND);
    const second = await owner.post(`${API}/transactions/${await paid(keys, LTC_TEST_ADDRESS)}/refunds?mode=test`, REFUND);
    expect([first.status, second.status]).toEqual([201, 201]);
    clock.advance(30 * MINUTE);

    const canceled = await owner.post(`${API}/refunds/${first.body.data.id}/cancel?mode=test`, {});
    expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
    expect(canceled.body.data.state).toBe("canceled");
    const marked = await owner.post(`${API}/refunds/${second.body.data.id}/mark_paid?mode=test`, { tx_hash: "ab".repeat(32) });
    expect(marked.status, JSON.stringify(marked.body)).toBe(200);
    expect(marked.body.data.tx_hash).toBe("ab".repeat(32));
  });
});
