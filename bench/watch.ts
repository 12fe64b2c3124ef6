// `npm run bench:watch`: the cost of watching payment addresses as their number grows. PaymentWatcher
// passes over N PENDING transactions on PostgreSQL, through each backend:
//
//   esplora  BTC test addresses read from a local Esplora server that answers after a set latency
//            (a remote node's round trip) with an empty history: one request per address per pass.
//   core     LTC test addresses (regtest rltc1…) on a real Litecoin Core regtest node (litecoind, the
//            own-node backend core-rpc.ts): the addresses imported into its watch-only wallet at the
//            first pass (100 a request), a few of them paid (some mined, some in the mempool), then
//            the same few requests per pass whatever N.
//
// For each N it prints the wall time, the node requests (HTTP requests the node received; a JSON-RPC
// batch is one) and the CPU per pass: this process's (the watcher, its database client and, for
// esplora, the local server, which runs in this process) and litecoind's. The first pass of the own
// node, which imports the new addresses, is shown apart (setup); the others are averaged.
//
// With two instances (two watchers on one database, each with its own watch slot, as two processes
// would be), each reads its share of the addresses and the pass is the slower of the two.
//
// Environment: BENCH_WATCH_ADDRESSES ("100,1000,10000"), BENCH_WATCH_BACKENDS ("esplora,core"),
// BENCH_WATCH_PASSES (5, measured passes per point), BENCH_WATCH_LATENCY_MS ("5"),
// BENCH_WATCH_CONCURRENCY ("16"), BENCH_WATCH_INSTANCES ("1") — the last three for esplora, where
// they matter — and BENCH_POSTGRES_URL (where the scratch database is made).
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes, randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { bech32 } from "@scure/base";
import { loadConfig } from "../src/config.ts";
import { CRYPTO_CURRENCIES, type CryptoCurrency } from "../src/core/money/currencies.ts";
import { PaymentWatcher, type WatchReport } from "../src/jobs/payment-watcher.ts";
import { SlotWatchShares } from "../src/core/transactions/watch-shares.ts";
import { PostgresWatchSlots } from "../src/db/watch-slots.ts";
import { ChainWatchers } from "../src/rails/chains/index.ts";
import { GENESIS } from "../src/rails/chains/esplora.ts";
import { startRuntime } from "../src/runtime.ts";
import { FUNDER, startLitecoind, type Litecoind } from "../test/support/litecoind.ts";
import { createScratchDatabase } from "./postgres.ts";

const list = (name: string, fallback: string) => (process.env[name] || fallback).split(",").map((v) => v.trim());
const numbers = (name: string, fallback: string) => list(name, fallback).map(Number);
const ADDRESSES = numbers("BENCH_WATCH_ADDRESSES", "100,1000,10000").sort((a, b) => a - b);
const BACKENDS = list("BENCH_WATCH_BACKENDS", "esplora,core");
const PASSES = Math.max(1, Number(process.env.BENCH_WATCH_PASSES || 5));
const LATENCIES = numbers("BENCH_WATCH_LATENCY_MS", "5");
const CONCURRENCIES = numbers("BENCH_WATCH_CONCURRENCY", "16");
const INSTANCES = numbers("BENCH_WATCH_INSTANCES", "1");
const INTERVAL_S = 15;
/** Payments made to the own node's addresses: this many mined, as many again left in the mempool. */
const PAID = 3;
const BTC = CRYPTO_CURRENCIES.find((c) => c.slug === "BTC") as CryptoCurrency;
const LTC = CRYPTO_CURRENCIES.find((c) => c.slug === "LTC") as CryptoCurrency;

type Runtime = Awaited<ReturnType<typeof startRuntime>>;

interface Measured {
  seconds: number;
  requests: number;
  /** This process's CPU, ms. */
  cpuMs: number;
  /** The node's CPU (litecoind), ms; null where the node runs in this process. */
  nodeCpuMs: number | null;
  reports: WatchReport[];
}

/** A local Esplora server answering after `latencyMs`: the tip, Bitcoin testnet4's genesis, an empty history. */
async function localEsplora(): Promise<{ url: string; requests: () => number; latency: (ms: number) => void; close(): Promise<void> }> {
  let requests = 0;
  let latencyMs = 0;
  const server: Server = createServer((req, res) => {
    requests++;
    const body = req.url === "/blocks/tip/height" ? "900000" : req.url === "/block-height/0" ? GENESIS.bitcoinTestnet4 : "[]";
    setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end(body), latencyMs);
  });
  await listen(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    latency: (ms) => (latencyMs = ms),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Forwards every request to the node and counts them: what the watcher asks of it. */
async function countingProxy(target: string): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  let requests = 0;
  const base = new URL(target);
  const auth = `Basic ${Buffer.from(`${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}`).toString("base64")}`;
  const origin = `${base.protocol}//${base.host}`;
  const server: Server = createServer(async (req, res) => {
    requests++;
    const body = await bodyOf(req);
    const answer = await fetch(`${origin}${req.url ?? "/"}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: auth },
      body,
    });
    res.writeHead(answer.status, { "content-type": "application/json" }).end(Buffer.from(await answer.arrayBuffer()));
  });
  await listen(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function listen(server: Server): Promise<void> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
}

/** litecoind's CPU so far (user + system), ms, from /proc. */
async function nodeCpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** PENDING test transactions in `currency`, `addresses` in order, written 500 a statement. */
async function insertPending(rt: Runtime, merchantId: number, currency: CryptoCurrency, addresses: string[], offset: number): Promise<void> {
  const now = new Date();
  for (let made = 0; made < addresses.length; made += 500) {
    await rt.database.db.transaction.createManyAndReturn({
      select: { id: true },
      data: addresses.slice(made, made + 500).map((address, i) => ({
        id: randomUUID(),
        reference: `bq_watch_${currency.slug}${offset + made + i}`,
        merchantId,
        customerEmail: "w@example.com",
        customerEmailKey: "w@example.com",
        isLive: false,
        status: "PENDING" as const,
        initializedAmount: "10",
        initializedCurrencyId: 1,
        paymentCurrencyId: currency.id,
        paymentAmount: "0.0001",
        paymentAddress: address,
        initiatedAt: now,
        expiresAt: new Date(now.getTime() + 3_600_000),
      })),
    });
  }
}

/** One pass of every watcher at once: its wall time, node requests and CPU. */
async function measure(watchers: PaymentWatcher[], requests: () => number, nodePid: number | null): Promise<Measured> {
  const before = { requests: requests(), cpu: process.cpuUsage(), node: nodePid === null ? 0 : await nodeCpuMs(nodePid) };
  const started = performance.now();
  const reports = await Promise.all(watchers.map((watcher) => watcher.tick()));
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(before.cpu);
  return {
    seconds,
    requests: requests() - before.requests,
    cpuMs: (cpu.user + cpu.system) / 1000,
    nodeCpuMs: nodePid === null ? null : (await nodeCpuMs(nodePid)) - before.node,
    reports,
  };
}

function check(m: Measured, target: number): void {
  const watched = m.reports.reduce((sum, report) => sum + report.watched, 0);
  if (m.reports.some((report) => report.failed > 0)) throw new Error("addresses could not be read");
  if (watched !== target) throw new Error(`${watched} of ${target} addresses were watched`);
}

const average = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const fixed = (n: number, digits: number) => n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

const backendRows: string[] = [];
const sweepRows: string[] = [];

async function benchEsplora(rt: Runtime, merchantId: number, postgresUrl: string): Promise<void> {
  const node = await localEsplora();
  try {
    const chains = new ChainWatchers({ timeoutMs: 10_000, esplora: { BTC: { test: node.url }, LTC: {} }, evm: { ethereum: {}, bsc: {} } });
    let made = 0;
    for (const target of ADDRESSES) {
      console.log(`• esplora: ${target} PENDING BTC transactions…`);
      const addresses = Array.from({ length: target - made }, (_, i) => `tb1qwatch${made + i}`);
      await insertPending(rt, merchantId, BTC, addresses, made);
      made = target;
      for (const latency of LATENCIES) {
        node.latency(latency);
        for (const concurrency of CONCURRENCIES) {
          for (const instances of INSTANCES) {
            const settings = { intervalMs: INTERVAL_S * 1000, concurrency, lateGraceMs: 0, requiredConfirmations: () => 2 };
            const shares = Array.from({ length: instances }, () => new SlotWatchShares(new PostgresWatchSlots(postgresUrl)));
            // Each takes its slot first (as at an instance's first pass), so the measured passes split the list.
            for (const share of shares) await share.current();
            const watchers = shares.map((share) => new PaymentWatcher(rt.gateway.payments, chains, settings, () => {}, share));
            try {
              const passes: Measured[] = [];
              for (let i = 0; i < PASSES; i++) passes.push(await measure(watchers, node.requests, null));
              for (const pass of passes) check(pass, target);
              const seconds = average(passes.map((p) => p.seconds));
              const requests = average(passes.map((p) => p.requests));
              const cpuMs = average(passes.map((p) => p.cpuMs));
              const perSecond = target / seconds;
              if (instances === INSTANCES[0] && concurrency === CONCURRENCIES[0] && latency === LATENCIES[0]) {
                backendRows.push(
                  `| Esplora (local, ${latency} ms) | ${fixed(target, 0)} | – | ${fixed(seconds, 2)} | ${fixed(requests, 0)} | ${fixed(cpuMs, 0)} | – |`,
                );
              }
              sweepRows.push(
                `| ${fixed(target, 0)} | ${latency} | ${concurrency} | ${instances} | ${fixed(seconds, 2)} | ${fixed(requests, 0)} | ${fixed(requests / INTERVAL_S, 0)} | ${fixed(perSecond, 0)} | ${fixed(Math.floor(perSecond * INTERVAL_S), 0)} |`,
              );
              console.log(
                `  latency ${latency} ms, concurrency ${concurrency}, ${instances} instance(s): ${fixed(seconds, 2)} s, ${fixed(requests, 0)} node requests, ${fixed(cpuMs, 0)} ms CPU per pass`,
              );
            } finally {
              await Promise.all(watchers.map((watcher) => watcher.stop()));
            }
          }
        }
      }
    }
  } finally {
    await node.close();
  }
}

/** A random regtest P2WPKH address (rltc1…): a fresh address, as one handed out. */
const regtestAddress = () => bech32.encode("rltc", [0, ...bech32.toWords(randomBytes(20))]);

async function benchCore(rt: Runtime, merchantId: number): Promise<void> {
  const setupStarted = performance.now();
  const node: Litecoind = await startLitecoind();
  const pid = Number((await readFile(join(node.datadir, "regtest", "bitcoind.pid"), "utf8")).trim());
  const proxy = await countingProxy(node.url);
  console.log(`• core: litecoind regtest ready (101 blocks mined) in ${fixed((performance.now() - setupStarted) / 1000, 1)} s`);
  try {
    const chains = new ChainWatchers({
      timeoutMs: 30_000,
      esplora: { BTC: {}, LTC: {} },
      evm: { ethereum: {}, bsc: {} },
      coreNodes: { LTC: { test: { url: proxy.url.replace("://", `://${node.rpcUser}:${node.rpcPassword}@`), chain: "regtest" } } },
      nodeWallet: "paygate",
    });
    const settings = { intervalMs: INTERVAL_S * 1000, concurrency: CONCURRENCIES[0] ?? 16, lateGraceMs: 0, requiredConfirmations: () => 6 };
    const watcher = new PaymentWatcher(rt.gateway.payments, chains, settings, () => {});
    const all: string[] = [];
    try {
      for (const target of ADDRESSES) {
        const fresh = Array.from({ length: target - all.length }, regtestAddress);
        console.log(`• core: ${target} PENDING LTC transactions (${fresh.length} new addresses)…`);
        await insertPending(rt, merchantId, LTC, fresh, all.length);
        all.push(...fresh);
        // Setup: the first pass imports the new addresses into the watch-only wallet.
        const first = await measure([watcher], proxy.requests, pid);
        check(first, target);
        if (target === ADDRESSES[0]) {
          // A few paid: PAID mined, PAID more waiting in the mempool (one getmempoolentry batch per pass).
          for (const address of all.slice(0, PAID)) await node.send("sendtoaddress", [address, 0.001], FUNDER);
          await node.mine(1);
          for (const address of all.slice(PAID, 2 * PAID)) await node.send("sendtoaddress", [address, 0.001], FUNDER);
        }
        await watcher.tick(); // records what the payments changed (writes), not measured
        const passes: Measured[] = [];
        for (let i = 0; i < PASSES; i++) passes.push(await measure([watcher], proxy.requests, pid));
        for (const pass of passes) check(pass, target);
        const seconds = average(passes.map((p) => p.seconds));
        const requests = average(passes.map((p) => p.requests));
        const cpuMs = average(passes.map((p) => p.cpuMs));
        const nodeMs = average(passes.map((p) => p.nodeCpuMs ?? 0));
        backendRows.push(
          `| own node (litecoind regtest) | ${fixed(target, 0)} | ${fixed(first.seconds, 2)} s, ${first.requests} requests | ${fixed(seconds, 2)} | ${fixed(requests, 0)} | ${fixed(cpuMs, 0)} | ${fixed(nodeMs, 0)} |`,
        );
        console.log(
          `  first pass (imports ${fresh.length}): ${fixed(first.seconds, 2)} s, ${first.requests} requests; then ${fixed(seconds, 2)} s, ${fixed(requests, 1)} node requests, ${fixed(cpuMs, 0)} ms CPU, litecoind ${fixed(nodeMs, 0)} ms CPU per pass`,
        );
      }
    } finally {
      await watcher.stop();
    }
  } finally {
    await proxy.close();
    await node.stop();
  }
}

/** A scratch database and a runtime on it for one backend's run: each reads its own watch list. */
async function withRuntime(run: (rt: Runtime, merchantId: number, url: string) => Promise<void>): Promise<void> {
  const scratch = await createScratchDatabase(process.env.BENCH_POSTGRES_URL || "postgres://postgres@127.0.0.1:5432/postgres");
  try {
    const rt = await startRuntime(
      loadConfig({ DATABASE_URL: scratch.url, PAYGATE_ENCRYPTION_KEY: randomBytes(32).toString("base64"), PAYGATE_DB_POOL_MAX: "20" }),
      { log: () => {} },
    );
    try {
      await run(rt, (await rt.gateway.operator.createMerchant({ name: "Watch bench" })).id, scratch.url);
    } finally {
      await rt.close();
    }
  } finally {
    await scratch.drop();
  }
}

async function main(): Promise<void> {
  if (BACKENDS.includes("esplora")) await withRuntime(benchEsplora);
  if (BACKENDS.includes("core")) await withRuntime((rt, merchantId) => benchCore(rt, merchantId));
  console.log(`\nCommand: npm run bench:watch (BENCH_WATCH_ADDRESSES=${ADDRESSES.join(",")}, ${PASSES} measured passes each)\n`);
  console.log(
    "| backend | pending addresses | first pass (imports the new addresses) | one pass s | node requests per pass | CPU ms per pass (bench process) | node CPU ms per pass |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  for (const row of backendRows) console.log(row);
  if (sweepRows.length > 1) {
    console.log(
      `\n| open transactions | node latency ms | concurrency per instance | instances | one pass s | node requests per pass | node req/s at ${INTERVAL_S} s | addresses/s | addresses per ${INTERVAL_S} s interval |`,
    );
    console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (const row of sweepRows) console.log(row);
  }
}

main().catch((error: unknown) => {
  console.error("bench:watch failed:", error);
  process.exit(1);
});
