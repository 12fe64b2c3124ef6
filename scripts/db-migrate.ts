// npm run db:migrate
// Applies the migrations in prisma/migrations to the configured database: the PostgreSQL server
// in DATABASE_URL when it is set, otherwise the embedded PGlite under PAYGATE_DATA_DIR (./.data).
// Stands in for `prisma migrate deploy`, which cannot run here (see src/db/migrations.ts).
import { loadConfig } from "../src/config.ts";
import { ConfigError } from "../src/env.ts";
import { createAdapterFactory, type DatabaseAdapter, type DatabaseTarget } from "../src/db/adapters.ts";
import { EmbeddedDatabaseBusyError, lockEmbeddedDatabase } from "../src/db/embedded-lock.ts";
import { applyMigrations, listMigrations, MIGRATIONS_DIR } from "../src/db/migrations.ts";

async function main(): Promise<number> {
  let target: DatabaseTarget;
  try {
    target = loadConfig().database;
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  }
  const where = describe(target);

  const migrations = await listMigrations();
  const count = migrations.migrationDirectories.length;
  if (count === 0) {
    console.error(`No migrations in ${MIGRATIONS_DIR}. Write the first one with: npm run db:migration:new -- init`);
    return 1;
  }

  let release = () => {};
  let adapter: DatabaseAdapter | undefined;
  try {
    if (target.kind === "pglite" && target.dataDir !== null) release = lockEmbeddedDatabase(target.dataDir);
    adapter = await createAdapterFactory(target);
    const { applied } = await applyMigrations(adapter.factory, (line) => console.log(line));
    if (applied.length === 0) console.log(`Database is up to date (${count} migration${count === 1 ? "" : "s"}): ${where}`);
    else console.log(`Applied ${applied.length} migration${applied.length === 1 ? "" : "s"} to ${where}`);
    return 0;
  } catch (error) {
    console.error(`Migrating ${where} failed.`);
    console.error(error instanceof Error ? error.message : String(error));
    console.error(nextStep(target, error));
    return 1;
  } finally {
    await adapter?.close();
    release();
  }
}

function describe(target: DatabaseTarget): string {
  return target.kind === "pglite" ? `embedded database in ${target.dataDir ?? "memory"}` : `PostgreSQL at ${redact(target.url)}`;
}

/** The connection string without its password, for messages. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparsable DATABASE_URL)";
  }
}

function nextStep(target: DatabaseTarget, error: unknown): string {
  if (error instanceof EmbeddedDatabaseBusyError) return "Nothing was changed.";
  const text = error instanceof Error ? `${error.message} ${String(error.cause ?? "")}` : String(error);
  if (target.kind === "postgres" && /can't reach|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|timed out|authentication|password/i.test(text)) {
    return "Check that the PostgreSQL server is running and that DATABASE_URL (host, port, user, password) is right; unset DATABASE_URL to use the embedded database instead.";
  }
  if (/does not exist/i.test(text) && /database/i.test(text) && target.kind === "postgres") {
    return "Create the database first (e.g. `createdb NAME`), or point DATABASE_URL at an existing one.";
  }
  return (
    "Migrations that finished before the failure stay applied. A migration that failed part-way is recorded as failed in " +
    "_prisma_migrations and blocks later runs: undo what it did by hand, mark it rolled back " +
    "(UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name = '...' AND finished_at IS NULL), " +
    "fix the migration, and run npm run db:migrate again."
  );
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 1;
  },
);
