// The results: one row per database and scenario, as a text table and as JSON.
import type { Measurement } from "./load.ts";

export type DatabaseKind = "pglite" | "postgres";
export type Scenario =
  | "ceiling insert"
  | "ceiling insert, again"
  | "initialize"
  | "initialize, no rate limits"
  | "initiate"
  | "initiate, two instances"
  | "initiate, test mode"
  | "poll GET /v1/transaction/:id"
  | "poll GraphQL transaction";

export interface Row extends Measurement {
  database: DatabaseKind;
  scenario: Scenario;
  /** Non-2xx responses, connection errors and timeouts. */
  errors: number;
  /** req/s as a percentage of the ceiling's on the same database (the mean of its runs); null for the ceiling. */
  percentOfCeiling: number | null;
  /**
   * CPU per request (the service's and, on PostgreSQL, the database server's) as a multiple of the
   * ceiling's on the same database (the mean of its runs); null for the ceiling, or when not measured.
   */
  cpuOfCeiling: number | null;
  /** The service's largest resident memory during the scenario, in MB; null when not sampled. */
  peakRssMb: number | null;
  /** The same service's resident memory once healthy, before any load, in MB; null when not read. */
  idleRssMb: number | null;
  /** The body of the first failed response, if any, to tell what went wrong. */
  firstErrorBody: string | null;
}

export function toRow(database: DatabaseKind, scenario: Scenario, measurement: Measurement, firstErrorBody: string | null): Row {
  return {
    database,
    scenario,
    ...measurement,
    errors: measurement.non2xx + measurement.socketErrors,
    percentOfCeiling: null,
    cpuOfCeiling: null,
    peakRssMb: null,
    idleRssMb: null,
    firstErrorBody,
  };
}

const isCeiling = (row: Row) => row.scenario === "ceiling insert" || row.scenario === "ceiling insert, again";

/** CPU per request, the service's and the database's (PGlite's is the service's own); null when not measured. */
function cpuPerRequest(row: Row): number | null {
  if (row.serverCpuMsPerRequest === null) return null;
  return row.serverCpuMsPerRequest + (row.databaseCpuMsPerRequest ?? 0);
}

const mean = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

/**
 * Fills in each scenario's share of its ceiling: throughput and CPU per request against the mean of
 * the ceiling's runs on that database (one before the service, one after it: the machine's speed
 * drifts during a run, and the ceiling is every goal's yardstick).
 */
export function withCeilingShares(rows: Row[]): Row[] {
  return rows.map((row) => {
    if (isCeiling(row)) return row;
    const ceilings = rows.filter((r) => r.database === row.database && isCeiling(r));
    const rps = mean(ceilings.map((c) => c.rps));
    const cpus = ceilings.map(cpuPerRequest);
    const cpu = cpus.length > 0 && cpus.every((c): c is number => c !== null) ? mean(cpus) : null;
    const own = cpuPerRequest(row);
    return {
      ...row,
      percentOfCeiling: ceilings.length > 0 && rps > 0 ? (row.rps / rps) * 100 : null,
      cpuOfCeiling: own !== null && cpu !== null && cpu > 0 ? own / cpu : null,
    };
  });
}

const COLUMNS = [
  "database",
  "scenario",
  "req/s",
  "p50 ms",
  "p99 ms",
  "errors",
  "% of ceiling",
  "CPU ms/req",
  "DB CPU ms/req",
  "CPU × ceiling",
  "peak RSS",
] as const;
const RIGHT_ALIGNED = new Set<string>(COLUMNS.slice(2));

export function formatTable(rows: Row[]): string {
  const cells = rows.map((row) => [
    row.database,
    row.scenario,
    row.rps.toFixed(1),
    String(row.p50),
    String(row.p99),
    String(row.errors),
    row.percentOfCeiling === null ? "" : `${row.percentOfCeiling.toFixed(1)} %`,
    row.serverCpuMsPerRequest === null ? "" : row.serverCpuMsPerRequest.toFixed(2),
    row.databaseCpuMsPerRequest === null ? "" : row.databaseCpuMsPerRequest.toFixed(2),
    row.cpuOfCeiling === null ? "" : row.cpuOfCeiling.toFixed(2),
    row.peakRssMb === null ? "" : `${row.peakRssMb.toFixed(0)} MB`,
  ]);
  const widths = COLUMNS.map((title, i) => Math.max(title.length, ...cells.map((c) => (c[i] ?? "").length)));
  const line = (values: readonly string[]) =>
    "| " +
    values
      .map((value, i) => {
        const width = widths[i] ?? 0;
        return RIGHT_ALIGNED.has(COLUMNS[i] ?? "") ? value.padStart(width) : value.padEnd(width);
      })
      .join(" | ") +
    " |";
  const rule = `|${widths.map((w, i) => (RIGHT_ALIGNED.has(COLUMNS[i] ?? "") ? `${"-".repeat(w + 1)}:` : "-".repeat(w + 2))).join("|")}|`;
  return [line(COLUMNS), rule, ...cells.map(line)].join("\n");
}
