// The bench's table (bench/report.ts): each scenario against the mean of the ceiling's two runs.
import { describe, expect, it } from "vitest";
import { formatTable, toRow, withCeilingShares, type Row, type Scenario } from "../../bench/report.ts";
import type { Measurement } from "../../bench/load.ts";

function row(scenario: Scenario, rps: number, cpu: number | null, databaseCpu: number | null, database: Row["database"] = "postgres"): Row {
  const measurement: Measurement = {
    requests: rps * 10,
    seconds: 10,
    rps,
    p50: 5,
    p99: 20,
    non2xx: 0,
    socketErrors: 0,
    statusCodes: { "2xx": rps * 10 },
    serverCpuMsPerRequest: cpu,
    databaseCpuMsPerRequest: databaseCpu,
  };
  return toRow(database, scenario, measurement, null);
}

describe("the bench's multiples of the ceiling", () => {
  it("divides by the mean of the ceiling's runs: throughput, and CPU with the database's", () => {
    const rows = withCeilingShares([
      row("ceiling insert", 1000, 0.4, 0.4),
      row("ceiling insert, again", 1500, 0.5, 0.7),
      row("initiate", 500, 1.5, 0.5),
    ]);
    const initiate = rows.find((r) => r.scenario === "initiate");
    expect(initiate?.percentOfCeiling).toBeCloseTo(40, 10); // 500 of the mean 1,250
    expect(initiate?.cpuOfCeiling).toBeCloseTo(2, 10); // 2.0 ms of the mean 1.0
    expect(rows.filter((r) => r.scenario.startsWith("ceiling")).map((r) => [r.percentOfCeiling, r.cpuOfCeiling])).toEqual([
      [null, null],
      [null, null],
    ]);
    expect(formatTable(rows)).toMatch(
      /\| CPU × ceiling \|[\s\S]*\| postgres \| initiate +\| +500\.0 \|.*\| +40\.0 % \| +1\.50 \| +0\.50 \| +2\.00 \|/,
    );
  });

  it("takes a ceiling of the same database only, and gives no CPU multiple where a CPU was not measured", () => {
    const rows = withCeilingShares([
      row("ceiling insert", 1000, 0.5, null, "pglite"),
      row("ceiling insert", 2000, null, null),
      row("initialize", 500, 1.0, null, "pglite"),
      row("initialize", 500, 1.0, 0.2),
    ]);
    const [onPglite, onPostgres] = rows.filter((r) => r.scenario === "initialize");
    expect([onPglite?.percentOfCeiling, onPglite?.cpuOfCeiling]).toEqual([50, 2]);
    expect([onPostgres?.percentOfCeiling, onPostgres?.cpuOfCeiling]).toEqual([25, null]);
  });
});
