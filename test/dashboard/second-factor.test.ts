// Two-factor sign-in over real HTTP on the test database (PGlite, or PostgreSQL with DATABASE_URL):
// enrolment (secret, otpauth:// URI and its QR code, confirmation, recovery codes shown once and
// stored hashed), signing in with a code and with a recovery code, wrong, replayed and reused codes
// refused, wrong codes throttled per user, turning the factor off, and PAYGATE_DASHBOARD_REQUIRE_2FA.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  dashboardFetch,
  expectDashboardError,
  dashboardUser,
  enrolSecondFactor,
  signIn,
  signInWithSecondFactor,
  signedInAs,
  TEST_PASSWORD,
  totpCode,
  type DashboardAnswer,
} from "../support/dashboard.ts";
import { manualClock } from "../support/clock.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { decodeQr } from "../support/qr.ts";

const STEP = 30_000;
const clock = manualClock();
let t: TestGateway;
let merchantId: number;
beforeAll(async () => {
  t = await startTestGateway({ clock });
  merchantId = (await t.merchant({ name: "Two Factor Shop" })).id;
});
afterAll(async () => {
  await t?.close();
});

const passwordStep = (gateway: TestGateway, email: string, password = TEST_PASSWORD) =>
  dashboardFetch(gateway, "POST", "/dashboard/api/session", { email, password }, { origin: gateway.url });
const secondStep = (gateway: TestGateway, body: unknown) =>
  dashboardFetch(gateway, "POST", "/dashboard/api/session/second-factor", body, { origin: gateway.url });
const sessionsOf = (userId: string) => t.db.dashboardSession.count({ where: { userId } });
const auditOf = async (userId: string) =>
  (await t.db.auditLogEntry.findMany({ where: { actorUserId: userId }, orderBy: { id: "asc" } })).map((e) => `${e.action} ${e.target}`);

/** A developer with an authenticator app set up, signed out; the clock one step on (its confirmation code is used). */
async function enrolledUser(gateway = t) {
  const user = await dashboardUser(gateway, merchantId, "developer");
  const client = await signIn(gateway, user.email);
  const enrolled = await enrolSecondFactor(client, clock.now());
  await client.delete("/dashboard/api/session");
  clock.advance(STEP);
  return { ...user, ...enrolled };
}

describe("enrolling an authenticator app", () => {
  it("answers a secret, its otpauth:// URI and QR code, stores the secret sealed, and turns on only with the app's code", async () => {
    const client = await signedInAs(t, merchantId, "owner");
    const begun = await client.post("/dashboard/api/second-factor");
    expect(begun.status).toBe(201);
    const { secret, otpauth_uri: uri, qr_code: qr } = begun.body.data;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(uri).toBe(`otpauth://totp/paygate:${encodeURIComponent(client.email)}?secret=${secret}&issuer=paygate`);
    expect(decodeQr(qr).text).toBe(uri);
    const stored = await t.db.dashboardUser.findUniqueOrThrow({ where: { id: client.userId } });
    expect(stored.totpSecretEnc).not.toContain(secret);
    expect(t.secrets.open(stored.totpSecretEnc ?? "")).toBe(secret);
    expect(stored.totpEnabledAt).toBeNull();
    expect((await client.get("/dashboard/api/session")).body.data.second_factor).toEqual({
      enabled: false,
      enrolment_required: false,
      authenticator_app: false,
      security_keys: 0,
    });

    // A wrong code (another moment's) turns nothing on; the enrolment stays open.
    const wrong = await client.post("/dashboard/api/second-factor/confirm", {
      code: await totpCode(secret, new Date(clock.now().getTime() - 10 * STEP)),
    });
    expectDashboardError(wrong, 400, "second_factor_code_invalid", /code is not the one your authenticator app shows/);
    expectDashboardError(
      await client.post("/dashboard/api/second-factor/confirm", { code: "12345" }),
      400,
      "second_factor_code_invalid",
      /code is not/,
    );
    expect((await t.db.dashboardUser.findUniqueOrThrow({ where: { id: client.userId } })).totpEnabledAt).toBeNull();

    const confirmed = await client.post("/dashboard/api/second-factor/confirm", { code: await totpCode(secret, clock.now()) });
    expect(confirmed.status).toBe(200);
    const codes: string[] = confirmed.body.data.recovery_codes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    expect((await client.get("/dashboard/api/session")).body.data.second_factor).toEqual({
      enabled: true,
      enrolment_required: false,
      authenticator_app: true,
      security_keys: 0,
    });
    // Stored hashed: no row holds a code, with or without its dash.
    const rows = await t.db.dashboardRecoveryCode.findMany({ where: { userId: client.userId } });
    expect(rows).toHaveLength(10);
    const stored2 = JSON.stringify(rows);
    for (const code of codes) {
      expect(stored2).not.toContain(code);
      expect(stored2).not.toContain(code.replace("-", ""));
    }
    expect(await auditOf(client.userId)).toContain("second_factor.enable authenticator app, 10 recovery codes");

    // On already: neither a new enrolment nor a second confirmation.
    expectDashboardError(await client.post("/dashboard/api/second-factor"), 422, "second_factor_enabled", /Your second factor is on already/);
    expectDashboardError(
      await client.post("/dashboard/api/second-factor/confirm", { code: await totpCode(secret, clock.now()) }),
      422,
      "second_factor_enabled",
      /on already/,
    );
  });

  it("refuses a confirmation without an enrolment under way (422)", async () => {
    const client = await signedInAs(t, merchantId, "viewer");
    expectDashboardError(
      await client.post("/dashboard/api/second-factor/confirm", { code: "123456" }),
      422,
      "second_factor_enrolment_missing",
      /No authenticator app is being set up/,
    );
  });
});

describe("signing in with a second factor", () => {
  it("answers 202 with a challenge and no cookie, then makes the session with the app's code", async () => {
    const user = await enrolledUser();
    const first = await passwordStep(t, user.email);
    expect(first.status).toBe(202);
    expect(first.headers.get("set-cookie")).toBeNull();
    expect(first.body.data).toMatchObject({ second_factor_required: true, methods: ["totp", "recovery_code"] });
    expect(first.body.data.challenge_token).toMatch(/^[0-9A-Za-z]{43}$/);
    expect(new Date(first.body.data.expires_at).getTime()).toBe(clock.now().getTime() + 5 * 60_000);
    expect(await sessionsOf(user.userId)).toBe(0);
    // The challenge is stored as its hash.
    expect(JSON.stringify(await t.db.dashboardSignInChallenge.findMany({ where: { userId: user.userId } }))).not.toContain(
      first.body.data.challenge_token,
    );

    const second = await secondStep(t, { challenge_token: first.body.data.challenge_token, code: await totpCode(user.secret, clock.now()) });
    expect(second.status).toBe(201);
    expect(second.headers.get("set-cookie")).toMatch(/^paygate_session=[0-9A-Za-z]{43};.*HttpOnly/);
    expect(second.body.data).toMatchObject({ user: { id: user.userId }, second_factor: { enabled: true } });
    expect(await sessionsOf(user.userId)).toBe(1);
    expect((await auditOf(user.userId)).at(-1)).toBe("sign_in password and authenticator code");
    // The challenge is used up.
    expectDashboardError(
      await secondStep(t, { challenge_token: first.body.data.challenge_token, code: await totpCode(user.secret, clock.now()) }),
      401,
      "sign_in_challenge_invalid",
      "This sign-in has expired or was completed already: sign in again with your e-mail and password",
    );
  });

  it("refuses a wrong code (401, the challenge kept for a retry) and a code already used in its window", async () => {
    const user = await enrolledUser();
    const first = await passwordStep(t, user.email);
    const token = first.body.data.challenge_token;
    const wrong = await secondStep(t, { challenge_token: token, code: await totpCode(user.secret, new Date(clock.now().getTime() + 10 * STEP)) });
    expect(wrong.body).toEqual({
      status: "error",
      code: "unauthenticated",
      reason: "second_factor_failed",
      message: "The authentication code is incorrect: enter the 6-digit code your authenticator app shows now, or one of your recovery codes",
      errors: [],
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    expectDashboardError(await secondStep(t, { challenge_token: token, code: "not-a-code" }), 401, "second_factor_failed", /incorrect/);
    expect(await sessionsOf(user.userId)).toBe(0);
    expect((await auditOf(user.userId)).filter((e) => e.startsWith("sign_in.second_factor_failed"))).toEqual([
      "sign_in.second_factor_failed a wrong code",
      "sign_in.second_factor_failed a wrong code",
    ]);

    const code = await totpCode(user.secret, clock.now());
    expect((await secondStep(t, { challenge_token: token, code })).status).toBe(201);
    // The same code again, within its 30 seconds: refused, no second session.
    const again = await passwordStep(t, user.email);
    const replayed = await secondStep(t, { challenge_token: again.body.data.challenge_token, code });
    expectDashboardError(
      replayed,
      401,
      "second_factor_code_reused",
      "This authentication code was used already: wait for your authenticator app to show the next code, and enter that one",
    );
    // An earlier step's code is refused too, though within the tolerance.
    expectDashboardError(
      await secondStep(t, {
        challenge_token: again.body.data.challenge_token,
        code: await totpCode(user.secret, new Date(clock.now().getTime() - STEP)),
      }),
      401,
      "second_factor_code_reused",
      /used already/,
    );
    expect(await sessionsOf(user.userId)).toBe(1);
    clock.advance(STEP);
    expect((await secondStep(t, { challenge_token: again.body.data.challenge_token, code: await totpCode(user.secret, clock.now()) })).status).toBe(
      201,
    );
  });

  it("lets two requests with one code make one session only", async () => {
    const user = await enrolledUser();
    const [a, b] = await Promise.all([passwordStep(t, user.email), passwordStep(t, user.email)]);
    const code = await totpCode(user.secret, clock.now());
    const answers = await Promise.all([a, b].map((first) => secondStep(t, { challenge_token: first.body.data.challenge_token, code })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 401]);
    expect(await sessionsOf(user.userId)).toBe(1);
  });

  it("signs in with a recovery code once; the same code is refused the second time", async () => {
    const user = await enrolledUser();
    const recovery = user.recoveryCodes[3] ?? "";
    const client = await signInWithSecondFactor(t, user.email, { recovery_code: recovery.toUpperCase() });
    expect((await client.get("/dashboard/api/session")).status).toBe(200);
    expect((await auditOf(user.userId)).at(-1)).toBe("sign_in password and recovery code (9 left)");
    const used = await t.db.dashboardRecoveryCode.count({ where: { userId: user.userId, usedAt: { not: null } } });
    expect(used).toBe(1);

    const first = await passwordStep(t, user.email);
    const again = await secondStep(t, { challenge_token: first.body.data.challenge_token, recovery_code: recovery });
    expectDashboardError(again, 401, "second_factor_failed", /incorrect/);
    expectDashboardError(
      await secondStep(t, { challenge_token: first.body.data.challenge_token, recovery_code: "aaaaa-aaaaa" }),
      401,
      "second_factor_failed",
      /incorrect/,
    );
    expect(await sessionsOf(user.userId)).toBe(1);
    // Another unused code still works.
    expect((await secondStep(t, { challenge_token: first.body.data.challenge_token, recovery_code: user.recoveryCodes[4] })).status).toBe(201);
  });

  it("refuses an expired or unknown challenge and a request without a code", async () => {
    const user = await enrolledUser();
    const first = await passwordStep(t, user.email);
    const token = first.body.data.challenge_token;
    expectDashboardError(await secondStep(t, { challenge_token: token }), 400, "invalid_dashboard_user", /code is required/);
    expectDashboardError(
      await secondStep(t, { challenge_token: "nope", code: "123456" }),
      401,
      "sign_in_challenge_invalid",
      /expired or was completed/,
    );
    expectDashboardError(await secondStep(t, { code: "123456" }), 401, "sign_in_challenge_invalid", /expired or was completed/);
    clock.advance(5 * 60_000);
    expectDashboardError(
      await secondStep(t, { challenge_token: token, code: await totpCode(user.secret, clock.now()) }),
      401,
      "sign_in_challenge_invalid",
      /expired/,
    );
    expect(await sessionsOf(user.userId)).toBe(0);
    // A wrong password never reaches the second step.
    expectDashboardError(await passwordStep(t, user.email, "not the password"), 401, "sign_in_failed", "E-mail or password is incorrect");
  });
});

describe("throttling wrong codes", () => {
  it("refuses a user's codes after 3 wrong ones (429, Retry-After), even the right one, until the window ends; a burst is counted as it arrives", async () => {
    const limited = await startTestGateway({
      sameDatabaseAs: t,
      clock,
      dashboard: { secondFactorLimit: { limit: 3, windowMs: 15 * 60_000 } },
    });
    try {
      clock.nextMinute();
      const user = await enrolledUser(limited);
      const token = (await passwordStep(limited, user.email)).body.data.challenge_token;
      const wrongCode = await totpCode(user.secret, new Date(clock.now().getTime() + 20 * STEP));
      // Ten at once: three are checked (401), the other seven refused before any check.
      const burst = await Promise.all(Array.from({ length: 10 }, () => secondStep(limited, { challenge_token: token, code: wrongCode })));
      expect(burst.filter((answer) => answer.status === 401)).toHaveLength(3);
      const refused = burst.filter((answer) => answer.status === 429);
      expect(refused).toHaveLength(7);
      expectDashboardError(
        refused[0] as DashboardAnswer,
        429,
        "second_factor_throttled",
        /^Too many wrong codes or passwords for this account \(3 per 15 minutes\); retry after \d+ s$/,
      );
      expect(Number(refused[0]?.headers.get("retry-after"))).toBeGreaterThan(0);

      const right = await secondStep(limited, { challenge_token: token, code: await totpCode(user.secret, clock.now()) });
      expectDashboardError(right, 429, "second_factor_throttled", /Too many wrong codes/);
      expect(await sessionsOf(user.userId)).toBe(0);
      // Another user is not throttled.
      const other = await enrolledUser(limited);
      await signInWithSecondFactor(limited, other.email, { code: await totpCode(other.secret, clock.now()) });

      clock.advance(15 * 60_000);
      const later = (await passwordStep(limited, user.email)).body.data.challenge_token;
      expect((await secondStep(limited, { challenge_token: later, code: await totpCode(user.secret, clock.now()) })).status).toBe(201);
    } finally {
      await limited.close();
    }
  });
});

describe("turning the second factor off", () => {
  it("needs the password and a code; then the password alone signs in", async () => {
    const user = await enrolledUser();
    const client = await signInWithSecondFactor(t, user.email, { code: await totpCode(user.secret, clock.now()) });
    clock.advance(STEP);
    const code = await totpCode(user.secret, clock.now());
    expectDashboardError(await client.post("/dashboard/api/second-factor/disable", { code }), 400, "invalid_dashboard_user", /password is required/);
    expectDashboardError(
      await client.post("/dashboard/api/second-factor/disable", { password: "wrong password", code }),
      401,
      "reauthentication_failed",
      "The password is incorrect",
    );
    expectDashboardError(
      await client.post("/dashboard/api/second-factor/disable", { password: TEST_PASSWORD }),
      400,
      "invalid_dashboard_user",
      /code is required/,
    );
    expectDashboardError(
      await client.post("/dashboard/api/second-factor/disable", { password: TEST_PASSWORD, code: "000000" === code ? "111111" : "000000" }),
      401,
      "second_factor_failed",
      /incorrect/,
    );
    expect((await t.db.dashboardUser.findUniqueOrThrow({ where: { id: user.userId } })).totpEnabledAt).not.toBeNull();

    const off = await client.post("/dashboard/api/second-factor/disable", { password: TEST_PASSWORD, code });
    expect(off.status).toBe(200);
    expect(off.body.data).toEqual({ second_factor: { enabled: false } });
    const row = await t.db.dashboardUser.findUniqueOrThrow({ where: { id: user.userId } });
    expect([row.totpSecretEnc, row.totpEnabledAt, row.totpLastStep]).toEqual([null, null, null]);
    expect(await t.db.dashboardRecoveryCode.count({ where: { userId: user.userId } })).toBe(0);
    expect((await auditOf(user.userId)).at(-1)).toBe("second_factor.disable authenticator app and recovery codes");
    expectDashboardError(
      await client.post("/dashboard/api/second-factor/disable", { password: TEST_PASSWORD, code }),
      422,
      "second_factor_not_enabled",
      /no second factor/,
    );
    expect((await passwordStep(t, user.email)).status).toBe(201);
  });
});

describe("PAYGATE_DASHBOARD_REQUIRE_2FA", () => {
  it("lets owners and developers without a second factor sign in and enrol, and refuses them everything else (403)", async () => {
    const strict = await startTestGateway({ sameDatabaseAs: t, clock, dashboard: { requireSecondFactor: true } });
    try {
      const developer = await signedInAs(strict, merchantId, "developer");
      const session = await developer.get("/dashboard/api/session");
      expect(session.body.data).toMatchObject({ second_factor: { enabled: false, enrolment_required: true }, permissions: [] });
      const message =
        "This service requires a second factor for owners and developers: set up an authenticator app or a security key on the Security page (/dashboard/security) first; until then nothing else is allowed";
      expect((await developer.get("/dashboard/api/transactions")).body).toMatchObject({ reason: "second_factor_enrolment_required", message });
      expect((await developer.get("/dashboard/api/transactions")).status).toBe(403);
      const before = (await strict.gateway.merchants.settings(strict.gateway.access.operator(merchantId))).webhookUrls.test;
      expectDashboardError(
        await developer.request("PUT", "/dashboard/api/webhook-url?mode=test", { url: "https://attacker.example/hook" }),
        403,
        "second_factor_enrolment_required",
        message,
      );
      expect((await strict.gateway.merchants.settings(strict.gateway.access.operator(merchantId))).webhookUrls.test).toBe(before);

      // Enrolling is allowed; then everything the role may do.
      await enrolSecondFactor(developer, clock.now());
      expect((await developer.get("/dashboard/api/session")).body.data.second_factor).toEqual({
        enabled: true,
        enrolment_required: false,
        authenticator_app: true,
        security_keys: 0,
      });
      expect((await developer.get("/dashboard/api/transactions")).status).toBe(200);
      // A viewer needs none.
      const viewer = await signedInAs(strict, merchantId, "viewer");
      expect((await viewer.get("/dashboard/api/transactions")).status).toBe(200);
    } finally {
      await strict.close();
    }
  });
});
