// The runtime's wiring of the metrics, as the service uses it (main.ts passes one PaygateMetrics to
// startRuntime and to createApp): the configured live price feeds, the database's gauges, the jobs.
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { defaultPoolMax } from "../../src/db/config.ts";
import { cryptoBySlug, fiatBySlug } from "../../src/core/money/currencies.ts";
import { createApp, type PaygateApp } from "../../src/app.ts";
import { createLogger } from "../../src/logging.ts";
import { PaygateMetrics } from "../../src/observability/index.ts";
import { startRuntime, type Runtime } from "../../src/runtime.ts";
import { startFakeUpstream, type FakeUpstream } from "../rails/prices/fake-upstream.ts";
import { createTestDatabase } from "../support/test-database.ts";
import { parseExposition, type Exposition } from "./exposition.ts";

let coingecko: FakeUpstream;
let runtime: Runtime;
let metrics: PaygateMetrics;
let app: PaygateApp;
let server: Server;
let url: string;
let dataDir: string;
let closeDb = async () => {};
const postgres = Boolean(process.env.DATABASE_URL);

beforeAll(async () => {
  coingecko = await startFakeUpstream();
  coingecko.reply({ status: 503, body: "upstream down" });
  dataDir = mkdtempSync(path.join(tmpdir(), "paygate-metrics-"));
  const env: Record<string, string | undefined> = {
    PAYGATE_DATA_DIR: dataDir,
    PAYGATE_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
    PAYGATE_PRICE_FEED: "coingecko",
    PAYGATE_COINGECKO_URL: coingecko.url,
    PAYGATE_PRICE_CACHE_SECONDS: "0",
    PAYGATE_PRICE_MAX_AGE_SECONDS: "0",
  };
  if (postgres) {
    const db = await createTestDatabase();
    env.DATABASE_URL = db.url ?? undefined;
    closeDb = db.close;
  }
  const config = loadConfig(env);
  metrics = new PaygateMetrics({ defaultMetrics: false });
  runtime = await startRuntime(config, { log: () => {}, metrics });
  app = await createApp({ gateway: runtime.gateway, readiness: runtime.database.readiness, logger: createLogger({ level: "silent" }), metrics });
  server = await new Promise((resolve) => {
    const s = app.app.listen(0, "127.0.0.1", () => resolve(s));
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await app?.stop();
  await runtime?.close();
  await closeDb();
  await coingecko?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function scrape(): Promise<Exposition> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  return parseExposition(await res.text());
}

describe("runtime metrics wiring", () => {
  it("counts the configured live provider's failures under its name", async () => {
    const before = await scrape();
    await expect(runtime.prices.quote(cryptoBySlug("BTC")!, fiatBySlug("USD")!, true)).rejects.toThrow(/coingecko/);
    const after = await scrape();
    const provider = { provider: "coingecko" };
    expect(after.count("paygate_price_quote_failures_total", provider) - before.count("paygate_price_quote_failures_total", provider)).toBe(1);
    expect(after.count("paygate_price_refresh_failures_total", provider) - before.count("paygate_price_refresh_failures_total", provider)).toBe(1);
  });

  it("reads the webhook backlog from the runtime's database, and the pool's connections on PostgreSQL only", async () => {
    const exposition = await scrape();
    expect(exposition.value("paygate_webhook_events_pending")).toBe(0);
    expect(exposition.value("paygate_webhook_events_due")).toBe(0);
    expect(exposition.families.has("paygate_db_pool_connections")).toBe(postgres);
    if (postgres) {
      expect(exposition.value("paygate_db_pool_connections")).toBeGreaterThanOrEqual(1);
      expect(exposition.value("paygate_db_pool_max_connections")).toBe(defaultPoolMax()); // PAYGATE_DB_POOL_MAX's default
    }
  });

  it("has the payment watcher report its passes", async () => {
    const before = await scrape();
    await runtime.watcher.tick();
    const after = await scrape();
    expect(after.count("paygate_watcher_pass_duration_seconds_count") - before.count("paygate_watcher_pass_duration_seconds_count")).toBe(1);
    expect(after.value("paygate_watcher_addresses_watched")).toBe(0);
  });
});
