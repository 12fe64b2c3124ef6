// The own_address_scan_cursor migration runs on a database that already holds settlement settings: an
// own-address setting is taken as turned on, and scanned, from its last change (updated_at), so the
// idle scan (src/core/own-addresses/idle-scan.ts) starts there and reports nothing older; a forwarder
// setting gets neither. On PGlite, and on a fresh PostgreSQL database when DATABASE_URL is set.
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { listMigrations, MIGRATIONS_DIR } from "../../src/db/migrations.ts";
import { admin } from "../support/test-database.ts";

interface Sql {
  exec(sql: string): Promise<void>;
  rows<T>(sql: string): Promise<T[]>;
  close(): Promise<void>;
}

async function openDatabase(): Promise<Sql> {
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
  await admin(adminUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
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

const db = await openDatabase();
afterAll(() => db.close());

describe("the own_address_scan_cursor migration", () => {
  it("starts an own-address setting's scan at its last change, and leaves a forwarder setting without one", async () => {
    const folders = (await listMigrations()).migrationDirectories.map((d) => d.path);
    const at = folders.findIndex((name) => name.endsWith("_own_address_scan_cursor"));
    expect(at).toBeGreaterThan(0);
    const sql = (name: string) => readFile(path.join(MIGRATIONS_DIR, name, "migration.sql"), "utf8");
    for (const name of folders.slice(0, at)) await db.exec(await sql(name));

    await db.exec(`
      INSERT INTO merchants (name, webhook_secret_enc, updated_at) VALUES ('Own Ltd', 'v1.sealed', now()), ('Forwarding Ltd', 'v1.sealed', now());
      INSERT INTO settlement_settings (merchant_id, network, is_live, mode, destination, address_count, updated_at)
        SELECT id, 'tron', false, 'own_addresses', '', 2, '2026-11-30T08:15:00.123Z' FROM merchants WHERE name = 'Own Ltd';
      INSERT INTO settlement_settings (merchant_id, network, is_live, mode, destination, address_count, updated_at)
        SELECT id, 'ethereum', false, 'forwarder', '0x00000000000000000000000000000000000000aa', NULL, '2026-11-30T09:00:00Z' FROM merchants WHERE name = 'Forwarding Ltd';`);
    await db.exec(await sql(folders[at]!));

    const rows = await db.rows<{ name: string; turned_on_at: Date | null; scanned_from: Date | null }>(
      `SELECT m.name, s.turned_on_at, s.scanned_from FROM settlement_settings s JOIN merchants m ON m.id = s.merchant_id ORDER BY m.name`,
    );
    expect(
      rows.map((r) => [r.name, r.turned_on_at && new Date(r.turned_on_at).toISOString(), r.scanned_from && new Date(r.scanned_from).toISOString()]),
    ).toEqual([
      ["Forwarding Ltd", null, null],
      ["Own Ltd", "2026-11-30T08:15:00.123Z", "2026-11-30T08:15:00.123Z"],
    ]);
    // Later migrations apply on top.
    for (const name of folders.slice(at + 1)) await db.exec(await sql(name));
  });
});
