// The Express application: the edge (src/edge: request ids, logs, CORS, rate limits, connection caps,
// errors), health, and the APIs behind it, REST and pages (src/http) and GraphQL (src/graphql), which
// never import each other. main.ts gives it a running gateway.
import { randomUUID } from "node:crypto";
import express, { type Express, type RequestHandler } from "express";
import { pinoHttp } from "pino-http";
import { errors } from "./core/errors.ts";
import type { PaymentGateway } from "./core/gateway.ts";
import type { RateLimiter } from "./core/rate-limits.ts";
import type { Readiness } from "./db/database.ts";
import type { Server } from "node:http";
import { graphqlErrorBody } from "./graphql/errors.ts";
import { createGraphQL, type GraphQLOptions } from "./graphql/server.ts";
import { createSubscriptions } from "./graphql/subscriptions.ts";
import type { Logger } from "./logging.ts";
import type { Config } from "./config.ts";
import type { Runtime } from "./runtime.ts";
import type { NetworkNodeHealth } from "./rails/chains/index.ts";
import { httpMetrics, meteredGateway, metricsEndpoint, type PaygateMetrics } from "./observability/index.ts";
import { type CheckoutPageOptions, checkoutPage } from "./http/checkout-page.ts";
import { browserAccess, type CorsSettings } from "./edge/cors.ts";
import { dashboardRouter } from "./http/dashboard/router.ts";
import { frontDoor } from "./http/front-door.ts";
import { apiReference } from "./http/docs.ts";
import { errorBodyOn, errorHandler, notFound } from "./edge/errors.ts";
import { routeOf } from "./observability/route.ts";
import {
  type ConnectionLimits,
  DEFAULT_CONNECTION_LIMITS,
  DEFAULT_EVENT_STREAM_LIMITS,
  DEFAULT_LIVE_LIMITS,
  type EventStreamLimits,
  guardConnections,
  LiveConnections,
  type LiveLimits,
} from "./edge/connection-limits.ts";
import { liveRateLimits, rateLimits, upgradeClientAddress } from "./edge/rate-limits.ts";
import { eventRoutes } from "./http/v1/events/routes.ts";
import { merchantPricingRoutes } from "./http/v1/merchant-pricing/routes.ts";
import { eventStreamRoutes } from "./http/v1/events/stream.ts";
import { transactionRoutes } from "./http/v1/transactions/routes.ts";
import { invoiceRoutes } from "./http/v1/invoices/routes.ts";
import { refundRoutes } from "./http/v1/refunds/routes.ts";
import { flushRuleRoutes } from "./http/v1/flush-rules/routes.ts";
import { settlementRoutes } from "./http/v1/settlements/routes.ts";
import { ledgerRoutes } from "./http/v1/ledger/routes.ts";
import { testHelperRoutes } from "./http/v1/test-helpers/routes.ts";
import { refundClaimPage } from "./http/refund-claim-page.ts";
import { invoicePage } from "./http/invoice-page.ts";
import { webhookEndpointRoutes } from "./http/v1/webhook-endpoints/routes.ts";

export interface AppOptions {
  gateway: PaymentGateway;
  /** Whether the database answers and is migrated: GET /readyz (and /healthz). */
  /** The database's readiness, with details that do not decide it (chain_nodes). */
  readiness: () => Promise<Readiness & { chain_nodes?: unknown[] }>;
  logger: Logger;
  /** One log line per request (PAYGATE_LOG_REQUESTS); errors are logged either way. */
  logRequests?: boolean;
  graphql?: GraphQLOptions;
  /** Prometheus metrics: GET /metrics, a count per request, initializes and initiates (src/observability). */
  metrics?: PaygateMetrics;
  /** Which pages on other origins may call the browser routes (PAYGATE_CORS_ORIGINS); default any. */
  cors?: CorsSettings;
  /** Rate limits per API key and per client address (src/edge/rate-limits.ts); none when absent. */
  rateLimits?: RateLimiter;
  /**
   * Express's `trust proxy` (PAYGATE_TRUST_PROXY): which proxies may say, in X-Forwarded-For, whom
   * they received the request from. False (the default): the client is the connection's peer.
   */
  trustProxy?: TrustProxy;
  /** Where the built checkout page is (web/dist/ unless a test says otherwise). */
  checkout?: CheckoutPageOptions;
  /** TCP connections and slow requests at the socket (PAYGATE_MAX_CONNECTIONS_PER_ADDRESS, PAYGATE_HTTP_*_TIMEOUT_MS); defaults when absent. */
  connections?: ConnectionLimits & { total?: number };
  /** Open event streams and WebSockets, and subscriptions per WebSocket (PAYGATE_LIVE_*); defaults when absent. */
  live?: LiveLimits;
  /** Open event streams (GET /v1/events/stream) per key and in all, and their heartbeat (PAYGATE_EVENT_STREAM_*); defaults when absent. */
  eventStreams?: EventStreamLimits;
}

/** No proxy, the number of proxies in front, or their addresses and subnets. Never `true`: any client could then choose its address. */
export type TrustProxy = false | number | string[];

export interface PaygateApp {
  app: Express;
  /**
   * Takes the server that serves `app`: the socket-level guards (timeouts, connections per address)
   * and GraphQL subscriptions over WebSocket (graphql-ws) on the same port, path /graphql. Create it
   * with connectionsCheckingInterval CONNECTIONS_CHECKING_INTERVAL_MS, so that the timeouts bite in time.
   */
  serve(server: Server): void;
  /** Open event streams and WebSockets (the gauge paygate_live_connections). */
  readonly liveConnections: number;
  /**
   * Ends every open subscription (WebSockets, event streams), which would otherwise hold the HTTP
   * server open: the first step of stopping.
   */
  closeSubscriptions(): Promise<void>;
  /** Stops what the app runs besides the HTTP server (subscriptions, the GraphQL server). */
  stop(): Promise<void>;
}

/**
 * The app of a runtime as the configuration says: the one wiring of the service (main.ts) and of the
 * tests (test/support/gateway.ts). `checkout`: where the built checkout page is (web/dist/ by default).
 */
/**
 * /readyz's chain_nodes: each network and mode that lists several nodes (failover), its nodes by place and host (never
 * the URL), and how many are healthy. A network of one node is left out, so /readyz answers as before for them
 * (/metrics has every node); with no such network the field is absent.
 */
function chainNodesReadiness(pools: readonly NetworkNodeHealth[]) {
  const listed = pools.filter((pool) => pool.nodes.length > 1);
  if (listed.length === 0) return {};
  return {
    chain_nodes: listed.map((pool) => ({
      network: pool.network,
      mode: pool.mode,
      backend: pool.backend,
      healthy: pool.nodes.filter((n) => n.state === "healthy" || n.state === "unknown").length,
      nodes: pool.nodes.map((n) => ({ node: n.index, host: n.host, state: n.state, head: n.head, retry_at: n.retryAt?.toISOString() ?? null })),
    })),
  };
}

export function createConfiguredApp(
  config: Config,
  runtime: Pick<Runtime, "gateway" | "database" | "rateLimiter" | "nodeHealth">,
  parts: { logger: Logger; metrics?: PaygateMetrics; checkout?: CheckoutPageOptions },
): Promise<PaygateApp> {
  parts.metrics?.observeChainNodes(() => runtime.nodeHealth());
  return createApp({
    gateway: runtime.gateway,
    readiness: async () => ({ ...(await runtime.database.readiness()), ...chainNodesReadiness(runtime.nodeHealth()) }),
    logger: parts.logger,
    logRequests: config.logRequests,
    graphql: config.graphql,
    metrics: parts.metrics,
    cors: config.cors,
    rateLimits: runtime.rateLimiter,
    trustProxy: config.trustProxy,
    checkout: parts.checkout,
    connections: config.connections,
    live: config.live,
    eventStreams: config.eventStreams,
  });
}

export async function createApp(options: AppOptions): Promise<PaygateApp> {
  const { logger } = options;
  const gateway = options.metrics ? meteredGateway(options.gateway, options.metrics) : options.gateway;
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("trust proxy", options.trustProxy ?? false);

  app.use((_req, res, next) => {
    const requestId = randomUUID();
    res.locals.requestId = requestId;
    res.setHeader("X-Request-Id", requestId);
    next();
  });
  app.use(errorBodyOn("/graphql", graphqlErrorBody)); // GraphQL-over-HTTP's error shape for every failure on its paths
  if (options.logRequests) app.use(requestLog(logger));
  if (options.metrics) app.use(httpMetrics(options.metrics)).get("/metrics", metricsEndpoint(options.metrics)); // unauthenticated: docs/metrics.md

  // Kubernetes-style probes: live while the process serves; ready while the database answers and
  // has this version's migrations. /healthz is /readyz under its older name.
  app.get("/livez", (_req, res) => {
    res.json({ status: "ok" });
  });
  const ready: RequestHandler = async (_req, res) => {
    const { ready: ok, ...checks } = await options.readiness();
    res.status(ok ? 200 : 503).json({ status: ok ? "ok" : "error", ...checks });
  };
  app.get("/readyz", ready);
  app.get("/healthz", ready);

  app.use(frontDoor()); // GET / leads to the dashboard and names the API reference
  app.use(onlyUnder(["/openapi.json", "/docs"], apiReference()));
  app.use(onlyUnder(["/checkout/", "/favicon.ico"], checkoutPage(options.checkout))); // the hosted checkout page and its assets (web/)
  app.use(browserAccess(options.cors ?? { origins: "*" })); // CORS, and no secret key from a browser: src/edge/cors.ts
  app.use(singleCredential);
  // Everything below is rate limited; the probes, /metrics and the API reference above are not.
  const limits = options.rateLimits && rateLimits({ limiter: options.rateLimits, logger, metrics: options.metrics });
  if (limits) app.use(limits);
  app.use(onlyUnder(["/refund/"], refundClaimPage(gateway))); // a refund's claim link (issue 26): rate limited, as guessing must be
  app.use(onlyUnder(["/invoice/"], invoicePage(gateway))); // an invoice's hosted page (issue 44): rate limited likewise
  app.use(onlyUnder(["/dashboard"], dashboardRouter(gateway, options.checkout))); // the merchant dashboard: session cookie, never an API key
  const live = new LiveConnections(
    options.live ?? DEFAULT_LIVE_LIMITS,
    (line) => logger.warn(line),
    (cap) => options.metrics?.liveConnectionRefused(cap),
  );
  options.metrics?.observeLiveConnections(() => live.count);
  const eventStreams = eventStreamRoutes(gateway, live, options.eventStreams ?? DEFAULT_EVENT_STREAM_LIMITS);
  app.use(transactionRoutes(gateway));
  app.use(testHelperRoutes(gateway)); // test mode only
  app.use(refundRoutes(gateway)); // refunds (issue 26): secret key only
  app.use(invoiceRoutes(gateway)); // invoices (issue 44): secret key only
  app.use(settlementRoutes(gateway)); // consolidations (issue 40): secret key only
  app.use(flushRuleRoutes(gateway)); // when the flush job flushes (issue 40): secret key only
  app.use(ledgerRoutes(gateway)); // the ledger (issue 40): secret key only, its own mode
  app.use(eventStreams.router); // before eventRoutes, whose /v1/events/:event_id would take "stream"
  app.use(eventRoutes(gateway));
  app.use(merchantPricingRoutes(gateway));
  app.use(webhookEndpointRoutes(gateway));
  const graphqlOptions = options.graphql ?? { introspection: false, landingPage: false };
  // Each mutation field of a request counts against the same rate limits (src/graphql/mutation-limits.ts).
  const graphql = await createGraphQL(
    gateway,
    graphqlOptions,
    logger,
    options.rateLimits && { limiter: options.rateLimits, logger, metrics: options.metrics },
  );
  const trust = app.get("trust proxy fn") as (address: string, hop: number) => boolean;
  const subscriptions = createSubscriptions(
    gateway,
    {
      limits: options.rateLimits?.enabled ? liveRateLimits(options.rateLimits) : undefined,
      clientAddress: upgradeClientAddress(trust),
      live,
      schema: graphql.schema,
      validationRules: graphql.validationRules,
      hideSuggestions: !graphqlOptions.introspection,
      cors: options.cors ?? { origins: "*" },
    },
    logger,
  );
  app.use("/graphql/stream", ...subscriptions.sse); // before /graphql, which would take it as a sub-path
  app.use("/graphql", ...graphql.handler);
  app.use(notFound);
  app.use(errorHandler(logger));
  return {
    app,
    serve(server) {
      guardConnections(server, options.connections ?? DEFAULT_CONNECTION_LIMITS, {
        trustedProxy: (address) => trust(address, 0),
        log: (line) => logger.warn(line),
        total: options.connections?.total,
      });
      subscriptions.serveWebSockets(server);
    },
    get liveConnections() {
      return live.count;
    },
    closeSubscriptions: async () => {
      eventStreams.close();
      await subscriptions.close();
    },
    stop: async () => {
      eventStreams.close();
      await subscriptions.close();
      await graphql.stop();
    },
  };
}

/**
 * A router all of whose paths start with one of `prefixes`, passed over at once for any other path: Express
 * tries every route of every router it enters, and the API's requests would pass each page's router first
 * (docs/benchmarks.md, issue 47). Case-insensitive, as Express's own matching is.
 */
function onlyUnder(prefixes: readonly string[], router: RequestHandler): RequestHandler {
  const lowered = prefixes.map((prefix) => prefix.toLowerCase());
  return (req, res, next) => {
    const path = req.path.toLowerCase();
    if (lowered.some((prefix) => path.startsWith(prefix))) return router(req, res, next);
    next();
  };
}

/**
 * Two Authorization headers are ambiguous (Node keeps the first and drops the rest): refused,
 * rather than guessing which credential the client meant.
 */
const singleCredential: RequestHandler = (req, _res, next) => {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]?.toLowerCase() === "authorization") count++;
  }
  if (count > 1) {
    return next(errors.ambiguousCredential(count));
  }
  next();
};

/** One line per request: method, route, status, latency, request id, merchant; never bodies or keys. */
function requestLog(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: (_req, res) => String((res as express.Response).locals.requestId),
    quietReqLogger: true,
    quietResLogger: true,
    customAttributeKeys: { reqId: "request_id" },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? "error" : res.statusCode >= 400 ? "warn" : "info"),
    customSuccessMessage: () => "request",
    customErrorMessage: () => "request",
    customSuccessObject: (req, res, value: { responseTime: number }) => requestLine(req as express.Request, res as express.Response, value),
    customErrorObject: (req, res, _error, value: { responseTime: number }) => requestLine(req as express.Request, res as express.Response, value),
  });
}

function requestLine(req: express.Request, res: express.Response, { responseTime }: { responseTime: number }) {
  return {
    method: req.method,
    route: routeOf(req),
    status: res.statusCode,
    latency_ms: responseTime,
    merchant_id: res.locals.merchantId ?? null,
    ...(res.locals.errorCode ? { error: res.locals.errorCode } : {}),
    ...(res.locals.errorClass ? { error_class: res.locals.errorClass } : {}),
  };
}
