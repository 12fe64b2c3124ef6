// The webhook_endpoints migration runs on a database that already holds merchants with webhook URLs
// and secrets: each mode's URL, with the sealed secret (and a rotation's previous one), becomes that
// mode's first endpoint receiving every event; a mode without a URL gets none. Then the merchant's
// columns keep the first endpoints equal to them, and a written event fans out to the other endpoints.
// On PGlite, and on a fresh PostgreSQL database when DATABASE_URL is set.
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

interface EndpointRow {
  merchant: string;
  is_live: boolean;
  is_primary: boolean;
  url: string;
  enabled_events: string[];
  secret_enc: string;
  previous_secret_enc: string | null;
  disabled_at: Date | null;
}
const endpoints = () =>
  db.rows<EndpointRow>(`SELECT m.name AS merchant, e.is_live, e.is_primary, e.url, e.enabled_events, e.secret_enc, e.previous_secret_enc, e.disabled_at
    FROM webhook_endpoints e JOIN merchants m ON m.id = e.merchant_id ORDER BY m.name, e.is_live`);

describe("the webhook_endpoints migration", () => {
  it("turns each merchant's webhook URL of a mode and its secret into that mode's first endpoint, taking every event", async () => {
    const folders = (await listMigrations()).migrationDirectories.map((d) => d.path);
    const at = folders.findIndex((name) => name.endsWith("_webhook_endpoints"));
    expect(at).toBeGreaterThan(0);
    const sql = (name: string) => readFile(path.join(MIGRATIONS_DIR, name, "migration.sql"), "utf8");
    for (const name of folders.slice(0, at)) await db.exec(await sql(name));

    await db.exec(`
      INSERT INTO merchants (name, live_webhook_url, test_webhook_url, webhook_secret_enc, previous_webhook_secret_enc,
        previous_webhook_secret_expires_at, updated_at)
      VALUES ('Both Modes Ltd', 'https://shop.example.com/hooks', 'http://127.0.0.1:4000/hooks', 'v1.sealed-both', 'v1.sealed-before',
        now() + interval '1 hour', now()),
        ('Test Only Ltd', NULL, 'https://test-only.example.com/hooks', 'v1.sealed-test', NULL, NULL, now()),
        ('No Hooks Ltd', NULL, NULL, 'v1.sealed-none', NULL, NULL, now());`);
    await db.exec(await sql(folders[at]!));

    expect(await endpoints()).toEqual([
      expect.objectContaining({
        merchant: "Both Modes Ltd",
        is_live: false,
        is_primary: true,
        url: "http://127.0.0.1:4000/hooks",
        enabled_events: ["*"],
        secret_enc: "v1.sealed-both",
        previous_secret_enc: "v1.sealed-before",
        disabled_at: null,
      }),
      expect.objectContaining({
        merchant: "Both Modes Ltd",
        is_live: true,
        is_primary: true,
        url: "https://shop.example.com/hooks",
        enabled_events: ["*"],
        secret_enc: "v1.sealed-both",
        previous_secret_enc: "v1.sealed-before",
      }),
      expect.objectContaining({
        merchant: "Test Only Ltd",
        is_live: false,
        is_primary: true,
        url: "https://test-only.example.com/hooks",
        secret_enc: "v1.sealed-test",
        previous_secret_enc: null,
      }),
    ]);
    const ids = await db.rows<{ id: string }>("SELECT id FROM webhook_endpoints");
    for (const { id } of ids) expect(id).toMatch(/^we_[0-9a-f]{32}$/);

    // Later migrations apply on top.
    for (const name of folders.slice(at + 1)) await db.exec(await sql(name));
  });

  it("keeps the first endpoints equal to the merchant's URL and secret as they change, and removes one with its URL", async () => {
    await db.exec(`UPDATE merchants SET live_webhook_url = 'https://shop.example.com/v2', webhook_secret_enc = 'v1.rotated' WHERE name = 'Both Modes Ltd';
      UPDATE merchants SET test_webhook_url = NULL WHERE name = 'Test Only Ltd';
      UPDATE merchants SET live_webhook_url = 'https://nohooks.example.com/now' WHERE name = 'No Hooks Ltd';`);
    expect((await endpoints()).map((e) => [e.merchant, e.is_live, e.url, e.secret_enc])).toEqual([
      ["Both Modes Ltd", false, "http://127.0.0.1:4000/hooks", "v1.rotated"],
      ["Both Modes Ltd", true, "https://shop.example.com/v2", "v1.rotated"],
      ["No Hooks Ltd", true, "https://nohooks.example.com/now", "v1.sealed-none"],
    ]);
  });

  it("fans a written event out to the other enabled endpoints of its merchant and mode whose filter takes it", async () => {
    await db.exec(`
      INSERT INTO webhook_endpoints (id, merchant_id, is_live, url, enabled_events, secret_enc)
      SELECT 'we_all', id, false, 'https://all.example.com', ARRAY['*'], 'v1.a' FROM merchants WHERE name = 'Both Modes Ltd';
      INSERT INTO webhook_endpoints (id, merchant_id, is_live, url, enabled_events, secret_enc)
      SELECT 'we_received', id, false, 'https://received.example.com', ARRAY['payment.received'], 'v1.b' FROM merchants WHERE name = 'Both Modes Ltd';
      INSERT INTO webhook_endpoints (id, merchant_id, is_live, url, enabled_events, secret_enc, disabled_at)
      SELECT 'we_off', id, false, 'https://off.example.com', ARRAY['*'], 'v1.c', now() FROM merchants WHERE name = 'Both Modes Ltd';
      INSERT INTO webhook_endpoints (id, merchant_id, is_live, url, enabled_events, secret_enc)
      SELECT 'we_live', id, true, 'https://live.example.com', ARRAY['*'], 'v1.d' FROM merchants WHERE name = 'Both Modes Ltd';
      INSERT INTO currencies (id, kind, slug, name, decimals) VALUES (1, 'FIAT', 'USD', 'US dollar', 2) ON CONFLICT DO NOTHING;
      INSERT INTO transactions (id, reference, merchant_id, customer_email, customer_email_key, is_live, initialized_amount, initialized_currency_id, updated_at)
      SELECT '00000000-0000-4000-8000-000000000001', 'bq_fan', id, 'a@example.com', 'a@example.com', false, 10, 1, now() FROM merchants WHERE name = 'Both Modes Ltd';
      INSERT INTO webhook_events (id, merchant_id, transaction_id, type, is_live, body, next_attempt_at, created_at)
      SELECT 'evt_one', id, '00000000-0000-4000-8000-000000000001', 'payment.initiated', false, '{}', now(), now() FROM merchants WHERE name = 'Both Modes Ltd';
      INSERT INTO webhook_events (id, merchant_id, transaction_id, type, is_live, body, next_attempt_at, created_at)
      SELECT 'evt_two', id, '00000000-0000-4000-8000-000000000001', 'payment.received', false, '{}', now(), now() FROM merchants WHERE name = 'Both Modes Ltd';`);
    const deliveries = await db.rows<{ event_id: string; endpoint_id: string; state: string }>(
      "SELECT event_id, endpoint_id, state::text FROM webhook_deliveries ORDER BY event_id, endpoint_id",
    );
    expect(deliveries).toEqual([
      { event_id: "evt_one", endpoint_id: "we_all", state: "PENDING" },
      { event_id: "evt_two", endpoint_id: "we_all", state: "PENDING" },
      { event_id: "evt_two", endpoint_id: "we_received", state: "PENDING" },
    ]);
  });
});
