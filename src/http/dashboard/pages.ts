// The dashboard's single page (web/dashboard/, built by Vite with the checkout into web/dist/):
// the same HTML for /dashboard and every path under it but the API, so the page's own router
// shows the right view on a reload or a shared address. Its assets are the shared build's, served
// at /checkout/assets/ (src/http/checkout-page.ts), with the same headers: its own scripts only, no
// framing, no Referer (a sign-in link's address carries a token, in its fragment).
import path from "node:path";
import { Router } from "express";
import { builtPage, pageHeaders, WEB_DIST } from "../checkout-page.ts";

export interface DashboardPagesOptions {
  /** The built pages (web/dist/); a test points it at an empty folder. */
  dir?: string;
}

/** /dashboard, /dashboard/ and /dashboard/anything except /dashboard/api/…. */
const PAGE_PATH = /^\/dashboard(?:\/(?!api(?:\/|$)).*)?$/i;

export function dashboardPages(options: DashboardPagesOptions = {}): Router {
  const currentPage = builtPage(path.join(options.dir ?? WEB_DIST, "dashboard", "index.html"));
  const router = Router();
  router.get(PAGE_PATH, (req, res) => {
    const page = currentPage();
    pageHeaders(req, res);
    if (page === null) {
      res.status(503).type("html").send(missingPage);
      return;
    }
    res.status(200).type("html").send(page);
  });
  return router;
}

const missingPage = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Dashboard unavailable</title></head>
<body>
<main>
<h1>The dashboard is not available right now</h1>
<p>The payment service is running, but the files of its dashboard have not been built.</p>
<p>Operator: build them with <code>npm run build:web</code> (the full <code>npm install</code> and <code>npm run build</code> do it too), then reload; no restart is needed.</p>
</main>
</body>
</html>`;
