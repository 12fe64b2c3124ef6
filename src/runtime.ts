// Wiring shared by the service and the CLI: configuration in, a gateway on an open database out.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import type { Config } from "./config.ts";
import { ConfigError } from "./config.ts";
import { PaymentGateway, systemClock } from "./core/gateway.ts";
import { SecretBox } from "./core/secrets.ts";
import { Credentials } from "./core/merchants/credentials.ts";
import { openDatabase, type OpenDatabase } from "./db/database.ts";
import { prismaStores } from "./db/stores/index.ts";
import { rateLimitCounters } from "./db/stores/rate-limit-counters.ts";
import { RateLimiter } from "./core/rate-limits.ts";
import { ModeRoutedFeed } from "./rails/prices/index.ts";
import { createLiveFeed } from "./rails/prices/live.ts";
import { StoredTestRatesFeed } from "./rails/prices/test-rates.ts";
import { PngQrRenderer } from "./rails/qr/index.ts";
import { HdWalletRails } from "./rails/wallets/index.ts";
import type { PriceFeed } from "./core/ports.ts";
import { WebhookDispatcher } from "./jobs/webhook-dispatcher.ts";
import { webhookSender } from "./webhooks/http-sender.ts";
import { ExpiryScheduler } from "./jobs/expiry-scheduler.ts";
import { PaymentWatcher, type ConfiguredChains } from "./jobs/payment-watcher.ts";
import { PostgresWatchShares, wholeWatchList } from "./jobs/watch-shares.ts";
import { ChainWatchers } from "./rails/chains/index.ts";
import { Decimal } from "./core/money/amounts.ts";
import type { PaygateMetrics } from "./observability/metrics.ts";

export interface Runtime {
  gateway: PaymentGateway;
  /** The price feed the gateway quotes from (both modes). */
  prices: PriceFeed;
  database: OpenDatabase;
  /** Not started: the service starts it (PAYGATE_WEBHOOK_DISPATCHER), as does `paygate worker`. */
  webhooks: WebhookDispatcher;
  /** Not started: the service starts it (PAYGATE_EXPIRY_SCHEDULER). */
  expiry: ExpiryScheduler;
  /** Not started: the service starts it (PAYGATE_PAYMENT_WATCHER). */
  watcher: PaymentWatcher;
  /** The rate limits of the HTTP API (PAYGATE_RATE_LIMIT_*), counted in the database for every instance. */
  rateLimiter: RateLimiter;
  /** The service's and `paygate worker`'s background jobs; the CLI's other commands start none. */
  startBackgroundJobs(jobs?: { webhooks: boolean; expiry: boolean; watcher: boolean }): void;
  close(): Promise<void>;
}

export interface RuntimeOverrides {
  prices?: PriceFeed;
  chains?: ConfiguredChains;
  log?: (line: string) => void;
  /** Prometheus metrics (GET /metrics, given to createApp too): the jobs, the price feeds and the database report to it. */
  metrics?: PaygateMetrics;
}

export async function startRuntime(config: Config, overrides: RuntimeOverrides = {}): Promise<Runtime> {
  const secrets = loadSecretBox(config);
  const database = await openDatabase(config.database, { log: overrides.log });
  const stores = prismaStores(database.db);
  // Test mode: the operator's test rates (table test_rates, else the defaults). Live mode: the
  // configured providers, one cache per process shared by every request.
  const prices =
    overrides.prices ??
    new ModeRoutedFeed({ test: new StoredTestRatesFeed(stores.testRates), live: createLiveFeed(config.prices, overrides.log, overrides.metrics) });
  // Before the gateway: a dashboard user's redelivery goes through it.
  const webhooks = new WebhookDispatcher(
    {
      events: stores.webhookEvents,
      secrets,
      clock: systemClock,
      log: overrides.log ?? ((line) => console.error(line)),
      metrics: overrides.metrics,
      changes: database.changes,
    },
    config.webhooks,
  );
  const gateway = new PaymentGateway({
    stores,
    credentials: new Credentials(stores.credentials, { cacheMs: config.credentialCacheMs, secrets }),
    prices,
    rails: new HdWalletRails({ testChainIds: config.chains.testChainIds }),
    qr: new PngQrRenderer(),
    clock: systemClock,
    secrets,
    changes: database.changes,
    redelivery: webhooks,
    privateWebhookTargets: config.webhooks.privateTargets,
    publicUrl: config.publicUrl,
    dashboard: {
      requireSecondFactor: config.dashboard.requireSecondFactor,
      sessions: { reauthenticationMs: config.dashboard.reauthenticationMs },
    },
    webhookSender: webhookSender(config.webhooks),
    lifecycle: {
      initiatedWindowMs: config.lifecycle.initiatedWindowMs,
      checkoutWindowMs: config.lifecycle.checkoutWindowMs,
      underpaymentTolerance: new Decimal(config.lifecycle.underpaymentTolerance),
    },
  });
  overrides.metrics?.observeDatabase({ webhookBacklog: () => gateway.webhookBacklog(), poolStats: database.poolStats });
  const expiry = new ExpiryScheduler(gateway, config.lifecycle.expiryIntervalMs, overrides.log, overrides.metrics);
  const chains = overrides.chains ?? new ChainWatchers(config.chains);
  const watcher = new PaymentWatcher(
    gateway,
    chains,
    { ...config.watch, requiredConfirmations: (currency) => config.chains.requiredConfirmations(currency) },
    overrides.log,
    config.database.kind === "postgres" ? new PostgresWatchShares(config.database.url, overrides.log) : wholeWatchList,
    overrides.metrics,
  );
  return {
    gateway,
    prices,
    database,
    rateLimiter: new RateLimiter(rateLimitCounters(database.db), config.rateLimits, systemClock),
    webhooks,
    expiry,
    watcher,
    startBackgroundJobs: (jobs = { webhooks: true, expiry: true, watcher: true }) => {
      if (jobs.webhooks) webhooks.start();
      if (jobs.expiry) expiry.start();
      if (jobs.watcher) watcher.start();
    },
    close: async () => {
      await Promise.all([webhooks.stop(), expiry.stop(), watcher.stop()]);
      await database.close();
    },
  };
}

/**
 * The key that encrypts webhook secrets. From PAYGATE_ENCRYPTION_KEY; on the embedded database a
 * key file is made beside it on first start. With PostgreSQL several instances must share one key,
 * so it has to be given.
 */
export function loadSecretBox(config: Config): SecretBox {
  if (config.encryptionKey) return SecretBox.fromString(config.encryptionKey);
  if (config.database.kind === "postgres") {
    throw new ConfigError(
      "PAYGATE_ENCRYPTION_KEY is required with DATABASE_URL (every instance must share it). Generate one with: openssl rand -base64 32",
    );
  }
  const file = path.join(config.dataDir, "encryption.key");
  if (!existsSync(file)) {
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  }
  return SecretBox.fromString(readFileSync(file, "utf8"));
}
