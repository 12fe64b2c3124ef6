// GET /metrics: the Prometheus exposition of one gateway, read back with a strict parser. Each
// check compares a scrape after an action with one before it, so a counter that does not move,
// moves twice, or moves under other labels fails.
import { describe, expect, it } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import type { ChainWatcher } from "../../src/core/ports.ts";
import { openDatabase } from "../../src/db/database.ts";
import { webhookEndpointStore } from "../../src/db/stores/webhook-endpoints.ts";
import type { Database } from "../../src/db/types.ts";
import { ExpiryScheduler } from "../../src/jobs/expiry-scheduler.ts";
import { PaymentWatcher } from "../../src/jobs/payment-watcher.ts";
import { PaygateMetrics } from "../../src/observability/index.ts";
import { createLiveFeed } from "../../src/rails/prices/live.ts";
import { CachedPriceFeed, type RateSet } from "../../src/rails/prices/cached-feed.ts";
import { PriceFeedError } from "../../src/rails/prices/errors.ts";
import { pairKey } from "../../src/rails/prices/rates.ts";
import { cryptoBySlug, fiatBySlug } from "../../src/core/money/currencies.ts";
import { gatewayAndReceiverForFile, startTestGateway, type TestGateway } from "../support/gateway.ts";
import { setFirstDelivery } from "../support/first-delivery.ts";
import type { WebhookReceiver } from "../support/webhook-receiver.ts";
import { parseExposition, type Exposition, type MetricType } from "./exposition.ts";

let t: TestGateway;
let receiver: WebhookReceiver;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;

gatewayAndReceiverForFile(
  async (started) => {
    ({ t, receiver } = started);
    keys = await t.merchant({ name: "Metered Ltd" });
  },
  { metrics: { defaultMetrics: true } },
);

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const order = { customer: { email: "ada@example.com" }, currency: "USD", amount: "25" };

async function scrape(gateway: TestGateway = t): Promise<Exposition> {
  const res = await fetch(`${gateway.url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  return parseExposition(await res.text());
}

/** How much each sample moved between two scrapes. */
function moved(before: Exposition, after: Exposition) {
  return (name: string, labels: Record<string, string> = {}) => after.count(name, labels) - before.count(name, labels);
}

async function initialize(publicKey: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await t.post("/v1/transaction", order, { ...bearer(publicKey), ...headers });
  expect(res.status).toBe(201);
  return res.body.data.id as string;
}

describe("GET /metrics", () => {
  it("exposes every metric with its HELP and TYPE, all prefixed paygate_", async () => {
    const expected: Record<string, MetricType> = {
      paygate_http_requests_total: "counter",
      paygate_http_request_duration_seconds: "histogram",
      paygate_rate_limited_requests_total: "counter",
      paygate_transactions_initialized_total: "counter",
      paygate_payments_initiated_total: "counter",
      paygate_transactions_expired_total: "counter",
      paygate_price_quote_failures_total: "counter",
      paygate_price_refresh_failures_total: "counter",
      paygate_webhook_attempts_total: "counter",
      paygate_webhook_delivery_delay_seconds: "histogram",
      paygate_webhook_events_pending: "gauge",
      paygate_webhook_events_due: "gauge",
      paygate_webhook_oldest_due_age_seconds: "gauge",
      paygate_watcher_pass_duration_seconds: "histogram",
      paygate_watcher_addresses_watched: "gauge",
      paygate_watcher_addresses_failed: "gauge",
      paygate_payments_reversed_total: "counter",
      // Node's default metrics, under the same prefix.
      paygate_process_cpu_user_seconds_total: "counter",
      paygate_process_start_time_seconds: "gauge",
      paygate_nodejs_eventloop_lag_seconds: "gauge",
      paygate_nodejs_heap_size_used_bytes: "gauge",
      paygate_nodejs_gc_duration_seconds: "histogram",
    };
    const exposition = await scrape();
    for (const [name, type] of Object.entries(expected)) {
      const family = exposition.families.get(name);
      expect(family, name).toBeDefined();
      expect(family?.type, name).toBe(type);
      expect(family?.help?.length ?? 0, name).toBeGreaterThan(10);
    }
    const unprefixed = [...exposition.families.keys()].filter((name) => !name.startsWith("paygate_"));
    expect(unprefixed).toEqual([]);
    // Known label values are there from the start, at 0, so rate() and absent() behave.
    expect(exposition.value("paygate_transactions_initialized_total", { currency: "NGN", mode: "live" })).toBe(0);
    expect(exposition.value("paygate_webhook_attempts_total", { outcome: "failed" })).toBe(0);
    expect(exposition.value("paygate_rate_limited_requests_total", { bucket: "auth_failures" })).toBe(0);
    expect(exposition.value("paygate_payments_reversed_total", { coin: "LTC" })).toBe(0);
  });

  it("counts an initialize once under its currency and mode, and the request under its route and status", async () => {
    const before = await scrape();
    await initialize(keys.testPublicKey);
    const after = await scrape();
    const delta = moved(before, after);
    expect(delta("paygate_transactions_initialized_total", { currency: "USD", mode: "test" })).toBe(1);
    expect(delta("paygate_transactions_initialized_total", { currency: "USD", mode: "live" })).toBe(0);
    expect(delta("paygate_transactions_initialized_total", { currency: "NGN", mode: "test" })).toBe(0);
    const route = { route: "/v1/transaction", method: "POST", status: "201" };
    expect(delta("paygate_http_requests_total", route)).toBe(1);
    expect(delta("paygate_http_request_duration_seconds_count", route)).toBe(1);
    expect(delta("paygate_http_request_duration_seconds_bucket", { ...route, le: "+Inf" })).toBe(1);
    expect(after.count("paygate_http_request_duration_seconds_sum", route)).toBeGreaterThan(
      before.count("paygate_http_request_duration_seconds_sum", route),
    );
    // The scrape before this one is counted under its own route.
    expect(delta("paygate_http_requests_total", { route: "/metrics", method: "GET", status: "200" })).toBe(1);
  });

  it("counts GraphQL and REST in one place, and an idempotent replay not at all", async () => {
    const before = await scrape();
    const res = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(keys.testPublicKey) },
      body: JSON.stringify({
        query: "mutation($input: InitializeTransactionInput!) { initializeTransaction(input: $input) { id } }",
        variables: { input: { customer: { email: "ada@example.com" }, currency: "NGN", amount: "5000" } },
      }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { errors?: unknown }).errors).toBeUndefined();
    const key = { "idempotency-key": crypto.randomUUID() };
    const first = await initialize(keys.testPublicKey, key);
    expect(await initialize(keys.testPublicKey, key)).toBe(first); // the replay
    const payKey = { "idempotency-key": crypto.randomUUID() };
    const pay = await t.post(`/v1/transaction/${first}/pay`, { currency_id: "4" }, { ...bearer(keys.testSecretKey), ...payKey });
    expect(pay.status).toBe(200);
    const replay = await t.post(`/v1/transaction/${first}/pay`, { currency_id: "4" }, { ...bearer(keys.testSecretKey), ...payKey });
    expect(replay.status).toBe(200);
    expect(replay.body.data.payment_address).toBe(pay.body.data.payment_address); // the replay, not a second initiate
    const after = await scrape();
    const delta = moved(before, after);
    expect(delta("paygate_transactions_initialized_total", { currency: "NGN", mode: "test" })).toBe(1);
    expect(delta("paygate_transactions_initialized_total", { currency: "USD", mode: "test" })).toBe(1);
    expect(delta("paygate_payments_initiated_total", { currency: "BTC", mode: "test" })).toBe(1);
    expect(delta("paygate_payments_initiated_total", { currency: "ETH", mode: "test" })).toBe(0);
    expect(delta("paygate_http_requests_total", { route: "/graphql", method: "POST", status: "200" })).toBe(1);
    expect(delta("paygate_http_requests_total", { route: "/v1/transaction", method: "POST", status: "201" })).toBe(2);
    expect(delta("paygate_http_requests_total", { route: "/v1/transaction/:transaction_id/pay", method: "POST", status: "200" })).toBe(2);
  });

  it("counts a 404 under its status: unmatched paths as (no route), never as the raw path", async () => {
    const before = await scrape();
    expect((await fetch(`${t.url}/no/such/path/${crypto.randomUUID()}`)).status).toBe(404);
    const unknown = crypto.randomUUID();
    expect((await fetch(`${t.url}/v1/transaction/${unknown}`, { headers: bearer(keys.testSecretKey) })).status).toBe(404);
    const after = await scrape();
    const delta = moved(before, after);
    expect(delta("paygate_http_requests_total", { route: "(no route)", method: "GET", status: "404" })).toBe(1);
    expect(delta("paygate_http_requests_total", { route: "/v1/transaction/:transaction_id", method: "GET", status: "404" })).toBe(1);
    const routes = after.families.get("paygate_http_requests_total")?.samples.map((s) => s.labels.route) ?? [];
    expect(routes.some((route) => route?.includes(unknown) || route?.startsWith("/no/"))).toBe(false);
  });

  it("shows the webhook backlog, moves the attempts counter when a dispatcher delivers, and times the deliveries", async () => {
    const hooked = await t.merchant({ name: "Hooked Ltd", testWebhookUrl: receiver.url });
    const before = await scrape();
    const first = await initialize(hooked.testPublicKey);
    await initialize(hooked.testPublicKey);
    let now = await scrape();
    expect(moved(before, now)("paygate_webhook_events_pending")).toBe(2);
    expect(moved(before, now)("paygate_webhook_events_due")).toBe(2);

    // A second event of the first transaction waits behind its first: pending, not due.
    const pay = await t.post(`/v1/transaction/${first}/pay`, { currency_id: "4" }, bearer(hooked.testSecretKey));
    expect(pay.status).toBe(200);
    now = await scrape();
    expect(moved(before, now)("paygate_webhook_events_pending")).toBe(3);
    expect(moved(before, now)("paygate_webhook_events_due")).toBe(2);

    // The oldest due event has waited an hour.
    const event = await t.db.webhookEvent.findFirstOrThrow({ where: { transactionId: first, type: "payment.initiated" } });
    await setFirstDelivery(t.db, event.id, { nextAttemptAt: new Date(Date.now() - 3_600_000) });
    now = await scrape();
    expect(now.value("paygate_webhook_oldest_due_age_seconds")).toBeGreaterThanOrEqual(3600);
    expect(now.value("paygate_webhook_oldest_due_age_seconds")).toBeLessThan(3660);

    const reports = await t.dispatcher().drain();
    const delivered = reports.filter((r) => r.outcome.state === "DELIVERED" && r.attempt !== null).length;
    expect(delivered).toBe(3);
    expect(receiver.received).toHaveLength(3);
    const after = await scrape();
    const delta = moved(before, after);
    expect(delta("paygate_webhook_attempts_total", { outcome: "delivered" })).toBe(3);
    expect(delta("paygate_webhook_attempts_total", { outcome: "retrying" })).toBe(0);
    expect(delta("paygate_webhook_delivery_delay_seconds_count")).toBe(3);
    expect(after.value("paygate_webhook_events_pending")).toBe(0); // the rest (no URL) were skipped
    expect(after.value("paygate_webhook_events_due")).toBe(0);
    expect(after.value("paygate_webhook_oldest_due_age_seconds")).toBe(0);

    // A failed attempt with retries left: counted as retrying, and the event waits (pending, not due).
    receiver.answer = () => ({ status: 500 });
    await initialize(hooked.testPublicKey);
    const retried = await t.dispatcher().drain();
    expect(retried.map((r) => r.outcome.state)).toEqual(["PENDING"]);
    const last = await scrape();
    expect(moved(after, last)("paygate_webhook_attempts_total", { outcome: "retrying" })).toBe(1);
    expect(moved(after, last)("paygate_webhook_attempts_total", { outcome: "delivered" })).toBe(0);
    expect(moved(after, last)("paygate_webhook_delivery_delay_seconds_count")).toBe(0);
    expect(last.value("paygate_webhook_events_pending")).toBe(1);
    expect(last.value("paygate_webhook_events_due")).toBe(0);
    receiver.answer = () => ({ status: 200, body: "ok" });
  });

  it("counts the transactions the expiry job abandons", async () => {
    const id = await initialize(keys.testPublicKey);
    await t.db.transaction.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const before = await scrape();
    const expired = await new ExpiryScheduler(t.gateway, 60_000, undefined, t.metrics).tick();
    expect(expired).toBe(1);
    const after = await scrape();
    expect(moved(before, after)("paygate_transactions_expired_total", { mode: "test" })).toBe(1);
    expect(moved(before, after)("paygate_transactions_expired_total", { mode: "live" })).toBe(0);
  });

  it("times each payment watcher pass and says how many addresses it read and how many failed", async () => {
    const id = await initialize(keys.testPublicKey);
    expect((await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.testSecretKey))).status).toBe(200);
    const settings = { intervalMs: 60_000, concurrency: 2, lateGraceMs: 0, requiredConfirmations: () => 1 };
    const answering: ChainWatcher = { receiptsTo: async () => [] };
    const before = await scrape();
    const report = await new PaymentWatcher(t.gateway.payments, answering, settings, undefined, undefined, t.metrics).tick();
    expect(report.watched).toBeGreaterThan(0);
    let after = await scrape();
    expect(moved(before, after)("paygate_watcher_pass_duration_seconds_count")).toBe(1);
    expect(after.value("paygate_watcher_addresses_watched")).toBe(report.watched);
    expect(after.value("paygate_watcher_addresses_failed")).toBe(0);

    const failing: ChainWatcher = { receiptsTo: async () => Promise.reject(new Error("node down")) };
    const failed = await new PaymentWatcher(t.gateway.payments, failing, settings, undefined, undefined, t.metrics).tick();
    after = await scrape();
    expect(moved(before, after)("paygate_watcher_pass_duration_seconds_count")).toBe(2);
    expect(after.value("paygate_watcher_addresses_failed")).toBe(failed.watched);
    expect(failed.failed).toBe(failed.watched);
  });

  it("counts a payment reversed after it succeeded once, under its coin", async () => {
    const id = await initialize(keys.testPublicKey);
    const pay = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.testSecretKey));
    const address = pay.body.data.payment_address as string;
    const paid = {
      key: `${"cd".repeat(32)}:0`,
      txHash: "cd".repeat(32),
      amount: new Decimal(String(pay.body.data.payment_amount)),
      confirmations: 1,
      blockHeight: 7,
    };
    let onChain = [paid];
    const chain: ChainWatcher = { receiptsTo: async (_currency, _live, to) => (to === address ? onChain : []) };
    const settings = { intervalMs: 60_000, concurrency: 2, lateGraceMs: 0, requiredConfirmations: () => 1, finalityConfirmations: () => 6 };
    const watcher = new PaymentWatcher(t.gateway.payments, chain, settings, undefined, undefined, t.metrics);
    const before = await scrape();
    await watcher.tick();
    expect((await t.db.transaction.findUniqueOrThrow({ where: { id } })).status).toBe("SUCCESSFUL");
    onChain = [];
    // One read without it is not yet a reversal (a node can miss a transaction for a moment); the next one agrees.
    await watcher.tick();
    expect((await t.db.transaction.findUniqueOrThrow({ where: { id } })).reversedAt).toBeNull();
    await watcher.tick();
    expect((await t.db.transaction.findUniqueOrThrow({ where: { id } })).reversedAt).toBeInstanceOf(Date);
    await watcher.tick();
    const after = await scrape();
    expect(moved(before, after)("paygate_payments_reversed_total", { coin: "BTC" })).toBe(1);
    expect(moved(before, after)("paygate_payments_reversed_total", { coin: "LTC" })).toBe(0);
  });

  it("keeps each gateway's counts in its own registry", async () => {
    const other = await startTestGateway({ metrics: { defaultMetrics: true } });
    try {
      const otherKeys = await other.merchant();
      const [mineBefore, otherBefore] = await Promise.all([scrape(), scrape(other)]);
      await initialize(keys.testPublicKey);
      await initialize(keys.testPublicKey);
      const res = await other.post("/v1/transaction", order, bearer(otherKeys.testPublicKey));
      expect(res.status).toBe(201);
      const [mineAfter, otherAfter] = await Promise.all([scrape(), scrape(other)]);
      const usdTest = { currency: "USD", mode: "test" };
      expect(moved(mineBefore, mineAfter)("paygate_transactions_initialized_total", usdTest)).toBe(2);
      expect(moved(otherBefore, otherAfter)("paygate_transactions_initialized_total", usdTest)).toBe(1);
      expect(otherAfter.families.get("paygate_process_cpu_user_seconds_total")?.type).toBe("counter");
    } finally {
      await other.close();
    }
  });
});

describe("price feed metrics", () => {
  const BTC = cryptoBySlug("BTC")!;
  const BNB = cryptoBySlug("BNB")!;
  const USD = fiatBySlug("USD")!;
  const NGN = fiatBySlug("NGN")!;

  /** A provider whose upstream answers as the test says; it never prices BNB. */
  class ScriptedFeed extends CachedPriceFeed {
    readonly name = "scripted";
    answer: () => Promise<RateSet> = async () => ({ rates: new Map([[pairKey("BTC", "USD"), new Decimal(65_000)]]), problems: new Map() });
    protected fetchRates(): Promise<RateSet> {
      return this.answer();
    }
    protected override unsupported(crypto: { slug: string }): string | null {
      return crypto.slug === "BNB" ? "no BNB market" : null;
    }
  }
  const options = { cacheSeconds: 0, maxAgeSeconds: 0, timeoutMs: 1000 };
  const read = async (metrics: PaygateMetrics) => parseExposition(await metrics.render());

  it("counts quotes a provider could not give and its failed upstream calls, by provider", async () => {
    const metrics = new PaygateMetrics({ defaultMetrics: false });
    const feed = new ScriptedFeed({ ...options, metrics });
    const provider = { provider: "scripted" };

    await expect(feed.quote(BTC, USD)).resolves.toMatchObject({ source: "scripted" });
    let exposition = await read(metrics);
    expect(exposition.count("paygate_price_quote_failures_total", provider)).toBe(0);

    await expect(feed.quote(BTC, NGN)).rejects.toThrow(PriceFeedError); // the answer has no BTC/NGN
    await expect(feed.quote(BNB, USD)).rejects.toThrow("no BNB market"); // never priced: not a failure
    exposition = await read(metrics);
    expect(exposition.count("paygate_price_quote_failures_total", provider)).toBe(1);
    expect(exposition.count("paygate_price_refresh_failures_total", provider)).toBe(0);

    feed.answer = () => Promise.reject(new Error("HTTP 503"));
    await expect(feed.quote(BTC, USD)).rejects.toThrow("HTTP 503");
    exposition = await read(metrics);
    expect(exposition.count("paygate_price_quote_failures_total", provider)).toBe(2);
    expect(exposition.count("paygate_price_refresh_failures_total", provider)).toBe(1);
  });

  it("reaches the configured live feeds (createLiveFeed), and no others", async () => {
    const metrics = new PaygateMetrics({ defaultMetrics: false });
    // Port 1 refuses at once: every upstream call fails.
    const config = {
      feeds: ["coingecko" as const],
      coingecko: { url: "http://127.0.0.1:1", apiKey: undefined, plan: "demo" as const },
      kraken: { url: "http://127.0.0.1:1" },
      coinbase: { url: "http://127.0.0.1:1" },
      binance: { url: "http://127.0.0.1:1", ngnSymbol: undefined },
      strategy: "first" as const,
      quorum: 1,
      maxSpreadPercent: "2",
      cacheSeconds: 0,
      maxAgeSeconds: 0,
      timeoutMs: 500,
    };
    const configured = createLiveFeed(config, undefined, metrics);
    const unmetered = createLiveFeed(config);
    await expect(configured.quote(BTC, USD, true)).rejects.toThrow();
    await expect(unmetered.quote(BTC, USD, true)).rejects.toThrow();
    const exposition = await read(metrics);
    expect(exposition.count("paygate_price_quote_failures_total", { provider: "coingecko" })).toBe(1);
    expect(exposition.count("paygate_price_refresh_failures_total", { provider: "coingecko" })).toBe(1);
  });
});

describe("database gauges", () => {
  it("read the webhook backlog as NaN when the database cannot answer, and the scrape still answers", async () => {
    const metrics = new PaygateMetrics({ defaultMetrics: false });
    const unreachable = { $queryRaw: () => Promise.reject(new Error("connection refused")) } as unknown as Database;
    metrics.observeDatabase({ webhookBacklog: () => webhookEndpointStore(unreachable).backlog(new Date(), "first") });
    const exposition = parseExposition(await metrics.render());
    expect(exposition.value("paygate_webhook_events_pending")).toBeNaN();
    expect(exposition.value("paygate_webhook_events_due")).toBeNaN();
    expect(exposition.value("paygate_webhook_oldest_due_age_seconds")).toBeNaN();
    expect(exposition.families.get("paygate_http_requests_total")?.type).toBe("counter");
  });

  it("show the PostgreSQL pool's connections (total, idle, waiting, max); none on PGlite", async () => {
    if (!t.store.url) {
      // PGlite has no pool: no pool gauges rather than zeros that would look like an idle pool.
      const exposition = await scrape();
      expect([...exposition.families.keys()].filter((name) => name.startsWith("paygate_db_pool_"))).toEqual([]);
      return;
    }
    const database = await openDatabase({ kind: "postgres", url: t.store.url, poolMax: 2 }, { migrate: false });
    try {
      expect(database.poolStats).toBeDefined();
      const metrics = new PaygateMetrics({ defaultMetrics: false });
      // The backlog from the test gateway's database: a scrape's own query must not queue on the pool under test.
      metrics.observeDatabase({ webhookBacklog: () => t.gateway.operator.webhookBacklog(), poolStats: database.poolStats });
      const stats = () => database.poolStats!();
      const until = async (condition: () => boolean) => {
        for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
        expect(condition()).toBe(true);
      };
      // Both connections held by transactions, and a third query waiting for one.
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      let inside = 0;
      const holders = [1, 2].map(() =>
        database.db.$transaction(
          async (tx) => {
            await tx.$queryRaw`SELECT 1`;
            inside++;
            await held;
          },
          { timeout: 20_000, maxWait: 10_000 },
        ),
      );
      let waiting: Promise<void> = Promise.resolve();
      try {
        await until(() => inside === 2);
        waiting = database.db.$queryRaw`SELECT 1`.then(() => {}); // a Prisma query runs when awaited
        await until(() => stats().waiting === 1);
        const busy = parseExposition(await metrics.render());
        expect(busy.families.get("paygate_db_pool_connections")?.type).toBe("gauge");
        expect(busy.value("paygate_db_pool_connections")).toBe(2);
        expect(busy.value("paygate_db_pool_idle_connections")).toBe(0);
        expect(busy.value("paygate_db_pool_waiting_clients")).toBe(1);
        expect(busy.value("paygate_db_pool_max_connections")).toBe(2);
      } finally {
        release();
        await Promise.all([...holders, waiting]);
      }
      await until(() => stats().idle === stats().total);
      const idle = parseExposition(await metrics.render());
      expect(idle.value("paygate_db_pool_waiting_clients")).toBe(0);
      expect(idle.value("paygate_db_pool_idle_connections")).toBe(idle.value("paygate_db_pool_connections"));
    } finally {
      await database.close();
    }
  });
});
