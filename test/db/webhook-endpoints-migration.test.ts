// The webhook_endpoints migration runs on a database that already holds merchants with webhook URLs
// and secrets: each mode's URL, with the sealed secret (and a rotation's previous one), becomes that
// mode's first endpoint receiving every event; a mode without a URL gets none. Then the merchant's
// columns keep the first endpoints equal to them, and a written event fans out to every endpoint, the first one too.
// On PGlite, and on a fresh PostgreSQL database when DATABASE_URL is set.
import { afterAll, describe, expect, it } from "vitest";
import { openMigrationDatabase } from "../support/migration-database.ts";

const db = await openMigrationDatabase();
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
    await db.upTo("webhook_endpoints");

    await db.exec(`
      INSERT INTO merchants (name, live_webhook_url, test_webhook_url, webhook_secret_enc, previous_webhook_secret_enc,
        previous_webhook_secret_expires_at, updated_at)
      VALUES ('Both Modes Ltd', 'https://shop.example.com/hooks', 'http://127.0.0.1:4000/hooks', 'v1.sealed-both', 'v1.sealed-before',
        now() + interval '1 hour', now()),
        ('Test Only Ltd', NULL, 'https://test-only.example.com/hooks', 'v1.sealed-test', NULL, NULL, now()),
        ('No Hooks Ltd', NULL, NULL, 'v1.sealed-none', NULL, NULL, now());`);
    await db.apply("webhook_endpoints");

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
    await db.applyRest("webhook_endpoints");
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

  it("fans a written event out to every enabled endpoint of its merchant and mode whose filter takes it, the first one with the id wd_ and the event id", async () => {
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
      INSERT INTO webhook_events (id, merchant_id, transaction_id, type, is_live, body, created_at)
      SELECT 'evt_one', id, '00000000-0000-4000-8000-000000000001', 'payment.initiated', false, '{}', now() FROM merchants WHERE name = 'Both Modes Ltd';
      INSERT INTO webhook_events (id, merchant_id, transaction_id, type, is_live, body, created_at)
      SELECT 'evt_two', id, '00000000-0000-4000-8000-000000000001', 'payment.received', false, '{}', now() FROM merchants WHERE name = 'Both Modes Ltd';`);
    const deliveries = await db.rows<{ id: string; event_id: string; endpoint_id: string; is_primary: boolean; state: string }>(
      `SELECT d.id, d.event_id, d.endpoint_id, e.is_primary, d.state::text FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
       ORDER BY d.event_id, e.is_primary DESC, d.endpoint_id`,
    );
    // The mode's first endpoint (test mode of Both Modes Ltd, every event) is one of them, its delivery wd_ and the event id.
    const first = deliveries.filter((d) => d.is_primary);
    expect(first.map(({ id, event_id, state }) => ({ id, event_id, state }))).toEqual([
      { id: "wd_evt_one", event_id: "evt_one", state: "PENDING" },
      { id: "wd_evt_two", event_id: "evt_two", state: "PENDING" },
    ]);
    expect(deliveries.filter((d) => !d.is_primary).map(({ event_id, endpoint_id, state }) => ({ event_id, endpoint_id, state }))).toEqual([
      { event_id: "evt_one", endpoint_id: "we_all", state: "PENDING" },
      { event_id: "evt_two", endpoint_id: "we_all", state: "PENDING" },
      { event_id: "evt_two", endpoint_id: "we_received", state: "PENDING" },
    ]);
  });
});
