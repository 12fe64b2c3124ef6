// The Dockerfile, .dockerignore and compose.yaml, read as files (no container runtime here; the
// image's entry command is exercised by dist.test.ts on a clean copy of what the image holds).
import { existsSync, readFileSync } from "node:fs";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { argsOf, execForm, readDockerfile } from "./dockerfile.ts";

const stages = readDockerfile();
const runtime = stages.at(-1)!;

describe("Dockerfile", () => {
  it("builds in one stage (npm ci, npm run build) and runs on production dependencies only", () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const run = (name: string) =>
      stages
        .filter((s) => s.name === name)
        .flatMap((s) => argsOf(s, "RUN"))
        .join("\n");
    expect(run("build")).toMatch(/npm ci\b/);
    expect(run("build")).toMatch(/npm run generate\b/);
    expect(run("build")).toMatch(/npm run build\b/);
    const production = stages
      .filter((s) => s !== stages.find((t) => t.name === "build"))
      .flatMap((s) => argsOf(s, "RUN"))
      .join("\n");
    expect(production).toMatch(/npm ci --omit=dev/);
    // The runtime stage takes its node_modules from a production-only install and dist/ from the build.
    const copies = argsOf(runtime, "COPY");
    expect(copies).toContainEqual(expect.stringMatching(/^--from=deps \/app\/node_modules /));
    expect(copies).toContainEqual(expect.stringMatching(/^--from=build \/app\/dist /));
  });

  it("runs node dist/main.js as a non-root user, on port 3000, with a /readyz health check and a data volume", () => {
    expect(argsOf(runtime, "CMD").map(execForm)).toEqual([["node", "--max-old-space-size=512", "--max-semi-space-size=8", "dist/main.js"]]);
    const users = argsOf(runtime, "USER");
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)).not.toMatch(/^(root|0)(:|$)/);
    expect(argsOf(runtime, "EXPOSE")).toEqual(["3000"]);
    const health = argsOf(runtime, "HEALTHCHECK");
    expect(health).toHaveLength(1);
    expect(health[0]).toMatch(/CMD .*\/readyz/);
    const env = argsOf(runtime, "ENV").join(" ");
    const dataDir = /PAYGATE_DATA_DIR=(\S+)/.exec(env)?.[1];
    expect(dataDir).toBeDefined();
    expect(argsOf(runtime, "VOLUME").flatMap((v) => execForm(v) ?? v.split(/\s+/))).toContain(dataDir);
    expect(env).toMatch(/NODE_ENV=production/);
  });

  it("runs the same command as npm run start:prod, the production start the benchmark measures", () => {
    const scripts = z.object({ scripts: z.record(z.string(), z.string()) }).parse(JSON.parse(readFileSync("package.json", "utf8"))).scripts;
    const [cmd] = argsOf(runtime, "CMD").map(execForm);
    expect(scripts["start:prod"]).toBe(`exec ${cmd?.join(" ")}`);
  });

  it("copies only files that exist and that .dockerignore lets into the build context", () => {
    const ignored = readFileSync(".dockerignore", "utf8")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith("#"))
      .map((line) => line.replace(/\/$/, ""));
    const sources = stages
      .flatMap((stage) => argsOf(stage, "COPY"))
      .filter((args) => !args.startsWith("--from="))
      .flatMap((args) => args.split(/\s+/).slice(0, -1)); // the last one is the destination
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(existsSync(source), source).toBe(true);
      expect(
        ignored.filter((pattern) => source === pattern || source.startsWith(`${pattern}/`)),
        source,
      ).toEqual([]);
    }
    // What must never reach the image's context: local installs, builds, data and keys.
    for (const pattern of ["node_modules", "dist", ".data", ".env"]) expect(ignored).toContain(pattern);
  });
});

const Environment = z.record(z.string(), z.string());
const PaygateService = z.object({
  build: z.unknown().optional(),
  image: z.string().optional(),
  command: z.array(z.string()).optional(),
  environment: Environment,
  depends_on: z.record(z.string(), z.object({ condition: z.string() })),
});
const Compose = z.object({
  services: z.object({
    postgres: z.object({ image: z.string(), healthcheck: z.object({ test: z.array(z.string()) }) }),
    "api-1": PaygateService,
    "api-2": PaygateService,
    worker: PaygateService.extend({ command: z.array(z.string()) }),
  }),
});

describe("compose.yaml", () => {
  const compose = Compose.parse(parse(readFileSync("compose.yaml", "utf8"), { merge: true }));
  const { postgres, "api-1": api1, "api-2": api2, worker } = compose.services;
  const paygate = [api1, api2, worker];

  it("runs PostgreSQL 16, two API instances of the image and one paygate worker", () => {
    expect(postgres.image).toMatch(/^postgres:16(\.|-|$)/);
    for (const service of paygate) {
      expect(service.build).toBeDefined(); // the Dockerfile beside it
      expect(service.depends_on.postgres?.condition).toBe("service_healthy");
      expect(service.environment.DATABASE_URL).toMatch(/^postgres:\/\/[^@]+@postgres:5432\//);
      expect(service.environment.NODE_ENV).toBe("production");
    }
    // The APIs run the image's CMD (node dist/main.js); the worker the CLI, from dist.
    expect(api1.command).toBeUndefined();
    expect(api2.command).toBeUndefined();
    expect(worker.command).toEqual(["node", "bin/paygate.mjs", "worker"]);
  });

  it("gives every instance the same PAYGATE_ENCRYPTION_KEY, from the environment or .env, required", () => {
    const keys = paygate.map((service) => service.environment.PAYGATE_ENCRYPTION_KEY);
    expect(keys[0]).toMatch(/^\$\{PAYGATE_ENCRYPTION_KEY:\?.+\}$/);
    expect(new Set(keys).size).toBe(1);
    expect(new Set(paygate.map((service) => service.environment.DATABASE_URL)).size).toBe(1);
  });

  it("leaves the background jobs to the worker: the APIs only serve HTTP", () => {
    for (const api of [api1, api2]) {
      expect(api.environment).toMatchObject({
        PAYGATE_WEBHOOK_DISPATCHER: "false",
        PAYGATE_EXPIRY_SCHEDULER: "false",
        PAYGATE_PAYMENT_WATCHER: "false",
      });
    }
    for (const variable of ["PAYGATE_WEBHOOK_DISPATCHER", "PAYGATE_EXPIRY_SCHEDULER", "PAYGATE_PAYMENT_WATCHER"]) {
      expect(worker.environment[variable]).not.toBe("false");
    }
  });
});
