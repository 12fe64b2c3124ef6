// A second process on the database of a running one: on PostgreSQL it starts at once (several
// instances and workers share one database); the embedded database belongs to one process, and the
// second is told which one holds it.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { startRuntime, type Runtime } from "../../src/runtime.ts";
import { createTestDatabase } from "../support/test-database.ts";

const run = promisify(execFile);
let dataDir = "";
let env: NodeJS.ProcessEnv = {};
let closeDb = async () => {};
let first: Runtime;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "paygate-second-"));
  env = { ...process.env, PAYGATE_DATA_DIR: dataDir, PAYGATE_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString("base64") };
  if (process.env.DATABASE_URL) {
    const db = await createTestDatabase();
    env.DATABASE_URL = db.url ?? undefined;
    closeDb = db.close;
  }
  first = await startRuntime(loadConfig(env), { log: () => {} }); // migrates, and stays open
});
afterAll(async () => {
  await first.close();
  await closeDb();
  rmSync(dataDir, { recursive: true, force: true });
});

it("lets a second process start beside a running one on PostgreSQL, and refuses it on the embedded database", async () => {
  const started = Date.now();
  const second = await run(process.execPath, [path.resolve("bin/paygate.mjs"), "webhooks", "list", "--json"], { env }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
  if (env.DATABASE_URL) {
    expect(second.stderr).not.toMatch(/advisory lock|P1002|timed out/i);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual({ events: [] });
    expect(Date.now() - started).toBeLessThan(9000); // the migration lock's wait is 10 s
  } else {
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(new RegExp(`in use by process ${process.pid}`));
  }
});
