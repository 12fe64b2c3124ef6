// A real gateway on a fresh database (PGlite in memory, or a new PostgreSQL database when
// DATABASE_URL is set), served over HTTP on a free port.
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { createServer } from "node:http";
import express from "express";
import { afterAll, beforeAll } from "vitest";
import { type GatewayDeps, type PaymentGateway, systemClock } from "../../src/core/gateway.ts";
import type { KybStatus } from "../../src/core/records/kyb.ts";
import { PrivateAllowlist, type PrivateTargets } from "../../src/core/private-targets.ts";
import type { NewMerchant, WalletSetting, WebhookUrls } from "../../src/core/merchants/merchants.ts";
import { WebhookDispatcher, type DispatcherDeps, type DispatcherSettings } from "../../src/webhooks/dispatcher.ts";
import { WebhookDeliveries } from "../../src/core/webhooks/deliveries.ts";
import type { DeliveryQueue } from "../../src/core/webhooks/deliveries.ts";

/** A test dispatcher's settings, with the core's retry schedule (WebhookDeliveries) among them. */
export type TestDispatcherSettings = Partial<DispatcherSettings & { retryScheduleMs: readonly number[] }>;
/** A test dispatcher's parts, with the deliveries' store and the retries' randomness its core rules are made on. */
export type TestDispatcherDeps = Partial<Omit<DispatcherDeps, "deliveries"> & { queue: DeliveryQueue; random: () => number }>;
import type { Clock, PriceFeed } from "../../src/core/ports.ts";
import type { RateLimiter, RateLimitCounters, RateLimitPolicy } from "../../src/core/rate-limits.ts";
import { SecretBox } from "../../src/core/secrets.ts";
import { openDatabaseOn, type OpenDatabase } from "../../src/db/database.ts";
import type { Stores } from "../../src/core/stores/index.ts";
import type { Database } from "../../src/db/types.ts";
import type { GraphQLOptions } from "../../src/graphql/server.ts";
import { createConfiguredApp, type TrustProxy } from "../../src/app.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import { startRuntime } from "../../src/runtime.ts";
import type { CheckoutPageOptions } from "../../src/http/checkout-page.ts";
import type { CorsSettings } from "../../src/edge/cors.ts";
import {
  CONNECTIONS_CHECKING_INTERVAL_MS,
  type ConnectionLimits,
  type EventStreamLimits,
  type LiveLimits,
} from "../../src/edge/connection-limits.ts";
import { createLogger, lineLogger } from "../../src/logging.ts";
import { PaygateMetrics, type MetricsOptions } from "../../src/observability/index.ts";
import { ModeRoutedFeed } from "../../src/rails/prices/index.ts";
import { TestRatesFeed } from "../../src/rails/prices/test-rates.ts";
import { OpenApiConformance } from "./openapi-conformance.ts";
import { connectTestDatabase, createTestDatabase, type TestDatabase } from "./test-database.ts";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.ts";

export interface TestGateway {
  gateway: PaymentGateway;
  db: Database;
  /** The core's stores on that database. */
  stores: Stores;
  /** The key that seals webhook secrets. */
  secrets: SecretBox;
  url: string;
  /** The database's change notifications, as the service hears them. */
  changes: OpenDatabase["changes"];
  /** The service's log, one JSON line each. */
  logs: string[];
  /** The database under the service (its connection string on PostgreSQL); its changes are heard by `changes`. */
  store: TestDatabase;
  /** The app's metrics (GET /metrics); dispatchers made by dispatcher() report to them too. */
  metrics: PaygateMetrics;
  /** The app's rate limits (generous unless the test set its own). */
  rateLimiter: RateLimiter;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
  merchant(options?: { name?: string; kyb?: KybStatus; active?: boolean; wallets?: WalletSetting[] } & WebhookUrls): Promise<NewMerchant>;
  /** A webhook dispatcher on this gateway's database (not started); closed with the gateway. */
  dispatcher(settings?: TestDispatcherSettings, deps?: TestDispatcherDeps): WebhookDispatcher;
  close(): Promise<void>;
}

/** Prices the tests can change: test mode and live mode each from a table. */
export function fixedFeeds(): PriceFeed {
  return new ModeRoutedFeed({ test: new TestRatesFeed(), live: new TestRatesFeed() });
}

/** Prices, or a feed made on the gateway's database (the service's own test rates: StoredTestRatesFeed). */
type TestPrices = PriceFeed | ((db: Database) => PriceFeed);

/**
 * The rate limits of a test gateway. By default every gateway runs the limiter (so every test goes
 * through it) with limits no test reaches; a test of the limits sets its own.
 */
export interface TestRateLimits {
  /** Over GENEROUS_RATE_LIMITS; null turns one off. */
  policy?: Partial<RateLimitPolicy>;
  /** The limiter's clock: a test moves it to end a window instead of waiting. */
  clock?: Clock;
  trustProxy?: TrustProxy;
  /** Other counters than the database's (a store that fails). */
  counters?: (db: Database) => RateLimitCounters;
}

export const GENEROUS_RATE_LIMITS: RateLimitPolicy = {
  live: { limit: 1_000_000, windowMs: 1000 },
  test: { limit: 1_000_000, windowMs: 1000 },
  authFailures: { limit: 1_000_000, windowMs: 60_000 },
};

export interface TestGatewayOptions {
  prices?: TestPrices;
  graphql?: GraphQLOptions;
  metrics?: MetricsOptions;
  cors?: CorsSettings;
  /** PAYGATE_PUBLIC_URL; default: the test server's own address, as the service's default is. */
  publicUrl?: string;
  /**
   * The host name of the server's address (`url`, and so the default public URL): "localhost" for a
   * browser test of WebAuthn, whose RP ID must be a domain (an IP address is refused); 127.0.0.1 unless set.
   */
  hostName?: string;
  /**
   * The private destinations webhooks may reach (PAYGATE_WEBHOOK_ALLOW_PRIVATE, PAYGATE_TEST_WEBHOOK_ALLOW_PRIVATE, the
   * allowlist), over LOCAL_PRIVATE_TARGETS; the test gateway's dispatchers and test events too.
   */
  privateWebhookTargets?: Partial<PrivateTargets>;
  rateLimits?: TestRateLimits;
  /**
   * A second instance on that gateway's database, with its encryption key: its own pool and
   * notification listener on PostgreSQL, the same engine on PGlite. Close it before that one.
   */
  sameDatabaseAs?: TestGateway;
  /** Where the built checkout page is (web/dist/ unless a test says otherwise). */
  checkout?: CheckoutPageOptions;
  /** The gateway's clock (its credentials' too): a test moves it past a rolled key's, a secret's or a session's end. */
  clock?: Clock;
  /** PAYGATE_CREDENTIAL_CACHE_MS; none by default. */
  credentialCacheMs?: number;
  /** TCP connections and slow requests at the socket; the service's defaults unless set. */
  connections?: ConnectionLimits & { total?: number };
  /** Live connection caps; the service's defaults unless set. */
  live?: LiveLimits;
  /** Caps on open event streams (GET /v1/events/stream) and their heartbeat; the service's defaults unless set. */
  eventStreams?: Partial<EventStreamLimits>;
  /** The dashboard's session lifetimes and sign-in limits (generous sign-in limits unless set). */
  dashboard?: GatewayDeps["dashboard"];
  /** Environment variables the service's configuration is parsed from (none: its defaults), e.g. PAYGATE_LTC_TEST_CHAIN. */
  env?: Record<string, string>;
}

/**
 * As the embedded database's local setup (README.md, First steps): test-mode webhooks may reach the tests'
 * receivers on 127.0.0.1, live-mode ones only public addresses; no allowlist.
 */
export const LOCAL_PRIVATE_TARGETS: PrivateTargets = { live: false, test: true, allowlist: PrivateAllowlist.NONE };

/** Sign-in limits no test reaches unless it sets its own. */
export const GENEROUS_SIGN_IN_LIMITS = { perAddress: { limit: 1_000_000, windowMs: 60_000 }, perEmail: { limit: 1_000_000, windowMs: 60_000 } };

export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const testDb = options.sameDatabaseAs ? await secondInstanceOf(options.sameDatabaseAs.store) : await createTestDatabase();
  const logs: string[] = [];
  const logger = createLogger({ destination: { write: (line: string) => void logs.push(line) } });
  const database = await openDatabaseOn(
    { factory: testDb.factory, close: testDb.close, notifications: testDb.notifications, query: testDb.query },
    { migrate: false, log: lineLogger(logger, "warn") },
  );
  const secrets = options.sameDatabaseAs?.secrets ?? new SecretBox(randomBytes(32));
  // Listening first: the gateway builds checkout URLs on the server's own address.
  const server = createServer({ connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://${options.hostName ?? "127.0.0.1"}:${(server.address() as AddressInfo).port}`;
  const clock = options.clock ?? systemClock;
  const privateWebhookTargets = { ...LOCAL_PRIVATE_TARGETS, ...options.privateWebhookTargets };
  const limits = options.rateLimits ?? {};
  // The service's configuration (its defaults), with what a test sets over it.
  const service = loadConfig(options.env ?? {});
  const config: Config = {
    ...service,
    publicUrl: options.publicUrl ?? url,
    credentialCacheMs: options.credentialCacheMs ?? 0,
    logRequests: true,
    // The receivers are local: short timeouts, quick polls, one retry a minute later.
    webhooks: { ...service.webhooks, timeoutMs: 2000, retryScheduleMs: [60_000], pollMs: 20, concurrency: 8, privateTargets: privateWebhookTargets },
    graphql: { ...service.graphql, introspection: false, landingPage: false, ...options.graphql },
    cors: options.cors ?? service.cors,
    rateLimits: { ...GENEROUS_RATE_LIMITS, ...limits.policy },
    trustProxy: limits.trustProxy ?? false,
    connections: { ...service.connections, ...options.connections },
    live: options.live ?? service.live,
    eventStreams: { ...service.eventStreams, ...options.eventStreams },
  };
  const metrics = new PaygateMetrics({ defaultMetrics: false, ...options.metrics }); // Node's process metrics only when asked
  const runtime = await startRuntime(config, {
    database,
    secrets,
    clock,
    prices: typeof options.prices === "function" ? options.prices(database.db) : (options.prices ?? fixedFeeds()),
    log: (line) => logs.push(line),
    metrics,
    rateLimits: { counters: limits.counters?.(database.db), clock: limits.clock },
    dashboard: { signInLimits: GENEROUS_SIGN_IN_LIMITS, ...options.dashboard },
  });
  const { gateway, rateLimiter } = runtime;
  const { stores } = runtime;
  const dispatchers: WebhookDispatcher[] = [];
  function makeDispatcher(settings: TestDispatcherSettings, deps: TestDispatcherDeps): WebhookDispatcher {
    const { retryScheduleMs = [60_000], ...rest } = settings;
    const { queue = stores.webhookEndpoints, random, ...given } = deps;
    const used = { clock, ...given };
    const dispatcher = new WebhookDispatcher(
      {
        deliveries: new WebhookDeliveries(queue, used.clock, { scheduleMs: retryScheduleMs, random }),
        secrets,
        log: (line) => logs.push(line),
        metrics,
        changes: database.changes,
        ...used,
      },
      { ...config.webhooks, ...rest },
    );
    dispatchers.push(dispatcher);
    return dispatcher;
  }
  const { app, stop, serve, closeSubscriptions } = await createConfiguredApp(config, runtime, { logger, metrics, checkout: options.checkout });
  // Every response of a documented route is checked against the OpenAPI document.
  const conformance = new OpenApiConformance();
  const checked = express().use(conformance.middleware()).use(app);
  server.on("request", checked);
  serve(server);

  return {
    gateway,
    db: database.db,
    stores,
    secrets,
    url,
    changes: database.changes,
    logs,
    store: testDb,
    metrics,
    rateLimiter,
    async post(path, body, headers = {}) {
      const response = await fetch(url + path, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    async merchant({ name = "Acme Stores", kyb, active, wallets, liveWebhookUrl, testWebhookUrl } = {}) {
      const created = await gateway.operator.createMerchant({ name, kybStatus: kyb, liveWebhookUrl, testWebhookUrl });
      if (active !== undefined || (wallets && wallets.length > 0)) {
        await gateway.operator.updateMerchant(created.id, { active, wallets });
      }
      return created;
    },
    dispatcher: (settings = {}, deps = {}) => makeDispatcher(settings, deps),
    async close() {
      await Promise.all(dispatchers.map((d) => d.stop()));
      await closeSubscriptions(); // open WebSockets and event streams would hold the server open
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await stop();
      await runtime.close(); // its jobs (never started here) and the database
      if (conformance.violations.length > 0) {
        throw new Error(`Responses that do not match the OpenAPI document:\n${[...new Set(conformance.violations)].join("\n")}`);
      }
    },
  };
}

/** The database of a running test gateway, for a second instance: a pool of its own on PostgreSQL, the same engine on PGlite. */
async function secondInstanceOf(store: TestDatabase): Promise<TestDatabase> {
  // PGlite is one process's database: the second instance shares its engine.
  if (store.url === null) return { ...store, close: async () => {} };
  return connectTestDatabase(store.url);
}

/**
 * A gateway and a webhook receiver for every test of a file: started before them (then handed to
 * `use`, which keeps them in the file's variables and may prepare more), closed after.
 */
export function gatewayAndReceiverForFile(
  use: (started: { t: TestGateway; receiver: WebhookReceiver }) => void | Promise<void>,
  options?: TestGatewayOptions,
): void {
  let t: TestGateway | undefined;
  let receiver: WebhookReceiver | undefined;
  beforeAll(async () => {
    t = await startTestGateway(options);
    receiver = await startWebhookReceiver();
    await use({ t, receiver });
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });
}
