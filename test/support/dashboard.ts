// The dashboard API as a signed-in browser uses it: a user made through the gateway (as
// `paygate user create --password-stdin` does), signed in over HTTP, and every request after that
// with the session cookie, a same-origin Origin and the X-CSRF-Token header.
import { randomBytes } from "node:crypto";
import { generate } from "otplib";
import type { BrowserContext, Page } from "playwright-core";
import { expect } from "vitest";
import type { DashboardActor } from "../../src/core/access/roles.ts";
import type { DashboardRole } from "../../src/core/records/dashboard.ts";
import type { Clock } from "../../src/core/ports.ts";
import { DESKTOP, WAIT } from "./browser.ts";
import { type BrowserFixture, browserFixture } from "./browser-fixture.ts";
import type { TestGateway } from "./gateway.ts";

export interface DashboardAnswer {
  status: number;
  body: any;
  headers: Headers;
}

export interface DashboardClient {
  email: string;
  userId: string;
  /** `paygate_session=<token>`, as the Cookie header carries it. */
  cookie: string;
  csrfToken: string;
  /** A request with the cookie, the CSRF header (unless `headers` overrides it) and a same-origin Origin. */
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<DashboardAnswer>;
  get(path: string): Promise<DashboardAnswer>;
  post(path: string, body?: unknown): Promise<DashboardAnswer>;
  patch(path: string, body?: unknown): Promise<DashboardAnswer>;
  delete(path: string): Promise<DashboardAnswer>;
}

/**
 * An actor for the gateway's dashboard methods called directly: a user of that merchant and role
 * that has just proved its password, whenever it is used (its `authenticatedAt` is the clock's now),
 * so sudo mode never refuses it; tests of sudo mode make their actors through real sessions.
 */
export function freshActor(merchantId: number, role: DashboardRole, clock: Clock, userId = `usr_${role}`): DashboardActor {
  return {
    userId,
    merchantId,
    role,
    merchantActive: true,
    email: `${role}@example.com`,
    get authenticatedAt() {
      return clock.now();
    },
    clientAddress: "127.0.0.1",
    mustEnrolSecondFactor: false,
  };
}

/** A raw request to the gateway (no cookie unless given). */
export async function dashboardFetch(
  t: TestGateway,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<DashboardAnswer> {
  // A header given as "" is left out (a test's way to drop the client's Origin or CSRF token).
  const sent = Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== ""));
  const response = await fetch(t.url + path, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...sent },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // an HTML page: kept as text
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

/** Expects an error answer of that status and reason, its message equal to (a string) or matching (a RegExp) `message`. */
export function expectDashboardError(answer: DashboardAnswer, status: number, reason: string, message: RegExp | string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body).toMatchObject({ status: "error", reason });
  expect(answer.body.message).toMatch(message);
}

export const TEST_PASSWORD = "correct horse battery staple";

/** A user of the merchant with a password (unique e-mail unless given). */
export async function dashboardUser(
  t: TestGateway,
  merchantId: number,
  role: DashboardRole,
  email = `${role}-${randomBytes(4).toString("hex")}@example.com`,
): Promise<{ email: string; password: string; userId: string }> {
  const created = await t.gateway.operator.createDashboardUser({ merchantId, email, role, password: TEST_PASSWORD });
  return { email, password: TEST_PASSWORD, userId: created.user.id };
}

/** Signs in over HTTP; throws unless it answered 201. */
export async function signIn(t: TestGateway, email: string, password = TEST_PASSWORD): Promise<DashboardClient> {
  const answer = await dashboardFetch(t, "POST", "/dashboard/api/session", { email, password }, { origin: t.url });
  if (answer.status !== 201) throw new Error(`sign-in answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  const setCookie = answer.headers.get("set-cookie") ?? "";
  return clientOf(t, email, answer.body.data.user.id, setCookie.split(";")[0] ?? "", answer.body.data.csrf_token);
}

/** The code an authenticator app shows for the secret at that moment (RFC 6238, as the service checks it). */
export function totpCode(secret: string, at: Date): Promise<string> {
  return generate({ secret, epoch: Math.floor(at.getTime() / 1000) });
}

/** Sets up an authenticator app for the signed-in client (POST /second-factor, then confirm with its code at `at`). */
export async function enrolSecondFactor(client: DashboardClient, at: Date): Promise<{ secret: string; recoveryCodes: string[] }> {
  const begun = await client.post("/dashboard/api/second-factor");
  if (begun.status !== 201) throw new Error(`enrolment answered ${begun.status}: ${JSON.stringify(begun.body)}`);
  const secret: string = begun.body.data.secret;
  const confirmed = await client.post("/dashboard/api/second-factor/confirm", { code: await totpCode(secret, at) });
  if (confirmed.status !== 200) throw new Error(`confirmation answered ${confirmed.status}: ${JSON.stringify(confirmed.body)}`);
  return { secret, recoveryCodes: confirmed.body.data.recovery_codes };
}

/** Both steps of a sign-in with a second factor: the password (202, a challenge), then `proof` ({ code } or { recovery_code }); throws unless 201. */
export async function signInWithSecondFactor(
  t: TestGateway,
  email: string,
  proof: { code: string } | { recovery_code: string },
): Promise<DashboardClient> {
  const first = await dashboardFetch(t, "POST", "/dashboard/api/session", { email, password: TEST_PASSWORD }, { origin: t.url });
  if (first.status !== 202) throw new Error(`sign-in answered ${first.status}: ${JSON.stringify(first.body)}`);
  const answer = await dashboardFetch(
    t,
    "POST",
    "/dashboard/api/session/second-factor",
    { challenge_token: first.body.data.challenge_token, ...proof },
    { origin: t.url },
  );
  if (answer.status !== 201) throw new Error(`second factor answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  const setCookie = answer.headers.get("set-cookie") ?? "";
  return clientOf(t, email, answer.body.data.user.id, setCookie.split(";")[0] ?? "", answer.body.data.csrf_token);
}

/** A new user of the merchant with that role, signed in. */
export async function signedInAs(t: TestGateway, merchantId: number, role: DashboardRole): Promise<DashboardClient> {
  const user = await dashboardUser(t, merchantId, role);
  return signIn(t, user.email, user.password);
}

export function clientOf(t: TestGateway, email: string, userId: string, cookie: string, csrfToken: string): DashboardClient {
  const request = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    dashboardFetch(t, method, path, body, { cookie, origin: t.url, "x-csrf-token": csrfToken, ...headers });
  return {
    email,
    userId,
    cookie,
    csrfToken,
    request,
    get: (path) => request("GET", path),
    post: (path, body) => request("POST", path, body ?? {}),
    patch: (path, body) => request("PATCH", path, body ?? {}),
    delete: (path) => request("DELETE", path),
  };
}

/** Gives a browser the client's session cookie, as signing in would: a browser test of a page skips the sign-in form. */
export async function signInBrowser(context: BrowserContext, t: TestGateway, client: DashboardClient): Promise<void> {
  const eq = client.cookie.indexOf("=");
  await context.addCookies([
    {
      name: client.cookie.slice(0, eq),
      value: client.cookie.slice(eq + 1),
      domain: new URL(t.url).hostname,
      path: "/dashboard",
      httpOnly: true,
      sameSite: "Lax",
    },
  ]);
}

/** Fills and sends the dashboard's sign-in form at `baseUrl` with the test password; what follows (a second step) is the test's. */
export async function signInWithPassword(page: Page, baseUrl: string, email: string): Promise<void> {
  await page.goto(`${baseUrl}/dashboard/sign-in`);
  await page.getByRole("heading", { level: 1, name: "Sign in to your dashboard" }).waitFor({ timeout: 20_000 });
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(TEST_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
}

type Viewport = { width: number; height: number };

/** A dashboard page a browser test opened: its context, the page and its script errors. */
export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  problems: string[];
}

export interface DashboardBrowserFixture extends BrowserFixture {
  /**
   * A new browser context signed in as `client` (signInBrowser: no sign-in form) and a page in it, its
   * script errors in `problems` and its confirmations accepted; at `path` when given.
   */
  browse(client: DashboardClient, options?: { path?: string; viewport?: Viewport; acceptDownloads?: boolean }): Promise<OpenedPage>;
  /** `browse` as a new user of that role of the file's merchant (or of `merchantId`), at `path`. */
  openAs(role: DashboardRole, path: string, viewport?: Viewport, merchantId?: number): Promise<OpenedPage>;
}

/** browserFixture (a Chromium, the service and a merchant for the file) with signed-in dashboard pages. */
export function dashboardBrowserFixture(options: Parameters<typeof browserFixture>[0] = {}): DashboardBrowserFixture {
  const base = browserFixture(options);
  const browse: DashboardBrowserFixture["browse"] = async (client, { path, viewport = DESKTOP, acceptDownloads = false } = {}) => {
    const context = await base.browser.newContext({ viewport, acceptDownloads });
    await signInBrowser(context, base.t, client);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("dialog", (dialog) => void dialog.accept());
    if (path !== undefined) await page.goto(base.t.url + path);
    return { context, page, problems };
  };
  const openAs: DashboardBrowserFixture["openAs"] = async (role, path, viewport = DESKTOP, merchantId = base.merchant.id) =>
    browse(await signedInAs(base.t, merchantId, role), { path, viewport });
  // Object.assign keeps base's getters (it only adds the two functions to it).
  return Object.assign(base, { browse, openAs });
}

/** Waits for the page's level-1 heading. */
export const h1 = (page: Page, name: string | RegExp): Promise<void> => page.getByRole("heading", { level: 1, name }).waitFor(WAIT);
