// The migration that adds transactions.customer_email_key runs on a database that already holds
// transactions: it fills the key from customer_email before making it NOT NULL.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, describe, expect, it } from "vitest";
import { listMigrations, MIGRATIONS_DIR } from "../../src/db/migrations.ts";

const pg = new PGlite();
afterAll(() => pg.close());

describe("the customer_email_key migration", () => {
  it("fills the key of existing transactions in lower case, then requires it", async () => {
    const folders = (await listMigrations()).migrationDirectories.map((d) => d.path);
    const at = folders.findIndex((name) => name.endsWith("_transaction_email_search"));
    expect(at).toBeGreaterThan(0);
    const sql = (name: string) => readFile(path.join(MIGRATIONS_DIR, name, "migration.sql"), "utf8");
    for (const name of folders.slice(0, at)) await pg.exec(await sql(name));

    await pg.exec(`
      INSERT INTO currencies (id, kind, slug, name, decimals) VALUES (1, 'FIAT', 'USD', 'US dollar', 2) ON CONFLICT DO NOTHING;
      INSERT INTO merchants (name, webhook_secret_enc, updated_at) VALUES ('Before', 'x', now());
      INSERT INTO transactions (id, reference, merchant_id, customer_email, is_live, initialized_amount, initialized_currency_id, updated_at)
      VALUES ('00000000-0000-4000-8000-000000000001', 'bq_before', (SELECT id FROM merchants), 'Ada.Obi@Example.COM', false, 10, 1, now());`);
    await pg.exec(await sql(folders[at]!));

    const { rows } = await pg.query<{ customer_email_key: string }>("SELECT customer_email_key FROM transactions");
    expect(rows).toEqual([{ customer_email_key: "ada.obi@example.com" }]);
    await expect(
      pg.exec(`INSERT INTO transactions (id, reference, merchant_id, customer_email, is_live, initialized_amount, initialized_currency_id, updated_at)
        VALUES ('00000000-0000-4000-8000-000000000002', 'bq_after', (SELECT id FROM merchants), 'x@example.com', false, 10, 1, now())`),
    ).rejects.toThrow(/customer_email_key/);
  });
});
