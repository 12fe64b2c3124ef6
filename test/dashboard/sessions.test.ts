// Dashboard sign-in, sessions and their protections over real HTTP, on the test database (PGlite,
// or PostgreSQL with DATABASE_URL): the cookie and its attributes, wrong passwords, throttling,
// expiry on a test clock, signing out here and everywhere, CSRF and cross-origin refusals, and the
// wall between the dashboard's session and the API's keys.
import type { Request } from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PaygateError } from "../../src/core/errors.ts";
import { modeOf } from "../../src/http/dashboard/session.ts";
import { dashboardFetch, dashboardUser, signIn, signedInAs, TEST_PASSWORD } from "../support/dashboard.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { manualClock } from "../support/clock.ts";

/** A clock a test moves by hand. */
const clock = manualClock();
let t: TestGateway;
let merchant: Awaited<ReturnType<TestGateway["merchant"]>>;
beforeAll(async () => {
  t = await startTestGateway({ clock });
  merchant = await t.merchant({ name: "Acme Stores", kyb: "VERIFIED" });
});
afterAll(async () => {
  await t?.close();
});

const signInRequest = (body: unknown, headers: Record<string, string> = {}) =>
  dashboardFetch(t, "POST", "/dashboard/api/session", body, { origin: t.url, ...headers });

function expectError(answer: { status: number; body: any }, status: number, reason: string, message?: RegExp | string) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body).toMatchObject({ status: "error", reason });
  if (message) expect(answer.body.message).toMatch(message);
}

describe("signing in", () => {
  it("sets an HttpOnly, SameSite=Lax cookie on /dashboard (not Secure on http) and answers the session", async () => {
    const user = await dashboardUser(t, merchant.id, "developer");
    const answer = await signInRequest({ email: user.email.toUpperCase(), password: TEST_PASSWORD });
    expect(answer.status).toBe(201);
    const cookie = answer.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^paygate_session=[0-9A-Za-z]{43};/);
    expect(cookie).toMatch(/; Path=\/dashboard(;|$)/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Expires=/);
    expect(cookie).not.toMatch(/Secure/);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(answer.body.data).toMatchObject({
      user: { id: user.userId, email: user.email, role: "developer" },
      merchant: { id: merchant.id, name: "Acme Stores", kyb_status: "VERIFIED", active: true },
      role: "developer",
      permissions: ["read", "manage_keys", "manage_webhooks", "manage_wallets", "manage_refunds", "manage_invoices", "manage_settlement"],
    });
    expect(answer.body.data.csrf_token).toMatch(/^[\w-]{43}$/);
    // The token is stored hashed: the database never holds the cookie's value.
    const token = cookie.slice("paygate_session=".length, cookie.indexOf(";"));
    const rows = await t.db.dashboardSession.findMany({ where: { userId: user.userId } });
    expect(rows.map((r) => r.tokenHash)).not.toContain(token);
    expect(rows).toHaveLength(1);
  });

  it("marks the cookie Secure when PAYGATE_PUBLIC_URL is https", async () => {
    const secure = await startTestGateway({ publicUrl: "https://pay.example.com", sameDatabaseAs: t });
    try {
      const user = await dashboardUser(secure, merchant.id, "viewer");
      const answer = await dashboardFetch(secure, "POST", "/dashboard/api/session", { email: user.email, password: TEST_PASSWORD });
      expect(answer.status).toBe(201);
      expect(answer.headers.get("set-cookie")).toMatch(/; Secure/);
    } finally {
      await secure.close();
    }
  });

  it("answers 401 'E-mail or password is incorrect' alike for a wrong password, an unknown e-mail and a user without a password", async () => {
    const user = await dashboardUser(t, merchant.id, "viewer");
    const invited = await t.gateway.operator.createDashboardUser({ merchantId: merchant.id, email: "invited-only@example.com", role: "viewer" });
    expect(invited.signInUrl).not.toBeNull();
    for (const body of [
      { email: user.email, password: "not the password" },
      { email: "nobody@example.com", password: TEST_PASSWORD },
      { email: "invited-only@example.com", password: TEST_PASSWORD },
    ]) {
      const answer = await signInRequest(body);
      expect(answer.body).toEqual({
        status: "error",
        code: "unauthenticated",
        reason: "sign_in_failed",
        message: "E-mail or password is incorrect",
        errors: [],
      });
      expect(answer.status).toBe(401);
      expect(answer.headers.get("set-cookie")).toBeNull();
    }
  });

  it("refuses a sign-in without its fields (400 naming them) or with a body that is not JSON", async () => {
    expectError(await signInRequest({}), 400, "invalid_dashboard_user", "email is required; password is required");
    expect((await signInRequest({ email: "a@example.com" })).body.errors).toEqual([{ field: "password", message: "is required" }]);
    const broken = await fetch(`${t.url}/dashboard/api/session`, { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ reason: "invalid_json", message: "The body is not valid JSON" });
    expectError(await signInRequest(["a"]), 400, "invalid_body", "The body must be a JSON object");
  });

  it("refuses a sign-in from another origin (403) and creates no session", async () => {
    const user = await dashboardUser(t, merchant.id, "viewer");
    const answer = await signInRequest({ email: user.email, password: TEST_PASSWORD }, { origin: "https://evil.example" });
    expectError(answer, 403, "csrf_rejected", "Changes to the dashboard come from its own pages only; this request came from https://evil.example");
    expect(await t.db.dashboardSession.count({ where: { userId: user.userId } })).toBe(0);
    const sameSite = await signInRequest({ email: user.email, password: TEST_PASSWORD }, { origin: "", "sec-fetch-site": "cross-site" });
    expect(sameSite.status).toBe(403);
  });
});

describe("sign-in throttling", () => {
  it("refuses an e-mail after its failed sign-ins (429, Retry-After), even with the right password, and other e-mails still sign in", async () => {
    // The file's test clock: the fixed window cannot end halfway through.
    const limited = await startTestGateway({
      sameDatabaseAs: t,
      clock,
      dashboard: { signInLimits: { perEmail: { limit: 3, windowMs: 600_000 }, perAddress: null } },
    });
    try {
      const user = await dashboardUser(limited, merchant.id, "viewer");
      for (let i = 0; i < 3; i++) {
        const wrong = await dashboardFetch(limited, "POST", "/dashboard/api/session", { email: user.email, password: "wrong password" });
        expect(wrong.status).toBe(401);
      }
      const throttled = await dashboardFetch(limited, "POST", "/dashboard/api/session", { email: user.email, password: TEST_PASSWORD });
      expectError(throttled, 429, "sign_in_throttled", /^Too many failed sign-ins for this e-mail \(3 per 10 minutes\); retry after \d+ s$/);
      expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(throttled.headers.get("set-cookie")).toBeNull();
      const other = await dashboardUser(limited, merchant.id, "viewer");
      expect((await dashboardFetch(limited, "POST", "/dashboard/api/session", { email: other.email, password: TEST_PASSWORD })).status).toBe(201);
    } finally {
      await limited.close();
    }
  });

  it("refuses an address after its attempts, whatever the e-mail", async () => {
    // A database of its own: the address's counter is shared by every gateway on one database. The
    // file's test clock: the fixed window cannot end halfway through.
    const limited = await startTestGateway({ clock, dashboard: { signInLimits: { perEmail: null, perAddress: { limit: 2, windowMs: 60_000 } } } });
    try {
      for (const email of ["a@example.com", "b@example.com"]) {
        expect((await dashboardFetch(limited, "POST", "/dashboard/api/session", { email, password: "whatever it is" })).status).toBe(401);
      }
      const throttled = await dashboardFetch(limited, "POST", "/dashboard/api/session", { email: "c@example.com", password: "whatever it is" });
      expectError(throttled, 429, "sign_in_throttled", /^Too many sign-in attempts from this address \(2 per minute\); retry after \d+ s$/);
      expect(throttled.headers.get("retry-after")).toMatch(/^\d+$/);
    } finally {
      await limited.close();
    }
  });
});

describe("a session", () => {
  it("ends after 12 hours idle (test clock), and is kept alive by use", async () => {
    const client = await signedInAs(t, merchant.id, "viewer");
    clock.advance(11 * 3_600_000);
    expect((await client.get("/dashboard/api/session")).status).toBe(200);
    clock.advance(11 * 3_600_000); // 22 hours after sign-in, 11 after the last use
    expect((await client.get("/dashboard/api/session")).status).toBe(200);
    clock.advance(12 * 3_600_000);
    expectError(await client.get("/dashboard/api/session"), 401, "session_required", /^Sign in to the dashboard/);
    expect(await t.db.dashboardSession.count({ where: { userId: client.userId } })).toBe(0);
  });

  it("ends 7 days after sign-in however active", async () => {
    const client = await signedInAs(t, merchant.id, "viewer");
    for (let step = 0; step < 20; step++) {
      clock.advance(8 * 3_600_000); // used every 8 hours: never idle for 12
      expect((await client.get("/dashboard/api/session")).status).toBe(200);
    }
    clock.advance(8 * 3_600_000); // 168 hours: the absolute end
    expectError(await client.get("/dashboard/api/session"), 401, "session_required");
  });

  it("is refused without a cookie, or with a made-up one", async () => {
    expectError(await dashboardFetch(t, "GET", "/dashboard/api/session"), 401, "session_required");
    expectError(await dashboardFetch(t, "GET", "/dashboard/api/users", undefined, { cookie: "paygate_session=forged" }), 401, "session_required");
  });

  it("signs out this browser only (DELETE /session) and clears the cookie", async () => {
    const user = await dashboardUser(t, merchant.id, "viewer");
    const first = await signIn(t, user.email);
    const second = await signIn(t, user.email);
    const out = await first.delete("/dashboard/api/session");
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toMatch(/^paygate_session=; Path=\/dashboard; Expires=Thu, 01 Jan 1970/);
    expectError(await first.get("/dashboard/api/session"), 401, "session_required");
    expect((await second.get("/dashboard/api/session")).status).toBe(200);
  });

  it("signs out everywhere (DELETE /sessions): every session of the user, no one else's", async () => {
    const user = await dashboardUser(t, merchant.id, "developer");
    const clients = [await signIn(t, user.email), await signIn(t, user.email), await signIn(t, user.email)];
    const bystander = await signedInAs(t, merchant.id, "developer");
    const out = await clients[1]?.delete("/dashboard/api/sessions");
    expect(out?.status).toBe(200);
    expect(out?.body.data).toEqual({ signed_out: 3 });
    for (const client of clients) expectError(await client.get("/dashboard/api/session"), 401, "session_required");
    expect((await bystander.get("/dashboard/api/session")).status).toBe(200);
  });
});

describe("CSRF and origins", () => {
  it("refuses a change without the X-CSRF-Token header (403) and does nothing", async () => {
    const client = await signedInAs(t, merchant.id, "owner");
    const answer = await client.request("POST", "/dashboard/api/users", { email: "csrf1@example.com", role: "viewer" }, { "x-csrf-token": "" });
    expectError(answer, 403, "csrf_rejected", "This change needs the X-CSRF-Token header: send the csrf_token of GET /dashboard/api/session");
    expect(await t.db.dashboardUser.count({ where: { email: "csrf1@example.com" } })).toBe(0);
    expectError(await client.request("DELETE", "/dashboard/api/session", undefined, { "x-csrf-token": "" }), 403, "csrf_rejected");
    expect((await client.get("/dashboard/api/session")).status).toBe(200);
  });

  it("refuses a wrong token, another session's token included", async () => {
    const client = await signedInAs(t, merchant.id, "owner");
    const other = await signedInAs(t, merchant.id, "owner");
    for (const token of ["wrong", other.csrfToken]) {
      const answer = await client.request("POST", "/dashboard/api/users", { email: "csrf2@example.com", role: "viewer" }, { "x-csrf-token": token });
      expectError(answer, 403, "csrf_rejected", /does not match this session/);
    }
    expect(await t.db.dashboardUser.count({ where: { email: "csrf2@example.com" } })).toBe(0);
  });

  it("refuses a change from another origin even with the token", async () => {
    const client = await signedInAs(t, merchant.id, "owner");
    const answer = await client.request(
      "POST",
      "/dashboard/api/users",
      { email: "csrf3@example.com", role: "viewer" },
      { origin: "https://evil.example" },
    );
    expectError(answer, 403, "csrf_rejected", /came from https:\/\/evil\.example/);
    const site = await client.request(
      "POST",
      "/dashboard/api/users",
      { email: "csrf3@example.com", role: "viewer" },
      { origin: "", "sec-fetch-site": "cross-site" },
    );
    expectError(site, 403, "csrf_rejected", /came from another site/);
    expect(await t.db.dashboardUser.count({ where: { email: "csrf3@example.com" } })).toBe(0);
  });

  it("lets a read through without the token", async () => {
    const client = await signedInAs(t, merchant.id, "viewer");
    expect((await client.request("GET", "/dashboard/api/users", undefined, { "x-csrf-token": "" })).status).toBe(200);
  });
});

describe("sessions and API keys never mix", () => {
  it("refuses an API key on the dashboard API (401 saying to sign in), even with a valid session", async () => {
    const client = await signedInAs(t, merchant.id, "owner");
    for (const key of [merchant.testSecretKey, merchant.testPublicKey]) {
      const alone = await dashboardFetch(t, "GET", "/dashboard/api/users", undefined, { authorization: `Bearer ${key}` });
      expectError(
        alone,
        401,
        "api_key_not_accepted",
        "The dashboard API takes no API key: sign in at /dashboard and send the session cookie; API keys work on /v1 and /graphql",
      );
      const both = await client.request("GET", "/dashboard/api/users", undefined, { authorization: `Bearer ${key}` });
      expectError(both, 401, "api_key_not_accepted");
    }
  });

  it("ignores the session cookie on /v1 and /graphql: 401 as without a key", async () => {
    const client = await signedInAs(t, merchant.id, "owner");
    const withCookie = await dashboardFetch(t, "GET", "/v1/transactions", undefined, { cookie: client.cookie });
    const without = await dashboardFetch(t, "GET", "/v1/transactions");
    expect(withCookie.status).toBe(401);
    expect(withCookie.body).toEqual(without.body);
    const query = { query: "{ transactions(first: 1) { edges { node { id } } } }" };
    const graph = await dashboardFetch(t, "POST", "/graphql", query, { cookie: client.cookie });
    const graphWithout = await dashboardFetch(t, "POST", "/graphql", query);
    expect(graph.body.errors[0].extensions).toMatchObject({ code: "UNAUTHENTICATED" });
    expect({ status: graph.status, body: graph.body }).toEqual({ status: graphWithout.status, body: graphWithout.body });
  });
});

describe("the mode of a request", () => {
  const req = (mode: unknown) => ({ query: mode === undefined ? {} : { mode } }) as unknown as Request;
  it("is test by default, or what ?mode= says", () => {
    expect(modeOf(req(undefined))).toBe("test");
    expect(modeOf(req("test"))).toBe("test");
    expect(modeOf(req("live"))).toBe("live");
  });
  it("refuses anything else with 400 naming mode", () => {
    for (const bad of ["LIVE", "prod", ["test", "live"]]) {
      let thrown: unknown;
      try {
        modeOf(req(bad));
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(PaygateError);
      expect(thrown).toMatchObject({
        code: "validation_error",
        message: "Invalid query parameter: mode must be test or live",
        errors: [{ field: "mode" }],
      });
    }
  });
});

describe("the pages", () => {
  it("serves the page for any non-API path, with the checkout's headers, and JSON 404 under /dashboard/api", async () => {
    for (const path of ["/dashboard", "/dashboard/", "/dashboard/users", "/dashboard/sign-in?mode=live", "/dashboard/welcome"]) {
      const page = await fetch(t.url + path);
      expect([200, 503]).toContain(page.status); // 503 only where the pages are not built
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      expect(page.headers.get("content-security-policy")).toMatch(/script-src 'self'/);
      expect(page.headers.get("x-frame-options")).toBe("DENY");
      expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    }
    const client = await signedInAs(t, merchant.id, "viewer");
    expectError(await client.get("/dashboard/api/nothing-here"), 404, "route_not_found");
  });
});
