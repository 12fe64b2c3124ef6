// Wiring shared by the service and the CLI: configuration in, a gateway on an open database out.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import type { Config } from "./config.ts";
import { ConfigError } from "./env.ts";
import { type GatewayDeps, PaymentGateway, systemClock } from "./core/gateway.ts";
import { SecretBox } from "./core/secrets.ts";
import { coinsOn } from "./core/networks.ts";
import type { CryptoCurrency } from "./core/money/currencies.ts";
import { Credentials } from "./core/credentials.ts";
import { openDatabase, type OpenDatabase } from "./db/database.ts";
import { setEventPolicy, setEventPublicUrl } from "./db/outbox.ts";
import { prismaStores } from "./db/stores/index.ts";
import { rateLimitCounters } from "./db/stores/rate-limit-counters.ts";
import { RateLimiter, type RateLimitCounters } from "./core/rate-limits.ts";
import { ModeRoutedFeed } from "./rails/prices/index.ts";
import { createLiveFeed } from "./rails/prices/live.ts";
import { StoredTestRatesFeed } from "./rails/prices/test-rates.ts";
import { PngQrRenderer } from "./rails/qr/index.ts";
import { HdWalletRails } from "./rails/wallets/index.ts";
import { RefundRails } from "./rails/refunds/index.ts";
import type { AddressBalances, AddressWatch, Clock, PriceFeed } from "./core/ports.ts";
import { WebhookDispatcher } from "./webhooks/dispatcher.ts";
import { WebhookDeliveries } from "./core/webhooks/deliveries.ts";
import { webhookSender } from "./webhooks/http-sender.ts";
import { ExpiryScheduler } from "./jobs/expiry-scheduler.ts";
import { PaymentWatcher, type ConfiguredChains, type WatchSettings } from "./jobs/payment-watcher.ts";
import type { LineLog } from "./jobs/ticker.ts";
import { RefundWatcher } from "./jobs/refund-watcher.ts";
import { SettlementWatcher } from "./jobs/settlement-watcher.ts";
import { ConsolidationPsbts } from "./rails/settlement/index.ts";
import { EvmForwarderRails } from "./rails/evm/flusher.ts";
import { NodeSweepQuotes } from "./rails/settlement/sweep-quotes.ts";
import { ForwarderFlusher } from "./jobs/forwarder-flusher.ts";
import { EmailSender } from "./jobs/email-sender.ts";
import { SmtpTransport } from "./email/transport.ts";
import { invoicePdf, pdfFileName } from "./http/invoice-pdf.ts";
import type { MailTransport } from "./core/email/ports.ts";
import { DEFAULT_EMAIL_RETRY } from "./core/email/ports.ts";
import { SlotWatchShares, wholeWatchList } from "./core/transactions/watch-shares.ts";
import { PostgresWatchSlots } from "./db/watch-slots.ts";
import { ChainWatchers, type NetworkNodeHealth } from "./rails/chains/index.ts";
import { Decimal } from "./core/money/amounts.ts";
import { operatorTestRates } from "./core/test-rates.ts";
import type { PaygateMetrics } from "./observability/metrics.ts";
import type { Stores } from "./core/stores/index.ts";

export interface Runtime {
  gateway: PaymentGateway;
  /** The core's stores on the database (the gateway's). */
  stores: Stores;
  /** The price feed the gateway quotes from (both modes). */
  prices: PriceFeed;
  database: OpenDatabase;
  /** Not started: the service starts it (PAYGATE_WEBHOOK_DISPATCHER), as does `paygate worker`. */
  webhooks: WebhookDispatcher;
  /** Not started: the service starts it (PAYGATE_EXPIRY_SCHEDULER). */
  expiry: ExpiryScheduler;
  /** Not started: the service starts it (PAYGATE_PAYMENT_WATCHER). */
  watcher: PaymentWatcher;
  /** Not started: started with the payment watcher. Closes refunds whose transaction reached the destination (issue 26). */
  refundWatcher: RefundWatcher;
  /** Not started: started with the payment watcher. Sees consolidations mined (issue 40). */
  settlementWatcher: SettlementWatcher;
  /** Not started: started with the payment watcher. Flushes deposit forwarders past the thresholds and reads sending flushes back (issue 40). */
  forwarderFlusher: ForwarderFlusher;
  /** Not started: the service starts it (PAYGATE_EMAIL_SENDER). Derives customers' e-mails from the events and sends them (issue 44). */
  emailSender: EmailSender;
  /** The rate limits of the HTTP API (PAYGATE_RATE_LIMIT_*), counted in the database for every instance. */
  rateLimiter: RateLimiter;
  /** Each network and mode's chain nodes with their health (failover: src/rails/chains/node-pool.ts); none with a test's own watcher. */
  nodeHealth(): NetworkNodeHealth[];
  /** The service's and `paygate worker`'s background jobs; the CLI's other commands start none. */
  startBackgroundJobs(jobs?: { webhooks: boolean; expiry: boolean; watcher: boolean; email?: boolean }): void;
  close(): Promise<void>;
}

/** What a caller gives besides the configuration: the service gives log and metrics; the tests (test/support/gateway.ts) more. */
/** The payment watcher's settings: confirmations and finality per coin × network (TRON: 19, not Ethereum's 64). */
export function watchSettings(config: Config): WatchSettings {
  return {
    ...config.watch,
    requiredConfirmations: (currency, network) => config.chains.requiredConfirmations(currency, network),
    finalityConfirmations: (currency, network) => config.chains.finalityConfirmations(currency, network),
  };
}

export interface RuntimeOverrides {
  prices?: PriceFeed;
  chains?: ConfiguredChains;
  /** The jobs' lines; a failing chain node's at `warn` (src/logging.ts's lineLogger takes the level). */
  log?: LineLog;
  /** Prometheus metrics (GET /metrics, given to createApp too): the jobs, the price feeds and the database report to it. */
  metrics?: PaygateMetrics;
  /** An open database instead of opening config.database (a test's fresh database, or a second instance on one); closed with the runtime. */
  database?: OpenDatabase;
  /** The key that seals webhook secrets, instead of loadSecretBox(config) (a second instance shares the first's). */
  secrets?: SecretBox;
  /** The clock of the gateway, its credentials and the webhook dispatcher (a test moves it past an end); the system's by default. */
  clock?: Clock;
  /**
   * The rate limiter's counters (the database's by default) and clock (the gateway's by default: the
   * limiter prunes the counters that the sign-in throttles write too, so one clock must end their windows).
   */
  rateLimits?: { counters?: RateLimitCounters; clock?: Clock };
  /** Who hears of handed-out addresses (the chains by default); null: nobody, the watcher's pass takes them (a test of that). */
  addressWatch?: AddressWatch | null;
  /** Over config.dashboard: sign-in limits, session lifetimes, the second factor's rules. */
  dashboard?: GatewayDeps["dashboard"];
  /** The mail transport instead of SMTP over config.email.smtpUrl (null: none, nothing is sent). */
  mailTransport?: MailTransport | null;
}

export async function startRuntime(config: Config, overrides: RuntimeOverrides = {}): Promise<Runtime> {
  const secrets = overrides.secrets ?? loadSecretBox(config);
  const clock = overrides.clock ?? systemClock;
  const database = overrides.database ?? (await openDatabase(config.database, { log: overrides.log }));
  const stores = prismaStores(database.db, { initiateMemoryMs: config.credentialCacheMs, now: () => clock.now().getTime() });
  const lifecycle = {
    initiatedWindowMs: config.lifecycle.initiatedWindowMs,
    checkoutWindowMs: config.lifecycle.checkoutWindowMs,
    underpaymentTolerance: new Decimal(config.lifecycle.underpaymentTolerance),
    policyBounds: config.lifecycle.policyBounds,
  };
  // Webhook bodies show the payment state as the APIs do, with the operator's tolerance.
  setEventPolicy(database.db, lifecycle);
  // invoice.paid shows the invoice's hosted_url as REST does.
  setEventPublicUrl(database.db, config.publicUrl);
  // Test mode: the operator's test rates (table test_rates, else the defaults). Live mode: the
  // configured providers, one cache per process shared by every request.
  const prices =
    overrides.prices ??
    new ModeRoutedFeed({
      test: new StoredTestRatesFeed(operatorTestRates(stores.testRates)),
      live: createLiveFeed(config.prices, overrides.log, overrides.metrics),
    });
  // Before the gateway: a dashboard user's redelivery goes through it.
  const webhooks = new WebhookDispatcher(
    {
      deliveries: new WebhookDeliveries(stores.webhookEndpoints, clock, { scheduleMs: config.webhooks.retryScheduleMs }),
      secrets,
      clock,
      log: overrides.log ?? ((line) => console.error(line)),
      metrics: overrides.metrics,
      changes: database.changes,
    },
    config.webhooks,
  );
  const chains = overrides.chains ?? new ChainWatchers(config.chains);
  const smtp =
    overrides.mailTransport === undefined && config.email.smtpUrl !== null
      ? new SmtpTransport(config.email.smtpUrl, config.email.from, { draw: invoicePdf, fileName: pdfFileName })
      : null;
  const mailTransport = overrides.mailTransport === undefined ? smtp : overrides.mailTransport;
  const rails = new HdWalletRails({ testChainIds: config.chains.testChainIds, utxoTestChains: config.chains.utxoTestChains });
  const gateway = new PaymentGateway({
    stores,
    ...(hasHoldings(chains) ? { balances: chains } : {}),
    ...(chains instanceof ChainWatchers ? { nodes: chains } : {}),
    ...addressWatchOf(overrides.addressWatch, chains),
    credentials: new Credentials(stores.credentials, { cacheMs: config.credentialCacheMs, secrets, clock }),
    prices,
    rails,
    // Refunds' unsigned transactions: the payment watcher's nodes are asked for gas, fees and raw transactions.
    refundPayments: new RefundRails({
      rails,
      wallets: (walletId) => stores.merchants.walletKey(walletId),
      chains: chains instanceof ChainWatchers ? chains : undefined,
      testChainIds: config.chains.testChainIds,
      utxoTestChains: config.chains.utxoTestChains,
    }),
    // Consolidations' PSBTs (issue 40): an own node is asked which outputs are still unspent.
    consolidationRails: new ConsolidationPsbts({
      wallets: (walletId) => stores.merchants.walletKey(walletId),
      chains: chains instanceof ChainWatchers ? chains : undefined,
      testChainIds: config.chains.testChainIds,
      utxoTestChains: config.chains.utxoTestChains,
    }),
    // Deposit forwarders (issue 40): addresses, checks and the fee payer's flushes on the EVM nodes.
    ...(chains instanceof ChainWatchers
      ? {
          forwarderRails: new EvmForwarderRails({
            config: config.forwarders,
            chains,
            // An EVM network's depths are its own, whichever of its coins is named.
            finality: (network) => config.chains.finalityConfirmations(coinsOn(network)[0] as CryptoCurrency, network),
            testChainIds: config.chains.testChainIds,
            utxoTestChains: config.chains.utxoTestChains,
          }),
          // Sweep plans (issue 40): holdings and fees of per-payment addresses on the account networks' nodes.
          sweepRails: new NodeSweepQuotes(chains),
        }
      : {}),
    qr: new PngQrRenderer(),
    clock,
    secrets,
    changes: database.changes,
    redelivery: webhooks,
    privateWebhookTargets: config.webhooks.privateTargets,
    webhookEndpointsMax: config.webhooks.endpointsMax,
    webhookTestEventDetails: config.webhooks.testEventDetails,
    publicUrl: config.publicUrl,
    refundClaimDays: config.refundClaimDays,
    ownAddresses: config.ownAddresses,
    explorers: config.chains.explorers,
    dashboard: {
      requireSecondFactor: config.dashboard.requireSecondFactor,
      ...overrides.dashboard,
      sessions: { reauthenticationMs: config.dashboard.reauthenticationMs, ...overrides.dashboard?.sessions },
    },
    webhookSender: webhookSender(config.webhooks),
    lifecycle,
    email: {
      transport: mailTransport,
      retry: { ...DEFAULT_EMAIL_RETRY, maxAttempts: config.email.maxAttempts, firstDelayMs: config.email.firstDelayMs },
      reminderDays: config.email.reminderDays,
    },
  });
  overrides.metrics?.observeDatabase({
    webhookBacklog: () => gateway.operator.webhookBacklog(),
    webhookDeliveriesBacklog: () => gateway.operator.webhookDeliveriesBacklog(),
    poolStats: database.poolStats,
  });
  const expiry = new ExpiryScheduler(gateway, config.lifecycle.expiryIntervalMs, overrides.log, overrides.metrics);
  // Its own clients of the same nodes: the destinations stay in its block scan, not in the payment watcher's pass.
  const refundWatcher = new RefundWatcher(
    gateway.refunds,
    chains instanceof ChainWatchers ? new ChainWatchers(config.chains) : chains,
    { intervalMs: config.watch.intervalMs, requiredConfirmations: (currency, network) => config.chains.requiredConfirmations(currency, network) },
    overrides.log,
  );
  const settlementWatcher = new SettlementWatcher(
    gateway.settlement,
    chains instanceof ChainWatchers ? new ChainWatchers(config.chains) : chains,
    { intervalMs: config.watch.intervalMs, requiredConfirmations: (currency, network) => config.chains.requiredConfirmations(currency, network) },
    overrides.log,
  );
  const watcher = new PaymentWatcher(
    gateway.payments,
    chains,
    watchSettings(config),
    overrides.log,
    config.database.kind === "postgres" ? new SlotWatchShares(new PostgresWatchSlots(config.database.url), overrides.log) : wholeWatchList,
    overrides.metrics,
  );
  const forwarderFlusher = new ForwarderFlusher(
    gateway.settlement,
    { minPayments: config.forwarders.flush.minPayments, maxAgeMs: config.forwarders.flush.maxAgeMs },
    config.forwarders.flush.intervalMs,
    overrides.log,
    overrides.metrics,
  );
  const emailSender = new EmailSender(gateway.email, config.email.pollMs, overrides.log);
  return {
    gateway,
    stores,
    emailSender,
    prices,
    database,
    rateLimiter: new RateLimiter(
      overrides.rateLimits?.counters ?? rateLimitCounters(database.db),
      config.rateLimits,
      overrides.rateLimits?.clock ?? clock,
    ),
    webhooks,
    expiry,
    watcher,
    refundWatcher,
    settlementWatcher,
    forwarderFlusher,
    nodeHealth: () => (chains instanceof ChainWatchers ? chains.nodeHealth() : []),
    startBackgroundJobs: (jobs = { webhooks: true, expiry: true, watcher: true }) => {
      if (jobs.webhooks) webhooks.start();
      if (jobs.email ?? config.email.sender) emailSender.start();
      if (jobs.expiry) expiry.start();
      if (jobs.watcher) {
        watcher.start();
        refundWatcher.start();
        settlementWatcher.start();
        forwarderFlusher.start();
      }
    },
    close: async () => {
      await Promise.all([
        webhooks.stop(),
        expiry.stop(),
        watcher.stop(),
        refundWatcher.stop(),
        settlementWatcher.stop(),
        forwarderFlusher.stop(),
        emailSender.stop(),
      ]);
      smtp?.close();
      await database.close();
    },
  };
}

/** Who hears of handed-out addresses: the override (null: nobody), else the chain nodes when they take them (ChainWatchers: an own node imports them). */
function addressWatchOf(override: AddressWatch | null | undefined, chains: ConfiguredChains): { addressWatch?: AddressWatch } {
  if (override !== undefined) return override === null ? {} : { addressWatch: override };
  const handedOut = (chains as Partial<AddressWatch>).handedOut;
  return typeof handedOut === "function" ? { addressWatch: chains as ConfiguredChains & AddressWatch } : {};
}

/** The chain nodes read balances too (ChainWatchers does; a test's own watcher may not). */
function hasHoldings(chains: ConfiguredChains): chains is ConfiguredChains & AddressBalances {
  return typeof (chains as Partial<AddressBalances>).holdings === "function";
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
