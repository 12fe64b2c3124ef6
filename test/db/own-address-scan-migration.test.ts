// The own_address_scan_cursor migration runs on a database that already holds settlement settings: an
// own-address setting is taken as turned on, and scanned, from its last change (updated_at), so the
// idle scan (src/core/own-addresses/idle-scan.ts) starts there and reports nothing older; a forwarder
// setting gets neither. On PGlite, and on a fresh PostgreSQL database when DATABASE_URL is set.
import { afterAll, describe, expect, it } from "vitest";
import { openMigrationDatabase } from "../support/migration-database.ts";

const db = await openMigrationDatabase();
afterAll(() => db.close());

describe("the own_address_scan_cursor migration", () => {
  it("starts an own-address setting's scan at its last change, and leaves a forwarder setting without one", async () => {
    await db.upTo("own_address_scan_cursor");

    await db.exec(`
      INSERT INTO merchants (name, webhook_secret_enc, updated_at) VALUES ('Own Ltd', 'v1.sealed', now()), ('Forwarding Ltd', 'v1.sealed', now());
      INSERT INTO settlement_settings (merchant_id, network, is_live, mode, destination, address_count, updated_at)
        SELECT id, 'tron', false, 'own_addresses', '', 2, '2026-11-30T08:15:00.123Z' FROM merchants WHERE name = 'Own Ltd';
      INSERT INTO settlement_settings (merchant_id, network, is_live, mode, destination, address_count, updated_at)
        SELECT id, 'ethereum', false, 'forwarder', '0x00000000000000000000000000000000000000aa', NULL, '2026-11-30T09:00:00Z' FROM merchants WHERE name = 'Forwarding Ltd';`);
    await db.apply("own_address_scan_cursor");

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
    await db.applyRest("own_address_scan_cursor");
  });
});
