// One load run with autocannon, reduced to the numbers the report shows.
import { readdirSync, readFileSync } from "node:fs";
import autocannon from "autocannon";

export interface LoadSpec {
  url: string;
  connections: number;
  /** How long to run; with `amount`, the run ends at whichever comes first. */
  seconds: number;
  /** Stop after this many requests in all. */
  amount?: number;
  requests: autocannon.Request[];
  /** The server process, whose CPU time per request is measured (Linux /proc). */
  serverPid?: number;
  /** Whether to measure the CPU time of this machine's PostgreSQL server per request too (Linux /proc). */
  databaseCpu?: boolean;
}

export interface Measurement {
  /** Completed requests (any status). */
  requests: number;
  /** From the start to the last response. */
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** Connection errors and timeouts. */
  socketErrors: number;
  statusCodes: Record<string, number>;
  /**
   * The server's CPU time (user + system) over the run divided by the requests, in ms: what one
   * request costs the server whatever else loads the machine. Null when not measured.
   */
  serverCpuMsPerRequest: number | null;
  /**
   * The same for this machine's PostgreSQL server (every process named postgres): the database's
   * share of a request, which the server's figure leaves out. Null when not measured.
   */
  databaseCpuMsPerRequest: number | null;
}

/** Linux counts a process's CPU time in ticks of 1/100 s (USER_HZ). */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system) the process has used so far, in ms; null without /proc or the process. */
export function cpuMsOf(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    return cpuMsOfStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return null;
  }
}

function cpuMsOfStat(stat: string): number | null {
  // After "pid (name) ", utime and stime are the 12th and 13th fields.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : null;
}

/**
 * CPU time the processes named postgres have used so far, in ms: the server and its backends (a
 * pool's connections live through a run). Null without /proc or without such a process.
 */
export function databaseCpuMs(): number | null {
  let total: number | null = null;
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (!stat.includes(" (postgres) ")) continue;
      total = (total ?? 0) + (cpuMsOfStat(stat) ?? 0);
    } catch {
      // Gone meanwhile.
    }
  }
  return total;
}

/** Per request, from two readings; null when either is missing. */
function perRequest(before: number | null, after: number | null, requests: number): number | null {
  return before === null || after === null || requests === 0 ? null : (after - before) / requests;
}

export async function measure(spec: LoadSpec): Promise<Measurement> {
  const cpuBefore = cpuMsOf(spec.serverPid);
  const databaseBefore = spec.databaseCpu ? databaseCpuMs() : null;
  const started = performance.now();
  let lastResponse = started;
  const requests = spec.requests.map((request) => ({
    ...request,
    onResponse: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string | string[]>) => {
      lastResponse = performance.now();
      request.onResponse?.(status, body, context, headers);
    },
  }));
  const instance = autocannon({ url: spec.url, connections: spec.connections, duration: spec.seconds, requests, timeout: 10, ...amountOption(spec) });
  // autocannon ignores the duration when an amount is given; end it ourselves.
  const timer = spec.amount === undefined ? undefined : setTimeout(() => instance.stop(), spec.seconds * 1000);
  let result: autocannon.Result;
  try {
    result = await instance;
  } finally {
    clearTimeout(timer);
  }
  // autocannon's own duration runs to the next one-second sample after the end; time it exactly.
  const seconds = (lastResponse - started) / 1000;
  const cpuAfter = cpuMsOf(spec.serverPid);
  const databaseAfter = spec.databaseCpu ? databaseCpuMs() : null;
  const total = result.requests.total;
  return {
    requests: result.requests.total,
    seconds,
    rps: seconds > 0 ? result.requests.total / seconds : 0,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    socketErrors: result.errors,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, stat]) => [code, stat.count])),
    serverCpuMsPerRequest: perRequest(cpuBefore, cpuAfter, total),
    databaseCpuMsPerRequest: perRequest(databaseBefore, databaseAfter, total),
  };
}

function amountOption(spec: LoadSpec): { amount?: number } {
  return spec.amount === undefined ? {} : { amount: spec.amount };
}

/** A warm-up run whose numbers are thrown away, then the measured run. */
export async function measureAfterWarmUp(spec: LoadSpec, warmUpSeconds: number): Promise<Measurement> {
  if (warmUpSeconds > 0) await measure({ ...spec, seconds: warmUpSeconds });
  return measure(spec);
}

/**
 * Runs side by side, one figure for all: requests and errors add up, over the longest run; the
 * percentiles are the worse of the runs' (autocannon's histograms are not merged).
 */
export async function measureTogether(specs: LoadSpec[]): Promise<Measurement> {
  // The database is one for all the runs: read around them all, not in each.
  const databaseCpu = specs.some((spec) => spec.databaseCpu);
  const databaseBefore = databaseCpu ? databaseCpuMs() : null;
  const runs = await Promise.all(specs.map((spec) => measure({ ...spec, databaseCpu: false })));
  const databaseAfter = databaseCpu ? databaseCpuMs() : null;
  const requests = runs.reduce((sum, run) => sum + run.requests, 0);
  const seconds = Math.max(...runs.map((run) => run.seconds));
  const statusCodes: Record<string, number> = {};
  for (const run of runs) for (const [code, count] of Object.entries(run.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count;
  // Each server's CPU over all the requests: what a request costs the servers together.
  const cpuMs = runs.every((run) => run.serverCpuMsPerRequest !== null)
    ? runs.reduce((sum, run) => sum + (run.serverCpuMsPerRequest ?? 0) * run.requests, 0)
    : null;
  return {
    requests,
    seconds,
    rps: seconds > 0 ? requests / seconds : 0,
    p50: Math.max(...runs.map((run) => run.p50)),
    p99: Math.max(...runs.map((run) => run.p99)),
    non2xx: runs.reduce((sum, run) => sum + run.non2xx, 0),
    socketErrors: runs.reduce((sum, run) => sum + run.socketErrors, 0),
    statusCodes,
    serverCpuMsPerRequest: cpuMs === null || requests === 0 ? null : cpuMs / requests,
    databaseCpuMsPerRequest: perRequest(databaseBefore, databaseAfter, requests),
  };
}
