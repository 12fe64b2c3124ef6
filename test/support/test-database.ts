// A fresh, migrated database for one test file or one test:
// - without DATABASE_URL, an in-memory PGlite;
// - with DATABASE_URL (the admin connection), a brand-new database paygate_test_<random> on that
//   server, copied from a migrated template (below) and dropped again by close().
//
// Starting PGlite runs initdb, which takes seconds; a migrated database loads from a dump in well
// under one. So the first PGlite in a process is migrated for real and dumped, and the dump is kept
// in memory and in the OS temp folder, keyed by the migrations and engine versions, for the next.
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { createAdapterFactory, type AdapterFactory } from "../../src/db/adapters.ts";
import type { DirectQuery } from "../../src/db/direct-sql.ts";
import type { NotificationSource } from "../../src/db/notifications.ts";
import { applyMigrations, listMigrations } from "../../src/db/migrations.ts";
import { migratePostgres } from "../../src/db/database.ts";

export interface TestDatabase {
  factory: AdapterFactory;
  /** The new database's connection string on PostgreSQL; null for PGlite. */
  url: string | null;
  /** Where its change notifications are heard (LISTEN). */
  notifications: NotificationSource;
  /** Closes the database (and drops it on PostgreSQL). Safe to call more than once, and unbound. */
  close(): Promise<void>;
  /** PostgreSQL: the hot statements' way to the pool, as the service has it (src/db/direct-sql.ts). */
  query?: DirectQuery;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.DATABASE_URL;
  return adminUrl ? createPostgresDatabase(adminUrl) : createPgliteDatabase();
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

/** A second instance's connections to a PostgreSQL database that another TestDatabase made; close() leaves the database. */
export async function connectTestDatabase(url: string): Promise<TestDatabase> {
  const adapter = await createAdapterFactory({ kind: "postgres", url, poolMax: 5 });
  return { factory: adapter.factory, url, notifications: { kind: "postgres", url }, close: adapter.close, query: adapter.query };
}

async function createPostgresDatabase(adminUrl: string): Promise<TestDatabase> {
  const name = `paygate_test_${randomBytes(6).toString("hex")}`;
  await copyTemplate(adminUrl, name);
  const url = databaseUrlOn(adminUrl, name);
  const drop = once(() => admin(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  try {
    const adapter = await createAdapterFactory({ kind: "postgres", url, poolMax: 5 });
    return {
      factory: adapter.factory,
      url,
      notifications: { kind: "postgres", url },
      query: adapter.query,
      close: once(async () => {
        try {
          await adapter.close();
        } finally {
          await drop(); // also when the pool's end failed: no database is left on the server
        }
      }),
    };
  } catch (error) {
    await drop();
    throw error;
  }
}

/** The URL of the database `name` on the admin connection's server. */
export function databaseUrlOn(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Creates the empty database `name` on the admin connection's server and answers its URL. */
export async function createEmptyDatabase(adminUrl: string, name: string): Promise<string> {
  await admin(adminUrl, `CREATE DATABASE "${name}"`);
  return databaseUrlOn(adminUrl, name);
}

// Migrating a new database takes 1.5–2.5 s; copying a migrated one (CREATE DATABASE … TEMPLATE) a
// fraction of that. So the first database of a run is migrated for real, as a template named by the
// migrations' hash that every later one copies. Nobody connects to the template (a connection would
// make the copies fail), and a template of other migrations is dropped when a new one is made.

let postgresTemplate: Promise<string> | undefined;

/** The template, made once per process; a failed make is not kept, so the next database tries again. */
function templateName(adminUrl: string): Promise<string> {
  postgresTemplate ??= makeTemplate(adminUrl).catch((error: unknown) => {
    postgresTemplate = undefined;
    throw error;
  });
  return postgresTemplate;
}

async function copyTemplate(adminUrl: string, name: string): Promise<void> {
  try {
    await admin(adminUrl, `CREATE DATABASE "${name}" TEMPLATE "${await templateName(adminUrl)}"`);
  } catch (error) {
    // 3D000: another run (other migrations) dropped it. Made again, once.
    if ((error as { code?: string }).code !== "3D000") throw error;
    postgresTemplate = undefined;
    await admin(adminUrl, `CREATE DATABASE "${name}" TEMPLATE "${await templateName(adminUrl)}"`);
  }
}

/** The migrated template's name; made under an advisory lock when missing (parallel workers wait for the first). */
async function makeTemplate(adminUrl: string): Promise<string> {
  const name = `paygate_template_${(await migrationsHash(false)).slice(0, 24)}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock(hashtext('paygate test template'))");
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (found.rowCount === 0) {
      const partial = `${name}_partial`;
      await client.query(`DROP DATABASE IF EXISTS "${partial}" WITH (FORCE)`);
      await client.query(`CREATE DATABASE "${partial}"`);
      await migratePostgres({ kind: "postgres", url: databaseUrlOn(adminUrl, partial) });
      // The migrator's connections may still be closing: a rename needs none.
      await client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [partial]);
      await client.query(`ALTER DATABASE "${partial}" RENAME TO "${name}"`);
      await client.query(`ALTER DATABASE "${name}" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
      const stale = await client.query<{ datname: string }>(
        "SELECT datname FROM pg_database WHERE datname LIKE 'paygate\\_template\\_%' AND datname <> $1",
        [name],
      );
      for (const { datname } of stale.rows) {
        await client
          .query(`ALTER DATABASE "${datname}" WITH IS_TEMPLATE false`)
          .then(() => client.query(`DROP DATABASE IF EXISTS "${datname}"`))
          .catch(() => {}); // being copied by another run right now: its next make drops it
      }
    }
    return name;
  } finally {
    await client.end(); // ends the advisory lock too
  }
}

/** Runs one statement on its own connection (CREATE and DROP DATABASE cannot run in a pool's transaction). */
export async function admin(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------
// PGlite

let template: Promise<Blob | null> | undefined;

async function createPgliteDatabase(): Promise<TestDatabase> {
  const dump = await (template ??= readTemplate());
  if (dump) {
    try {
      return wrap(await PGlite.create({ loadDataDir: dump }));
    } catch {
      // An unreadable dump (another PGlite build, a damaged file): migrate for real and replace it.
    }
  }
  const pglite = await PGlite.create();
  try {
    await applyMigrations(new PrismaPGlite(pglite));
    template = writeTemplate(pglite).catch(() => null);
    await template;
    return wrap(pglite);
  } catch (error) {
    await pglite.close();
    throw error;
  }
}

function wrap(pglite: PGlite): TestDatabase {
  return {
    factory: new PrismaPGlite(pglite),
    url: null,
    notifications: { kind: "pglite", pglite },
    close: once(async () => {
      if (!pglite.closed) await pglite.close();
    }),
  };
}

async function readTemplate(): Promise<Blob | null> {
  const file = await templateFile();
  if (!existsSync(file)) return null;
  return new Blob([await readFile(file)], { type: "application/x-gzip" });
}

async function writeTemplate(pglite: PGlite): Promise<Blob> {
  const dump = await pglite.dumpDataDir("gzip");
  try {
    const file = await templateFile();
    await mkdir(path.dirname(file), { recursive: true });
    const partial = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
    await writeFile(partial, new Uint8Array(await dump.arrayBuffer()));
    await rename(partial, file); // atomic: parallel workers never read half a file
  } catch {
    // No disk cache then; the dump in memory still serves this process.
  }
  return dump;
}

/** Changes whenever the migrations, PGlite or the schema engine change. */
async function templateFile(): Promise<string> {
  return path.join(tmpdir(), "paygate-test-db", `pglite-${(await migrationsHash(true)).slice(0, 24)}.tar.gz`);
}

/** A digest of the migrations and the schema engine (and PGlite's version, for its dumps). */
async function migrationsHash(pglite: boolean): Promise<string> {
  const hash = createHash("sha256");
  if (pglite) hash.update(`pglite ${packageVersion("@electric-sql/pglite")}\0`);
  hash.update(`schema-engine ${packageVersion("@prisma/schema-engine-wasm/schema_engine_bg")}\0`);
  const migrations = await listMigrations();
  for (const dir of migrations.migrationDirectories) {
    const content = dir.migrationFile.content;
    hash.update(`${dir.path}\0${content.tag}\0${content.value}\0`);
  }
  return hash.digest("hex");
}

/**
 * A gzip dump kept in the OS temp folder under `name`: read when there, else made by `make` and
 * written atomically (a parallel reader never sees half a file). No disk cache is fine too.
 */
export async function cachedDump(name: string, make: () => Promise<Blob>): Promise<Blob> {
  const file = path.join(tmpdir(), "paygate-test-db", name);
  if (existsSync(file)) return new Blob([new Uint8Array(await readFile(file))], { type: "application/x-gzip" });
  const dump = await make();
  try {
    await mkdir(path.dirname(file), { recursive: true });
    const partial = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
    await writeFile(partial, new Uint8Array(await dump.arrayBuffer()));
    await rename(partial, file);
  } catch {
    // No disk cache then; the caller keeps the dump in memory.
  }
  return dump;
}

/** The version in the package.json above a package's resolved entry. */
export function packageVersion(specifier: string): string {
  let dir = path.dirname(createRequire(import.meta.url).resolve(specifier));
  for (;;) {
    const file = path.join(dir, "package.json");
    if (existsSync(file)) {
      const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
      if (typeof parsed === "object" && parsed !== null && "version" in parsed && typeof parsed.version === "string") return parsed.version;
    }
    const parent = path.dirname(dir);
    if (parent === dir) return "unknown";
    dir = parent;
  }
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= fn());
}
