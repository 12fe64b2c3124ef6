// Child processes of the benchmark: started with their output kept (not shown unless something
// fails), stopped with SIGTERM and, if they do not go, SIGKILL.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";

const KEPT_OUTPUT_CHARS = 20_000;

/** Every child still running, so that nothing outlives the benchmark. */
const running = new Set<ChildProcess>();

function spawnNode(args: string[], env: NodeJS.ProcessEnv, cwd: string): ChildProcess {
  return spawnCommand(process.execPath, args, env, cwd);
}

function spawnCommand(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): ChildProcess {
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  child.on("exit", () => running.delete(child));
  child.on("error", () => running.delete(child));
  return child;
}

/** The last resort of cleanup: SIGKILL for any child still running. */
export function killStragglers(): void {
  for (const child of running) child.kill("SIGKILL");
}

export interface Child {
  name: string;
  /** The process id, for reading its memory (undefined when it could not start). */
  pid: number | undefined;
  /** The last lines the process wrote to stdout and stderr, interleaved. */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal) once the process has exited. */
  exited: Promise<number | null>;
  hasExited(): boolean;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

export function startChild(name: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Child {
  const child = spawnNode(args, env, cwd);
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-KEPT_OUTPUT_CHARS);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = exitOf(child);
  const hasExited = () => child.exitCode !== null || child.signalCode !== null;
  return {
    name,
    pid: child.pid,
    output: () => output,
    exited,
    hasExited,
    async stop(graceMs = 15_000) {
      if (hasExited()) return;
      child.kill("SIGTERM");
      const gone = await Promise.race([exited.then(() => true), delay(graceMs).then(() => false)]);
      if (!gone) {
        child.kill("SIGKILL");
        await exited;
      }
    },
  };
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.on("exit", (code) => resolve(code));
    child.on("error", () => resolve(null)); // could not start: treated as exited
  });
}

/** Runs Node with `args` to completion; rejects with its output when it fails or runs too long. */
export function runToCompletion(name: string, args: string[], env: NodeJS.ProcessEnv, cwd: string, timeoutMs: number): Promise<string> {
  return completion(name, spawnNode(args, env, cwd), timeoutMs);
}

/**
 * `npm run <script>` to completion, through the npm that runs this process when there is one
 * (`npm run bench` sets npm_execpath), else the `npm` on the PATH.
 */
export function runNpmScript(script: string, env: NodeJS.ProcessEnv, cwd: string, timeoutMs: number): Promise<string> {
  const npm = process.env.npm_execpath;
  const child = npm && /\.[cm]?js$/.test(npm) ? spawnNode([npm, "run", script], env, cwd) : spawnCommand("npm", ["run", script], env, cwd);
  return completion(`npm run ${script}`, child, timeoutMs);
}

async function completion(name: string, child: ChildProcess, timeoutMs: number): Promise<string> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  try {
    const code = await exitOf(child);
    if (code !== 0) throw new Error(`${name} failed (exit ${code ?? "by signal"}):\n${stderr}${stdout}`);
    return stdout;
  } finally {
    clearTimeout(timer);
  }
}

/** A TCP port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  if (address === null || typeof address === "string") throw new Error("could not find a free port");
  return address.port;
}

/** Waits until GET `url` answers 200; fails early if the process exits first. */
export async function waitForHealthy(url: string, child: Child, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.hasExited()) throw new Error(`${child.name} exited before it was healthy:\n${child.output()}`);
    if (await answers200(url)) return;
    await delay(200);
  }
  throw new Error(`${child.name} was not healthy at ${url} after ${timeoutMs / 1000} s:\n${child.output()}`);
}

async function answers200(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
