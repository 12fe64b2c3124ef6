// The dashboard API as a signed-in browser uses it: a user made through the gateway (as
// `paygate user create --password-stdin` does), signed in over HTTP, and every request after that
// with the session cookie, a same-origin Origin and the X-CSRF-Token header.
import { randomBytes } from "node:crypto";
import type { BrowserContext } from "playwright-core";
import type { DashboardRole } from "../../src/core/dashboard/access.ts";
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

export const TEST_PASSWORD = "correct horse battery staple";

/** A user of the merchant with a password (unique e-mail unless given). */
export async function dashboardUser(
  t: TestGateway,
  merchantId: number,
  role: DashboardRole,
  email = `${role}-${randomBytes(4).toString("hex")}@example.com`,
): Promise<{ email: string; password: string; userId: string }> {
  const created = await t.gateway.createDashboardUser({ merchantId, email, role, password: TEST_PASSWORD });
  return { email, password: TEST_PASSWORD, userId: created.user.id };
}

/** Signs in over HTTP; throws unless it answered 201. */
export async function signIn(t: TestGateway, email: string, password = TEST_PASSWORD): Promise<DashboardClient> {
  const answer = await dashboardFetch(t, "POST", "/dashboard/api/session", { email, password }, { origin: t.url });
  if (answer.status !== 201) throw new Error(`sign-in answered ${answer.status}: ${JSON.stringify(answer.body)}`);
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
