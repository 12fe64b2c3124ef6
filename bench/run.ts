// `npm run bench`: the real service under load, on embedded PGlite and on PostgreSQL, against a
// ceiling (a bare Express app doing one INSERT per request on the same database).
//
// First the build (`npm run build`), so that the service runs as in production and in the Docker
// image: the command of `npm run start:prod` (`node --max-old-space-size=512 --max-semi-space-size=8 dist/main.js`); the
// ceiling and the CLI still run through tsx. Then per database: a fresh store, the ceiling, a
// merchant made with the operator CLI (KYB verified, with a live BTC wallet), a local server that
// answers as CoinGecko does (live prices, bench/price-server.ts), the service from dist/ in a child
// process, then
//   initialize, no rate limits                  the same on a service with PAYGATE_RATE_LIMIT_* off,
//                                               started and stopped first: what the limiter costs
//   initialize  POST /v1/transaction            warm-up, then BENCH_SECONDS, two live requests to one
//                                               in test mode; the created ids are kept
//   initiate    POST /v1/transaction/:id/pay    live: each request on another of the live ids, until
//                                               they or BENCH_SECONDS run out (on PostgreSQL half of them)
//   initiate, two instances                     PostgreSQL only: a second service on the same database,
//                                               BENCH_CONNECTIONS on each, the other half of the live ids
//   initiate, test mode                         the test ids on one instance: a test quote is one more read
//   poll GET /v1/transaction/:id, poll GraphQL transaction
//               what a checkout page polls (live public key), on one initiated transaction, at
//               BENCH_POLL_CONNECTIONS (50), BENCH_SECONDS each
//   ceiling insert, again                       the ceiling once more, the service stopped. "% of ceiling"
//                                               and "CPU × ceiling" (the service's and the database's CPU
//                                               per request over the ceiling's) are against the mean of its
//                                               two runs: the machine's speed drifts within a run
// The service's resident memory (VmRSS from /proc) is read once it is healthy (idle, on its own
// progress line and as idleRssMb in the JSON) and sampled during initialize: its peak is the
// "peak RSS" column.
// On PostgreSQL the CPU time of this machine's postgres processes is read around each run too: the
// "DB CPU ms/req" column, the database's share of a request, which the service's figure leaves out.
// The table goes to stdout, the same rows as JSON to bench/results/api.json (its path is printed).
// Exits 1 when anything failed or any request did not succeed, 2 on bad settings.
//
// Environment: BENCH_SECONDS (10), BENCH_CONNECTIONS (10), BENCH_POLL_CONNECTIONS (50), BENCH_DATABASES ("pglite,postgres"),
// BENCH_POSTGRES_URL (postgres://postgres@127.0.0.1:5432/postgres: where the scratch database is made).
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type autocannon from "autocannon";
import { Cleanup } from "./cleanup.ts";
import { phase as runPhase } from "./progress.ts";
import { measure, measureAfterWarmUp, measureTogether, type LoadSpec, type Measurement } from "./load.ts";
import { createScratchDatabase } from "./postgres.ts";
import { startPriceServer } from "./price-server.ts";
import { delay, freePort, killStragglers, runNpmScript, runToCompletion, startChild, waitForHealthy, type Child } from "./processes.ts";
import { formatTable, toRow, withCeilingShares, type DatabaseKind, type Row } from "./report.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/**
 * Node's arguments in `npm run start:prod` (the Docker image's CMD, flags included), on the build the
 * bench makes first; BENCH_SERVICE_NODE_ARGS adds flags before them, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
 */
const SERVICE_ARGS = [...(process.env.BENCH_SERVICE_NODE_ARGS ?? "").split(" ").filter(Boolean), ...productionStartArgs()];
const CEILING_ARGS = ["--import", "tsx", "bench/ceiling.ts"];
/** KYB verified: live mode takes payments only then. */
const CLI_CREATE_MERCHANT = ["bin/paygate.mjs", "merchant", "create", "--name", "Bench", "--kyb", "verified", "--json"];
/** BIP84's published account key ("abandon … about"): the merchant's live BTC wallet. */
const LIVE_BTC_ZPUB = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs";
const INITIALIZE_BODY = JSON.stringify({ customer: { email: "bench@example.com", name: "Bench" }, currency: "USD", amount: "100.00" });
const INITIATE_BODY = JSON.stringify({ currency_id: "4" });
/** What the checkout page asks for on each poll (web/checkout/api.ts), less the QR image. */
const POLL_QUERY =
  "query Poll($id: ID!) { transaction(id: $id) { id status paymentState paymentAmount amountPaid amountUnconfirmed confirmations requiredConfirmations expiresAt } }";
const WARM_UP_SECONDS = 2;
const STARTUP_TIMEOUT_MS = 120_000;
const BUILD_TIMEOUT_MS = 300_000;
/** How long an idle service is left after /healthz answers before its resident memory is read. */
const IDLE_SETTLE_MS = 2_000;
const DATABASES: readonly DatabaseKind[] = ["pglite", "postgres"];

/** `exec node ARGS` in package.json's start:prod: ARGS. Spawned directly, so that the pid sampled is Node's. */
function productionStartArgs(): string[] {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts?: Record<string, string> };
  const script = manifest.scripts?.["start:prod"] ?? "";
  const args = /^(?:exec\s+)?node\s+(.+)$/.exec(script.trim())?.[1]?.split(/\s+/);
  if (!args?.some((arg) => arg.endsWith("dist/main.js"))) {
    throw new Error(`package.json's start:prod is not "exec node … dist/main.js" but '${script}': the bench runs that command`);
  }
  return args;
}

// ---------------------------------------------------------------------------------------------
// Settings

interface Settings {
  seconds: number;
  connections: number;
  pollConnections: number;
  databases: DatabaseKind[];
  postgresAdminUrl: string;
}

class SettingsError extends Error {}

function readSettings(env: NodeJS.ProcessEnv): Settings {
  return {
    seconds: positiveInteger(env, "BENCH_SECONDS", 10),
    connections: positiveInteger(env, "BENCH_CONNECTIONS", 10),
    pollConnections: positiveInteger(env, "BENCH_POLL_CONNECTIONS", 50),
    databases: databaseList(env.BENCH_DATABASES ?? DATABASES.join(",")),
    postgresAdminUrl: env.BENCH_POSTGRES_URL || "postgres://postgres@127.0.0.1:5432/postgres",
  };
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === "") return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new SettingsError(`${name} must be a whole number above 0; got '${text}'.`);
  return Number(text);
}

function databaseList(text: string): DatabaseKind[] {
  const names = [
    ...new Set(
      text
        .split(",")
        .map((name) => name.trim())
        .filter(Boolean),
    ),
  ];
  const known = (name: string): name is DatabaseKind => (DATABASES as readonly string[]).includes(name);
  const unknown = names.filter((name) => !known(name));
  if (names.length === 0 || unknown.length > 0) {
    throw new SettingsError(`BENCH_DATABASES is a comma-separated list of ${DATABASES.join(", ")}; got '${text}'.`);
  }
  return names.filter(known);
}

// ---------------------------------------------------------------------------------------------
// Progress: one line per phase

/** Set on SIGINT/SIGTERM: what fails after that is the interruption, not worth a message. */
let interrupted = false;

const phase = <T>(label: string, work: () => Promise<T>, summary: (value: T) => string) => runPhase(label, work, summary, () => interrupted);

function describe(row: Row): string {
  return `${row.rps.toFixed(1)} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, ${row.errors} errors`;
}

// ---------------------------------------------------------------------------------------------
// The store and the processes

/** One database run: where its data lives and the environment of each process. */
interface Target {
  description: string;
  serviceEnv: NodeJS.ProcessEnv;
  ceilingEnv: NodeJS.ProcessEnv;
}

/** The inherited environment without anything that would point the processes elsewhere. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) {
    if (key.startsWith("PAYGATE_") || key.startsWith("CEILING_") || ["DATABASE_URL", "PORT", "HOST"].includes(key)) delete env[key];
  }
  return env;
}

function serviceEnv(dataDir: string, pricesUrl: string, databaseUrl?: string): NodeJS.ProcessEnv {
  return {
    ...cleanEnv(),
    HOST: "127.0.0.1",
    PAYGATE_DATA_DIR: dataDir,
    PAYGATE_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    PAYGATE_LOG_REQUESTS: "false",
    // The payment watcher would read public test-network nodes for every initiated transaction;
    // this machine measures the API, not the internet. Webhook delivery and expiry run as usual.
    PAYGATE_PAYMENT_WATCHER: "false",
    // Rate limits on, as in production (their counter is one more statement per request), but
    // raised far above this load: one test key at hundreds of requests a second would otherwise
    // get 429 past its 25 a second.
    PAYGATE_RATE_LIMIT_LIVE: "1000000/s",
    PAYGATE_RATE_LIMIT_TEST: "1000000/s",
    // Live prices from CoinGecko's protocol on this machine (bench/price-server.ts), through the
    // service's client and its cache, as in production.
    PAYGATE_PRICE_FEED: "coingecko",
    PAYGATE_COINGECKO_URL: pricesUrl,
    ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
  };
}

/** The same service without any rate limit, to measure what the limiter costs. */
function withoutRateLimits(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, PAYGATE_RATE_LIMIT_LIVE: "off", PAYGATE_RATE_LIMIT_TEST: "off", PAYGATE_RATE_LIMIT_AUTH_FAILURES: "off" };
}

async function tempDir(prefix: string, cleanup: Cleanup): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  cleanup.defer(`remove ${dir}`, () => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function prepareTarget(kind: DatabaseKind, settings: Settings, pricesUrl: string, cleanup: Cleanup): Promise<Target> {
  const dataDir = await tempDir("paygate-bench-data-", cleanup);
  if (kind === "pglite") {
    const ceilingDir = await tempDir("paygate-bench-ceiling-", cleanup);
    return {
      description: `PGlite in ${dataDir}, ceiling in ${ceilingDir}`,
      serviceEnv: serviceEnv(dataDir, pricesUrl),
      ceilingEnv: { ...cleanEnv(), CEILING_PGLITE_DIR: ceilingDir },
    };
  }
  const database = await createScratchDatabase(settings.postgresAdminUrl);
  cleanup.defer(`drop database ${database.name}`, () => database.drop());
  return {
    description: `database ${database.name}`,
    serviceEnv: serviceEnv(dataDir, pricesUrl, database.url),
    ceilingEnv: { ...cleanEnv(), CEILING_DATABASE_URL: database.url },
  };
}

interface Served {
  child: Child;
  url: string;
}

/** Starts a server on a free port and waits for GET /healthz to answer 200. */
async function serve(name: string, args: string[], env: NodeJS.ProcessEnv, cleanup: Cleanup): Promise<Served> {
  const port = await freePort();
  const child = startChild(name, args, { ...env, PORT: String(port) }, ROOT);
  cleanup.defer(`stop ${name}`, () => child.stop());
  const url = `http://127.0.0.1:${port}`;
  await waitForHealthy(`${url}/healthz`, child, STARTUP_TIMEOUT_MS);
  return { child, url };
}

/** SIGTERM, and the exit code once it is gone (0 is a clean stop). */
async function stop(served: Served): Promise<number | null> {
  await served.child.stop();
  return served.child.exited;
}

interface Merchant {
  id: number;
  testPublicKey: string;
  testSecretKey: string;
  livePublicKey: string;
  liveSecretKey: string;
}

function isMerchant(value: unknown): value is Merchant {
  if (typeof value !== "object" || value === null) return false;
  const { id, ...keys } = value as Record<string, unknown>;
  return typeof id === "number" && ["testPublicKey", "testSecretKey", "livePublicKey", "liveSecretKey"].every((k) => typeof keys[k] === "string");
}

/**
 * `paygate merchant create --json`, then its live BTC wallet (`merchant update`), before the service
 * starts: PGlite admits one process at a time.
 */
async function createMerchant(env: NodeJS.ProcessEnv): Promise<Merchant> {
  const stdout = await runToCompletion("paygate merchant create", CLI_CREATE_MERCHANT, env, ROOT, STARTUP_TIMEOUT_MS);
  const value: unknown = JSON.parse(stdout);
  if (!isMerchant(value)) throw new Error(`paygate merchant create --json printed no merchant:\n${stdout}`);
  const wallet = ["bin/paygate.mjs", "merchant", "update", String(value.id), "--wallet", `BTC=${LIVE_BTC_ZPUB}`, "--mode", "live", "--json"];
  await runToCompletion("paygate merchant update", wallet, env, ROOT, STARTUP_TIMEOUT_MS);
  return value;
}

/** Which of the merchant's modes a request is made in, and so with which keys. */
type Mode = "live" | "test";
const publicKeyOf = (merchant: Merchant, mode: Mode) => (mode === "live" ? merchant.livePublicKey : merchant.testPublicKey);
const secretKeyOf = (merchant: Merchant, mode: Mode) => (mode === "live" ? merchant.liveSecretKey : merchant.testSecretKey);

// ---------------------------------------------------------------------------------------------
// The scenarios

/** Keeps the first failed response (status and the start of the body) to show what went wrong. */
class FirstFailure {
  body: string | null = null;

  note(status: number, body: string): void {
    if (this.body === null && (status < 200 || status >= 300)) this.body = `${status} ${body.slice(0, 500)}`;
  }
}

function jsonHeaders(key?: string): Record<string, string> {
  return { "content-type": "application/json", ...(key === undefined ? {} : { authorization: `Bearer ${key}` }) };
}

/** On PostgreSQL the database server's CPU is measured too (on PGlite it is the server's own). */
function loadSpec(kind: DatabaseKind, settings: Settings, served: Served, ...requests: autocannon.Request[]): LoadSpec {
  const databaseCpu = kind === "postgres";
  return { url: served.url, connections: settings.connections, seconds: settings.seconds, requests, serverPid: served.child.pid, databaseCpu };
}

async function runCeiling(
  kind: DatabaseKind,
  target: Target,
  settings: Settings,
  cleanup: Cleanup,
  scenario: "ceiling insert" | "ceiling insert, again",
): Promise<Row> {
  const ceiling = await serve("ceiling", CEILING_ARGS, target.ceilingEnv, cleanup);
  const failure = new FirstFailure();
  const request: autocannon.Request = {
    method: "POST",
    path: "/v1/transaction",
    headers: jsonHeaders(),
    body: INITIALIZE_BODY,
    onResponse: (status, body) => failure.note(status, body),
  };
  let measurement: Measurement;
  try {
    measurement = await measureAfterWarmUp(loadSpec(kind, settings, ceiling, request), WARM_UP_SECONDS);
  } finally {
    await stop(ceiling);
  }
  return toRow(kind, scenario, measurement, failure.body);
}

/** The id of a created transaction in an initialize reply, or null. */
function createdId(body: string): string | null {
  try {
    const reply: unknown = JSON.parse(body);
    const data = (reply as { data?: { id?: unknown } } | null)?.data;
    return typeof data?.id === "string" ? data.id : null;
  } catch {
    return null;
  }
}

async function runInitialize(
  kind: DatabaseKind,
  service: Served,
  merchant: Merchant,
  settings: Settings,
  scenario: "initialize" | "initialize, no rate limits" = "initialize",
): Promise<{ row: Row; ids: Record<Mode, string[]> }> {
  const ids: Record<Mode, string[]> = { live: [], test: [] };
  const failure = new FirstFailure();
  const request = (mode: Mode): autocannon.Request => ({
    method: "POST",
    path: "/v1/transaction",
    headers: jsonHeaders(publicKeyOf(merchant, mode)),
    body: INITIALIZE_BODY,
    onResponse: (status, body) => {
      const id = status === 201 ? createdId(body) : null;
      if (id !== null) ids[mode].push(id);
      failure.note(status, body);
    },
  });
  // Two live transactions to one in test mode: the live ones are initiated by one instance, then two.
  const requests = [request("live"), request("live"), request("test")];
  const memory = scenario === "initialize" ? sampleRss(service.child) : null;
  let measurement: Measurement;
  try {
    measurement = await measureAfterWarmUp(loadSpec(kind, settings, service, ...requests), WARM_UP_SECONDS);
  } finally {
    memory?.stop();
  }
  return { row: { ...toRow(kind, scenario, measurement, failure.body), peakRssMb: memory?.peakMb() ?? null }, ids };
}

/** A process's resident memory now (VmRSS, Linux /proc) in MB; null without /proc or once the process is gone. */
function rssMb(child: Child): number | null {
  if (child.pid === undefined) return null;
  try {
    const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1]);
    return Number.isFinite(kb) ? kb / 1024 : null;
  } catch {
    return null; // no figure rather than a wrong one
  }
}

/** Samples a process's resident memory every 100 ms until stopped; its peak in MB. */
function sampleRss(child: Child): { stop(): void; peakMb(): number | null } {
  let peak: number | null = null;
  const read = () => {
    const now = rssMb(child);
    if (now !== null) peak = Math.max(peak ?? 0, now);
  };
  read();
  const timer = setInterval(read, 100);
  return {
    stop: () => {
      clearInterval(timer);
      read();
    },
    peakMb: () => peak,
  };
}

function megabytes(value: number | null): string {
  return value === null ? "unknown" : `${value.toFixed(0)} MB`;
}

/** What a checkout page polls, with the public key, on one initiated transaction: REST's GET or GraphQL's `transaction`. */
async function runPoll(
  kind: DatabaseKind,
  service: Served,
  merchant: Merchant,
  id: string,
  settings: Settings,
  api: "rest" | "graphql",
): Promise<Row> {
  const failure = new FirstFailure();
  const request: autocannon.Request =
    api === "rest"
      ? { method: "GET", path: `/v1/transaction/${id}`, headers: jsonHeaders(merchant.livePublicKey), onResponse: (s, b) => failure.note(s, b) }
      : {
          method: "POST",
          path: "/graphql",
          headers: jsonHeaders(merchant.livePublicKey),
          body: JSON.stringify({ query: POLL_QUERY, variables: { id } }),
          onResponse: (status, body) => failure.note(status === 200 && body.includes('"errors"') ? 500 : status, body),
        };
  const measurement = await measureAfterWarmUp(
    { ...loadSpec(kind, settings, service, request), connections: settings.pollConnections },
    WARM_UP_SECONDS,
  );
  return toRow(kind, api === "rest" ? "poll GET /v1/transaction/:id" : "poll GraphQL transaction", measurement, failure.body);
}

/** Initiate on each of `urls` at once (`connections` each), each request on another of `ids`, until they or BENCH_SECONDS run out. */
async function runInitiate(kind: DatabaseKind, services: Served[], merchant: Merchant, mode: Mode, ids: string[], settings: Settings): Promise<Row> {
  if (ids.length === 0) throw new Error("initialize created no transactions, so there is nothing to initiate");
  const failure = new FirstFailure();
  let next = 0;
  const request: autocannon.Request = {
    method: "POST",
    path: "/v1/transaction/-/pay",
    headers: jsonHeaders(secretKeyOf(merchant, mode)),
    body: INITIATE_BODY,
    // Every request takes the next id: each transaction is initiated once.
    setupRequest: (req) => ({ ...req, path: `/v1/transaction/${ids[next++ % ids.length] ?? ""}/pay` }),
    onResponse: (status, body) => failure.note(status, body),
  };
  const share = Math.floor(ids.length / services.length);
  const specs = services.map(
    (service): LoadSpec => ({ ...loadSpec(kind, settings, service, request), connections: Math.min(settings.connections, share), amount: share }),
  );
  const measurement = services.length === 1 ? await measure(specs[0] as LoadSpec) : await measureTogether(specs);
  const scenario = mode === "test" ? "initiate, test mode" : services.length === 1 ? "initiate" : "initiate, two instances";
  return toRow(kind, scenario, measurement, failure.body);
}

// ---------------------------------------------------------------------------------------------
// One database, then all of them

async function benchDatabase(kind: DatabaseKind, settings: Settings, cleanup: Cleanup, problems: string[]): Promise<Row[]> {
  const tag = `[${kind}]`;
  const load = `${settings.connections} connections`;
  const prices = await phase(
    `${tag} price server (CoinGecko's simple/price, for live mode)`,
    async () => {
      const server = await startPriceServer();
      cleanup.defer("stop the price server", () => server.close());
      return server;
    },
    (server) => server.url,
  );
  const target = await phase(
    `${tag} prepare database`,
    () => prepareTarget(kind, settings, prices.url, cleanup),
    (t) => t.description,
  );
  const ceiling = await phase(
    `${tag} ceiling insert (${WARM_UP_SECONDS} s warm-up + ${settings.seconds} s, ${load})`,
    () => runCeiling(kind, target, settings, cleanup, "ceiling insert"),
    describe,
  );
  const merchant = await phase(
    `${tag} merchant create (CLI)`,
    () => createMerchant(target.serviceEnv),
    (m) => `merchant ${m.id}`,
  );
  const unlimited = await phase(
    `${tag} initialize, no rate limits`,
    () => runUnlimited(kind, target, merchant, settings, cleanup, problems),
    describe,
  );
  const service = await phase(
    `${tag} start service`,
    () => serve("paygate", SERVICE_ARGS, target.serviceEnv, cleanup),
    (s) => s.url,
  );
  const idleRssMb = await phase(
    `${tag} idle resident memory`,
    () => delay(IDLE_SETTLE_MS).then(() => rssMb(service.child)),
    (value) => `${megabytes(value)} (VmRSS ${IDLE_SETTLE_MS / 1000} s after healthy)`,
  );
  try {
    const initialize = await phase(
      `${tag} initialize (${WARM_UP_SECONDS} s warm-up + ${settings.seconds} s, ${load})`,
      () => runInitialize(kind, service, merchant, settings, "initialize"),
      ({ row, ids }) =>
        `${describe(row)}; peak RSS ${megabytes(row.peakRssMb)}; ${ids.live.length} live and ${ids.test.length} test transactions to initiate`,
    );
    // On PostgreSQL half the live transactions are kept for two instances (PGlite admits one process).
    const twoInstances = kind === "postgres";
    const live = initialize.ids.live;
    const half = twoInstances ? Math.floor(live.length / 2) : live.length;
    const initiate = await phase(
      `${tag} initiate (up to ${settings.seconds} s, ${load}, one transaction each)`,
      () => runInitiate(kind, [service], merchant, "live", live.slice(0, half), settings),
      (row) => `${describe(row)}; ${row.non2xx} non-2xx`,
    );
    const initiatedByTwo = twoInstances
      ? await phase(
          `${tag} initiate, two instances (up to ${settings.seconds} s, ${load} on each, one transaction each)`,
          () => runInitiateOnTwo(kind, target, service, merchant, live.slice(half), settings, cleanup),
          (row) => `${describe(row)}; ${row.non2xx} non-2xx`,
        )
      : null;
    const initiatedInTestMode = await phase(
      `${tag} initiate, test mode (up to ${settings.seconds} s, ${load}, one transaction each)`,
      () => runInitiate(kind, [service], merchant, "test", initialize.ids.test, settings),
      (row) => `${describe(row)}; ${row.non2xx} non-2xx`,
    );
    const polled = live[0];
    if (polled === undefined) throw new Error("initialize created no transaction to poll");
    const pollLoad = `${settings.pollConnections} connections`;
    const pollRest = await phase(
      `${tag} poll GET /v1/transaction/:id (${WARM_UP_SECONDS} s warm-up + ${settings.seconds} s, ${pollLoad})`,
      () => runPoll(kind, service, merchant, polled, settings, "rest"),
      describe,
    );
    const pollGraphql = await phase(
      `${tag} poll GraphQL transaction (${WARM_UP_SECONDS} s warm-up + ${settings.seconds} s, ${pollLoad})`,
      () => runPoll(kind, service, merchant, polled, settings, "graphql"),
      describe,
    );
    const code = await phase(
      `${tag} stop service`,
      () => stop(service),
      (c) => `exit code ${c ?? "(signal)"}`,
    );
    if (code !== 0) problems.push(`${kind}: the service exited with ${code ?? "a signal"} on SIGTERM`);
    // The ceiling again, the service stopped: the multiples of the ceiling are against the mean of both runs (report.ts).
    const ceilingAgain = await phase(
      `${tag} ceiling insert, again (${WARM_UP_SECONDS} s warm-up + ${settings.seconds} s, ${load})`,
      () => runCeiling(kind, target, settings, cleanup, "ceiling insert, again"),
      describe,
    );
    const rows = [
      ceiling,
      ceilingAgain,
      unlimited,
      { ...initialize.row, idleRssMb },
      initiate,
      ...(initiatedByTwo ? [initiatedByTwo] : []),
      initiatedInTestMode,
      pollRest,
      pollGraphql,
    ];
    if (code !== 0 || rows.some((row) => row.errors > 0)) showLog(service.child);
    return rows;
  } catch (error) {
    if (!interrupted) showLog(service.child);
    throw error;
  }
}

/** A second service on the same database beside the first, initiate on both at once, then the second stopped. */
async function runInitiateOnTwo(
  kind: DatabaseKind,
  target: Target,
  first: Served,
  merchant: Merchant,
  ids: string[],
  settings: Settings,
  cleanup: Cleanup,
): Promise<Row> {
  const second = await serve("paygate (second instance)", SERVICE_ARGS, target.serviceEnv, cleanup);
  try {
    return await runInitiate(kind, [first, second], merchant, "live", ids, settings);
  } catch (error) {
    if (!interrupted) showLog(second.child);
    throw error;
  } finally {
    await stop(second);
  }
}

/** Initialize on a service with every rate limit off, started and stopped for it (PGlite admits one process at a time). */
async function runUnlimited(
  kind: DatabaseKind,
  target: Target,
  merchant: Merchant,
  settings: Settings,
  cleanup: Cleanup,
  problems: string[],
): Promise<Row> {
  const service = await serve("paygate (no rate limits)", SERVICE_ARGS, withoutRateLimits(target.serviceEnv), cleanup);
  try {
    const { row } = await runInitialize(kind, service, merchant, settings, "initialize, no rate limits");
    const code = await stop(service);
    if (code !== 0) problems.push(`${kind}: the service without rate limits exited with ${code ?? "a signal"} on SIGTERM`);
    if (code !== 0 || row.errors > 0) showLog(service.child);
    return row;
  } catch (error) {
    if (!interrupted) showLog(service.child);
    throw error;
  }
}

function showLog(child: Child): void {
  const lines = child.output().trimEnd().split("\n").slice(-40);
  console.log(`--- last lines of the ${child.name} log ---\n${lines.join("\n")}\n---`);
}

/** bench/results/api.json: the last run's rows, beside the scripts (docs/benchmarks.md's figures come from it). */
async function writeResults(rows: Row[], settings: Settings, startedAt: Date): Promise<string> {
  const dir = path.join(ROOT, "bench", "results");
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, "api.json");
  const report = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    settings: {
      seconds: settings.seconds,
      warmUpSeconds: WARM_UP_SECONDS,
      connections: settings.connections,
      pollConnections: settings.pollConnections,
      databases: settings.databases,
    },
    machine: { cpus: os.cpus().length, loadAverageAtEnd: os.loadavg(), node: process.version, platform: `${os.platform()} ${os.release()}` },
    rows,
  };
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}

/** Ctrl-C or kill: undo everything, then go. */
function cleanUpOnSignals(cleanup: Cleanup): void {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      interrupted = true;
      console.log(`\n${signal}: cleaning up`);
      void cleanup.unwindTo(0, console.error).finally(() => {
        killStragglers();
        console.log("cleaned up; stopped");
        process.exit(130);
      });
    });
  }
  process.on("exit", killStragglers);
}

async function main(): Promise<number> {
  const settings = readSettings(process.env);
  const startedAt = new Date();
  const cleanup = new Cleanup();
  cleanUpOnSignals(cleanup);
  console.log(
    `paygate benchmark on ${settings.databases.join(", ")}: ${settings.connections} connections, ` +
      `${settings.seconds} s per run; ${os.cpus().length} CPUs (load average ${os.loadavg()[0]?.toFixed(2)}), Node ${process.version}`,
  );
  const rows: Row[] = [];
  const problems: string[] = [];
  try {
    await phase(
      `build (npm run build; the service runs as node ${SERVICE_ARGS.join(" ")})`,
      () => runNpmScript("build", cleanEnv(), ROOT, BUILD_TIMEOUT_MS),
      () => "dist/ ready",
    );
    for (const kind of settings.databases) {
      const mark = cleanup.mark();
      try {
        rows.push(...(await benchDatabase(kind, settings, cleanup, problems)));
      } finally {
        await phase(
          `[${kind}] clean up`,
          () => cleanup.unwindTo(mark, console.error),
          (ok) => (ok ? "done" : "incomplete"),
        );
      }
    }
  } catch (error) {
    if (interrupted) return 130;
    console.error(`\nThe benchmark failed: ${error instanceof Error ? error.message : String(error)}`);
    if (rows.length > 0) console.log(`\nResults so far:\n${formatTable(withCeilingShares(rows))}`);
    return 1;
  }
  const results = withCeilingShares(rows);
  console.log(`\n${formatTable(results)}\n`);
  console.log(`JSON: ${await writeResults(results, settings, startedAt)}`);
  // A GraphQL answer with errors is HTTP 200: its first one is kept all the same (runPoll).
  for (const row of results.filter((r) => r.errors > 0 || r.firstErrorBody !== null)) {
    problems.push(
      `${row.database} ${row.scenario}: ${row.errors} failed requests (${JSON.stringify(row.statusCodes)}); first: ${row.firstErrorBody ?? "a socket error"}`,
    );
  }
  for (const problem of problems) console.error(`problem: ${problem}`);
  return problems.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof SettingsError) {
      console.error(`bench: ${error.message}`);
      process.exit(2);
    }
    console.error("bench: unexpected error:", error);
    process.exit(1);
  },
);
