// An embedded database folder that is already migrated, for CLI tests that do not test a first start.
//
// The first `paygate` command on an empty folder runs initdb and every migration there: by far its
// slowest part (seconds, and far more on a busy machine). Loading a dump of a migrated database into
// the folder gives the same database in a fraction of that. The dump is made once, in memory, and kept
// in the OS temp folder keyed by the migrations and the PGlite version, for the next test files.
// Whatever goes wrong leaves the folder empty, and the CLI then migrates it itself, as on a first start.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { cachedDump } from "./test-database.ts";
import { applyMigrations, listMigrations } from "../../src/db/migrations.ts";

let dump: Promise<Blob> | undefined;

/** Fills `pgliteDir` (PAYGATE_DATA_DIR/pglite, empty) with a migrated database. */
export async function seedMigratedDatabase(pgliteDir: string): Promise<void> {
  try {
    const data = await (dump ??= migratedDump());
    mkdirSync(pgliteDir, { recursive: true });
    const pglite = await PGlite.create({ dataDir: pgliteDir, loadDataDir: data });
    await pglite.close();
  } catch {
    dump = undefined;
    rmSync(pgliteDir, { recursive: true, force: true });
  }
}

async function migratedDump(): Promise<Blob> {
  return cachedDump(await dumpName(), async () => {
    const pglite = await PGlite.create();
    try {
      await applyMigrations(new PrismaPGlite(pglite));
      return await pglite.dumpDataDir("gzip");
    } finally {
      await pglite.close();
    }
  });
}

/** Changes whenever the migrations or PGlite change. */
async function dumpName(): Promise<string> {
  const hash = createHash("sha256");
  const pglitePackage = path.resolve("node_modules/@electric-sql/pglite/package.json");
  hash.update(existsSync(pglitePackage) ? readFileSync(pglitePackage) : "unknown");
  for (const dir of (await listMigrations()).migrationDirectories) {
    hash.update(`\0${dir.path}\0${dir.migrationFile.content.tag}\0${dir.migrationFile.content.value}`);
  }
  return `pglite-data-dir-${hash.digest("hex").slice(0, 24)}.tar.gz`;
}
