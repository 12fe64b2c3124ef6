// The one_delivery_queue migration (issue 45) runs on a database whose events carry the first endpoint's
// delivery state on their own row: each event the first endpoint took becomes the delivery `wd_<event id>`,
// with its state, schedule, lease and last attempt; an event skipped untried gets none; a pending event
// whose URL went is skipped; every attempt then belongs to a delivery. Afterwards a written event fans out
// to the first endpoint too, and a removed endpoint leaves its deliveries skipped, with their attempts.
// On PGlite, and on a fresh PostgreSQL database when DATABASE_URL is set.
import { afterAll, describe, expect, it } from "vitest";
import { openMigrationDatabase } from "../support/migration-database.ts";

const db = await openMigrationDatabase();
afterAll(() => db.close());

const MIGRATION = "one_delivery_queue";

interface DeliveryRow {
  id: string;
  endpoint_id: string | null;
  state: string;
  attempt_count: number;
  next_attempt_at: string;
  claim_token: string | null;
  delivered_at: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_latency_ms: number | null;
}

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

const firstDeliveries = async () =>
  (
    await db.rows<DeliveryRow>(`SELECT id, endpoint_id, state::text, attempt_count, next_attempt_at, claim_token, delivered_at,
      last_attempt_at, last_status_code, last_latency_ms FROM webhook_deliveries WHERE id LIKE 'wd_evt_%' ORDER BY id`)
  ).map((r) => ({ ...r, next_attempt_at: iso(r.next_attempt_at), delivered_at: iso(r.delivered_at), last_attempt_at: iso(r.last_attempt_at) }));

const primaryOf = async (merchant: string) =>
  (
    await db.rows<{ id: string }>(
      `SELECT e.id FROM webhook_endpoints e JOIN merchants m ON m.id = e.merchant_id WHERE m.name = '${merchant}' AND e.is_primary AND NOT e.is_live`,
    )
  )[0]?.id ?? null;

describe("the one_delivery_queue migration", () => {
  it("turns each event's first-endpoint state into its delivery wd_<event id>, and gives every attempt a delivery", async () => {
    await db.upTo(MIGRATION);
    await db.exec(`
      INSERT INTO merchants (name, test_webhook_url, webhook_secret_enc, updated_at) VALUES
        ('Hooked Ltd', 'https://hooked.example.com/hooks', 'v1.sealed-hooked', now()),
        ('Gone Ltd', 'https://gone.example.com/hooks', 'v1.sealed-gone', now());
      INSERT INTO webhook_endpoints (id, merchant_id, is_live, url, enabled_events, secret_enc)
        SELECT 'we_other', id, false, 'https://other.example.com', ARRAY['*'], 'v1.other' FROM merchants WHERE name = 'Hooked Ltd';
      INSERT INTO webhook_events (id, merchant_id, type, is_live, body, state, attempt_count, next_attempt_at, claim_token, delivered_at, created_at)
        SELECT e.id, m.id, e.type, false, '{}', e.state::"DeliveryState", e.attempts, e.next_at::timestamptz, e.token, e.delivered::timestamptz, '2026-12-01T09:00:00Z'
        FROM merchants m, (VALUES
          ('evt_a_held', 'payment.initiated', 'PENDING', 1, '2026-12-01T10:00:00Z', 'lease-token', NULL),
          ('evt_b_delivered', 'payment.pending', 'DELIVERED', 1, '2026-12-01T09:00:00Z', NULL, '2026-12-01T09:00:02Z'),
          ('evt_c_failed', 'payment.received', 'FAILED', 3, '2026-12-01T11:00:00Z', NULL, NULL),
          ('evt_d_skipped', 'payment.abandoned', 'SKIPPED', 0, '2026-12-01T09:00:00Z', NULL, NULL),
          ('evt_e_skipped_tried', 'refund.created', 'SKIPPED', 1, '2026-12-01T09:00:00Z', NULL, NULL)
        ) AS e(id, type, state, attempts, next_at, token, delivered)
        WHERE m.name = 'Hooked Ltd';
      INSERT INTO webhook_events (id, merchant_id, type, is_live, body, state, next_attempt_at, created_at)
        SELECT 'evt_f_url_gone', id, 'payment.initiated', false, '{}', 'PENDING', '2026-12-01T09:00:00Z', '2026-12-01T09:00:00Z' FROM merchants WHERE name = 'Gone Ltd';
      INSERT INTO webhook_delivery_attempts (event_id, attempted_at, url, status_code, latency_ms, succeeded, trigger) VALUES
        ('evt_a_held', '2026-12-01T09:00:01Z', 'https://hooked.example.com/hooks', 500, 11, false, 'schedule'),
        ('evt_b_delivered', '2026-12-01T09:00:02Z', 'https://hooked.example.com/hooks', 200, 12, true, 'schedule'),
        ('evt_c_failed', '2026-12-01T09:00:03Z', 'https://hooked.example.com/hooks', 500, 13, false, 'schedule'),
        ('evt_c_failed', '2026-12-01T09:01:03Z', 'https://hooked.example.com/hooks', 502, 14, false, 'schedule'),
        ('evt_c_failed', '2026-12-01T10:00:03Z', 'https://hooked.example.com/hooks', NULL, 15, false, 'schedule'),
        ('evt_e_skipped_tried', '2026-12-01T09:00:04Z', 'https://hooked.example.com/hooks', 503, 16, false, 'schedule');
      UPDATE merchants SET test_webhook_url = NULL WHERE name = 'Gone Ltd';`);
    // The other endpoint's own delivery of an event, with its attempt: left as it is.
    await db.exec(`INSERT INTO webhook_delivery_attempts (event_id, delivery_id, attempted_at, url, status_code, latency_ms, succeeded, trigger)
      SELECT event_id, id, '2026-12-01T09:00:05Z', 'https://other.example.com', 200, 17, true, 'schedule'
      FROM webhook_deliveries WHERE endpoint_id = 'we_other' AND event_id = 'evt_b_delivered'`);
    const others = await db.rows<{ id: string; event_id: string }>("SELECT id, event_id FROM webhook_deliveries ORDER BY event_id");
    expect(others.map((d) => d.event_id)).toEqual(["evt_a_held", "evt_b_delivered", "evt_c_failed", "evt_d_skipped", "evt_e_skipped_tried"]);
    const primary = await primaryOf("Hooked Ltd");
    expect(primary).toMatch(/^we_/);

    await db.apply(MIGRATION);

    const last = (at: string, status: number | null, latency: number) => ({
      last_attempt_at: at,
      last_status_code: status,
      last_latency_ms: latency,
    });
    expect(await firstDeliveries()).toEqual([
      // Held by a dispatcher: the lease goes with it, so the holder's settle still matches.
      {
        id: "wd_evt_a_held",
        endpoint_id: primary,
        state: "PENDING",
        attempt_count: 1,
        next_attempt_at: "2026-12-01T10:00:00.000Z",
        claim_token: "lease-token",
        delivered_at: null,
        ...last("2026-12-01T09:00:01.000Z", 500, 11),
      },
      {
        id: "wd_evt_b_delivered",
        endpoint_id: primary,
        state: "DELIVERED",
        attempt_count: 1,
        next_attempt_at: "2026-12-01T09:00:00.000Z",
        claim_token: null,
        delivered_at: "2026-12-01T09:00:02.000Z",
        ...last("2026-12-01T09:00:02.000Z", 200, 12),
      },
      {
        id: "wd_evt_c_failed",
        endpoint_id: primary,
        state: "FAILED",
        attempt_count: 3,
        next_attempt_at: "2026-12-01T11:00:00.000Z",
        claim_token: null,
        delivered_at: null,
        ...last("2026-12-01T10:00:03.000Z", null, 15),
      },
      // Skipped after a try: kept, so that its attempt keeps a delivery.
      {
        id: "wd_evt_e_skipped_tried",
        endpoint_id: primary,
        state: "SKIPPED",
        attempt_count: 1,
        next_attempt_at: "2026-12-01T09:00:00.000Z",
        claim_token: null,
        delivered_at: null,
        ...last("2026-12-01T09:00:04.000Z", 503, 16),
      },
      // Pending when its URL went: skipped, as the dispatcher would have marked it, and no endpoint.
      {
        id: "wd_evt_f_url_gone",
        endpoint_id: null,
        state: "SKIPPED",
        attempt_count: 0,
        next_attempt_at: "2026-12-01T09:00:00.000Z",
        claim_token: null,
        delivered_at: null,
        last_attempt_at: null,
        last_status_code: null,
        last_latency_ms: null,
      },
    ]);
    // Skipped untried: nothing was sent, so there is no delivery (the Events API shows it skipped).
    const attempts = await db.rows<{ event_id: string; delivery_id: string | null; url: string }>(
      "SELECT event_id, delivery_id, url FROM webhook_delivery_attempts ORDER BY id",
    );
    expect(attempts.filter((a) => a.url.startsWith("https://hooked")).map((a) => [a.event_id, a.delivery_id])).toEqual([
      ["evt_a_held", "wd_evt_a_held"],
      ["evt_b_delivered", "wd_evt_b_delivered"],
      ["evt_c_failed", "wd_evt_c_failed"],
      ["evt_c_failed", "wd_evt_c_failed"],
      ["evt_c_failed", "wd_evt_c_failed"],
      ["evt_e_skipped_tried", "wd_evt_e_skipped_tried"],
    ]);
    const otherOfB = others.find((d) => d.event_id === "evt_b_delivered")?.id;
    expect(attempts.filter((a) => a.url.startsWith("https://other")).map((a) => a.delivery_id)).toEqual([otherOfB]);
    const nullable = await db.rows<{ is_nullable: string }>(
      "SELECT is_nullable FROM information_schema.columns WHERE table_name = 'webhook_delivery_attempts' AND column_name = 'delivery_id'",
    );
    expect(nullable).toEqual([{ is_nullable: "NO" }]);
    // The event keeps only the event.
    const eventColumns = await db.rows<{ column_name: string }>(
      "SELECT column_name FROM information_schema.columns WHERE table_name = 'webhook_events' ORDER BY column_name",
    );
    expect(eventColumns.map((c) => c.column_name)).toContain("body");
    for (const gone of ["state", "attempt_count", "next_attempt_at", "claim_token", "delivered_at"]) {
      expect(eventColumns.map((c) => c.column_name)).not.toContain(gone);
    }

    await db.applyRest(MIGRATION);
  });

  it("then fans a written event out to the first endpoint too, and a removed endpoint leaves its deliveries skipped with their attempts", async () => {
    const primary = await primaryOf("Hooked Ltd");
    await db.exec(`INSERT INTO webhook_events (id, merchant_id, type, is_live, body, created_at)
      SELECT 'evt_g_new', id, 'payment.initiated', false, '{}', now() FROM merchants WHERE name = 'Hooked Ltd'`);
    const made = await db.rows<{ id: string; endpoint_id: string; state: string }>(
      "SELECT id, endpoint_id, state::text FROM webhook_deliveries WHERE event_id = 'evt_g_new' ORDER BY endpoint_id = 'we_other'",
    );
    expect(made.map((d) => [d.id.startsWith("wd_evt_") ? d.id : "wd_<other>", d.endpoint_id, d.state])).toEqual([
      ["wd_evt_g_new", primary, "PENDING"],
      ["wd_<other>", "we_other", "PENDING"],
    ]);

    // The URL goes, and its endpoint with it: what waited is skipped, nothing is deleted.
    await db.exec("UPDATE merchants SET test_webhook_url = NULL WHERE name = 'Hooked Ltd'");
    const after = await firstDeliveries();
    expect(
      after
        .filter((d) => ["wd_evt_a_held", "wd_evt_c_failed", "wd_evt_g_new"].includes(d.id))
        .map((d) => [d.id, d.endpoint_id, d.state, d.claim_token]),
    ).toEqual([
      ["wd_evt_a_held", null, "SKIPPED", null],
      ["wd_evt_c_failed", null, "FAILED", null],
      ["wd_evt_g_new", null, "SKIPPED", null],
    ]);
    const kept = await db.rows<{ n: number }>("SELECT count(*)::int AS n FROM webhook_delivery_attempts WHERE delivery_id LIKE 'wd_evt_%'");
    expect(kept).toEqual([{ n: 6 }]);
    // The other endpoint is untouched.
    const other = await db.rows<{ state: string }>(
      "SELECT state::text FROM webhook_deliveries WHERE event_id = 'evt_g_new' AND endpoint_id = 'we_other'",
    );
    expect(other).toEqual([{ state: "PENDING" }]);
  });
});
