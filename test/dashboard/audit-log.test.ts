// The merchant's audit log on the test database: every security change made in the dashboard (with
// the user's id, e-mail and address) and at the command line (the operator), never a secret or key,
// written with its change (a refused change writes none), newest first in pages for owners only,
// and deleted with the merchant.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import type { NewMerchant } from "../../src/core/merchants/merchants.ts";
import { systemClock } from "../../src/core/gateway.ts";
import { cryptoBySlug } from "../../src/core/money/currencies.ts";
import { startRuntime } from "../../src/runtime.ts";
import { useCli } from "../support/cli.ts";
import {
  dashboardUser,
  enrolSecondFactor,
  expectDashboardError,
  freshActor,
  signIn,
  signedInAs,
  TEST_PASSWORD,
  totpCode,
  type DashboardClient,
} from "../support/dashboard.ts";
import { gatewayAndReceiverForFile, type TestGateway } from "../support/gateway.ts";

const BIP84_ZPUB = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs";
const API = "/dashboard/api";
const HOOK_URL = "https://shop.example.com/hooks/T0001/B0002/XsecretpathX?token=hook-token-123";

let t: TestGateway;
let merchant: NewMerchant;
gatewayAndReceiverForFile(async (started) => {
  t = started.t;
  merchant = await t.merchant({ name: "Audited Shop", kyb: "VERIFIED" });
});

type Entry = {
  id: string;
  created_at: string;
  actor: { kind: string; user_id: string | null; email: string | null; label: string };
  action: string;
  target: string;
  client_address: string | null;
};

const lines = (entries: Entry[]) => entries.map((e) => `${e.actor.label}: ${e.action} ${e.target}`);

describe("the audit log", () => {
  it("records every security change with who and from where, never a secret, and shows it to owners newest first", async () => {
    const owner = await signedInAs(t, merchant.id, "owner");
    const put = (path: string, body: unknown) => owner.request("PUT", `${API}${path}`, body);
    expect((await put("/wallets/BTC?mode=live", { extended_public_key: BIP84_ZPUB })).status).toBe(200);
    expect((await put("/webhook-url?mode=live", { url: HOOK_URL })).status).toBe(200);
    expect((await put("/webhook-url?mode=test", { url: null })).status).toBe(200);
    const rotated = await owner.post(`${API}/webhook-secret/rotate`);
    expect(rotated.status).toBe(201);
    const rolled = await owner.post(`${API}/api-keys/roll?mode=live`, { kind: "secret", old_expires: "now" });
    expect(rolled.status).toBe(201);
    const invited = await owner.post(`${API}/users`, { email: "new.hire@example.com", role: "developer" });
    expect(invited.status).toBe(201);
    expect((await owner.patch(`${API}/users/${invited.body.data.id}`, { role: "viewer" })).status).toBe(200);
    expect((await owner.delete(`${API}/users/${invited.body.data.id}`)).status).toBe(200);
    const { secret, recoveryCodes } = await enrolSecondFactor(owner, new Date());
    // A code of the next step (the confirmation's is used up), within the tolerance.
    const disabled = await owner.post(`${API}/second-factor/disable`, {
      password: TEST_PASSWORD,
      code: await totpCode(secret, new Date(Date.now() + 30_000)),
    });
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);

    const answer = await owner.get(`${API}/audit-log`);
    expect(answer.status).toBe(200);
    const entries: Entry[] = answer.body.data.entries;
    const prefix = rolled.body.data.prefix as string;
    expect(lines(entries).slice(0, 11)).toEqual(
      [
        "sign_in password",
        "wallet.set BTC live zpub6rFR7y…GutZYs",
        "webhook_url.set live https://shop.example.com",
        "webhook_url.set test removed",
        "webhook_secret.rotate signing secret (the previous one signs for 24 hours)",
        `api_key.roll secret live ${prefix} (old keys end now)`,
        "user.invite new.hire@example.com (developer)",
        "user.role_change new.hire@example.com: developer → viewer",
        "user.remove new.hire@example.com (viewer)",
        "second_factor.enable authenticator app, 10 recovery codes",
        "second_factor.disable authenticator app and recovery codes",
      ]
        .reverse()
        .map((line) => `${owner.email}: ${line}`),
    );
    for (const entry of entries.slice(0, 11)) {
      expect(entry.actor).toEqual({ kind: "user", user_id: owner.userId, email: owner.email, label: owner.email });
      expect(entry.client_address).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
      expect(Date.parse(entry.created_at)).not.toBeNaN();
    }
    // The operator's own change (the owner made with `paygate user create`) is there too, before them.
    expect(lines(entries)[11]).toBe(`operator (CLI): user.create ${owner.email} (owner)`);

    // No secret, key or token anywhere: not in the answer, not in the table.
    const stored = JSON.stringify(await t.db.auditLogEntry.findMany({ where: { merchantId: merchant.id } }));
    const secrets = [
      BIP84_ZPUB,
      "XsecretpathX",
      "hook-token-123",
      rotated.body.data.webhook_secret,
      rolled.body.data.key,
      secret,
      TEST_PASSWORD,
      ...recoveryCodes,
    ];
    for (const text of [JSON.stringify(answer.body), stored]) {
      for (const value of secrets) expect(text).not.toContain(value);
    }
  });

  it("records the operator's command-line changes as 'operator (CLI)'", async () => {
    await t.gateway.operator.updateMerchant(merchant.id, {
      wallets: [{ currency: cryptoBySlug("LTC")!, isLive: true, extendedPublicKey: BIP84_ZPUB }],
    });
    const owner = await signedInAs(t, merchant.id, "owner");
    const entries: Entry[] = (await owner.get(`${API}/audit-log?limit=3`)).body.data.entries;
    expect(lines(entries).slice(0, 2)).toEqual([`${owner.email}: sign_in password`, `operator (CLI): user.create ${owner.email} (owner)`]);
    expect(entries[2]).toMatchObject({
      actor: { kind: "operator", user_id: null, email: null, label: "operator (CLI)" },
      action: "wallet.set",
      target: "LTC live zpub6rFR7y…GutZYs",
      client_address: null,
    });
  });

  it("writes nothing when the change is refused", async () => {
    const other = await t.merchant({ name: "Key Holder" });
    const theirs = await t.db.wallet.findFirstOrThrow({ where: { merchantId: other.id, currencyId: cryptoBySlug("BTC")!.id, isLive: false } });
    const owner = await signedInAs(t, merchant.id, "owner");
    const before = await t.db.auditLogEntry.count({ where: { merchantId: merchant.id } });
    // The key is another merchant's: refused inside the store's transaction, after the entry was built.
    const refused = await owner.request("PUT", `${API}/wallets/BTC?mode=test`, { extended_public_key: theirs.extendedPublicKey });
    expectDashboardError(refused, 400, "invalid_merchant_settings", /this key already belongs to another merchant/);
    expect(await t.db.auditLogEntry.count({ where: { merchantId: merchant.id } })).toBe(before);
  });

  it("pages newest first with limit and starting_after, and refuses a bad query (400)", async () => {
    const owner = await signedInAs(t, merchant.id, "owner");
    const all: Entry[] = (await owner.get(`${API}/audit-log?limit=100`)).body.data.entries;
    expect(all.length).toBeGreaterThan(5);
    const ids = all.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const first = await owner.get(`${API}/audit-log?limit=2&mode=live`);
    expect(first.body.data.has_more).toBe(true);
    expect(first.body.data.entries.map((e: Entry) => e.id)).toEqual(all.slice(0, 2).map((e) => e.id));
    const next = await owner.get(`${API}/audit-log?limit=3&starting_after=${all[1]?.id}`);
    expect(next.body.data.entries.map((e: Entry) => e.id)).toEqual(all.slice(2, 5).map((e) => e.id));
    const last = await owner.get(`${API}/audit-log?limit=100&starting_after=${all[all.length - 2]?.id}`);
    expect(last.body.data).toEqual({ entries: [all[all.length - 1]], has_more: false });

    expectDashboardError(
      await owner.get(`${API}/audit-log?limit=0`),
      400,
      "invalid_list_parameter",
      "Invalid query parameter: limit must be an integer from 1 to 100",
    );
    expectDashboardError(
      await owner.get(`${API}/audit-log?starting_after=abc`),
      400,
      "invalid_list_parameter",
      /starting_after must be the id of an entry/,
    );
    expectDashboardError(
      await owner.get(`${API}/audit-log?action=wallet.set`),
      400,
      "invalid_list_parameter",
      /action is not a parameter of this list/,
    );
  });

  it("is for owners only (403 for a developer and a viewer) and for their own merchant's entries", async () => {
    for (const role of ["developer", "viewer"] as const) {
      const client = await signedInAs(t, merchant.id, role);
      expectDashboardError(
        await client.get(`${API}/audit-log`),
        403,
        "role_forbidden",
        `Your role (${role}) cannot read audit log; ask an owner of this merchant for the owner role`,
      );
    }
    const stranger = await t.merchant({ name: "Elsewhere" });
    const strangerOwner: DashboardClient = await signedInAs(t, stranger.id, "owner");
    const theirs: Entry[] = (await strangerOwner.get(`${API}/audit-log?limit=100`)).body.data.entries;
    expect(theirs.map((e) => e.action)).toEqual(["sign_in", "user.create"]);
  });

  it("is deleted with the merchant", async () => {
    const gone = await t.merchant({ name: "Closing Down" });
    const user = await dashboardUser(t, gone.id, "owner");
    await signIn(t, user.email);
    expect(await t.db.auditLogEntry.count({ where: { merchantId: gone.id } })).toBeGreaterThan(0);
    await t.db.merchant.delete({ where: { id: gone.id } });
    expect(await t.db.auditLogEntry.count({ where: { merchantId: gone.id } })).toBe(0);
  });
});

describe("the operator's commands", () => {
  const paygate = useCli({ inProcess: true, migrated: true });

  it("writes `merchant update --wallet`, `webhooks rotate-secret` and `keys roll` as the operator's", async () => {
    const created = await paygate("merchant", "create", "--name", "CLI Shop", "--json");
    const id = String(JSON.parse(created.stdout).id);
    expect((await paygate("merchant", "update", id, "--wallet", `BTC=${BIP84_ZPUB}`, "--json")).code).toBe(0);
    expect((await paygate("webhooks", "rotate-secret", "--merchant", id, "--json")).code).toBe(0);
    const rolled = await paygate("keys", "roll", "--merchant", id, "--mode", "test", "--kind", "secret", "--old-expires", "1h", "--json");
    expect(rolled.code).toBe(0);
    const runtime = await startRuntime(loadConfig(paygate.env()));
    try {
      const rows = await runtime.database.db.auditLogEntry.findMany({ where: { merchantId: Number(id) }, orderBy: { id: "asc" } });
      expect(rows.map((r) => [r.actorKind, r.actorUserId, r.actorEmail, r.clientAddress, r.action])).toEqual([
        ["operator", null, null, null, "wallet.set"],
        ["operator", null, null, null, "webhook_secret.rotate"],
        ["operator", null, null, null, "api_key.roll"],
      ]);
      expect(rows[0]?.target).toBe("BTC live zpub6rFR7y…GutZYs");
      expect(JSON.stringify(rows)).not.toContain(JSON.parse(rolled.stdout).key);
    } finally {
      await runtime.close();
    }
  });

  it("gives the service PAYGATE_DASHBOARD_REQUIRE_2FA and PAYGATE_DASHBOARD_REAUTHENTICATION_MINUTES", async () => {
    const created = await paygate("merchant", "create", "--name", "Strict Shop", "--json");
    const merchantId = Number(JSON.parse(created.stdout).id);
    const env = { ...paygate.env(), PAYGATE_DASHBOARD_REQUIRE_2FA: "true", PAYGATE_DASHBOARD_REAUTHENTICATION_MINUTES: "3" };
    const runtime = await startRuntime(loadConfig(env));
    try {
      await runtime.gateway.operator.createDashboardUser({ merchantId, email: "strict@example.com", role: "developer", password: TEST_PASSWORD });
      const signedIn = await runtime.gateway.accounts.signIn({ email: "strict@example.com", password: TEST_PASSWORD, clientAddress: "127.0.0.1" });
      if (signedIn.kind !== "signed_in") throw new Error("expected a session");
      const session = await runtime.gateway.accounts.session(signedIn.token);
      expect(session.actor.mustEnrolSecondFactor).toBe(true);
      expect(session.reauthenticateAfter.getTime() - session.actor.authenticatedAt.getTime()).toBe(3 * 60_000);
    } finally {
      await runtime.close();
    }
  });

  it("turns off a user's second factor with `user reset-second-factor`, audited as the operator's", async () => {
    const created = await paygate("merchant", "create", "--name", "Locked Out Shop", "--json");
    const merchantId = Number(JSON.parse(created.stdout).id);
    const runtime = await startRuntime(loadConfig(paygate.env()));
    let userId: string;
    try {
      const user = await runtime.gateway.operator.createDashboardUser({
        merchantId,
        email: "lost.phone@example.com",
        role: "owner",
        password: TEST_PASSWORD,
      });
      userId = user.user.id;
      const actor = freshActor(merchantId, "owner", systemClock, userId);
      const { secret } = await runtime.gateway.accounts.beginSecondFactor(actor);
      await runtime.gateway.accounts.confirmSecondFactor(actor, await totpCode(secret, new Date()));
    } finally {
      await runtime.close();
    }
    const reset = await paygate("user", "reset-second-factor", "--email", "Lost.Phone@example.com");
    expect(reset).toMatchObject({ code: 0, stderr: "" });
    expect(reset.stdout).toBe(
      `Turned off the second factor of lost.phone@example.com (${userId}), user of merchant ${merchantId}.\n` +
        "The user signs in with its password alone now, and can set up a new authenticator app on the Security page.\n",
    );
    const again = await paygate("user", "reset-second-factor", "--email", "lost.phone@example.com");
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("This account has no second factor to turn off");
    const unknown = await paygate("user", "reset-second-factor", "--email", "nobody@example.com");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No dashboard user has the e-mail 'nobody@example.com'");
    const missing = await paygate("user", "reset-second-factor");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--email EMAIL is required.");

    const check = await startRuntime(loadConfig(paygate.env()));
    try {
      const row = await check.database.db.dashboardUser.findUniqueOrThrow({ where: { id: userId } });
      expect([row.totpEnabledAt, row.totpSecretEnc]).toEqual([null, null]);
      expect(await check.database.db.dashboardRecoveryCode.count({ where: { userId } })).toBe(0);
      const last = await check.database.db.auditLogEntry.findFirstOrThrow({ where: { merchantId }, orderBy: { id: "desc" } });
      expect([last.actorKind, last.action, last.target]).toEqual([
        "operator",
        "second_factor.disable",
        "lost.phone@example.com: authenticator app and recovery codes (reset by the operator)",
      ]);
    } finally {
      await check.close();
    }
  });
});
