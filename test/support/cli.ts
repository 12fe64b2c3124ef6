// Runs `paygate …` on a database of its own (a fresh data folder, or a throw-away PostgreSQL database
// when DATABASE_URL is set). Registers its own set-up and clean-up.
//
// Two ways to run a command, with the same result ({ code, stdout, stderr }):
// - child: `node bin/paygate.mjs …` in a child process, as an operator runs it (about a second each:
//   Node, tsx and the CLI's modules start every time). For what only a process shows: the bin entry,
//   the exit code a shell sees, a second process on the database, `worker` and its signals.
// - inProcess: runCli (src/cli/run.ts) in this process, with this environment and its output captured.
//   Each command still opens the database and closes it before it answers, as the process would, so
//   nothing carries over from one command to the next but what the database holds.
// Calling the Cli itself runs a command the default way: child, unless useCli({ inProcess: true }).
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runCli, type CliOutput } from "../../src/cli/run.ts";
import { seedMigratedDatabase } from "./migrated-data-dir.ts";
import { createTestDatabase } from "./test-database.ts";

const run = promisify(execFile);
/**
 * The longest a child command may take before it is killed: a first start migrates an empty
 * database, which on a loaded 2-core machine has taken over 30 s. Killed, it cannot keep holding
 * the embedded database and fail the tests after it.
 */
export const CHILD_TIMEOUT_MS = 100_000;
/** The operator's entry point, for tests that start `paygate` themselves (e.g. `worker`). */
export const PAYGATE_BIN = path.resolve("bin/paygate.mjs");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

type Runner = (...args: string[]) => Promise<CliResult>;

export type Cli = Runner & {
  /** The environment the CLI runs with (its database), for a test that opens the same database. */
  env(): NodeJS.ProcessEnv;
  /** `node bin/paygate.mjs …` in a child process. */
  child: Runner;
  /** runCli in this process, output captured. */
  inProcess: Runner;
};

export interface UseCliOptions {
  /** Calling the Cli runs the command in this process (runCli) rather than in a child process. */
  inProcess?: boolean;
  /**
   * Embedded database only: start on a folder that is already migrated (test/support/migrated-data-dir.ts)
   * rather than an empty one, which the first command would spend seconds migrating. For tests that are
   * not about a first start.
   */
  migrated?: boolean;
  /** More environment, over the defaults (e.g. PAYGATE_TEST_WEBHOOK_ALLOW_PRIVATE: "false"). */
  env?: Record<string, string>;
}

export function useCli(options: UseCliOptions = {}): Cli {
  let dataDir = "";
  let env: NodeJS.ProcessEnv = {};
  let closeDb = async () => {};

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), "paygate-cli-"));
    env = {
      ...process.env,
      PAYGATE_DATA_DIR: dataDir,
      PAYGATE_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
      // The tests' webhook receivers are on 127.0.0.1, as a developer's are; on PostgreSQL the operator has to say so.
      PAYGATE_TEST_WEBHOOK_ALLOW_PRIVATE: "true",
      ...options.env,
    };
    if (process.env.DATABASE_URL) {
      const db = await createTestDatabase();
      env.DATABASE_URL = db.url ?? undefined;
      closeDb = db.close;
    } else if (options.migrated) {
      await seedMigratedDatabase(path.join(dataDir, "pglite")); // where loadConfig puts it
    }
  });
  afterAll(async () => {
    await closeDb();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const child: Runner = async (...args) => {
    try {
      const { stdout, stderr } = await run(process.execPath, [PAYGATE_BIN, ...args], { env, timeout: CHILD_TIMEOUT_MS, killSignal: "SIGKILL" });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as CliResult & { killed?: boolean };
      if (e.killed) throw new Error(`paygate ${args.join(" ")} did not finish within ${CHILD_TIMEOUT_MS} ms and was killed; stderr: ${e.stderr}`);
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  // One command at a time: on the embedded database a second one would open the folder this process
  // already holds (the lock lets the same process in).
  let queue: Promise<unknown> = Promise.resolve();
  const inProcess: Runner = (...args) => {
    const result = queue.then(async () => {
      const stdout = captured();
      const stderr = captured();
      const code = await runCli(args, { env: { ...env }, stdout, stderr });
      return { code, stdout: stdout.text(), stderr: stderr.text() };
    });
    queue = result.catch(() => {});
    return result;
  };

  const cli: Runner = (...args) => (options.inProcess ? inProcess(...args) : child(...args));
  return Object.assign(cli, { env: () => env, child, inProcess });
}

function captured(): CliOutput & { text(): string } {
  const chunks: string[] = [];
  return {
    write: (text: string) => chunks.push(text),
    text: () => chunks.join(""),
  };
}

/** A bad invocation, what stderr must say, and what the printed usage must contain. */
export type BadArgs = [name: string, args: string[], message: RegExp];

/** One test per case: exit code 2, the message, and the usage printed after it. */
export function itRefusesBadArgs(paygate: Cli, cases: BadArgs[], usage: RegExp = /Usage: paygate/): void {
  for (const [name, args, message] of cases) {
    it(`exits 2 with the usage on ${name}`, async () => {
      const res = await paygate(...args);
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(message);
      expect(res.stderr).toMatch(/Usage: paygate/);
      expect(res.stderr).toMatch(usage);
    });
  }
}
