// The CLI while the service runs (issue 28). On the embedded database the service owns PGlite, so `paygate`
// hands its command line to the service over a Unix socket beside the data folder and relays the answer;
// on PostgreSQL it opens the database itself. Either way an operator creates the first owner, lists
// webhooks or reads what the service just wrote without stopping it.
import { spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpsDatabase, killChildren, runNode, startService, type OpsDatabase, type Service } from "./support.ts";
import { initializeBody } from "../support/builders.ts";

const embedded = !process.env.DATABASE_URL;
let db: OpsDatabase;
let service: Service;
const timings: string[] = [];

beforeAll(async () => {
  db = await createOpsDatabase();
  service = await startService(["--import", "tsx", "src/main.ts"], { env: db.env });
}, 90_000);
afterAll(async () => {
  console.log(`CLI calls while the service ran (${embedded ? "PGlite, through the service" : "PostgreSQL"}): ${timings.join(", ")}`);
  killChildren();
  await db.close();
});

async function paygate(args: string[], stdin?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const started = performance.now();
  const result =
    stdin === undefined
      ? await runNode(["bin/paygate.mjs", ...args], { env: db.env, timeoutMs: 60_000 })
      : await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
          const child = spawn(process.execPath, ["bin/paygate.mjs", ...args], { env: db.env, stdio: ["pipe", "pipe", "pipe"] });
          let stdout = "";
          let stderr = "";
          child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
          child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
          child.once("exit", (code) => resolve({ code, stdout, stderr }));
          child.stdin.end(stdin);
        });
  timings.push(`${args.slice(0, 2).join(" ")} ${Math.round(performance.now() - started)} ms`);
  return result;
}

const socketPath = () => path.join(db.dataDir, "pglite.cli.sock");

describe("paygate while the service runs", () => {
  let merchant: { id: number; testPublicKey: string; owner: { email: string; role: string; signInUrl: string } };

  it("serves the CLI on a socket beside the embedded database only, for its own user", async () => {
    if (embedded) {
      await service.waitFor(/CLI: paygate commands run in this service while it holds the embedded database/);
      expect(statSync(socketPath()).mode & 0o777).toBe(0o600);
      // `paygate worker` is never handed over (the service runs the jobs): it meets the lock, which names the service.
      const worker = await paygate(["worker"]);
      expect(worker.code).toBe(1);
      expect(worker.stderr).toMatch(/is in use by process \d+ \(a running paygate service\?\)/);
    } else {
      // On PostgreSQL the CLI opens the database itself, beside the service.
      expect(service.output()).not.toContain("CLI: paygate commands run in this service");
      expect(existsSync(socketPath())).toBe(false);
    }
  }, 90_000);

  it("creates a merchant with its first owner, and prints the owner's one-time sign-in link", async () => {
    const res = await paygate(["merchant", "create", "--name", "Acme Stores", "--owner-email", "owner@acme.example", "--json"]);
    expect(res.code, res.stderr).toBe(0);
    merchant = JSON.parse(res.stdout);
    expect(merchant.owner).toMatchObject({ email: "owner@acme.example", role: "owner" });
    expect(merchant.owner.signInUrl).toMatch(/\/dashboard\/welcome#[0-9A-Za-z]{43}$/);
  }, 90_000);

  it("sees what the service writes, and the service sees what it writes", async () => {
    const initialized = await fetch(`${service.baseUrl}/v1/transaction`, {
      method: "POST",
      headers: { Authorization: `Bearer ${merchant.testPublicKey}`, "Content-Type": "application/json" },
      body: JSON.stringify(initializeBody()),
    });
    expect(initialized.status).toBe(201);
    const { data } = (await initialized.json()) as { data: { id: string } };
    const listed = await paygate(["webhooks", "list", "--merchant", String(merchant.id), "--transaction", data.id, "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain("payment.initiated");
  }, 90_000);

  it("passes standard input on (--password-stdin) and the core's refusals with their exit code", async () => {
    const developer = await paygate(
      ["user", "create", "--merchant", String(merchant.id), "--email", "dev@acme.example", "--role", "developer", "--password-stdin", "--json"],
      "a long enough password\n",
    );
    expect(developer.code, developer.stderr).toBe(0);
    expect(JSON.parse(developer.stdout)).toMatchObject({ email: "dev@acme.example", hasPassword: true });
    const taken = await paygate(["user", "create", "--merchant", String(merchant.id), "--email", "owner@acme.example", "--role", "viewer"]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/^paygate: email is taken/);
    const usage = await paygate(["user", "create", "--merchant", String(merchant.id)]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^paygate: --email EMAIL is required\./);
  }, 90_000);

  it("stops quietly with exit code 0 when its reader closes the pipe early (paygate … | head)", async () => {
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ["bin/paygate.mjs", "test-rates", "list"], { env: db.env, stdio: ["ignore", "pipe", "pipe"] });
      let stderr = "";
      // The reader goes away before the answer comes: every write of the CLI meets a closed pipe (EPIPE).
      child.stdout.destroy();
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
      child.once("exit", (code) => resolve({ code, stderr }));
    });
    expect(result.stderr).not.toMatch(/EPIPE|Unhandled|Error:/);
    expect(result.code).toBe(0);
  });

  it("stops in order, and the socket goes with the service", async () => {
    service.child.kill("SIGTERM");
    expect((await service.exited).code).toBe(0);
    expect(existsSync(socketPath())).toBe(false);
  }, 30_000);
});
