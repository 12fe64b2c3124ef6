// A bare database to test one migration on data written by the migrations before it: PGlite, or a fresh
// PostgreSQL database when DATABASE_URL is set. `upTo` applies the migrations before the one named,
// `apply` that one, `applyRest` the ones after it (which must still apply on top).
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { listMigrations, MIGRATIONS_DIR } from "../../src/db/migrations.ts";
import { admin, createEmptyDatabase } from "./test-database.ts";

export interface MigrationDatabase {
  exec(sql: string): Promise<void>;
  rows<T>(sql: string): Promise<T[]>;
  /** Applies every migration before the one whose folder ends with `_<suffix>`. */
  upTo(suffix: string): Promise<void>;
  /** Applies that migration. */
  apply(suffix: string): Promise<void>;
  /** Applies the migrations after it. */
  applyRest(suffix: string): Promise<void>;
  close(): Promise<void>;
}

type Sql = Pick<MigrationDatabase, "exec" | "rows" | "close">;

async function openSql(): Promise<Sql> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    const lite = new PGlite();
    return {
      exec: async (sql) => void (await lite.exec(sql)),
      rows: async <T>(sql: string) => (await lite.query<T>(sql)).rows,
      close: () => lite.close(),
    };
  }
  const name = `paygate_test_${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: await createEmptyDatabase(adminUrl, name) });
  await client.connect();
  return {
    exec: async (sql) => void (await client.query(sql)),
    rows: async <T>(sql: string) => (await client.query(sql)).rows as T[],
    close: async () => {
      await client.end();
      await admin(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

export async function openMigrationDatabase(): Promise<MigrationDatabase> {
  const sql = await openSql();
  const folders = (await listMigrations()).migrationDirectories.map((d) => d.path);
  const indexOf = (suffix: string) => {
    const at = folders.findIndex((name) => name.endsWith(`_${suffix}`));
    if (at <= 0) throw new Error(`no migration ending with _${suffix} after the first`);
    return at;
  };
  const run = async (names: string[]) => {
    for (const name of names) await sql.exec(await readFile(path.join(MIGRATIONS_DIR, name, "migration.sql"), "utf8"));
  };
  return {
    ...sql,
    upTo: (suffix) => run(folders.slice(0, indexOf(suffix))),
    apply: (suffix) => run(folders.slice(indexOf(suffix), indexOf(suffix) + 1)),
    applyRest: (suffix) => run(folders.slice(indexOf(suffix) + 1)),
  };
}
