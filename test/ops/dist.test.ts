// Production runs the build: `npm run build` compiles src/ to dist/, and `node dist/main.js` serves
// from a folder holding only what the Docker image holds (dist/, prisma/, schema.graphql, bin/,
// package.json, node_modules/): no src/, no tsx at work. The files read at run time beside the code
// (schema.graphql, prisma/schema.prisma and prisma/migrations, the schema engine's WebAssembly) must
// be found from there, and the CLI (bin/paygate.mjs) must run the compiled dist/cli/.
//
// The build itself runs in a copy of src/, web/ and the tsconfigs (node_modules linked), so the
// working tree's dist/ and web/dist/ are left alone; that copy then becomes the clean folder, src/
// and web/'s sources removed.
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { argsOf, execForm, readDockerfile } from "./dockerfile.ts";
import { createOpsDatabase, killChildren, logLines, runNode, startService, waitReady, type OpsDatabase } from "./support.ts";
import { initializeBody } from "../support/builders.ts";

const exec = promisify(execFile);
const repo = path.resolve(".");
let app = "";
let db: OpsDatabase;
let build = { ms: 0, stdout: "" };

beforeAll(async () => {
  app = mkdtempSync(path.join(tmpdir(), "paygate-dist-"));
  for (const entry of ["src", "package.json", "tsconfig.json", "tsconfig.build.json", "scripts/build-web.mjs", "web"])
    cpSync(path.join(repo, entry), path.join(app, entry), {
      recursive: true,
      filter: (source) => !source.startsWith(path.join(repo, "web", "dist")),
    });
  symlinkSync(path.join(repo, "node_modules"), path.join(app, "node_modules"), "dir");
  const started = Date.now();
  const built = exec("npm", ["run", "build"], { cwd: app, env: { ...process.env, NO_UPDATE_NOTIFIER: "1" }, timeout: 120_000 }).then(({ stdout }) => {
    build = { ms: Date.now() - started, stdout };
  });
  [db] = await Promise.all([createOpsDatabase(), built]);
  // What the image holds next to dist/, and nothing of the sources.
  for (const entry of ["src", "tsconfig.json", "tsconfig.build.json", "scripts"]) rmSync(path.join(app, entry), { recursive: true, force: true });
  // Of web/, the image holds the built pages only.
  for (const entry of readdirSync(path.join(app, "web")))
    if (entry !== "dist") rmSync(path.join(app, "web", entry), { recursive: true, force: true });
  for (const entry of ["prisma", "schema.graphql", "bin"]) cpSync(path.join(repo, entry), path.join(app, entry), { recursive: true });
}, 180_000);

afterAll(async () => {
  killChildren();
  await db?.close();
  if (app) rmSync(app, { recursive: true, force: true });
});

describe("the build", () => {
  it("mirrors src/ in dist/ as JavaScript, the generated Prisma client included", () => {
    const dist = path.join(app, "dist");
    for (const file of ["main.js", "runtime.js", "cli/main.js", "db/migrations.js", "db/generated/client.js", "graphql/server.js", "app.js"]) {
      expect(existsSync(path.join(dist, file)), file).toBe(true);
    }
    // The checkout page, built by Vite into web/dist/ by the same command.
    expect(existsSync(path.join(app, "web", "dist", "checkout", "index.html"))).toBe(true);
    expect(walk(path.join(app, "web", "dist", "assets")).some((file) => /checkout-[\w-]+\.js$/.test(file))).toBe(true);
    const files = walk(dist);
    expect(files.filter((file) => file.endsWith(".ts"))).toEqual([]);
    const bytes = files.reduce((sum, file) => sum + statSync(file).size, 0);
    console.log(
      `npm run build: ${build.ms} ms, dist/ ${files.filter((f) => f.endsWith(".js")).length} .js files, ${(bytes / 1024).toFixed(0)} KiB with source maps`,
    );
  });
});

describe("node dist/main.js on a clean copy", () => {
  it("migrates with the CLI from dist, serves, is ready, and stops on SIGTERM with exit code 0", async () => {
    // The CLI from dist (no src/ here): it opens the fresh database and applies the migrations from prisma/.
    const created = await runNode(["bin/paygate.mjs", "merchant", "create", "--name", "Dist Test", "--json"], { cwd: app, env: db.env });
    expect(created.code, created.stderr).toBe(0);
    const merchant = JSON.parse(created.stdout) as { testPublicKey: string };
    expect(created.stderr + created.stdout).toMatch(/Applied migration \d+_init/);

    // The image's CMD as it is written (node, its flags, dist/main.js).
    const command = imageCommand();
    expect(command).toContain("dist/main.js");
    const service = await startService(command.slice(1), { cwd: app, env: db.env });
    const context = () => `\nservice output:\n${service.output().slice(-3_000)}`;
    expect(await waitReady(service.baseUrl)).toEqual({ status: "ok", database: "ok", migrations: "applied" });

    // REST and GraphQL (its schema is read from schema.graphql beside dist/).
    const rest = await fetch(`${service.baseUrl}/v1/transaction`, {
      method: "POST",
      headers: { authorization: `Bearer ${merchant.testPublicKey}`, "content-type": "application/json" },
      body: JSON.stringify(initializeBody({ customer: { email: "dist@example.com" }, amount: "25.00" })),
    });
    expect(rest.status, context()).toBe(201);
    const graphql = await fetch(`${service.baseUrl}/graphql`, {
      method: "POST",
      headers: { authorization: `Bearer ${merchant.testPublicKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        query: 'mutation { initializeTransaction(input: { customer: { email: "dist@example.com" }, currency: USD, amount: "5" }) { status } }',
      }),
    });
    expect(graphql.status, context()).toBe(200);
    expect(await graphql.json()).toEqual({ data: { initializeTransaction: { status: "INITIATED" } } });

    // The hosted checkout page and its script, from web/dist/ beside dist/.
    const page = await fetch(`${service.baseUrl}/checkout/00000000-0000-4000-8000-000000000000_secret_abc`);
    expect(page.status, context()).toBe(200);
    const script = /src="(\/checkout\/assets\/[^"]+\.js)"/.exec(await page.text())?.[1];
    expect(script).toBeDefined();
    expect((await fetch(service.baseUrl + script)).status).toBe(200);

    // The image's HEALTHCHECK command, run as Docker would inside the container (PORT is the service's).
    const healthcheck = healthcheckCommand();
    const healthy = await runNode(healthcheck.slice(1), { cwd: app, env: { ...db.env, PORT: String(service.port) }, timeoutMs: 10_000 });
    expect(healthy.code, healthy.stderr).toBe(0);

    service.child.kill("SIGTERM");
    const exit = await Promise.race([service.exited, new Promise<null>((resolve) => setTimeout(() => resolve(null), 12_000))]);
    expect(exit, context()).toEqual({ code: 0, signal: null });
    const messages = logLines(service.output()).map((line) => line.msg ?? "");
    expect(
      messages.some((m) => m.startsWith("stopped in")),
      context(),
    ).toBe(true);
    expect(service.output(), context()).not.toMatch(/"level":"(error|fatal)"/);
    const unhealthy = await runNode(healthcheck.slice(1), { cwd: app, env: { ...db.env, PORT: String(service.port) }, timeoutMs: 10_000 });
    expect(unhealthy.code).toBe(1);
  }, 90_000);
});

/** The runtime stage's CMD, `node …` in exec form. */
function imageCommand(): string[] {
  const [args = ""] = argsOf(readDockerfile(path.join(repo, "Dockerfile")).at(-1)!, "CMD");
  const command = execForm(args);
  expect(command?.[0]).toBe("node");
  return command ?? [];
}

/** The runtime stage's HEALTHCHECK, `node …` in exec form. */
function healthcheckCommand(): string[] {
  const [args = ""] = argsOf(readDockerfile(path.join(repo, "Dockerfile")).at(-1)!, "HEALTHCHECK");
  const command = execForm(args.replace(/^.*?\bCMD\s+/, ""));
  expect(command?.[0]).toBe("node");
  return command ?? [];
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? walk(full) : [full];
  });
}
