// The migrations in prisma/migrations, applied through the WebAssembly schema engine, and the
// drift test: it fails when prisma/schema.prisma changes without a migration
// (write one with `npm run db:migration:new -- NAME`).
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdapterFactory, type AdapterFactory } from "../../src/db/adapters.ts";
import {
  applyMigrations,
  listMigrations,
  MigrationError,
  nextMigrationSql,
  pendingMigrations,
  SCHEMA_PATH,
  schemaDrift,
} from "../../src/db/migrations.ts";
import { createTestDatabase, type TestDatabase } from "../support/test-database.ts";

let db: TestDatabase;
let folders: string[];

beforeAll(async () => {
  db = await createTestDatabase();
  folders = (await listMigrations()).migrationDirectories.map((d) => d.path);
});
afterAll(async () => {
  await db?.close();
});

async function query(factory: AdapterFactory, sql: string): Promise<Record<string, unknown>[]> {
  const connection = await factory.connect();
  try {
    const result = await connection.queryRaw({ sql, args: [], argTypes: [] });
    return result.rows.map((row) => Object.fromEntries(result.columnNames.map((name, i) => [name, row[i]])));
  } finally {
    await connection.dispose();
  }
}

async function execute(factory: AdapterFactory, sql: string): Promise<void> {
  const connection = await factory.connect();
  try {
    await connection.executeRaw({ sql, args: [], argTypes: [] });
  } finally {
    await connection.dispose();
  }
}

describe("migrations", () => {
  it("has at least the init migration", () => {
    expect(folders.length).toBeGreaterThan(0);
    expect(folders[0]).toMatch(/^\d{14}_init$/);
  });

  it("records every migration in _prisma_migrations as prisma migrate deploy does", async () => {
    const rows = await query(
      db.factory,
      "SELECT migration_name, checksum, finished_at, rolled_back_at, applied_steps_count FROM _prisma_migrations ORDER BY migration_name",
    );
    expect(rows.map((r) => r.migration_name)).toEqual(folders);
    for (const row of rows) {
      expect(row.finished_at).not.toBeNull();
      expect(row.rolled_back_at).toBeNull();
      expect(row.applied_steps_count).toBe(1);
      const sql = await readFile(new URL(`../../prisma/migrations/${String(row.migration_name)}/migration.sql`, import.meta.url));
      expect(row.checksum).toBe(createHash("sha256").update(sql).digest("hex"));
    }
  });

  it("applies nothing the second time", async () => {
    const lines: string[] = [];
    const result = await applyMigrations(db.factory, (line) => lines.push(line));
    expect(result.applied).toEqual([]);
    expect(lines).toEqual([]);
  });

  it("applies every migration to a fresh in-memory PGlite and logs each", async () => {
    const fresh = await createAdapterFactory({ kind: "pglite", dataDir: null });
    try {
      expect(await pendingMigrations(fresh.factory, await listMigrations())).toBe("unknown"); // no _prisma_migrations yet
      const lines: string[] = [];
      const result = await applyMigrations(fresh.factory, (line) => lines.push(line));
      expect(result.applied).toEqual(folders);
      expect(lines).toEqual(folders.map((name) => `Applied migration ${name}`));
      expect(await pendingMigrations(fresh.factory, await listMigrations())).toBe("none");
      expect((await applyMigrations(fresh.factory)).applied).toEqual([]);
    } finally {
      await fresh.close();
    }
  });
});

// On a database that records every migration, applyMigrations does not start the schema engine (its
// WebAssembly costs a process some 40 MB it keeps); anything else goes to the engine, which decides.
// Each case changes _prisma_migrations and puts it back.
describe("the check that spares the engine", () => {
  const last = () => folders.at(-1) ?? "";
  const pending = async () => pendingMigrations(db.factory, await listMigrations());

  async function whileChanged(change: string, undo: string, check: () => Promise<void>): Promise<void> {
    await execute(db.factory, change);
    try {
      await check();
    } finally {
      await execute(db.factory, undo);
    }
  }

  it("finds nothing pending on the migrated database", async () => {
    expect(await pending()).toBe("none");
  });

  it("leaves it to the engine when a folder's migration is not recorded as applied (rolled back)", async () => {
    await whileChanged(
      `UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name = '${last()}'`,
      `UPDATE _prisma_migrations SET rolled_back_at = NULL WHERE migration_name = '${last()}'`,
      async () => expect(await pending()).toBe("unknown"),
    );
  });

  it("leaves it to the engine when an applied migration's file was edited (another checksum)", async () => {
    await whileChanged(
      `UPDATE _prisma_migrations SET checksum = reverse(checksum) WHERE migration_name = '${last()}'`,
      `UPDATE _prisma_migrations SET checksum = reverse(checksum) WHERE migration_name = '${last()}'`,
      async () => expect(await pending()).toBe("unknown"),
    );
  });

  it("leaves it to the engine when the database has a migration the folders lack", async () => {
    await whileChanged(
      `INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, applied_steps_count)
       VALUES ('probe-newer', 'abc', now(), '29991231000000_newer', 1)`,
      `DELETE FROM _prisma_migrations WHERE id = 'probe-newer'`,
      async () => expect(await pending()).toBe("unknown"),
    );
  });

  it("leaves a failed migration to the engine, which refuses to go on", async () => {
    await whileChanged(
      `INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, logs, applied_steps_count)
       VALUES ('probe-failed', 'abc', NULL, '${last()}', 'failed in a test', 0)`,
      `DELETE FROM _prisma_migrations WHERE id = 'probe-failed'`,
      async () => {
        expect(await pending()).toBe("unknown");
        await expect(applyMigrations(db.factory)).rejects.toThrow(MigrationError);
      },
    );
  });
});

describe("schema drift", () => {
  it("finds none: the migrated database is what prisma/schema.prisma describes", async () => {
    expect(await schemaDrift(db.factory)).toBe("");
  });

  it("finds an edit to the schema that no migration carries", async () => {
    const schema = await readFile(SCHEMA_PATH, "utf8");
    const edited = schema.replace(/(model Merchant \{\n)/, '$1  driftProbe String? @map("drift_probe")\n');
    expect(edited).not.toBe(schema);
    const sql = await schemaDrift(db.factory, edited);
    expect(sql).toMatch(/ALTER TABLE "merchants" ADD COLUMN\s+"drift_probe" TEXT/);
  });

  it("has no next migration to write: the migrations produce the schema", async () => {
    expect(await nextMigrationSql()).toBe("");
  });
});
