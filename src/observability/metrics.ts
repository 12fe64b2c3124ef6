// Prometheus metrics of one paygate instance (GET /metrics; docs/metrics.md lists them and what to
// alert on). Each PaygateMetrics has a registry of its own, never prom-client's global one, so
// several gateways in one process (the tests) keep their counts apart.
//
// The request path pays one counter increment and one histogram observation; what needs the
// database (the webhook backlog) or the pool is read when Prometheus scrapes, never per request.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { CRYPTO_CURRENCIES, FIAT_CURRENCIES } from "../core/money/currencies.ts";
import type { PoolStats } from "../db/adapters.ts";
import type { Clock } from "../core/ports.ts";
import type { WebhookBacklog } from "../core/stores/webhook-endpoints.ts";
import type { EventOutcome } from "../core/records/events.ts";
import type {
  ChainNodeHealthView,
  ChainNodeLabels,
  ExpiryMetrics,
  Mode,
  PriceFeedMetrics,
  RateLimitedBucket,
  LiveConnectionMetrics,
  FeePayerMetrics,
  LiveRefusalCap,
  RateLimitMetrics,
  TransactionMetrics,
  WatcherMetrics,
  WebhookMetrics,
} from "./hooks.ts";

export interface MetricsOptions {
  /** Node's process metrics (CPU, memory, event loop lag, GC, handles), prefixed `paygate_`. Default true. */
  defaultMetrics?: boolean;
}

const PREFIX = "paygate_";
const MODES: readonly Mode[] = ["test", "live"];
const ATTEMPT_OUTCOMES = ["delivered", "retrying", "failed"] as const;
type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];
const RATE_LIMITED_BUCKETS: readonly RateLimitedBucket[] = ["live_key", "test_key", "address", "auth_failures"];

export class PaygateMetrics
  implements
    TransactionMetrics,
    WebhookMetrics,
    WatcherMetrics,
    ExpiryMetrics,
    PriceFeedMetrics,
    RateLimitMetrics,
    LiveConnectionMetrics,
    FeePayerMetrics
{
  readonly registry = new Registry();

  private readonly httpRequests: Counter<"route" | "method" | "status">;
  private readonly httpDuration: Histogram<"route" | "method" | "status">;
  private readonly rateLimitedRequests: Counter<"bucket">;
  private readonly initialized: Counter<"currency" | "mode">;
  private readonly initiated: Counter<"currency" | "mode">;
  private readonly expired: Counter<"mode">;
  private readonly reversed: Counter<"coin">;
  private readonly quoteFailures: Counter<"provider">;
  private readonly refreshFailures: Counter<"provider">;
  private readonly providerFailures: Counter<"provider" | "reason">;
  private readonly providerAge: Gauge<"provider">;
  private readonly providerDivergence: Gauge<"provider">;
  private readonly webhookAttempts: Counter<"outcome">;
  private readonly webhookDelay: Histogram;
  private readonly watchDuration: Histogram;
  private readonly watchedAddresses: Gauge;
  private readonly failedAddresses: Gauge;
  private readonly chainNodeErrors: Counter<"coin" | "network" | "mode" | "backend" | "reason">;
  private readonly chainNodeLastSuccess: Gauge<"coin" | "network" | "mode" | "backend">;
  private readonly feePayerBalance: Gauge<"network" | "mode">;
  private readonly feePayerLow: Gauge<"network" | "mode">;
  private backlogWatched = false;
  private deliveriesBacklogWatched = false;
  private poolWatched = false;
  private liveWatched = false;
  private nodesWatched = false;
  private nodeReader: () => readonly ChainNodeHealthView[] = () => [];
  private readonly liveRefusals: Counter<"cap">;

  constructor(options: MetricsOptions = {}) {
    const registers = [this.registry];
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: PREFIX });

    this.httpRequests = new Counter({
      name: `${PREFIX}http_requests_total`,
      help: "HTTP requests answered, by route pattern (not the raw path; (no route) when none matched), method and status.",
      labelNames: ["route", "method", "status"],
      registers,
    });
    this.httpDuration = new Histogram({
      name: `${PREFIX}http_request_duration_seconds`,
      help: "Time from the request's arrival to the end of its response, by route pattern, method and status.",
      labelNames: ["route", "method", "status"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.rateLimitedRequests = new Counter({
      name: `${PREFIX}rate_limited_requests_total`,
      help: "Requests refused with 429, by bucket: live_key, test_key, address (no API key), auth_failures (an address that failed to authenticate too often).",
      labelNames: ["bucket"],
      registers,
    });
    this.initialized = new Counter({
      name: `${PREFIX}transactions_initialized_total`,
      help: "Transactions initialized (REST and GraphQL; idempotent replays not counted), by fiat currency and mode.",
      labelNames: ["currency", "mode"],
      registers,
    });
    this.initiated = new Counter({
      name: `${PREFIX}payments_initiated_total`,
      help: "Payments initiated (a coin chosen, an address handed out; replays not counted), by crypto currency and mode.",
      labelNames: ["currency", "mode"],
      registers,
    });
    this.reversed = new Counter({
      name: `${PREFIX}payments_reversed_total`,
      help: "SUCCESSFUL payments whose counted receipts left the chain afterwards (a reorganisation, a double spend, a replacement): payment.reversed events, by coin.",
      labelNames: ["coin"],
      registers,
    });
    this.expired = new Counter({
      name: `${PREFIX}transactions_expired_total`,
      help: "Transactions the expiry job abandoned because their window closed unpaid, by mode.",
      labelNames: ["mode"],
      registers,
    });
    this.quoteFailures = new Counter({
      name: `${PREFIX}price_quote_failures_total`,
      help: "Live price quotes a provider could not give (stale or missing price), by provider.",
      labelNames: ["provider"],
      registers,
    });
    this.refreshFailures = new Counter({
      name: `${PREFIX}price_refresh_failures_total`,
      help: "Failed upstream calls of a live price provider (timeouts, HTTP errors, bad bodies), by provider, including those the cached price still covered.",
      labelNames: ["provider"],
      registers,
    });
    this.providerFailures = new Counter({
      name: `${PREFIX}price_provider_failures_total`,
      help: "Times a live price provider gave no usable price, by provider and reason (timeout, unreachable, rate_limited, forbidden, http_error, garbage, no_price, stale, out_of_spread).",
      labelNames: ["provider", "reason"],
      registers,
    });
    this.providerAge = new Gauge({
      name: `${PREFIX}price_provider_age_seconds`,
      help: "Age in seconds of the provider answer behind the last price it served, by provider.",
      labelNames: ["provider"],
      registers,
    });
    this.providerDivergence = new Gauge({
      name: `${PREFIX}price_provider_divergence_ratio`,
      help: "How far the provider's rate was from the median at the last quote that asked several providers: |rate - median| / median, by provider.",
      labelNames: ["provider"],
      registers,
    });
    this.webhookAttempts = new Counter({
      name: `${PREFIX}webhook_attempts_total`,
      help: "Webhook delivery attempts by outcome: delivered (2xx), retrying (failed, retry scheduled), failed (failed, no retries left).",
      labelNames: ["outcome"],
      registers,
    });
    this.webhookDelay = new Histogram({
      name: `${PREFIX}webhook_delivery_delay_seconds`,
      help: "Time from an event's commit (its state change) to its successful delivery, retries included; operators' redeliveries excluded.",
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 36_000, 86_400, 259_200],
      registers,
    });
    this.watchDuration = new Histogram({
      name: `${PREFIX}watcher_pass_duration_seconds`,
      help: "Duration of one payment watcher pass over this instance's share of the watched addresses.",
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 60, 120, 300],
      registers,
    });
    this.liveRefusals = new Counter({
      name: `${PREFIX}live_connections_refused_total`,
      help: "Event streams and WebSockets refused by a cap: address, credential, or total (PAYGATE_LIVE_MAX_*).",
      labelNames: ["cap"],
      registers,
    });
    for (const cap of ["address", "credential", "total"] as const) this.liveRefusals.inc({ cap }, 0);
    this.watchedAddresses = new Gauge({
      name: `${PREFIX}watcher_addresses_watched`,
      help: "Addresses read from their node in the last payment watcher pass of this instance (its share of the watch list).",
      registers,
    });
    this.failedAddresses = new Gauge({
      name: `${PREFIX}watcher_addresses_failed`,
      help: "Addresses whose node did not answer in the last payment watcher pass.",
      registers,
    });
    this.chainNodeErrors = new Counter({
      name: `${PREFIX}chain_node_errors_total`,
      help: "Failed reads of a chain node by coin, network, mode, backend (esplora, core, evm) and reason (timeout, unreachable, http_status, rate_limited, malformed, rpc_error, wrong_network, refused, other); one per failed request, not per address.",
      labelNames: ["coin", "network", "mode", "backend", "reason"],
      registers,
    });
    this.feePayerBalance = new Gauge({
      name: `${PREFIX}fee_payer_balance`,
      help: "The forwarder fee payer's balance in the network's coin (ETH, BNB), at the flush job's last pass, by network and mode.",
      labelNames: ["network", "mode"] as const,
      registers: [this.registry],
    });
    this.feePayerLow = new Gauge({
      name: `${PREFIX}fee_payer_low`,
      help: "1 while the forwarder fee payer holds less than PAYGATE_FEE_PAYER_LOW_BALANCE (flushes may wait), else 0, by network and mode.",
      labelNames: ["network", "mode"] as const,
      registers: [this.registry],
    });
    this.chainNodeLastSuccess = new Gauge({
      name: `${PREFIX}chain_node_last_success_timestamp_seconds`,
      help: "Unix time of the last payment watcher pass that read every address of a coin, network and mode from its node without a failure (passes with no such address leave it as it is).",
      labelNames: ["coin", "network", "mode", "backend"],
      registers,
    });

    for (const mode of MODES) {
      for (const fiat of FIAT_CURRENCIES) this.initialized.inc({ currency: fiat.slug, mode }, 0);
      for (const crypto of CRYPTO_CURRENCIES) this.initiated.inc({ currency: crypto.slug, mode }, 0);
      this.expired.inc({ mode }, 0);
    }
    for (const outcome of ATTEMPT_OUTCOMES) this.webhookAttempts.inc({ outcome }, 0);
    for (const crypto of CRYPTO_CURRENCIES) this.reversed.inc({ coin: crypto.slug }, 0);
    for (const bucket of RATE_LIMITED_BUCKETS) this.rateLimitedRequests.inc({ bucket }, 0);
  }

  /** The exposition's Content-Type. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text exposition; the backlog and pool gauges are read now (their collect functions). */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  httpRequest(route: string, method: string, status: number, seconds: number): void {
    const labels = { route, method, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  rateLimited(bucket: RateLimitedBucket): void {
    this.rateLimitedRequests.inc({ bucket });
  }

  liveConnectionRefused(cap: LiveRefusalCap): void {
    this.liveRefusals.inc({ cap });
  }

  /** The live connections open now, read at each scrape. */
  observeLiveConnections(count: () => number): void {
    if (this.liveWatched) throw new Error("live connections are already observed by this registry");
    this.liveWatched = true;
    const gauge: Gauge = new Gauge({
      name: `${PREFIX}live_connections`,
      help: "Event streams (/graphql/stream) and WebSockets (/graphql) open now on this instance.",
      registers: [this.registry],
      collect: () => gauge.set(count()),
    });
  }

  transactionInitialized(currency: string, mode: Mode): void {
    this.initialized.inc({ currency, mode });
  }

  paymentInitiated(currency: string, mode: Mode): void {
    this.initiated.inc({ currency, mode });
  }

  transactionsExpired(transactions: readonly { isLive: boolean }[]): void {
    for (const transaction of transactions) this.expired.inc({ mode: transaction.isLive ? "live" : "test" });
  }

  quoteFailed(provider: string): void {
    this.quoteFailures.inc({ provider });
  }

  priceRefreshFailed(provider: string): void {
    this.refreshFailures.inc({ provider });
  }

  priceProviderFailed(provider: string, reason: string): void {
    this.providerFailures.inc({ provider, reason });
  }

  priceProviderQuoted(provider: string, ageSeconds: number): void {
    this.providerAge.set({ provider }, ageSeconds);
  }

  priceProviderDivergence(provider: string, ratio: number): void {
    this.providerDivergence.set({ provider }, ratio);
  }

  webhookAttempt(outcome: EventOutcome, createdAt: Date, trigger: "schedule" | "manual"): void {
    const label: AttemptOutcome | null =
      outcome.state === "DELIVERED" ? "delivered" : outcome.state === "PENDING" ? "retrying" : outcome.state === "FAILED" ? "failed" : null;
    if (label === null) return; // skipped: nothing was sent
    this.webhookAttempts.inc({ outcome: label });
    if (outcome.state === "DELIVERED" && trigger === "schedule") {
      this.webhookDelay.observe(Math.max(0, (outcome.at.getTime() - createdAt.getTime()) / 1000));
    }
  }

  watchPass(report: { watched: number; failed: number }, seconds: number): void {
    this.watchDuration.observe(seconds);
    this.watchedAddresses.set(report.watched);
    this.failedAddresses.set(report.failed);
  }

  /**
   * Each configured chain node's health, read at each scrape: paygate_chain_node_healthy (1 while it
   * may be read, 0 while set aside: failing, lagging or on another chain) and paygate_chain_node_head
   * (the head its last probe found), by network, mode and the node's place in its variable's list
   * (1 = the first URL). Never the URL: it may carry credentials.
   */
  observeChainNodes(read: () => readonly ChainNodeHealthView[]): void {
    this.nodeReader = read; // a second app on one registry (tests) reads its own runtime's nodes
    if (this.nodesWatched) return;
    this.nodesWatched = true;
    const labelNames = ["network", "mode", "backend", "node"] as const;
    const healthy: Gauge<(typeof labelNames)[number]> = new Gauge({
      name: `${PREFIX}chain_node_healthy`,
      help: "1 while a chain node may be read, 0 while it is set aside (failing, lagging behind the others' head, or on another chain), by network, mode, backend and the node's place in its variable's list (1 = first).",
      labelNames,
      registers: [this.registry],
      collect: () => {
        healthy.reset();
        head.reset();
        for (const pool of this.nodeReader()) {
          for (const node of pool.nodes) {
            const labels = { network: pool.network, mode: pool.mode, backend: pool.backend, node: String(node.index) };
            healthy.set(labels, node.state === "healthy" || node.state === "unknown" ? 1 : 0);
            if (node.head !== null) head.set(labels, node.head);
          }
        }
      },
    });
    const head: Gauge<(typeof labelNames)[number]> = new Gauge({
      name: `${PREFIX}chain_node_head`,
      help: "The head block a chain node's last probe found (nodes of a list are compared by it), by network, mode, backend and place in the list.",
      labelNames,
      registers: [this.registry],
    });
  }

  chainNodeFailed(node: ChainNodeLabels, reason: string): void {
    this.chainNodeErrors.inc({ ...node, reason });
  }

  chainNodeAnswered(node: ChainNodeLabels, at: Date): void {
    this.chainNodeLastSuccess.set({ ...node }, at.getTime() / 1000);
  }

  feePayerObserved(network: string, mode: Mode, balance: string, low: boolean): void {
    this.feePayerBalance.set({ network, mode }, Number(balance));
    this.feePayerLow.set({ network, mode }, low ? 1 : 0);
  }

  paymentReversed(coin: string): void {
    this.reversed.inc({ coin });
  }

  /**
   * The webhook backlog (the deliveries to the modes' first endpoints, and those to the other endpoints: one queue,
   * two gauge families whose names operators' alerts use), and the pool's connections on PostgreSQL: read at each scrape.
   */
  observeDatabase(
    reads: {
      webhookBacklog: () => Promise<WebhookBacklog>;
      webhookDeliveriesBacklog?: () => Promise<WebhookBacklog>;
      poolStats?: () => PoolStats;
    },
    clock: Clock = { now: () => new Date() },
  ): void {
    this.observeWebhookBacklog(reads.webhookBacklog, clock);
    if (reads.webhookDeliveriesBacklog) this.observeWebhookDeliveriesBacklog(reads.webhookDeliveriesBacklog, clock);
    if (reads.poolStats) this.observeDatabasePool(reads.poolStats);
  }

  /**
   * Gauges of the first endpoints' deliveries, from one indexed query per scrape (shared by the three gauges). If the
   * database cannot be read they show NaN for that scrape, and the rest of the scrape still answers.
   */
  observeWebhookBacklog(webhookBacklog: () => Promise<WebhookBacklog>, clock: Clock): void {
    if (this.backlogWatched) throw new Error("the webhook backlog is already observed by this registry");
    this.backlogWatched = true;
    this.backlogGauges(webhookBacklog, clock, {
      pending: [
        "webhook_events_pending",
        "Undelivered webhook events: due, being sent, or waiting for a retry (NaN when the database could not be read).",
      ],
      due: [
        "webhook_events_due",
        "Webhook events a dispatcher would send now: due, and not behind an undelivered earlier event of their transaction.",
      ],
      oldest: [
        "webhook_oldest_due_age_seconds",
        "How long the longest-waiting due webhook event has waited since it fell due (its commit, or its retry time); 0 when none is due.",
      ],
    });
  }

  /**
   * The same gauges for the deliveries to the endpoints other than a mode's first (issue 27's webhook
   * endpoints: each delivery has a schedule of its own), from their own table.
   */
  observeWebhookDeliveriesBacklog(deliveriesBacklog: () => Promise<WebhookBacklog>, clock: Clock): void {
    if (this.deliveriesBacklogWatched) throw new Error("the webhook deliveries' backlog is already observed by this registry");
    this.deliveriesBacklogWatched = true;
    this.backlogGauges(deliveriesBacklog, clock, {
      pending: [
        "webhook_deliveries_pending",
        "Undelivered deliveries to enabled webhook endpoints other than a mode's first: due, being sent, or waiting for a retry (NaN when the database could not be read).",
      ],
      due: [
        "webhook_deliveries_due",
        "Deliveries to webhook endpoints other than a mode's first that a dispatcher would send now: due, and not behind an undelivered earlier delivery of their transaction to the same endpoint.",
      ],
      oldest: [
        "webhook_deliveries_oldest_due_age_seconds",
        "How long the longest-waiting due delivery to a webhook endpoint other than a mode's first has waited since it fell due; 0 when none is due.",
      ],
    });
  }

  /** Three gauges from one read per scrape (shared by them); NaN for that scrape when the database cannot be read. */
  private backlogGauges(
    readBacklog: () => Promise<WebhookBacklog>,
    clock: Clock,
    names: Record<"pending" | "due" | "oldest", [name: string, help: string]>,
  ): void {
    const registers = [this.registry];
    let inFlight: Promise<WebhookBacklog | null> | undefined;
    const read = (): Promise<WebhookBacklog | null> =>
      (inFlight ??= readBacklog()
        .catch(() => null)
        .finally(() => {
          inFlight = undefined;
        }));
    const pending: Gauge = new Gauge({
      name: `${PREFIX}${names.pending[0]}`,
      help: names.pending[1],
      registers,
      collect: async () => {
        const backlog = await read();
        pending.set(backlog ? backlog.pending : Number.NaN);
      },
    });
    const due: Gauge = new Gauge({
      name: `${PREFIX}${names.due[0]}`,
      help: names.due[1],
      registers,
      collect: async () => {
        const backlog = await read();
        due.set(backlog ? backlog.due : Number.NaN);
      },
    });
    const oldest: Gauge = new Gauge({
      name: `${PREFIX}${names.oldest[0]}`,
      help: names.oldest[1],
      registers,
      collect: async () => {
        const backlog = await read();
        const at = backlog?.oldestDueAt;
        oldest.set(!backlog ? Number.NaN : at ? Math.max(0, (clock.now().getTime() - at.getTime()) / 1000) : 0);
      },
    });
  }

  /** The PostgreSQL pool's connections (pg.Pool), read at each scrape. */
  observeDatabasePool(stats: () => PoolStats): void {
    if (this.poolWatched) throw new Error("a database pool is already observed by this registry");
    this.poolWatched = true;
    const gauge = (name: string, help: string, value: (s: PoolStats) => number) => {
      const g: Gauge = new Gauge({ name: `${PREFIX}${name}`, help, registers: [this.registry], collect: () => g.set(value(stats())) });
    };
    gauge("db_pool_connections", "Open connections of the PostgreSQL pool, busy and idle.", (s) => s.total);
    gauge("db_pool_idle_connections", "Open connections of the PostgreSQL pool that are idle.", (s) => s.idle);
    gauge(
      "db_pool_waiting_clients",
      "Queries waiting for a connection of the PostgreSQL pool (all are busy and it is at its maximum).",
      (s) => s.waiting,
    );
    gauge("db_pool_max_connections", "The PostgreSQL pool's maximum (PAYGATE_DB_POOL_MAX).", (s) => s.max);
  }
}
