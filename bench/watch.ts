// `npm run bench:watch`: the cost of watching payment addresses. One PaymentWatcher pass over N
// PENDING BTC transactions on PostgreSQL, against a local Esplora server that answers after a set
// latency (a remote node's round trip), for a few concurrencies. Prints how long a pass takes, how
// many requests it sends the node, and so how many addresses one process can watch per interval.
//
// With two instances (two watchers on one database, each with its own watch slot, as two processes
// would be), each reads its share of the addresses and the pass is the slower of the two.
//
// Environment: BENCH_WATCH_ADDRESSES ("1000,5000"), BENCH_WATCH_LATENCY_MS ("5,50"),
// BENCH_WATCH_CONCURRENCY ("4,16"), BENCH_WATCH_INSTANCES ("1,2"), BENCH_POSTGRES_URL (where the
// scratch database is made).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes, randomUUID } from "node:crypto";
import { loadConfig } from "../src/config.ts";
import { CRYPTO_CURRENCIES } from "../src/core/money/currencies.ts";
import { PaymentWatcher } from "../src/jobs/payment-watcher.ts";
import { PostgresWatchShares } from "../src/jobs/watch-shares.ts";
import { ChainWatchers } from "../src/rails/chains/index.ts";
import { startRuntime } from "../src/runtime.ts";
import { createScratchDatabase } from "./postgres.ts";

const list = (name: string, fallback: string) => (process.env[name] || fallback).split(",").map((v) => Number(v.trim()));
const ADDRESSES = list("BENCH_WATCH_ADDRESSES", "1000,5000");
const LATENCIES = list("BENCH_WATCH_LATENCY_MS", "5,50");
const CONCURRENCIES = list("BENCH_WATCH_CONCURRENCY", "4,16");
const INSTANCES = list("BENCH_WATCH_INSTANCES", "1,2");
const INTERVAL_S = 15;
const BTC = CRYPTO_CURRENCIES.find((c) => c.slug === "BTC")!;

/** The two Esplora endpoints the client reads, answering after `latencyMs`: an empty history. */
async function fakeEsplora(): Promise<{ url: string; requests: () => number; latency: (ms: number) => void; close(): Promise<void> }> {
  let requests = 0;
  let latencyMs = 0;
  const server: Server = createServer((req, res) => {
    requests++;
    const body = req.url === "/blocks/tip/height" ? "900000" : "[]";
    setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end(body), latencyMs);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    latency: (ms) => (latencyMs = ms),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function main(): Promise<void> {
  const scratch = await createScratchDatabase(process.env.BENCH_POSTGRES_URL || "postgres://postgres@127.0.0.1:5432/postgres");
  const node = await fakeEsplora();
  const rt = await startRuntime(
    loadConfig({ DATABASE_URL: scratch.url, PAYGATE_ENCRYPTION_KEY: randomBytes(32).toString("base64"), PAYGATE_DB_POOL_MAX: "20" }),
    { log: () => {} },
  );
  const rows: string[] = [];
  try {
    const merchant = await rt.gateway.createMerchant({ name: "Watch bench" });
    const chains = new ChainWatchers({ timeoutMs: 10_000, esplora: { BTC: { test: node.url }, LTC: {} }, evm: { ethereum: {}, bsc: {} } });
    let made = 0;
    for (const target of ADDRESSES) {
      console.log(`• ${target} PENDING BTC transactions…`);
      const now = new Date();
      for (; made < target; made += 500) {
        const n = Math.min(500, target - made);
        await rt.database.db.transaction.createManyAndReturn({
          data: Array.from({ length: n }, (_, i) => ({
            id: randomUUID(),
            reference: `bq_watch${made + i}`,
            merchantId: merchant.id,
            customerEmail: "w@example.com",
            customerEmailKey: "w@example.com",
            isLive: false,
            status: "PENDING" as const,
            initializedAmount: "10",
            initializedCurrencyId: 1,
            paymentCurrencyId: BTC.id,
            paymentAmount: "0.0001",
            paymentAddress: `tb1qwatch${made + i}`,
            initiatedAt: now,
            expiresAt: new Date(now.getTime() + 3_600_000),
          })),
          select: { id: true },
        });
      }
      for (const latency of LATENCIES) {
        node.latency(latency);
        for (const concurrency of CONCURRENCIES) {
          for (const instances of INSTANCES) {
            const settings = { intervalMs: INTERVAL_S * 1000, concurrency, lateGraceMs: 0, requiredConfirmations: () => 2 };
            const shares = Array.from({ length: instances }, () => new PostgresWatchShares(scratch.url));
            // Each takes its slot first (as at an instance's first pass), so the measured passes split the list.
            for (const share of shares) await share.current();
            const watchers = shares.map((share) => new PaymentWatcher(rt.gateway, chains, settings, () => {}, share));
            try {
              const before = node.requests();
              const started = performance.now();
              const reports = await Promise.all(watchers.map((watcher) => watcher.tick()));
              const seconds = (performance.now() - started) / 1000;
              const requests = node.requests() - before;
              const watched = reports.reduce((sum, report) => sum + report.watched, 0);
              if (reports.some((report) => report.failed > 0)) throw new Error("addresses could not be read");
              if (watched !== target) throw new Error(`${instances} instances watched ${watched} of ${target} addresses`);
              const perSecond = watched / seconds;
              rows.push(
                `| ${target} | ${latency} | ${concurrency} | ${instances} | ${seconds.toFixed(2)} | ${requests} | ${(requests / INTERVAL_S).toFixed(0)} | ${perSecond.toFixed(0)} | ${Math.floor(perSecond * INTERVAL_S)} |`,
              );
              console.log(
                `  latency ${latency} ms, concurrency ${concurrency}, ${instances} instance(s): ${watched} addresses in ${seconds.toFixed(2)} s, ${requests} node requests`,
              );
            } finally {
              await Promise.all(watchers.map((watcher) => watcher.stop()));
            }
          }
        }
      }
    }
  } finally {
    await rt.close();
    await node.close();
    await scratch.drop();
  }
  console.log(
    `\n| open transactions | node latency ms | concurrency per instance | instances | one pass s | node requests per pass | node req/s at ${INTERVAL_S} s | addresses/s | addresses per ${INTERVAL_S} s interval |`,
  );
  console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const row of rows) console.log(row);
}

main().catch((error: unknown) => {
  console.error("bench:watch failed:", error);
  process.exit(1);
});
