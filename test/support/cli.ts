// Runs `paygate …` as an operator would: a child process on its own database (a fresh data folder,
// or a throw-away PostgreSQL database when DATABASE_URL is set). Registers its own set-up and clean-up.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase } from "./test-database.ts";

const run = promisify(execFile);
const bin = path.resolve("bin/paygate.mjs");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export type Cli = ((...args: string[]) => Promise<CliResult>) & {
  /** The environment the CLI runs with (its database), for a test that opens the same database. */
  env(): NodeJS.ProcessEnv;
};

export function useCli(): Cli {
  let dataDir = "";
  let env: NodeJS.ProcessEnv = {};
  let closeDb = async () => {};

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), "paygate-cli-"));
    env = { ...process.env, PAYGATE_DATA_DIR: dataDir, PAYGATE_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64") };
    if (process.env.DATABASE_URL) {
      const db = await createTestDatabase();
      env.DATABASE_URL = db.url ?? undefined;
      closeDb = db.close;
    }
  });
  afterAll(async () => {
    await closeDb();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const cli = async (...args: string[]): Promise<CliResult> => {
    try {
      const { stdout, stderr } = await run(process.execPath, [bin, ...args], { env });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as CliResult;
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  return Object.assign(cli, { env: () => env });
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
