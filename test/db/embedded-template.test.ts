// Issue 46: a new embedded database folder starts as a copy of a migrated one (src/db/embedded-template.ts),
// so a first `npm start` or `paygate` command spends no time on initdb and the migrations. The copy is
// the database the migrations make: every migration recorded, ready, and nothing left to apply.
// Embedded PGlite only (a PostgreSQL server has no data folder of ours), so it runs the same on either suite.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/database.ts";
import { embeddedTemplate, seedEmbeddedDatabase } from "../../src/db/embedded-template.ts";
import { listMigrations, pendingMigrations } from "../../src/db/migrations.ts";

const scratch = mkdtempSync(path.join(tmpdir(), "paygate-template-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Making the template runs initdb and every migration once: minutes on a busy shared machine. */
const TEMPLATE_BUDGET_MS = 300_000;

describe("a new embedded database folder", () => {
  it(
    "is a copy of the migrated template: opened ready, with every migration recorded and none applied again",
    async () => {
      const dataDir = path.join(scratch, "fresh", "pglite");
      const lines: string[] = [];
      const db = await openDatabase({ kind: "pglite", dataDir }, { log: (line) => lines.push(line) });
      try {
        const template = await embeddedTemplate();
        expect(lines).toEqual([`new embedded database in ${dataDir}: a copy of the migrated one in ${template}`]);
        expect(await db.readiness()).toEqual({ ready: true, database: "ok", migrations: "applied" });
        const folders = (await listMigrations()).migrationDirectories.map((dir) => dir.path);
        const rows = await db.db.$queryRaw<{ migration_name: string }[]>`
          SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY migration_name`;
        expect(rows.map((row) => row.migration_name)).toEqual(folders);
        // A database of its own: what it writes stays out of the template.
        await db.db.$executeRawUnsafe("CREATE TABLE written_in_the_copy (x int)");
      } finally {
        await db.close();
      }
      const again = await PGlite.create({ dataDir: await embeddedTemplate() });
      try {
        expect(await pendingMigrations(new PrismaPGlite(again), await listMigrations())).toBe("none");
        expect((await again.query<{ t: string | null }>("SELECT to_regclass('written_in_the_copy')::text AS t")).rows).toEqual([{ t: null }]);
      } finally {
        await again.close();
      }
    },
    TEMPLATE_BUDGET_MS,
  );

  it("is left alone when it already holds something: PGlite decides, as before", async () => {
    const dataDir = path.join(scratch, "occupied");
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path.join(dataDir, "someone-elses-file"), "x");
    expect(await seedEmbeddedDatabase(dataDir)).toBeNull();
    expect(readdirSync(dataDir)).toEqual(["someone-elses-file"]);
  });

  it(
    "starts as a copy only once: a second open of the same folder copies nothing",
    async () => {
      const dataDir = path.join(scratch, "twice", "pglite");
      const first = await openDatabase({ kind: "pglite", dataDir }, { log: () => {} });
      await first.close();
      const lines: string[] = [];
      const second = await openDatabase({ kind: "pglite", dataDir }, { log: (line) => lines.push(line) });
      try {
        expect(lines).toEqual([]);
        expect((await second.readiness()).ready).toBe(true);
      } finally {
        await second.close();
      }
    },
    TEMPLATE_BUDGET_MS,
  );
});
