// Browsers: which pages on other origins may call paygate, and which credentials a browser may carry.
//
// A checkout page holds the merchant's public key (or a payment link): those credentials are made to
// sit in a page, so the routes they open answer CORS for any origin (or for PAYGATE_CORS_ORIGINS).
// A secret key must never sit in a page. A preflight cannot see the key (it carries no
// Authorization header), so preflights are answered for every allowed origin; the actual request
// shows the key, and a secret key with an `Origin` header (a browser) is refused with 403 before
// anything else happens, without Access-Control-Allow-Origin. docs/rest-api.md, Browsers and CORS.
import cors from "cors";
import { Router, type RequestHandler } from "express";
import { errors, MESSAGES } from "../core/errors.ts";
import { CLIENT_SECRET } from "../core/secrets.ts";
import { bearerToken } from "./headers.ts";

export interface CorsSettings {
  /** `*`: any origin. A list: these exact origins (`https://shop.example.com`), answered with `Vary: Origin`. */
  origins: "*" | string[];
}

/** Request headers a page may send: the key, JSON, idempotency, and Apollo's CSRF-prevention headers. */
export const CORS_ALLOWED_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key", "Apollo-Require-Preflight", "X-Apollo-Operation-Name"];

/** Response headers a page may read, besides the CORS-safelisted ones. The RateLimit ones are sent by the rate limiter. */
export const CORS_EXPOSED_HEADERS = [
  "X-Request-Id",
  "Idempotent-Replayed",
  "Retry-After",
  "RateLimit",
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
  "RateLimit-Policy",
];

/** How long a browser may reuse a preflight's answer (Chromium caps it at 7200 s, Firefox at 86400 s). */
export const CORS_MAX_AGE_SECONDS = 600;

/**
 * The routes a browser may call, with their methods: initialize (public key or payment link) and
 * retrieve (public key) on REST, and the graph, whose credential is decided per request below.
 * Initiate and the test helpers take a secret key only: no CORS, so a browser never sends them.
 * `route` is the Express pattern (preflights are routed by it, so logs and metrics name it);
 * `pattern` matches the same paths (as Express does: any case, an optional trailing slash) for the
 * actual requests, which must reach their own route with its pattern.
 */
export const BROWSER_ROUTES: readonly { route: string; pattern: RegExp; methods: ("GET" | "POST")[] }[] = [
  { route: "/graphql", pattern: /^\/graphql\/?$/i, methods: ["GET", "POST"] },
  { route: "/graphql/stream", pattern: /^\/graphql\/stream\/?$/i, methods: ["GET", "POST"] },
  { route: "/v1/transaction", pattern: /^\/v1\/transaction\/?$/i, methods: ["POST"] },
  { route: "/v1/transaction/:transaction_id", pattern: /^\/v1\/transaction\/[^/]+\/?$/i, methods: ["GET"] },
];

/**
 * Credentials by their form, and whether a browser may carry them: the one place that says so.
 * The first pattern that matches decides; a token that matches none is left to the route (it
 * answers 401 or 404 as for any bad key). A transaction's client secret (`<id>_secret_<random>`)
 * is made for the customer's browser: it reads and pays its one transaction only.
 */
export const CREDENTIAL_KINDS: readonly { kind: string; pattern: RegExp; browser: boolean }[] = [
  { kind: "public_key", pattern: /^pub_/, browser: true },
  { kind: "client_secret", pattern: CLIENT_SECRET, browser: true },
  { kind: "secret_key", pattern: /^sec_/, browser: false },
];

export const SECRET_KEY_IN_BROWSER = MESSAGES.secretKeyInBrowser;

/** The kind of the request's bearer credential, or undefined when it has none of a known form. */
export function credentialKind(authorization: string | undefined): (typeof CREDENTIAL_KINDS)[number] | undefined {
  const token = bearerToken(authorization);
  return token === undefined ? undefined : CREDENTIAL_KINDS.find((k) => k.pattern.test(token));
}

/**
 * 403 for a server-only credential sent by a browser. A browser marks every cross-origin request
 * (and every same-origin one but GET and HEAD) with `Origin`, and a page cannot remove it; curl,
 * Node's fetch and the usual server HTTP clients send none unless told to. So a secret key
 * leaked into a page works from no other website; paygate's own pages (/docs, the GraphQL page) are
 * refused it too, but for a same-origin GET, which carries no Origin.
 */
const refuseServerCredentialsFromBrowsers: RequestHandler = (req, _res, next) => {
  if (req.method === "OPTIONS" || req.headers.origin === undefined) return next();
  const kind = credentialKind(req.headers.authorization);
  if (kind && !kind.browser) return next(errors.credentialInBrowser(kind.kind));
  next();
};

/**
 * The browser rules, to mount before the API's routes: secret keys from browsers refused on every
 * API route, then CORS on the browser routes. No credentials mode: pages send no cookies and
 * `Access-Control-Allow-Credentials` is never sent (the key travels in Authorization).
 */
export function browserAccess(settings: CorsSettings): Router {
  const router = Router();
  router.use(["/v1", "/graphql"], refuseServerCredentialsFromBrowsers);
  const routes = BROWSER_ROUTES.map((route) => ({
    ...route,
    cors: cors({
      // An array, even of one origin: the package reflects a listed Origin (and adds Vary: Origin);
      // a lone string would be sent to every origin as it is.
      origin: settings.origins === "*" ? "*" : [...settings.origins],
      methods: route.methods,
      allowedHeaders: CORS_ALLOWED_HEADERS,
      exposedHeaders: CORS_EXPOSED_HEADERS,
      maxAge: CORS_MAX_AGE_SECONDS,
      credentials: false,
      // Answered here (204), before the route: Apollo would answer an OPTIONS request with 400.
      preflightContinue: false,
    }),
  }));
  for (const route of routes) router.options(route.route, route.cors);
  router.use((req, res, next) => {
    const route = routes.find((r) => r.pattern.test(req.path) && (r.methods as string[]).includes(req.method === "HEAD" ? "GET" : req.method));
    if (!route) return next();
    route.cors(req, res, next);
  });
  return router;
}
