// What every dashboard route reads from its request: the signed-in actor (set by the session
// middleware of router.ts), the mode it asks for (`?mode=test|live`), its JSON body; and how it
// answers. Route modules use these and never read cookies or headers themselves.
import type { Request, Response } from "express";
import type { DashboardActor } from "../../core/access/roles.ts";
import type { PaymentGateway } from "../../core/gateway.ts";
import type { MerchantAccess } from "../../core/facades/access.ts";
import type { DashboardSession, SignedIn } from "../../core/dashboard/sessions.ts";
import { errors } from "../../core/errors.ts";

/** The cookie that holds the session token (HttpOnly: no script of any page reads it). */
export const SESSION_COOKIE = "paygate_session";
/** The header every change carries, with the csrf_token of GET /dashboard/api/session. */
export const CSRF_HEADER = "X-CSRF-Token";

export type DashboardMode = "test" | "live";

/** The signed-in request's session; throws 401 where no session middleware ran (a route mounted outside the router). */
export function sessionOf(res: Response): DashboardSession {
  const session = res.locals.dashboardSession as DashboardSession | undefined;
  if (!session) throw errors.sessionRequired();
  return session;
}

/** Who is asking: pass it to the gateway's dashboard operations, which authorize it. */
export function actorOf(res: Response): DashboardActor {
  return sessionOf(res).actor;
}

/** The mode a request asks for: `?mode=test` (the default) or `?mode=live`; anything else is 400 naming `mode`. */
export function modeOf(req: Request): DashboardMode {
  const mode = req.query.mode;
  if (mode === undefined) return "test";
  if (mode === "test" || mode === "live") return mode;
  throw errors.invalidListParameters([{ field: "mode", message: "must be test or live" }]);
}

/** `modeOf(req) === "live"`, as the gateway's `isLive` parameters want it. */
export const isLiveOf = (req: Request): boolean => modeOf(req) === "live";

/** The JSON body as an object; 400 for an array, a string or another non-object. */
export function bodyOf(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  if (typeof body === "object" && body !== null && !Array.isArray(body)) return body as Record<string, unknown>;
  throw errors.badRequest("The body must be a JSON object", "invalid_body");
}

/** A success: `{ status: "success", data }`, as the REST API answers. */
export function sendData(res: Response, data: unknown, status = 200): void {
  res.status(status).json({ status: "success", data });
}

/** The session token from the request's cookie, if any. */
export function sessionTokenOf(req: Request): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return value === "" ? undefined : value;
  }
  return undefined;
}

/** HttpOnly, SameSite=Lax, Path=/dashboard, until the session's absolute end; Secure when PAYGATE_PUBLIC_URL is https. */
export function setSessionCookie(res: Response, publicUrl: string, signedIn: SignedIn): void {
  res.cookie(SESSION_COOKIE, signedIn.token, { ...cookieScope(publicUrl), expires: signedIn.expiresAt });
}

export function clearSessionCookie(res: Response, publicUrl: string): void {
  res.clearCookie(SESSION_COOKIE, cookieScope(publicUrl));
}

const cookieScope = (publicUrl: string) => ({ httpOnly: true, sameSite: "lax", path: "/dashboard", secure: publicUrl.startsWith("https:") }) as const;

/** The signed-in user's access to its merchant (core/facades/access.ts); `isLive`: the mode the page shows, where the use case has one. */
export const accessOf = (gateway: Pick<PaymentGateway, "access">, res: Response, isLive = false): MerchantAccess =>
  gateway.access.dashboard(actorOf(res), isLive);
