// The hosted checkout page: GET /checkout/:token (the token is the transaction's client secret) and
// its built assets at /checkout/assets/ (web/, built by Vite into web/dist/ at install and by
// `npm run build`). The page itself is static: it reads the token from its own address and talks
// to /graphql with it, so the server only serves files, with headers fit for a page whose address
// is a credential.
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import express, { type Request, type RequestHandler, type Response, Router } from "express";

/** web/dist/ of the checkout: two folders up from src/http/ and from dist/http/ alike. */
export const WEB_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "web", "dist");

export interface CheckoutPageOptions {
  /** The built pages (web/dist/); a test points it at an empty folder. */
  dir?: string;
}

export function checkoutPage(options: CheckoutPageOptions = {}): Router {
  const dir = options.dir ?? WEB_DIST;
  const currentPage = builtPage(path.join(dir, "checkout", "index.html"));
  const router = Router();

  // Content-hashed names: a new build has new names, so an asset may be cached for a year.
  router.use(
    "/checkout/assets",
    express.static(path.join(dir, "assets"), { index: false, immutable: true, maxAge: "365d", fallthrough: true, redirect: false }),
  );

  const servePage: RequestHandler = (req, res) => {
    const page = currentPage();
    pageHeaders(req, res);
    if (page === null) {
      res.status(503).type("html").send(missingAssetsPage);
      return;
    }
    res.status(200).type("html").send(page);
  };
  router.get("/checkout/:token", servePage);
  // Pages without a <link rel="icon"> (the API reference, GraphQL's) make browsers ask for /favicon.ico:
  // sent to the built icon (web/shared/favicon.svg) rather than a 404.
  router.get("/favicon.ico", (_req, res) => {
    const icon = /<link rel="icon" href="([^"]+)"/.exec(currentPage() ?? "")?.[1];
    if (!icon) {
      res.status(404).end();
      return;
    }
    res.setHeader("Cache-Control", "public, max-age=86400");
    res.redirect(302, icon);
  });
  return router;
}

/**
 * A built page's HTML, read again when a new build replaced it (new asset names) and while it is
 * missing, so a build made after the start is picked up without a restart. Null while missing.
 */
export function builtPage(pageFile: string): () => string | null {
  let cached: { mtimeMs: number; html: string } | null = null;
  return () => {
    const stat = statSync(pageFile, { throwIfNoEntry: false });
    if (!stat) return null;
    if (cached?.mtimeMs !== stat.mtimeMs) cached = { mtimeMs: stat.mtimeMs, html: readFileSync(pageFile, "utf8") };
    return cached.html;
  };
}

/**
 * The token in the address is a credential: never stored by a cache, never sent on as a Referer.
 * The page runs only its own script (no inline code), talks only to this service, and may not be
 * framed (no clickjacking of the copy and pay buttons).
 */
export function pageHeaders(req: Request, res: Response): void {
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("X-Frame-Options", "DENY");
  res.setHeader("Content-Security-Policy", contentSecurityPolicy(req.get("host")));
}

/** A Host header is the client's to send: only a plain host[:port] goes into the policy. */
const HOST = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

export function contentSecurityPolicy(host: string | undefined): string {
  // 'self' covers ws(s): of the same host in current browsers; older ones need them named.
  const sockets = host && HOST.test(host) ? ` ws://${host} wss://${host}` : "";
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self'${sockets}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

const missingAssetsPage = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Checkout unavailable</title></head>
<body>
<main>
<h1>This checkout page is not available right now</h1>
<p>The payment service is running, but the files of its checkout page have not been built. If you are paying, try again in a few minutes.</p>
<p>Operator: build them with <code>npm run build:web</code> (the full <code>npm install</code> and <code>npm run build</code> do it too), then reload; no restart is needed.</p>
</main>
</body>
</html>`;
