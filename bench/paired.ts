// `npx tsx bench/paired.ts NAME=DIR NAME=DIR …`: the service's CPU per initiate (and per initialize) of
// several builds, measured side by side on PostgreSQL, for a machine too busy for `npm run bench`'s
// absolute figures (docs/benchmarks.md, "The cost per payment").
//
// Each DIR is a built tree (`npm run build` done, node_modules present). Each gets a scratch database,
// a merchant made with its own CLI and the bench's environment (live prices from bench/price-server.ts,
// rate limits raised), and its service from dist/ as production starts it. Then batches of BATCH
// requests (CONC at once) go to one service after the other, the order reversed every round, ROUNDS
// rounds, for each of MODES: `live` and `test` (initiate on a transaction of that mode), `init`
// (initialize, live) and `poll` (GET /v1/transaction/:id with the live secret key, over 50 PENDING
// transactions, as a checkout or a merchant polls). Per batch: the service's CPU (/proc), the CPU of the PostgreSQL backends of its
// database, and with COUNT=1 the statements it sent (bench/count-statements.mjs, preloaded). Printed:
// each batch, then the median and the least per build and mode. Load moves every figure; the pairing
// is what makes two builds comparable. NODE_EXTRA adds node flags ("{name}" is replaced by NAME), e.g.
// NODE_EXTRA="--cpu-prof --cpu-prof-dir=/tmp/prof-{name}". BENCH_POSTGRES_URL as for the bench.
// For an experiment on one build (the same DIR may be given twice, under two names): ENV_<NAME> adds
// variables to its service ("PAYGATE_WEBHOOK_DISPATCHER=false"), SQL_<NAME> runs statements on its
// database once its merchant is made ("DROP TRIGGER …"), and KEEP_DATABASES=1 keeps the scratch
// databases for EXPLAIN afterwards (their URLs are printed). SOCKET_<NAME>=/var/run/postgresql has that build reach
// its database through PostgreSQL's Unix socket instead of TCP.
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { createScratchDatabase, type ScratchDatabase } from "./postgres.ts";
import { startPriceServer } from "./price-server.ts";
import { type Child, freePort, runToCompletion, startChild, waitForHealthy } from "./processes.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const BATCH = Number(process.env.BATCH ?? 150);
const CONC = Number(process.env.CONC ?? 10);
const MODES = (process.env.MODES ?? "live,test,init").split(",") as Mode[];
const ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
/** BIP84's published account key, as in bench/run.ts. */
const LIVE_BTC_ZPUB = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs";
const INITIALIZE_BODY = JSON.stringify({ customer: { email: "bench@example.com", name: "Bench" }, currency: "USD", amount: "100.00" });
const INITIATE_BODY = JSON.stringify({ currency_id: "4" });

type Mode = "live" | "test" | "init" | "poll";
/** How many PENDING transactions the polls go over. */
const POLLED = 50;
interface Keys {
  id: number;
  livePublicKey: string;
  liveSecretKey: string;
  testPublicKey: string;
  testSecretKey: string;
}
interface Figures {
  service: number[];
  database: number[];
  statements: number[];
}
interface Build {
  name: string;
  url: string;
  child: Child;
  keys: Keys;
  ids: { live: string[]; test: string[] };
  /** The PENDING live transactions polled. */
  polled: string[];
  database: ScratchDatabase;
  countFile: string;
  figures: Map<Mode, Figures>;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/**
 * One request on the keep-alive agent. A reused socket that the server closed while idle (its keep-alive timeout ran
 * out as the request left) fails with ECONNRESET before the server read anything: that request is sent again, once,
 * as Node's documentation advises (`request.reusedSocket`). Any other failure ends the run.
 */
async function request(url: string, method: string, where: string, key: string, body: string): Promise<{ status: number; body: string }> {
  try {
    return await send(url, method, where, key, body);
  } catch (error) {
    if (!(error instanceof StaleSocket)) throw error;
    return await send(url, method, where, key, body);
  }
}

class StaleSocket extends Error {}

function send(url: string, method: string, where: string, key: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}${where}`,
      { method, agent, headers: { "content-type": "application/json", authorization: `Bearer ${key}` } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) =>
      reject(req.reusedSocket && error.code === "ECONNRESET" ? new StaleSocket(error.message) : error),
    );
    req.end(body);
  });
}

async function inParallel(count: number, work: () => Promise<void>): Promise<void> {
  let started = 0;
  await Promise.all(
    Array.from({ length: CONC }, async () => {
      while (started < count) {
        started++;
        await work();
      }
    }),
  );
}

async function initialize(build: Build, mode: "live" | "test", count: number, keep: boolean): Promise<void> {
  const key = mode === "live" ? build.keys.livePublicKey : build.keys.testPublicKey;
  await inParallel(count, async () => {
    const reply = await request(build.url, "POST", "/v1/transaction", key, INITIALIZE_BODY);
    if (reply.status !== 201) throw new Error(`${build.name}: initialize answered ${reply.status} ${reply.body.slice(0, 300)}`);
    if (keep) build.ids[mode].push((JSON.parse(reply.body) as { data: { id: string } }).data.id);
  });
}

async function poll(build: Build, count: number): Promise<void> {
  let next = 0;
  await inParallel(count, async () => {
    const id = build.polled[next++ % build.polled.length];
    const reply = await request(build.url, "GET", `/v1/transaction/${id}`, build.keys.liveSecretKey, "");
    if (reply.status !== 200) throw new Error(`${build.name}: poll answered ${reply.status} ${reply.body.slice(0, 300)}`);
  });
}

async function initiate(build: Build, mode: "live" | "test", count: number): Promise<void> {
  await pay(build, mode === "live" ? build.keys.liveSecretKey : build.keys.testSecretKey, build.ids[mode].splice(0, count));
}

async function pay(build: Build, key: string, ids: string[]): Promise<void> {
  let next = 0;
  await inParallel(ids.length, async () => {
    const id = ids[next++];
    const reply = await request(build.url, "POST", `/v1/transaction/${id}/pay`, key, INITIATE_BODY);
    if (reply.status !== 200) throw new Error(`${build.name}: initiate answered ${reply.status} ${reply.body.slice(0, 300)}`);
  });
}

async function start(name: string, root: string): Promise<Build> {
  const database = await createScratchDatabase(ADMIN_URL);
  // SOCKET_<NAME>: the directory of PostgreSQL's Unix socket, which that build reaches its database through (no TCP).
  const socket = process.env[`SOCKET_${name}`];
  const databaseUrl = new URL(database.url);
  if (socket) databaseUrl.searchParams.set("host", socket);
  const countFile = path.join(os.tmpdir(), `paygate-paired-${name}-${process.pid}.json`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: "127.0.0.1",
    DATABASE_URL: databaseUrl.toString(),
    PAYGATE_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "paygate-paired-")),
    PAYGATE_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    PAYGATE_LOG_REQUESTS: "false",
    PAYGATE_PAYMENT_WATCHER: "false",
    PAYGATE_RATE_LIMIT_LIVE: "1000000/s",
    PAYGATE_RATE_LIMIT_TEST: "1000000/s",
    PAYGATE_PRICE_FEED: "coingecko",
    PAYGATE_COINGECKO_URL: prices.url,
    COUNT_FILE: countFile,
  };
  const created = await runToCompletion(
    "merchant create",
    ["bin/paygate.mjs", "merchant", "create", "--name", "Bench", "--kyb", "verified", "--json"],
    env,
    root,
    180_000,
  );
  const keys = JSON.parse(created) as Keys;
  const wallet = ["bin/paygate.mjs", "merchant", "update", String(keys.id), "--wallet", `BTC=${LIVE_BTC_ZPUB}`, "--mode", "live", "--json"];
  await runToCompletion("merchant update", wallet, env, root, 180_000);
  const experiment = process.env[`SQL_${name}`];
  if (experiment) {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query(experiment);
    } finally {
      await client.end();
    }
    console.error(`${name}: ran SQL_${name}`);
  }
  const port = await freePort();
  const extra = (process.env.NODE_EXTRA ?? "")
    .split(" ")
    .filter(Boolean)
    .map((flag) => flag.replaceAll("{name}", name));
  const counting = process.env.COUNT ? ["--import", path.join(HERE, "count-statements.mjs")] : [];
  const args = [...extra, ...counting, "--max-old-space-size=512", "--max-semi-space-size=8", "dist/main.js"];
  const own = Object.fromEntries(
    (process.env[`ENV_${name}`] ?? "")
      .split(" ")
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
  );
  const child = startChild(name, args, { ...env, ...own, PORT: String(port) }, root);
  const url = `http://127.0.0.1:${port}`;
  await waitForHealthy(`${url}/healthz`, child, 120_000);
  const build: Build = { name, url, child, keys, ids: { live: [], test: [] }, polled: [], database, countFile, figures: new Map() };
  for (const mode of ["live", "test"] as const) if (MODES.includes(mode)) await initialize(build, mode, ROUNDS * BATCH + 25, true);
  if (MODES.includes("poll")) {
    await initialize(build, "live", POLLED, true);
    build.polled = build.ids.live.splice(-POLLED);
    await pay(build, build.keys.liveSecretKey, build.polled);
  }
  console.error(`${name}: ready (${root})`);
  return build;
}

async function statements(build: Build): Promise<number> {
  if (!process.env.COUNT || build.child.pid === undefined) return 0;
  process.kill(build.child.pid, "SIGUSR2");
  await new Promise((resolve) => setTimeout(resolve, 300));
  return (JSON.parse(readFileSync(build.countFile, "utf8")) as number[])[0] ?? 0;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

const prices = await startPriceServer();
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
const builds: Build[] = [];
try {
  for (const argument of process.argv.slice(2)) {
    const [name, root] = argument.split("=");
    if (!name || !root) throw new Error(`expected NAME=DIR, got '${argument}'`);
    builds.push(await start(name, path.resolve(root)));
  }
  // Warm-up: the first statements of each kind are parsed, named and planned.
  for (const build of builds) for (const mode of ["live", "test"] as const) if (MODES.includes(mode)) await initiate(build, mode, 25);
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of MODES) {
      for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
        const pid = build.child.pid;
        if (pid === undefined) throw new Error(`${build.name} has no process`);
        await new Promise((resolve) => setTimeout(resolve, 200));
        // Backends of the build's database, by pid: one that connects during the batch (the pool closes
        // idle connections while the other builds run) counts from 0, so none of its work is missed.
        const backendsNow = async () =>
          (await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = $1", [build.database.name])).rows.map((r) => r.pid);
        const cpuOrZero = (backend: number) => {
          try {
            return cpuMs(backend);
          } catch {
            return 0;
          }
        };
        const before = new Map((await backendsNow()).map((backend) => [backend, cpuOrZero(backend)]));
        const databaseMs = async () => (await backendsNow()).reduce((sum, backend) => sum + cpuOrZero(backend) - (before.get(backend) ?? 0), 0);
        const [count0, service0] = [await statements(build), cpuMs(pid)];
        if (mode === "init") await initialize(build, "live", BATCH, false);
        else if (mode === "poll") await poll(build, BATCH);
        else await initiate(build, mode, BATCH);
        const [service1, database, count1] = [cpuMs(pid), await databaseMs(), await statements(build)];
        const figures = build.figures.get(mode) ?? { service: [], database: [], statements: [] };
        build.figures.set(mode, figures);
        figures.service.push((service1 - service0) / BATCH);
        figures.database.push(database / BATCH);
        figures.statements.push((count1 - count0) / BATCH);
        console.error(
          `round ${round} ${mode} ${build.name}: service ${((service1 - service0) / BATCH).toFixed(2)} ms, database ${(database / BATCH).toFixed(2)} ms, statements ${((count1 - count0) / BATCH).toFixed(2)}, load ${os.loadavg()[0]?.toFixed(1)}`,
        );
      }
    }
  }
  console.log(
    `${ROUNDS} rounds of ${BATCH} requests, ${CONC} at once; load average at the end ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  for (const mode of MODES) {
    for (const build of builds) {
      const f = build.figures.get(mode);
      if (!f) continue;
      const line = (values: number[]) => `${median(values).toFixed(2)} (least ${Math.min(...values).toFixed(2)})`;
      console.log(
        `${mode} ${build.name}: service CPU ms ${line(f.service)}, database ${line(f.database)}, statements ${median(f.statements).toFixed(2)}`,
      );
    }
  }
} finally {
  for (const build of builds) {
    await build.child.stop();
    if (process.env.KEEP_DATABASES) console.error(`${build.name}: kept ${build.database.url}`);
    else await build.database.drop().catch(() => {});
  }
  await admin.end();
  await prices.close();
  agent.destroy();
}
