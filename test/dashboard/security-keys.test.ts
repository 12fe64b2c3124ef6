// WebAuthn security keys over real HTTP on the test database (PGlite, or PostgreSQL with
// DATABASE_URL), driven by a software authenticator (test/support/webauthn.ts): registering a key
// (sudo mode, audited), signing in with it, a wrong signature, a replayed challenge and a counter
// that goes backwards refused with nothing changed, re-authenticating with it, removing it (sudo
// mode, audited), and PAYGATE_DASHBOARD_REQUIRE_2FA counting it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "../support/clock.ts";
import {
  dashboardFetch,
  dashboardUser,
  enrolSecondFactor,
  expectDashboardError,
  signIn,
  signedInAs,
  TEST_PASSWORD,
  totpCode,
  type DashboardClient,
} from "../support/dashboard.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { SoftwareAuthenticator } from "../support/webauthn.ts";

const API = "/dashboard/api";
const MINUTE = 60_000;
const clock = manualClock();
let t: TestGateway;
let merchantId: number;
beforeAll(async () => {
  t = await startTestGateway({ clock });
  merchantId = (await t.merchant({ name: "Security Key Shop" })).id;
});
afterAll(async () => {
  await t?.close();
});

const passwordStep = (email: string, gateway = t) =>
  dashboardFetch(gateway, "POST", `${API}/session`, { email, password: TEST_PASSWORD }, { origin: gateway.url });
const publicPost = (path: string, body: unknown, gateway = t) => dashboardFetch(gateway, "POST", API + path, body, { origin: gateway.url });
const keysOf = (userId: string) => t.db.dashboardSecurityKey.findMany({ where: { userId } });
const sessionsOf = (userId: string) => t.db.dashboardSession.count({ where: { userId } });
const auditOf = async (userId: string) =>
  (await t.db.auditLogEntry.findMany({ where: { actorUserId: userId }, orderBy: { id: "asc" } })).map((e) => `${e.action} ${e.target}`);

/** Registers the authenticator's key for the signed-in client; throws unless both steps pass. */
async function register(client: DashboardClient, authenticator: SoftwareAuthenticator, name = "YubiKey 5") {
  const options = await client.post(`${API}/security-keys/options`);
  if (options.status !== 200) throw new Error(`options answered ${options.status}: ${JSON.stringify(options.body)}`);
  const registered = await client.post(`${API}/security-keys`, { name, response: authenticator.register(options.body.data.options) });
  if (registered.status !== 201) throw new Error(`registration answered ${registered.status}: ${JSON.stringify(registered.body)}`);
  return registered.body.data.security_key;
}

/** A developer with one security key, signed out. */
async function userWithKey(gateway = t) {
  const user = await dashboardUser(gateway, merchantId, "developer");
  const client = await signIn(gateway, user.email);
  const authenticator = new SoftwareAuthenticator(gateway.url);
  const key = await register(client, authenticator);
  await client.delete(`${API}/session`);
  return { ...user, authenticator, key };
}

/** The password step, then the key's options for its challenge. */
async function challenged(email: string, gateway = t) {
  const first = await passwordStep(email, gateway);
  expect(first.status).toBe(202);
  const options = await publicPost("/session/second-factor/security-key", { challenge_token: first.body.data.challenge_token }, gateway);
  expect(options.status).toBe(200);
  return { token: first.body.data.challenge_token as string, methods: first.body.data.methods, options: options.body.data.options };
}

describe("registering a security key", () => {
  it("answers creation options for the dashboard's origin, stores the key's public part and audits it", async () => {
    const client = await signedInAs(t, merchantId, "owner");
    const authenticator = new SoftwareAuthenticator(t.url);
    const begun = await client.post(`${API}/security-keys/options`);
    expect(begun.status).toBe(200);
    const options = begun.body.data.options;
    expect(options).toMatchObject({
      rp: { id: "127.0.0.1", name: "paygate" },
      user: { name: client.email },
      attestation: "none",
      excludeCredentials: [],
      authenticatorSelection: { residentKey: "discouraged", userVerification: "preferred" },
    });
    // The challenge is stored as its hash only.
    const stored = await t.db.dashboardWebAuthnChallenge.findMany({ where: { userId: client.userId } });
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(options.challenge);

    const answer = authenticator.register(options);
    const registered = await client.post(`${API}/security-keys`, { name: "  YubiKey 5  ", response: answer });
    expect(registered.status).toBe(201);
    expect(registered.body.data.security_key).toMatchObject({ name: "YubiKey 5", transports: ["usb"], last_used_at: null });
    const [key, ...others] = await keysOf(client.userId);
    expect(others).toHaveLength(0);
    expect(key).toMatchObject({ credentialId: authenticator.id, counter: 0n, transports: ["usb"], name: "YubiKey 5" });
    expect(await t.db.dashboardWebAuthnChallenge.count({ where: { userId: client.userId } })).toBe(0);
    expect((await auditOf(client.userId)).at(-1)).toBe('security_key.add "YubiKey 5"');
    expect((await client.get(`${API}/session`)).body.data.second_factor).toEqual({
      enabled: true,
      enrolment_required: false,
      authenticator_app: false,
      security_keys: 1,
    });
    const listed = await client.get(`${API}/security-keys`);
    expect(listed.body.data.security_keys.map((k: { name: string }) => k.name)).toEqual(["YubiKey 5"]);
    expect(JSON.stringify(listed.body)).not.toContain(Buffer.from(key!.publicKey).toString("base64url"));

    // The same answer again: its challenge is used up; nothing more stored.
    expectDashboardError(
      await client.post(`${API}/security-keys`, { name: "Again", response: answer }),
      422,
      "security_key_registration_expired",
      "This security key registration has expired or was completed already: start again (Security page, Add a security key)",
    );
    // The next options exclude the registered key.
    const next = await client.post(`${API}/security-keys/options`);
    expect(next.body.data.options.excludeCredentials).toEqual([{ id: authenticator.id, type: "public-key", transports: ["usb"] }]);
    expect(await keysOf(client.userId)).toHaveLength(1);
  });

  it("refuses a missing name, an answer that is not one, and one made for another origin (nothing stored)", async () => {
    const client = await signedInAs(t, merchantId, "viewer");
    const authenticator = new SoftwareAuthenticator(t.url);
    const options = (await client.post(`${API}/security-keys/options`)).body.data.options;
    expectDashboardError(
      await client.post(`${API}/security-keys`, { name: " ", response: authenticator.register(options) }),
      400,
      "invalid_dashboard_user",
      "name is required: a name for this key (1 to 64 characters), to tell your keys apart",
    );
    expectDashboardError(
      await client.post(`${API}/security-keys`, { name: "Key", response: { id: "x" } }),
      400,
      "invalid_dashboard_user",
      /response is not a WebAuthn answer/,
    );
    const phished = new SoftwareAuthenticator("https://paygate.attacker.example").register(options);
    expectDashboardError(
      await client.post(`${API}/security-keys`, { name: "Key", response: phished }),
      400,
      "security_key_registration_invalid",
      /^The security key could not be registered: .*origin/,
    );
    expect(await keysOf(client.userId)).toHaveLength(0);
    expect((await auditOf(client.userId)).filter((e) => e.startsWith("security_key"))).toEqual([]);
  });

  it("needs a recent sign-in to start (sudo mode)", async () => {
    const client = await signedInAs(t, merchantId, "developer");
    clock.advance(11 * MINUTE);
    expectDashboardError(await client.post(`${API}/security-keys/options`), 403, "reauthentication_required", /password again/);
    expect(await t.db.dashboardWebAuthnChallenge.count({ where: { userId: client.userId } })).toBe(0);
  });
});

describe("signing in with a security key", () => {
  it("offers the key on the challenge and makes the session with its assertion", async () => {
    const user = await userWithKey();
    const { token, methods, options } = await challenged(user.email);
    expect(methods).toEqual(["security_key"]);
    expect(options).toMatchObject({
      rpId: "127.0.0.1",
      userVerification: "preferred",
      allowCredentials: [{ id: user.authenticator.id, type: "public-key" }],
    });
    const signedIn = await publicPost("/session/second-factor", { challenge_token: token, security_key: user.authenticator.assert(options) });
    expect(signedIn.status).toBe(201);
    expect(signedIn.headers.get("set-cookie")).toMatch(/^paygate_session=/);
    expect(await sessionsOf(user.userId)).toBe(1);
    const [key] = await keysOf(user.userId);
    expect(key?.counter).toBe(1n);
    expect(key?.lastUsedAt?.getTime()).toBe(clock.now().getTime());
    expect((await auditOf(user.userId)).at(-1)).toBe('sign_in password and security key "YubiKey 5"');
  });

  it("refuses a wrong signature (401, the sign-in challenge kept), then accepts the key", async () => {
    const user = await userWithKey();
    const { token, options } = await challenged(user.email);
    const forged = await publicPost("/session/second-factor", {
      challenge_token: token,
      security_key: user.authenticator.assert(options, { badSignature: true }),
    });
    expectDashboardError(
      forged,
      401,
      "security_key_failed",
      "The security key's answer was refused: its signature does not verify. Try again, or use another second factor",
    );
    expect(forged.headers.get("set-cookie")).toBeNull();
    expect(await sessionsOf(user.userId)).toBe(0);
    expect((await keysOf(user.userId))[0]?.counter).toBe(0n);
    expect((await auditOf(user.userId)).at(-1)).toBe("sign_in.second_factor_failed a security key answer that did not verify");

    const retry = (await publicPost("/session/second-factor/security-key", { challenge_token: token })).body.data.options;
    expect((await publicPost("/session/second-factor", { challenge_token: token, security_key: user.authenticator.assert(retry) })).status).toBe(201);
  });

  it("refuses a replayed assertion (its challenge is used once) and another account's key", async () => {
    const user = await userWithKey();
    const first = await challenged(user.email);
    const assertion = user.authenticator.assert(first.options);
    expect((await publicPost("/session/second-factor", { challenge_token: first.token, security_key: assertion })).status).toBe(201);
    const again = await challenged(user.email);
    const replayed = await publicPost("/session/second-factor", { challenge_token: again.token, security_key: assertion });
    expectDashboardError(
      replayed,
      401,
      "security_key_challenge_invalid",
      "This security key request has expired or was used already: ask for a new one and touch your key again",
    );
    // An expired challenge likewise.
    clock.advance(6 * MINUTE);
    const late = await challenged(user.email);
    clock.advance(6 * MINUTE);
    const stale = user.authenticator.assert(late.options);
    expectDashboardError(
      await publicPost("/session/second-factor", {
        challenge_token: (await passwordStep(user.email)).body.data.challenge_token,
        security_key: stale,
      }),
      401,
      "security_key_challenge_invalid",
      /expired or was used already/,
    );
    // Another user's key, answering this user's challenge.
    const other = await userWithKey();
    const mine = await challenged(user.email);
    expectDashboardError(
      await publicPost("/session/second-factor", { challenge_token: mine.token, security_key: other.authenticator.assert(mine.options) }),
      401,
      "security_key_failed",
      "The security key's answer was refused: it is not a key of this account. Try again, or use another second factor",
    );
    expect(await sessionsOf(user.userId)).toBe(1);
  });

  it("refuses a counter that does not go up (a cloned key) with a clear message; the counter stays", async () => {
    const user = await userWithKey();
    const first = await challenged(user.email);
    expect(
      (await publicPost("/session/second-factor", { challenge_token: first.token, security_key: user.authenticator.assert(first.options) })).status,
    ).toBe(201);
    const clone = await challenged(user.email);
    const cloned = await publicPost("/session/second-factor", {
      challenge_token: clone.token,
      security_key: user.authenticator.assert(clone.options, { counter: 1 }),
    });
    expectDashboardError(
      cloned,
      401,
      "security_key_counter_backwards",
      'The security key "YubiKey 5" answered with signature counter 1, not above its last one (1): it may have been cloned. It was refused; sign in with another factor and remove it',
    );
    expect(await sessionsOf(user.userId)).toBe(1);
    expect((await keysOf(user.userId))[0]?.counter).toBe(1n);
    expect((await auditOf(user.userId)).at(-1)).toBe("sign_in.second_factor_failed a security key whose counter went backwards (cloned?)");
  });

  it("offers both factors to a user with an app and a key, and refuses key options without a valid challenge", async () => {
    const user = await dashboardUser(t, merchantId, "owner");
    const client = await signIn(t, user.email);
    const app = await enrolSecondFactor(client, clock.now());
    await register(client, new SoftwareAuthenticator(t.url));
    const first = await passwordStep(user.email);
    expect(first.body.data.methods).toEqual(["totp", "recovery_code", "security_key"]);
    clock.advance(30_000);
    expect(
      (
        await publicPost("/session/second-factor", {
          challenge_token: first.body.data.challenge_token,
          code: await totpCode(app.secret, clock.now()),
        })
      ).status,
    ).toBe(201);
    expectDashboardError(
      await publicPost("/session/second-factor/security-key", { challenge_token: "nope" }),
      401,
      "sign_in_challenge_invalid",
      /expired or was completed already/,
    );
  });
});

describe("re-authenticating and removing a key", () => {
  it("removes a key only within sudo mode, which a key's assertion renews; audited", async () => {
    const user = await userWithKey();
    const first = await challenged(user.email);
    const signedIn = await publicPost("/session/second-factor", {
      challenge_token: first.token,
      security_key: user.authenticator.assert(first.options),
    });
    const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const csrf = signedIn.body.data.csrf_token;
    const request = (method: string, path: string, body?: unknown) =>
      dashboardFetch(t, method, API + path, body, { cookie, origin: t.url, "x-csrf-token": csrf });

    clock.advance(11 * MINUTE);
    expectDashboardError(await request("DELETE", `/security-keys/${user.key.id}`), 403, "reauthentication_required", /password again/);
    expect(await keysOf(user.userId)).toHaveLength(1);

    // A password alone is not enough when a key is registered; a wrong signature neither.
    expectDashboardError(
      await request("POST", "/session/reauthenticate", { password: TEST_PASSWORD }),
      400,
      "invalid_dashboard_user",
      /security_key/,
    );
    const forgedOptions = (await request("POST", "/session/reauthenticate/security-key")).body.data.options;
    expectDashboardError(
      await request("POST", "/session/reauthenticate", {
        password: TEST_PASSWORD,
        security_key: user.authenticator.assert(forgedOptions, { badSignature: true }),
      }),
      401,
      "security_key_failed",
      /signature does not verify/,
    );
    expectDashboardError(await request("DELETE", `/security-keys/${user.key.id}`), 403, "reauthentication_required", /password again/);

    const options = (await request("POST", "/session/reauthenticate/security-key")).body.data.options;
    const proved = await request("POST", "/session/reauthenticate", { password: TEST_PASSWORD, security_key: user.authenticator.assert(options) });
    expect(proved.status).toBe(200);
    const removed = await request("DELETE", `/security-keys/${user.key.id}`);
    expect(removed.status).toBe(200);
    expect(await keysOf(user.userId)).toHaveLength(0);
    expect((await auditOf(user.userId)).at(-1)).toBe('security_key.remove "YubiKey 5"');
    expectDashboardError(
      await request("DELETE", `/security-keys/${user.key.id}`),
      404,
      "security_key_not_found",
      "This account has no such security key",
    );
    // Without a key (or app) the password signs in alone again.
    expect((await passwordStep(user.email)).status).toBe(201);
  });

  it("does not remove another user's key", async () => {
    const owner = await userWithKey();
    const other = await signedInAs(t, merchantId, "owner");
    expectDashboardError(await other.delete(`${API}/security-keys/${owner.key.id}`), 404, "security_key_not_found", /no such security key/);
    expect(await keysOf(owner.userId)).toHaveLength(1);
    expect(await t.db.auditLogEntry.count({ where: { actorUserId: other.userId, action: "security_key.remove" } })).toBe(0);
  });
});

describe("the operator's reset (paygate user reset-second-factor)", () => {
  it("removes every security key of a user who lost them, audited as the operator's", async () => {
    const user = await userWithKey();
    const reset = await t.gateway.operator.resetDashboardSecondFactor(user.email);
    expect(reset.userId).toBe(user.userId);
    expect(await keysOf(user.userId)).toHaveLength(0);
    const [entry] = await t.db.auditLogEntry.findMany({ where: { merchantId, actorKind: "operator" }, orderBy: { id: "desc" }, take: 1 });
    expect(`${entry?.action} ${entry?.target}`).toBe(`security_key.remove ${user.email}: every security key (reset by the operator)`);
    expect((await passwordStep(user.email)).status).toBe(201);
    // Nothing left to reset.
    await expect(t.gateway.operator.resetDashboardSecondFactor(user.email)).rejects.toMatchObject({ reason: "second_factor_not_enabled" });
  });
});

describe("PAYGATE_DASHBOARD_REQUIRE_2FA", () => {
  it("counts a security key as a second factor", async () => {
    const strict = await startTestGateway({ sameDatabaseAs: t, clock, dashboard: { requireSecondFactor: true } });
    try {
      const developer = await signedInAs(strict, merchantId, "developer");
      expect((await developer.get(`${API}/transactions`)).status).toBe(403);
      await register(developer, new SoftwareAuthenticator(strict.url));
      const session = (await developer.get(`${API}/session`)).body.data;
      expect(session.second_factor).toMatchObject({ enabled: true, enrolment_required: false, security_keys: 1 });
      expect(session.permissions).toContain("manage_wallets");
      expect((await developer.get(`${API}/transactions`)).status).toBe(200);
    } finally {
      await strict.close();
    }
  });
});
