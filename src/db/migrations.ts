// Migrations without the Prisma CLI: the Prisma schema engine compiled to WebAssembly
// (@prisma/schema-engine-wasm), talking to the database through the same driver adapter
// factory as the client. `prisma migrate` cannot run here (it downloads a native engine first,
// and with a placeholder engine it silently does nothing), so this module is the only way
// migrations are applied, checked and written.
import { createHash } from "node:crypto";
import { readFile, readdir } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bindMigrationAwareSqlAdapterFactory, type SqlDriverAdapter, type SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import type { MigrationDirectory, MigrationList, SchemaEngine, SchemaFilter } from "@prisma/schema-engine-wasm/schema_engine_bg";
import { createAdapterFactory } from "./adapters.ts";

type EngineModule = typeof import("@prisma/schema-engine-wasm/schema_engine_bg");

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const SCHEMA_PATH = path.join(repoRoot, "prisma", "schema.prisma");
export const MIGRATIONS_DIR = path.join(repoRoot, "prisma", "migrations");
const LOCKFILE_NAME = "migration_lock.toml";
const MIGRATION_FILE = "migration.sql";
const NO_FILTER: SchemaFilter = { externalTables: [], externalEnums: [] };

export class MigrationError extends Error {
  override name = "MigrationError";
}

/** Applies every migration folder not yet recorded in `_prisma_migrations`, as `prisma migrate deploy` does. */
export async function applyMigrations(
  factory: SqlMigrationAwareDriverAdapterFactory,
  log: (line: string) => void = () => {},
): Promise<{ applied: string[] }> {
  const migrationsList = await listMigrations();
  if (migrationsList.migrationDirectories.length === 0) {
    throw new MigrationError(`No migrations found in ${MIGRATIONS_DIR}. Write the first one with: npm run db:migration:new -- init`);
  }
  // A restart on an up-to-date database, the usual case, needs no engine: compiling its
  // WebAssembly costs a process some 40 MB of resident memory that it keeps (docs/operations.md, Memory).
  if ((await pendingMigrations(factory, migrationsList)) === "none") return { applied: [] };
  const applied = await withEngine(factory, await readSchema(), "apply migrations", async (engine) => {
    const output = await engine.applyMigrations({ migrationsList, filters: NO_FILTER });
    return output.appliedMigrationNames;
  });
  for (const name of applied) log(`Applied migration ${name}`);
  return { applied };
}

/**
 * "none" when `_prisma_migrations` records exactly the migration folders as applied, each with its
 * file's checksum, and nothing as failed: the schema engine would then apply nothing and raise
 * nothing. "unknown" otherwise (a fresh database, a pending, failed or edited migration, one the
 * folders lack, a query that failed): the engine decides, and reports what it finds.
 */
export async function pendingMigrations(factory: SqlMigrationAwareDriverAdapterFactory, migrationsList: MigrationList): Promise<"none" | "unknown"> {
  let recorded: string[];
  try {
    const connection = await factory.connect();
    try {
      // Rolled-back rows are history: the engine applies such a migration again if its folder is there.
      const result = await connection.queryRaw({
        sql: `SELECT migration_name, checksum, finished_at IS NOT NULL FROM _prisma_migrations WHERE rolled_back_at IS NULL`,
        args: [],
        argTypes: [],
      });
      recorded = result.rows.map(([name, checksum, finished]) => (finished === true ? `${String(name)}\0${String(checksum)}` : "failed"));
    } finally {
      await connection.dispose();
    }
  } catch {
    return "unknown"; // no _prisma_migrations yet, most likely
  }
  const folders = migrationsList.migrationDirectories.map(({ path: name, migrationFile: { content } }) =>
    content.tag === "ok" ? `${name}\0${sha256(content.value)}` : "unreadable",
  );
  const applied = new Set(recorded);
  const same = recorded.length === folders.length && applied.size === folders.length && folders.every((folder) => applied.has(folder));
  return same ? "none" : "unknown";
}

/** The checksum the engine records for a migration: SHA-256 of the file, in hex. */
function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * The SQL that would take the live database to the schema (prisma/schema.prisma unless `schema`,
 * a datamodel text, is given); "" when they agree.
 */
export async function schemaDrift(factory: SqlMigrationAwareDriverAdapterFactory, schema?: string): Promise<string> {
  const datamodel = schema ?? (await readSchema());
  const files = [{ path: SCHEMA_PATH, content: datamodel }];
  return withEngine(factory, datamodel, "compare the database with the schema", async (engine) => {
    const result = await engine.diff({
      from: { tag: "schemaDatasource", files, configDir: repoRoot },
      to: { tag: "schemaDatamodel", files },
      script: true,
      exitCode: true, // 2 when there is a difference, 0 when there is none
      filters: NO_FILTER,
    });
    return result.exitCode === 0 ? "" : (result.stdout ?? "");
  });
}

/**
 * The SQL of the next migration: the existing migrations applied to a throw-away in-memory PGlite,
 * diffed against the schema. (The engine's createMigration wants a shadow database on PostgreSQL.)
 */
export async function nextMigrationSql(schema?: string): Promise<string> {
  const scratch = await createAdapterFactory({ kind: "pglite", dataDir: null });
  try {
    const migrationsList = await listMigrations();
    if (migrationsList.migrationDirectories.length > 0) {
      await withEngine(scratch.factory, await readSchema(), "apply the existing migrations to a scratch database", (engine) =>
        engine.applyMigrations({ migrationsList, filters: NO_FILTER }),
      );
    }
    return await schemaDrift(scratch.factory, schema);
  } finally {
    await scratch.close();
  }
}

/** The migration folders as the Prisma CLI lists them (sorted by name, lockfile beside them). */
export async function listMigrations(): Promise<MigrationList> {
  const lockfile = await readFile(path.join(MIGRATIONS_DIR, LOCKFILE_NAME), "utf8").catch(() => null);
  const entries = await readdir(MIGRATIONS_DIR, { withFileTypes: true }).catch((error: unknown) => {
    if (isErrno(error, "ENOENT")) return [];
    throw error;
  });
  const migrationDirectories: MigrationDirectory[] = [];
  for (const entry of entries.filter((e) => e.isDirectory())) {
    const content = await readFile(path.join(MIGRATIONS_DIR, entry.name, MIGRATION_FILE), "utf8").then(
      (value) => ({ tag: "ok" as const, value }),
      (error: unknown) => ({ tag: "error" as const, value: error instanceof Error ? error.message : String(error) }),
    );
    migrationDirectories.push({ path: entry.name, migrationFile: { path: MIGRATION_FILE, content } });
  }
  migrationDirectories.sort((a, b) => a.path.localeCompare(b.path));
  return {
    baseDir: MIGRATIONS_DIR,
    lockfile: { path: LOCKFILE_NAME, content: lockfile },
    shadowDbInitScript: "",
    migrationDirectories,
  };
}

function readSchema(): Promise<string> {
  return readFile(SCHEMA_PATH, "utf8");
}

// ---------------------------------------------------------------------------------------------
// The engine

/** Creates an engine on the factory, runs `work`, then frees the engine and every connection it opened. */
async function withEngine<T>(
  factory: SqlMigrationAwareDriverAdapterFactory,
  datamodel: string,
  what: string,
  work: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  const { SchemaEngine } = await loadEngineModule();
  const connections = trackConnections(factory);
  let engine: SchemaEngine | undefined;
  engineStarted();
  try {
    engine = await SchemaEngine.new(
      { datamodels: [[SCHEMA_PATH, datamodel]] },
      () => {}, // the engine's tracing lines (JSON); its errors carry what a person needs
      bindMigrationAwareSqlAdapterFactory(connections.factory),
    );
    return await work(engine);
  } catch (error) {
    throw new MigrationError(`Could not ${what}: ${describeEngineError(error)}`, { cause: error });
  } finally {
    engine?.free();
    engineStopped();
    await connections.disposeAll();
  }
}

/**
 * The engine connects once when created and never disposes that connection when freed; a pg pool
 * left open would keep the process alive. This factory remembers what it opened so it can close it.
 */
function trackConnections(factory: SqlMigrationAwareDriverAdapterFactory): {
  factory: SqlMigrationAwareDriverAdapterFactory;
  disposeAll(): Promise<void>;
} {
  const open = new Set<SqlDriverAdapter>();
  const track = async (connecting: Promise<SqlDriverAdapter>): Promise<SqlDriverAdapter> => {
    const adapter = await connecting;
    let disposed: Promise<void> | undefined;
    const tracked: SqlDriverAdapter = {
      provider: adapter.provider,
      adapterName: adapter.adapterName,
      queryRaw: (query) => adapter.queryRaw(query),
      executeRaw: (query) => adapter.executeRaw(query),
      executeScript: (script) => adapter.executeScript(script),
      startTransaction: (isolationLevel) => adapter.startTransaction(isolationLevel),
      getConnectionInfo: adapter.getConnectionInfo?.bind(adapter),
      dispose: () => {
        open.delete(tracked);
        disposed ??= adapter.dispose();
        return disposed;
      },
    };
    open.add(tracked);
    return tracked;
  };
  return {
    factory: {
      provider: factory.provider,
      adapterName: factory.adapterName,
      connect: () => track(factory.connect()),
      connectToShadowDb: () => track(factory.connectToShadowDb()),
    },
    async disposeAll() {
      const pending = [...open];
      open.clear();
      await Promise.all(pending.map((adapter) => adapter.dispose()));
    },
  };
}

/** Engine errors arrive as Errors or as plain objects with a message; keep what a person can act on. */
function describeEngineError(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "object" && error !== null && "message" in error && typeof error.message === "string") return error.message;
  return String(error);
}

// One WebAssembly instance per process, kept on globalThis: the generated glue module
// (schema_engine_bg.js) holds a single `wasm` binding, so a second instance would replace the first
// (vitest, for one, evaluates this file again for every test file in the same process).
interface EngineRuntime {
  module: Promise<EngineModule> | undefined;
  /** Engines between `new` and `free`. */
  active: number;
  /** Timers the engine set while engines were active. */
  timers: Set<NodeJS.Timeout>;
}
const RUNTIME_KEY: unique symbol = Symbol.for("paygate.schemaEngineWasm");
const runtimeHolder = globalThis as typeof globalThis & { [RUNTIME_KEY]?: EngineRuntime };
runtimeHolder[RUNTIME_KEY] ??= { module: undefined, active: 0, timers: new Set() };
const runtime: EngineRuntime = runtimeHolder[RUNTIME_KEY];

function loadEngineModule(): Promise<EngineModule> {
  runtime.module ??= instantiateEngine().catch((error: unknown) => {
    runtime.module = undefined;
    throw error;
  });
  return runtime.module;
}

/**
 * The engine's timers (timeouts it races its work against, never cleared) would hold the process
 * for about ten seconds after the last engine is freed. They keep the event loop alive while an
 * engine works (PGlite in memory holds nothing else that would) and are let go once none does.
 */
function engineSetTimeout(callback: () => void, ms: number): NodeJS.Timeout {
  const timer = setTimeout(() => {
    runtime.timers.delete(timer);
    callback();
  }, ms >>> 0);
  if (runtime.active === 0) timer.unref();
  else runtime.timers.add(timer);
  return timer;
}

function engineStarted(): void {
  runtime.active++;
}

function engineStopped(): void {
  runtime.active--;
  if (runtime.active > 0) return;
  for (const timer of runtime.timers) timer.unref();
  runtime.timers.clear();
}

async function instantiateEngine(): Promise<EngineModule> {
  // The package's main entry imports the .wasm as an ES module, which Node's loader refuses;
  // the glue module is loadable on its own, and the .wasm beside it is instantiated here.
  const glue: EngineModule = await import("@prisma/schema-engine-wasm/schema_engine_bg");
  const gluePath = createRequire(import.meta.url).resolve("@prisma/schema-engine-wasm/schema_engine_bg");
  const bytes = await readFile(path.join(path.dirname(gluePath), "schema_engine_bg.wasm"));
  const imports: Record<string, unknown> = { ...glue };
  for (const name of Object.keys(imports)) if (name.startsWith("__wbg_setTimeout_")) imports[name] = engineSetTimeout;
  const { instance } = await webAssembly().instantiate(bytes, { "./schema_engine_bg.js": imports });
  glue.__wbg_set_wasm(instance.exports);
  const start = instance.exports.__wbindgen_start;
  if (typeof start !== "function") throw new Error("@prisma/schema-engine-wasm: the module has no __wbindgen_start export");
  start();
  return glue;
}

/** The part of the WebAssembly global used here (the project's lib settings carry no WebAssembly types). */
interface WebAssemblyApi {
  instantiate(bytes: Uint8Array, imports: Record<string, Record<string, unknown>>): Promise<{ instance: { exports: Record<string, unknown> } }>;
}

function webAssembly(): WebAssemblyApi {
  const api: unknown = Reflect.get(globalThis, "WebAssembly");
  if (typeof api !== "object" || api === null || typeof Reflect.get(api, "instantiate") !== "function") {
    throw new Error("This Node.js has no WebAssembly support; the schema engine needs it");
  }
  return api as WebAssemblyApi;
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && "code" in error && error.code === code;
}
