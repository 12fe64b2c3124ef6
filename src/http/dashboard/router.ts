// The merchant dashboard at /dashboard: its JSON API under /dashboard/api and its single-page app
// (web/dashboard/) for every other path. The API takes a session cookie only, never an API key,
// and refuses cross-site changes (csrf.ts). Each route module adds its routes to the API router
// with the same signature, `(router, gateway) => void`: adding a page's API is one line below.
import { type Request, type RequestHandler, Router } from "express";
import { errors } from "../../core/errors.ts";
import type { PaymentGateway } from "../../core/gateway.ts";
import { jsonBody } from "../body.ts";
import { clientAddress } from "../../edge/rate-limits.ts";
import { csrfToken, sameOriginChanges } from "./csrf.ts";
import { dashboardPages, type DashboardPagesOptions } from "./pages.ts";
import { homeRoutes } from "./routes/home.ts";
import { sessionRoutes } from "./routes/sessions.ts";
import { invoiceRoutes } from "./routes/invoices.ts";
import { managementRoutes } from "./routes/management.ts";
import { networkRoutes } from "./routes/networks.ts";
import { ownAddressRoutes } from "./routes/own-addresses.ts";
import { pricingRoutes } from "./routes/pricing.ts";
import { refundRoutes } from "./routes/refunds.ts";
import { securityRoutes } from "./routes/security.ts";
import { settlementRoutes } from "./routes/settlement.ts";
import { transactionRoutes } from "./routes/transactions.ts";
import { userRoutes } from "./routes/users.ts";
import { webhookEndpointRoutes } from "./routes/webhook-endpoints.ts";
import { sessionTokenOf } from "./session.ts";

/** What a route module exports: it adds its routes (paths under /dashboard/api) to the router. */
export type DashboardRoutes = (router: Router, gateway: PaymentGateway) => void;

/** The route modules, in order. */
const ROUTES: DashboardRoutes[] = [
  sessionRoutes,
  userRoutes,
  homeRoutes,
  transactionRoutes,
  managementRoutes,
  networkRoutes,
  pricingRoutes,
  securityRoutes,
  webhookEndpointRoutes,
  refundRoutes,
  invoiceRoutes,
  settlementRoutes,
  ownAddressRoutes,
];

/** The requests that need no session: signing in (both steps, and a security key's options), and using a one-time sign-in link. */
const isPublic = (req: Request): boolean =>
  req.method === "POST" && (/^\/session(?:\/second-factor(?:\/security-key)?)?\/?$/i.test(req.path) || /^\/sign-in-links\/[^/]+\/?$/i.test(req.path));

export function dashboardRouter(gateway: PaymentGateway, pages: DashboardPagesOptions = {}): Router {
  const api = Router();
  api.use(noStore, refuseApiKeys, sameOriginChanges(gateway.publicUrl));
  api.use(jsonBody(() => errors.badRequest("The body is not valid JSON", "invalid_json")));
  api.use(session(gateway), csrfToken(isPublic));
  for (const routes of ROUTES) routes(api, gateway);

  const router = Router();
  router.use("/dashboard/api", api);
  router.use(dashboardPages(pages));
  return router;
}

/** Loads the cookie's session for every request but the public ones (401 session_required without one). */
function session(gateway: PaymentGateway): RequestHandler {
  return async (req, res, next) => {
    if (isPublic(req)) return next();
    const current = await gateway.accounts.session(sessionTokenOf(req), clientAddress(req));
    res.locals.dashboardSession = current;
    res.locals.merchantId = current.merchant.id; // the request log's merchant
    next();
  };
}

/** An Authorization header means an API key (or a client secret): never accepted here, whatever it holds. */
const refuseApiKeys: RequestHandler = (req, _res, next) => {
  if (req.headers.authorization !== undefined) return next(errors.apiKeyOnDashboard());
  next();
};

/** Answers carry users, tokens and settings: no cache keeps them. */
const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader("Cache-Control", "no-store");
  next();
};
