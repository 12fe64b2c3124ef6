// The operations tests run paygate as an operator does: real processes (the CLI, the service) on a
// database of their own, stopped with signals. This file starts and watches those processes and
// gives each test its database:
// - without DATABASE_URL, a fresh PAYGATE_DATA_DIR for the embedded database. Its pglite/ folder is
//   seeded with an empty cluster (PostgreSQL's initdb, done once and kept in the OS temp folder),
//   which saves each test the seconds initdb takes; the migrations are still applied by the process
//   under test, as on a first start.
// - with DATABASE_URL (the admin connection), a brand-new empty database on that server, migrated by
//   the process under test and dropped afterwards, and a shared PAYGATE_ENCRYPTION_KEY.
import { expect } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { admin, cachedDump, createEmptyDatabase, packageVersion } from "../support/test-database.ts";

export interface OpsDatabase {
  /** PAYGATE_DATA_DIR (always set: the embedded database and, on PGlite, encryption.key live there). */
  dataDir: string;
  /** The environment of every process of the test: the database, the key, nothing inherited that would change it. */
  env: NodeJS.ProcessEnv;
  /** Rows of one query, run after the processes have stopped (on PGlite only one process may open the folder). */
  query<T>(sql: string): Promise<T[]>;
  /** Removes the folder, drops the PostgreSQL database. */
  close(): Promise<void>;
}

export async function createOpsDatabase(): Promise<OpsDatabase> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "paygate-ops-"));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PAYGATE_DATA_DIR: dataDir,
    // As in production: Apollo Server, for one, behaves differently under NODE_ENV=test (set by vitest).
    NODE_ENV: "production",
    PAYGATE_PAYMENT_WATCHER: "false", // it would read public chain nodes
    PAYGATE_LOG_LEVEL: "info",
    PORT: "0",
    HOST: "127.0.0.1",
  };
  delete env.DATABASE_URL;
  delete env.PAYGATE_ENCRYPTION_KEY;
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    await seedEmptyCluster(path.join(dataDir, "pglite"));
    return {
      dataDir,
      env,
      async query<T>(sql: string) {
        const db = await PGlite.create({ dataDir: path.join(dataDir, "pglite") });
        try {
          return (await db.query<T>(sql)).rows;
        } finally {
          await db.close();
        }
      },
      close: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `paygate_ops_${randomBytes(6).toString("hex")}`;
  const url = await createEmptyDatabase(adminUrl, name);
  env.DATABASE_URL = url;
  env.PAYGATE_ENCRYPTION_KEY = randomBytes(32).toString("base64");
  return {
    dataDir,
    env,
    async query<T>(sql: string) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(sql)).rows as T[];
      } finally {
        await client.end();
      }
    },
    async close() {
      await admin(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// An empty PGlite cluster, made once per PGlite version

let emptyCluster: Promise<Blob> | undefined;

async function seedEmptyCluster(folder: string): Promise<void> {
  const dump = await (emptyCluster ??= loadEmptyCluster());
  const db = await PGlite.create({ dataDir: folder, loadDataDir: dump });
  await db.close();
}

/** An initdb'ed, empty PGlite cluster: the process under test still applies every migration itself. */
function loadEmptyCluster(): Promise<Blob> {
  return cachedDump(`pglite-initdb-${packageVersion("@electric-sql/pglite")}.tar.gz`, async () => {
    const db = await PGlite.create();
    const dump = await db.dumpDataDir("gzip");
    await db.close();
    return dump;
  });
}

// ---------------------------------------------------------------------------------------------
// Processes

/** Every child still running, killed by killChildren() (an afterAll) whatever a test did. */
const children = new Set<ChildProcess>();

export function killChildren(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  children.clear();
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Service {
  child: ChildProcess;
  port: number;
  baseUrl: string;
  /** Everything the process wrote, stdout and stderr interleaved. */
  output(): string;
  /** Resolves once the output matches `pattern` (rejects after `timeoutMs`, or if the process exits first). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  exited: Promise<Exit>;
}

/** Runs a Node command to its end: exit code and output. */
/**
 * A merchant made with `paygate merchant create` (bin/paygate.mjs in a child process, as an operator
 * makes one); its test public key. On the embedded database run it before the service, which then owns it.
 */
export async function createMerchantKey(name: string, options: { cwd?: string; env: NodeJS.ProcessEnv }): Promise<string> {
  const created = await runNode(["bin/paygate.mjs", "merchant", "create", "--name", name, "--json"], options);
  expect(created.code, created.stderr).toBe(0);
  return (JSON.parse(created.stdout) as { testPublicKey: string }).testPublicKey;
}

export async function runNode(
  args: string[],
  options: { cwd?: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
  const { code } = await exitOf(child);
  clearTimeout(timer);
  children.delete(child);
  return { code, stdout, stderr };
}

/**
 * Starts the service (`args` after `node`) with PORT=0 and resolves once it says where it listens
 * (the port is read from that line: no race for a free port). Rejects with its output if it exits first.
 */
export async function startService(args: string[], options: { cwd?: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Service> {
  const child = spawn(process.execPath, args, { cwd: options.cwd, env: { ...options.env, PORT: "0" }, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let output = "";
  const exited = exitOf(child);
  void exited.then(() => children.delete(child));
  const waiters = new Set<() => void>();
  const read = (chunk: Buffer) => {
    output += chunk.toString("utf8");
    for (const check of waiters) check();
  };
  child.stdout.on("data", read);
  child.stderr.on("data", read);
  const waitFor = (pattern: RegExp, timeoutMs = 10_000) =>
    new Promise<void>((resolve, reject) => {
      const done = (error?: Error) => {
        waiters.delete(check);
        clearTimeout(timer);
        if (error) reject(error);
        else resolve();
      };
      const check = () => {
        if (pattern.test(output)) done();
      };
      const timer = setTimeout(() => done(new Error(`no ${pattern} in the output within ${timeoutMs} ms:\n${output.slice(-3_000)}`)), timeoutMs);
      waiters.add(check);
      check();
      void exited.then(({ code, signal }) => {
        if (waiters.has(check)) done(new Error(`the process exited (${code ?? signal}) before ${pattern}:\n${output.slice(-3_000)}`));
      });
    });
  await waitFor(/paygate listening on [^\s]*:\d+ /, options.timeoutMs ?? 45_000);
  const port = Number(/paygate listening on [^\s]*:(\d+) /.exec(output)?.[1]);
  return { child, port, baseUrl: `http://127.0.0.1:${port}`, output: () => output, waitFor, exited };
}

function exitOf(child: ChildProcess): Promise<Exit> {
  return new Promise((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
    child.once("error", () => resolve({ code: null, signal: null }));
  });
}

/** Polls GET /readyz until 200; returns its body. */
export async function waitReady(baseUrl: string, timeoutMs = 20_000): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(`${baseUrl}/readyz`);
      if (res.status === 200) return await res.json();
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`${baseUrl}/readyz did not answer 200 within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The JSON lines a process logged (pino), with anything else skipped. */
export function logLines(output: string): Array<{ msg?: string; level?: string }> {
  const lines: Array<{ msg?: string; level?: string }> = [];
  for (const line of output.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      lines.push(JSON.parse(line) as { msg?: string; level?: string });
    } catch {
      // a line cut short: skipped
    }
  }
  return lines;
}
