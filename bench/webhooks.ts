// `npx tsx bench/webhooks.ts`: webhook delivery by `paygate worker` processes on PostgreSQL.
//
// With 1 and then 2 dispatchers (each its own `paygate worker`), every scenario on a fresh database,
// delivering to a receiver in this process (bench/webhooks-receiver.ts) that answers 200 at once:
//   throughput  BENCH_WEBHOOK_EVENTS (3000) events written first (held back until the workers are up);
//               events/s from the first delivery to the last
//   delay       the workers running and idle, events written at BENCH_WEBHOOK_RATE (100/s) for
//               BENCH_WEBHOOK_SECONDS (10); commit-to-delivery delay at the default poll interval
//               (250 ms) and at PAYGATE_WEBHOOK_POLL_MS=50
// Progress, then a markdown table; the JSON goes to a temp folder as with bench/run.ts (bench/results
// is not git-ignored). Exits 1 when an event was not delivered or anything failed, 2 on bad settings.
// BENCH_POSTGRES_URL (postgres://postgres@127.0.0.1:5432/postgres): where the scratch databases are made.
import { phase as runPhase } from "./progress.ts";
import { randomBytes } from "node:crypto";
import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../src/config.ts";
import { startRuntime } from "../src/runtime.ts";
import { Cleanup } from "./cleanup.ts";
import { createScratchDatabase } from "./postgres.ts";
import { delay, killStragglers, startChild, type Child } from "./processes.ts";
import { endMigrationLockHolders } from "./webhooks-migration-lock.ts";
import { WebhookReceiver } from "./webhooks-receiver.ts";
import { formatTable, percentile, type Row } from "./webhooks-report.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PRELOAD_CALLERS = 8;
const WARM_UP_EVENTS = 20;
const STALL_MS = 30_000; // no new delivery for this long: the rest count as missing
const DUPLICATE_GRACE_MS = 1_000; // listen a little longer after the last event, for late duplicates
const SCENARIOS = [1, 2].flatMap((dispatchers) => [
  { dispatchers, pollMs: 250, kind: "throughput" as const },
  { dispatchers, pollMs: 250, kind: "delay" as const },
  { dispatchers, pollMs: 50, kind: "delay" as const },
]);
type Scenario = (typeof SCENARIOS)[number];

interface Settings {
  events: number;
  rate: number;
  seconds: number;
  postgresAdminUrl: string;
}

class SettingsError extends Error {}

function positiveInteger(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === "") return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new SettingsError(`${name} must be a whole number above 0; got '${text}'.`);
  return Number(text);
}

let interrupted = false;
/** The clean-up a signal started; main waits for it rather than exiting under it. */
let interruption: Promise<unknown> = Promise.resolve();

const phase = <T>(label: string, work: () => Promise<T>, summary: (value: T) => string) => runPhase(label, work, summary, () => interrupted);

/** The inherited environment without anything that would point the workers elsewhere. */
function workerEnv(databaseUrl: string, encryptionKey: string, pollMs: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith("PAYGATE_") || ["DATABASE_URL", "PORT", "HOST"].includes(key)) delete env[key];
  return {
    ...env,
    DATABASE_URL: databaseUrl,
    PAYGATE_ENCRYPTION_KEY: encryptionKey,
    PAYGATE_WEBHOOK_POLL_MS: String(pollMs),
    // The receiver is on 127.0.0.1: test mode may reach it only when the operator allows private targets.
    PAYGATE_TEST_WEBHOOK_ALLOW_PRIVATE: "true",
  };
}

/** Starts `paygate worker` processes one after another, each once the one before has opened the database. */
async function startWorkers(count: number, env: NodeJS.ProcessEnv, databaseUrl: string, cleanup: Cleanup): Promise<Child[]> {
  const workers: Child[] = [];
  for (let i = 1; i <= count; i++) {
    const worker = startChild(`worker ${i}`, ["bin/paygate.mjs", "worker"], env, ROOT);
    cleanup.defer(`stop ${worker.name}`, () => worker.stop());
    workers.push(worker);
    for (const deadline = Date.now() + 60_000; !worker.output().includes("delivering webhooks"); await delay(50)) {
      assertRunning(workers);
      if (Date.now() > deadline) throw new Error(`${worker.name} did not start within 60 s`);
    }
    await endMigrationLockHolders(databaseUrl); // else this worker's migration lock stalls the next
  }
  return workers;
}

function assertRunning(workers: Child[]): void {
  const gone = workers.find((w) => w.hasExited());
  if (gone) throw new Error(`${gone.name} exited early:\n${gone.output().trimEnd().split("\n").slice(-20).join("\n")}`);
}

/** Waits until every expected event arrived, or none arrived for STALL_MS; the number arrived. */
async function awaitDeliveries(receiver: WebhookReceiver, expected: ReadonlySet<string>, workers: Child[]): Promise<number> {
  let arrived = -1;
  let lastProgress = Date.now();
  for (;;) {
    const now = [...receiver.firstArrivals().keys()].filter((id) => expected.has(id)).length;
    if (now === expected.size) return now;
    if (now !== arrived) [arrived, lastProgress] = [now, Date.now()];
    if (Date.now() - lastProgress > STALL_MS) return now;
    assertRunning(workers);
    await delay(100);
  }
}

async function runScenario(s: Scenario, settings: Settings, receiver: WebhookReceiver, cleanup: Cleanup): Promise<Row> {
  const tag = `[${s.dispatchers} dispatcher${s.dispatchers > 1 ? "s" : ""}, poll ${s.pollMs} ms, ${s.kind}]`;
  const database = await phase(
    `${tag} fresh database`,
    () => createScratchDatabase(settings.postgresAdminUrl),
    (d) => d.name,
  );
  cleanup.defer(`drop database ${database.name}`, () => database.drop());
  const env = workerEnv(database.url, randomBytes(32).toString("base64"), s.pollMs);
  // This process writes the events through the core, as the service would (migrations applied here).
  const rt = await startRuntime(loadConfig(env), { log: () => {} });
  cleanup.defer("close the bench's database pool", () => rt.close());
  const merchant = await rt.gateway.operator.createMerchant({ name: "Webhook bench", testWebhookUrl: receiver.url });
  await endMigrationLockHolders(database.url);
  const commits = new Map<string, number>(); // transaction reference → when its initialize resolved
  const write = async (i: number) => {
    const body = { customer: { email: `bench${i}@example.com` }, currency: "USD", amount: "10" };
    const { transaction } = await rt.gateway.payments.initializeTransaction({ bearerToken: merchant.testPublicKey, body });
    commits.set(transaction.reference, performance.now());
  };
  const eventIds = async () => new Set((await rt.database.db.webhookEvent.findMany({ select: { id: true } })).map((e) => e.id));
  receiver.arrivals = [];

  let workers: Child[];
  let warmUp = new Set<string>();
  if (s.kind === "throughput") {
    await phase(
      `${tag} write ${settings.events} events (${PRELOAD_CALLERS} callers)`,
      async () => {
        let next = 0;
        await Promise.all(
          Array.from({ length: PRELOAD_CALLERS }, async () => {
            while (next < settings.events) await write(next++);
          }),
        );
        // Held back until every worker is up, so that none starts with a head start. Shifted, not set:
        // equal due times would make each claim sort the whole backlog (seen: ~35 events/s).
        await rt.database.db.$executeRaw`UPDATE webhook_deliveries SET next_attempt_at = next_attempt_at + interval '1 day'`;
      },
      () => `${commits.size} written`,
    );
    workers = await phase(
      `${tag} start ${s.dispatchers} worker(s)`,
      () => startWorkers(s.dispatchers, env, database.url, cleanup),
      () => "running",
    );
    await rt.database.db.$executeRaw`UPDATE webhook_deliveries SET next_attempt_at = next_attempt_at - interval '1 day'`;
  } else {
    workers = await phase(
      `${tag} start ${s.dispatchers} worker(s)`,
      () => startWorkers(s.dispatchers, env, database.url, cleanup),
      () => "running",
    );
    // A few deliveries first, so that the measured ones do not pay for the workers' cold start (JIT).
    for (let i = 0; i < WARM_UP_EVENTS; i++) await write(-1 - i);
    warmUp = await eventIds();
    await awaitDeliveries(receiver, warmUp, workers);
    await delay(1_000); // idle again: polling an empty outbox
    receiver.arrivals = [];
    const total = settings.rate * settings.seconds;
    await phase(
      `${tag} write ${settings.rate}/s for ${settings.seconds} s`,
      async () => {
        const started = performance.now();
        const pending: Promise<void>[] = [];
        for (let i = 0; i < total; i++) {
          const wait = started + (i * 1000) / settings.rate - performance.now();
          if (wait > 0) await delay(wait);
          if (interrupted) break;
          const written = write(i); // not awaited here: a slow commit must not hold back the next write
          written.catch(() => {}); // handled by Promise.all below; this keeps an early failure from crashing the clean-up
          pending.push(written);
        }
        await Promise.all(pending);
        return total / ((performance.now() - started) / 1000);
      },
      (rate) => `${commits.size} written, ${rate.toFixed(1)}/s achieved`,
    );
  }

  const expected = new Set([...(await eventIds())].filter((id) => !warmUp.has(id)));
  const delivered = await phase(
    `${tag} deliver`,
    () => awaitDeliveries(receiver, expected, workers),
    (n) => `${n}/${expected.size} delivered`,
  );
  await delay(DUPLICATE_GRACE_MS);
  for (const worker of workers) {
    await worker.stop();
    const code = await worker.exited;
    if (code !== 0) throw new Error(`${worker.name} exited with ${code ?? "a signal"} on SIGTERM:\n${worker.output().slice(-2000)}`);
  }

  const first = [...receiver.firstArrivals().values()].filter((a) => expected.has(a.id));
  const times = first.map((a) => a.at);
  const span = (Math.max(...times) - Math.min(...times)) / 1000;
  const delays =
    s.kind === "throughput"
      ? []
      : first
          .map((a) => a.at - (commits.get(a.reference ?? "") ?? NaN))
          .filter(Number.isFinite)
          .sort((a, b) => a - b);
  const ms = (value: number | null) => (value === null ? null : Math.round(value));
  const row: Row = {
    dispatchers: s.dispatchers,
    pollMs: s.pollMs,
    scenario: s.kind,
    events: expected.size,
    delivered,
    eventsPerSecond: span > 0 ? first.length / span : null,
    p50Ms: ms(percentile(delays, 50)),
    p99Ms: ms(percentile(delays, 99)),
    maxMs: ms(percentile(delays, 100)),
    duplicates: receiver.arrivals.length - receiver.firstArrivals().size,
  };
  const summary =
    s.kind === "throughput" ? `${row.eventsPerSecond?.toFixed(1)} events/s` : `p50 ${row.p50Ms} ms, p99 ${row.p99Ms} ms, max ${row.maxMs} ms`;
  console.log(`${tag} ${summary}, ${row.duplicates} duplicates, ${expected.size - delivered} missing`);
  return row;
}

function cleanUpOnSignals(cleanup: Cleanup): void {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    // `on`, not `once`: tsx relays the signal again when this process is slow to answer, and with no
    // listener left that second one would end it before the clean-up is done.
    process.on(signal, () => {
      if (interrupted) return;
      interrupted = true;
      console.log(`\n${signal}: cleaning up`);
      interruption = cleanup.unwindTo(0, console.error).finally(() => {
        killStragglers();
        console.log("cleaned up; stopped");
        process.exit(130);
      });
    });
  }
  process.on("exit", killStragglers);
}

async function main(): Promise<number> {
  const settings: Settings = {
    events: positiveInteger("BENCH_WEBHOOK_EVENTS", 3000),
    rate: positiveInteger("BENCH_WEBHOOK_RATE", 100),
    seconds: positiveInteger("BENCH_WEBHOOK_SECONDS", 10),
    postgresAdminUrl: process.env.BENCH_POSTGRES_URL || "postgres://postgres@127.0.0.1:5432/postgres",
  };
  const startedAt = new Date();
  const loadAtStart = os.loadavg();
  const cleanup = new Cleanup();
  cleanUpOnSignals(cleanup);
  console.log(
    `paygate webhook benchmark on PostgreSQL: ${os.cpus().length} CPUs (load average ${loadAtStart[0]?.toFixed(2)}), Node ${process.version}`,
  );
  const receiver = await WebhookReceiver.start();
  cleanup.defer("close the receiver", () => receiver.close());
  const rows: Row[] = [];
  try {
    for (const scenario of SCENARIOS) {
      const mark = cleanup.mark();
      try {
        rows.push(await runScenario(scenario, settings, receiver, cleanup));
      } finally {
        if (!interrupted) await cleanup.unwindTo(mark, console.error);
      }
    }
  } catch (error) {
    if (interrupted) return interruption.then(() => 130);
    console.error(`\nThe benchmark failed: ${error instanceof Error ? error.message : String(error)}`);
    if (rows.length > 0) console.log(`\nResults so far:\n${formatTable(rows)}`);
    return 1;
  } finally {
    if (!interrupted) await cleanup.unwindTo(0, console.error);
  }
  console.log(`\n${formatTable(rows)}\n`);
  const file = path.join(
    await mkdtemp(path.join(os.tmpdir(), "paygate-bench-results-")),
    `webhooks-${startedAt.toISOString().replace(/[:.]/g, "-")}.json`,
  );
  const machine = { cpus: os.cpus().length, loadAverageAtStart: loadAtStart, loadAverageAtEnd: os.loadavg(), node: process.version };
  await writeFile(
    file,
    `${JSON.stringify({ startedAt, finishedAt: new Date(), settings: { ...settings, postgresAdminUrl: undefined }, machine, rows }, null, 2)}\n`,
  );
  console.log(`JSON: ${file}\nTotal ${((Date.now() - startedAt.getTime()) / 1000).toFixed(0)} s`);
  const missing = rows.filter((r) => r.delivered < r.events);
  for (const r of missing)
    console.error(
      `problem: ${r.dispatchers} dispatcher(s), poll ${r.pollMs} ms, ${r.scenario}: ${r.events - r.delivered} of ${r.events} events not delivered`,
    );
  return missing.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof SettingsError ? `bench: ${error.message}` : error);
    process.exit(error instanceof SettingsError ? 2 : 1);
  },
);
