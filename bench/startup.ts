// `npm run bench:startup`: how long a newcomer waits (issue 46). A CLI call as the README writes it,
// with and without a running service, and `npm start` until GET /healthz answers 200, on a fresh data
// folder and on one that exists. Each several times (STARTUP_RUNS, 5), printed as median, min and max
// with the load average around each scenario (a busy machine stretches every figure), and written to
// bench/results/startup.json. `--repo DIR` measures another checkout (an older commit, for a before).
// STARTUP_NPX=1 adds `npx paygate --help`, the README's former command (5-10 s a call). A benchmark,
// not a test: nothing here fails on slowness.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { delay, freePort } from "./processes.ts";

const runs = Number(process.env.STARTUP_RUNS ?? 5);
const repoFlag = process.argv.indexOf("--repo");
const repo = path.resolve(repoFlag > 0 ? (process.argv[repoFlag + 1] ?? ".") : ".");
const scratch = mkdtempSync(path.join(tmpdir(), "paygate-startup-"));
const children = new Set<ChildProcess>();

interface Timing {
  ms: number;
  /** CPU time of the processes run (user and system, all of them: npm, Node, PGlite's threads): what a busy machine stretches less. */
  cpuMs: number;
}

interface Result {
  scenario: string;
  ms: number[];
  cpuMs: number[];
  median: number;
  min: number;
  max: number;
  medianCpu: number;
  /** 1-minute load average before the first run and after the last. */
  load: [number, number];
}

function start(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  // Its own process group: the stop below signals it whole, as a terminal's Ctrl-C does.
  const child = spawn(command, args, { cwd: repo, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  children.add(child);
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-10_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<number | null>((resolve) => {
    child.on("exit", (code) => {
      children.delete(child);
      resolve(code);
    });
    child.on("error", () => resolve(null));
  });
  return { child, output: () => output, exited };
}

async function stopGroup(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null) return;
  process.kill(-child.pid, "SIGTERM");
  const gone = await Promise.race([exited.then(() => true), delay(15_000).then(() => false)]);
  if (!gone) process.kill(-child.pid, "SIGKILL");
}

/**
 * CPU milliseconds of this process's children that have exited and been waited for (and theirs):
 * /proc/self/stat's cutime and cstime, in clock ticks of 10 ms (Linux's USER_HZ).
 */
function childrenCpuMs(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]?.split(" ") ?? [];
  // After the command's name: state is field 3, so cutime (16) and cstime (17) are at 13 and 14.
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** CPU milliseconds so far of every process in the group `pgid` (npm, its shell, Node), their waited-for children included. */
function groupCpuMs(pgid: number): number {
  let ticks = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
    // From the state (field 3): pgrp is field 5, utime to cstime fields 14 to 17.
    if (Number(fields[2]) !== pgid) continue;
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  }
  return ticks * 10;
}

/** Milliseconds from spawn to exit; throws with the output on a non-zero exit. */
async function timeCommand(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<Timing> {
  const cpu = childrenCpuMs();
  const began = performance.now();
  const run = start(command, args, env);
  const code = await run.exited;
  if (code !== 0) throw new Error(`${command} ${args.join(" ")} exited ${code}:\n${run.output()}`);
  return { ms: performance.now() - began, cpuMs: childrenCpuMs() - cpu };
}

/** Milliseconds (and CPU) from `npm start` to the first 200 of GET /healthz, then a stop of the group. */
async function timeStart(dataDir: string): Promise<Timing> {
  const port = await freePort();
  const began = performance.now();
  let ms = Number.NaN;
  let cpuMs = Number.NaN;
  const run = start("npm", ["start"], { PAYGATE_DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1" });
  try {
    for (;;) {
      if (run.child.exitCode !== null) throw new Error(`npm start exited ${run.child.exitCode}:\n${run.output()}`);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1_000) }).then(
        (res) => res.status === 200,
        () => false,
      );
      if (ok) {
        ms = performance.now() - began;
        cpuMs = groupCpuMs(run.child.pid ?? -1);
        break;
      }
      if (performance.now() - began > 120_000) throw new Error(`no /healthz after 120 s:\n${run.output()}`);
      await delay(25);
    }
  } finally {
    await stopGroup(run.child, run.exited);
  }
  return { ms, cpuMs };
}

/** A service on `dataDir` for the CLI to hand its commands to; resolves once /healthz answers. */
async function serve(dataDir: string): Promise<() => Promise<void>> {
  const port = await freePort();
  const run = start(process.execPath, ["--import", "tsx", "src/main.ts"], { PAYGATE_DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1" });
  for (let i = 0; i < 2_400; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ok) return () => stopGroup(run.child, run.exited);
    if (run.child.exitCode !== null) break;
    await delay(50);
  }
  await stopGroup(run.child, run.exited);
  throw new Error(`the service did not start:\n${run.output()}`);
}

const medianOf = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

async function measure(scenario: string, once: (run: number) => Promise<Timing>): Promise<Result> {
  const before = loadavg()[0] ?? 0;
  const ms: number[] = [];
  const cpuMs: number[] = [];
  for (let run = 0; run < runs; run++) {
    const timing = await once(run);
    ms.push(timing.ms);
    cpuMs.push(timing.cpuMs);
    process.stderr.write(`${scenario}: ${timing.ms.toFixed(0)} ms, CPU ${timing.cpuMs} ms, load ${loadavg()[0]?.toFixed(1)}\n`);
  }
  return {
    scenario,
    ms,
    cpuMs,
    median: medianOf(ms),
    min: Math.min(...ms),
    max: Math.max(...ms),
    medianCpu: medianOf(cpuMs),
    load: [before, loadavg()[0] ?? 0],
  };
}

const freshDir = (run: number, what: string) => path.join(scratch, `${what}-${run}`);
const bin = ["bin/paygate.mjs"];
const create = (name: string) => [...bin, "merchant", "create", "--name", name, "--json"];

async function main(): Promise<Result[]> {
  const results: Result[] = [];
  // A data folder made once (and migrated): the CLI and `npm start` on an existing database.
  const existing = path.join(scratch, "existing");
  await timeCommand(process.execPath, create("Warm-up"), { PAYGATE_DATA_DIR: existing });

  results.push(await measure("npm start to /healthz, fresh data folder", (run) => timeStart(freshDir(run, "start"))));
  results.push(await measure("npm start to /healthz, existing data folder", () => timeStart(existing)));
  results.push(
    await measure("node bin/paygate.mjs merchant create, no service, fresh data folder", (run) =>
      timeCommand(process.execPath, create(`Fresh ${run}`), { PAYGATE_DATA_DIR: freshDir(run, "cli") }),
    ),
  );
  results.push(
    await measure("node bin/paygate.mjs merchant create, no service, existing data folder", (run) =>
      timeCommand(process.execPath, create(`Existing ${run}`), { PAYGATE_DATA_DIR: existing }),
    ),
  );
  const stop = await serve(existing);
  try {
    results.push(
      await measure("node bin/paygate.mjs merchant create, service running", (run) =>
        timeCommand(process.execPath, create(`Served ${run}`), { PAYGATE_DATA_DIR: existing }),
      ),
    );
    results.push(
      await measure("node bin/paygate.mjs --help", () => timeCommand(process.execPath, [...bin, "--help"], { PAYGATE_DATA_DIR: existing })),
    );
    if (process.env.STARTUP_NPX === "1") {
      results.push(await measure("npx paygate --help", () => timeCommand("npx", ["paygate", "--help"], { PAYGATE_DATA_DIR: existing })));
    }
  } finally {
    await stop();
  }
  return results;
}

const cleanUp = () => {
  for (const child of children) if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
  rmSync(scratch, { recursive: true, force: true });
};
process.once("SIGINT", () => {
  cleanUp();
  process.exit(130);
});

try {
  const results = await main();
  const seconds = (ms: number) => (ms / 1000).toFixed(2);
  console.log(`\n${repo}: ${runs} runs each, ${cpus().length} CPUs, Node ${process.version}\n`);
  console.log("| scenario | median s | min s | max s | median CPU s | load before → after |\n|---|---:|---:|---:|---:|---|");
  for (const r of results) {
    console.log(
      `| ${r.scenario} | ${seconds(r.median)} | ${seconds(r.min)} | ${seconds(r.max)} | ${seconds(r.medianCpu)} | ${r.load[0].toFixed(1)} → ${r.load[1].toFixed(1)} |`,
    );
  }
  mkdirSync(path.join(import.meta.dirname, "results"), { recursive: true });
  writeFileSync(
    path.join(import.meta.dirname, "results", "startup.json"),
    `${JSON.stringify({ at: new Date().toISOString(), repo, runs, cpus: cpus().length, node: process.version, results }, null, 2)}\n`,
  );
} finally {
  cleanUp();
}
