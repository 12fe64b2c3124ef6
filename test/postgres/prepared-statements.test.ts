// PostgreSQL only: the service's connections keep its repeated statements prepared (src/db/prepared-statements.ts),
// by as many names as PAYGATE_DB_PREPARED_STATEMENTS allows, and none when it is 0.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SqlDriverAdapter } from "@prisma/driver-adapter-utils";
import { createAdapterFactory, type DatabaseAdapter } from "../../src/db/adapters.ts";
import { createTestDatabase, type TestDatabase } from "../support/test-database.ts";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.close());

const INT = { scalarType: "int", arity: "scalar" } as const;

/** One connection (pool of 1) with `limit` prepared statements, and what it runs. */
async function connection(limit: number): Promise<{ adapter: DatabaseAdapter; driver: SqlDriverAdapter }> {
  if (!database.url) throw new Error("no PostgreSQL URL");
  const adapter = await createAdapterFactory({ kind: "postgres", url: database.url, poolMax: 1, preparedStatements: limit });
  return { adapter, driver: await adapter.factory.connect() };
}

async function run(driver: SqlDriverAdapter, sql: string, times: number): Promise<unknown[][]> {
  let rows: unknown[][] = [];
  for (let i = 0; i < times; i++) rows = (await driver.queryRaw({ sql, args: [i], argTypes: [INT] })).rows;
  return rows;
}

async function prepared(driver: SqlDriverAdapter): Promise<unknown[][]> {
  const sql = "SELECT name, statement FROM pg_prepared_statements WHERE name LIKE 'paygate%' ORDER BY name";
  return (await driver.queryRaw({ sql, args: [], argTypes: [] })).rows;
}

describe("prepared statements", () => {
  it("prepares a statement run three times, under one name, up to the limit", async () => {
    const { adapter, driver } = await connection(2);
    try {
      const [a, b, c] = ["SELECT $1::int + 1 AS n", "SELECT $1::int + 2 AS n", "SELECT $1::int + 3 AS n"];
      expect(await run(driver, a, 2)).toEqual([[2]]);
      expect(await prepared(driver)).toEqual([]);
      expect(await run(driver, a, 3)).toEqual([[3]]);
      expect(await prepared(driver)).toEqual([["paygate_1", a]]);
      await run(driver, b, 3);
      await run(driver, c, 5);
      // The limit is 2: the third text runs unnamed, and right.
      expect(await run(driver, c, 1)).toEqual([[3]]);
      expect(await prepared(driver)).toEqual([
        ["paygate_1", a],
        ["paygate_2", b],
      ]);
    } finally {
      await driver.dispose();
      await adapter.close();
    }
  });

  it("prepares none when the limit is 0", async () => {
    const { adapter, driver } = await connection(0);
    try {
      expect(await run(driver, "SELECT $1::int * 2 AS n", 5)).toEqual([[8]]);
      expect(await prepared(driver)).toEqual([]);
    } finally {
      await driver.dispose();
      await adapter.close();
    }
  });
});
