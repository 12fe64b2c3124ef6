// The results: one row per database and scenario, as a text table and as JSON.
import type { Measurement } from "./load.ts";

export type DatabaseKind = "pglite" | "postgres";
export type Scenario =
  | "ceiling insert"
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
  /** req/s as a percentage of the ceiling's on the same database; null for the ceiling. */
  percentOfCeiling: number | null;
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
    peakRssMb: null,
    idleRssMb: null,
    firstErrorBody,
  };
}

/** Fills in each scenario's share of its ceiling. */
export function withCeilingShares(rows: Row[]): Row[] {
  return rows.map((row) => {
    if (row.scenario === "ceiling insert") return row;
    const ceiling = rows.find((r) => r.database === row.database && r.scenario === "ceiling insert");
    if (!ceiling || ceiling.rps === 0) return row;
    return { ...row, percentOfCeiling: (row.rps / ceiling.rps) * 100 };
  });
}

const COLUMNS = ["database", "scenario", "req/s", "p50 ms", "p99 ms", "errors", "% of ceiling", "CPU ms/req", "DB CPU ms/req", "peak RSS"] as const;
const RIGHT_ALIGNED = new Set<string>(["req/s", "p50 ms", "p99 ms", "errors", "% of ceiling", "CPU ms/req", "DB CPU ms/req", "peak RSS"]);

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
