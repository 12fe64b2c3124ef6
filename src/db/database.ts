// Opens the store: embedded PGlite or a PostgreSQL server, migrated, with the currency catalogue in place.
import { ALL_CURRENCIES } from "../core/money/currencies.ts";
import { lockEmbeddedDatabase } from "./embedded-lock.ts";
import { seedEmbeddedDatabase } from "./embedded-template.ts";
import { createAdapterFactory, type DatabaseTarget, type PoolStats } from "./adapters.ts";
import { PrismaClient } from "./generated/client.ts";
import { PaygateError } from "../core/errors.ts";
import { OutageLog, serviceErrors, withServiceErrors } from "./failures.ts";
import { useDirectQueries } from "./direct-sql.ts";
import { applyMigrations, listMigrations } from "./migrations.ts";
import { DEFAULT_LIFECYCLE } from "../core/policies.ts";
import { type EventRules, useEventRules, withOutbox } from "./outbox.ts";
import type { Database } from "./types.ts";
import type { TransactionChanges } from "../core/stores/transaction-changes.ts";
import { ChangeFeed, noChanges } from "./notifications.ts";

/** What /readyz reports: whether the database answers, and whether it has this version's migrations. */
export interface Readiness {
  ready: boolean;
  database: "ok" | "unreachable";
  migrations: "applied" | "missing" | "unknown";
  /** Migrations this version has that the database has not applied. */
  pending?: string[];
}

export interface OpenDatabase {
  db: Database;
  /** Transaction changes of every instance (LISTEN/NOTIFY; one connection, opened on the first subscriber). */
  changes: TransactionChanges;
  readiness(): Promise<Readiness>;
  close(): Promise<void>;
  /** PostgreSQL only: the pool's connections now (GET /metrics). */
  poolStats?: () => PoolStats;
}

interface OpenOptions {
  migrate?: boolean;
  log?: (line: string) => void;
}

export async function openDatabase(target: DatabaseTarget, options: OpenOptions = {}): Promise<OpenDatabase> {
  const release = target.kind === "pglite" && target.dataDir !== null ? lockEmbeddedDatabase(target.dataDir) : () => {};
  let adapter: Adapter;
  try {
    if (target.kind === "postgres" && (options.migrate ?? true)) {
      await migratePostgres(target, options.log);
      options = { ...options, migrate: false };
    }
    if (target.kind === "pglite" && target.dataDir !== null) {
      // A new folder starts as a copy of a migrated one: seconds of initdb and migrations saved (issue 46).
      const template = await seedEmbeddedDatabase(target.dataDir);
      if (template) options.log?.(`new embedded database in ${target.dataDir}: a copy of the migrated one in ${template}`);
    }
    adapter = await createAdapterFactory(target);
  } catch (error) {
    release();
    throw error;
  }
  return openDatabaseOn(adapter, options, release);
}

type Adapter = Awaited<ReturnType<typeof createAdapterFactory>>;

/**
 * Migrates a PostgreSQL database over a connection of its own, closed afterwards. The schema engine
 * takes a session-level advisory lock and never releases it; on a pooled connection the lock would
 * stay with the pool, and the next process to start on the database would wait for it and fail.
 */
export async function migratePostgres(target: Extract<DatabaseTarget, { kind: "postgres" }>, log?: (line: string) => void): Promise<void> {
  // The schema engine's statements run once each: nothing to keep prepared.
  const migrator = await createAdapterFactory({ ...target, poolMax: 1, preparedStatements: 0 });
  try {
    await applyMigrations(migrator.factory, log);
  } finally {
    await migrator.close();
  }
}

/** On an adapter made elsewhere (the tests make theirs); closing the database closes it. */
export async function openDatabaseOn(adapter: Adapter, options: OpenOptions = {}, release: () => void = () => {}): Promise<OpenDatabase> {
  try {
    if (options.migrate ?? true) await applyMigrations(adapter.factory, options.log);
    const outages = new OutageLog(options.log ?? ((line) => console.error(line)));
    // The events' rules: the defaults until the runtime sets the operator's (setEventPolicy).
    const rules: EventRules = { policy: DEFAULT_LIFECYCLE, publicUrl: "" };
    const db = withServiceErrors(withOutbox(new PrismaClient({ adapter: adapter.factory }), rules), outages);
    useEventRules(db, rules);
    const direct = adapter.query;
    if (direct) {
      // The hot statements on the pool itself (direct-sql.ts), their failures translated as the client's are.
      const { translate, succeed } = serviceErrors(outages);
      useDirectQueries(db, (text, values) => direct(text, values).then(succeed, translate));
    }
    await ensureCurrencies(db);
    const expected = (await listMigrations()).migrationDirectories.map((dir) => dir.path);
    const changes = adapter.notifications ? new ChangeFeed(adapter.notifications, { log: options.log }) : noChanges;
    return {
      db,
      changes,
      readiness: () => readinessOf(db, expected),
      poolStats: adapter.poolStats,
      close: async () => {
        await changes.close();
        await db.$disconnect();
        await adapter.close();
        release();
      },
    };
  } catch (error) {
    await adapter.close();
    release();
    throw error;
  }
}

/**
 * Ready when the database answers and every migration of this version is applied: a database
 * dropped and made again under a running instance answers, but has no tables.
 */
async function readinessOf(db: Database, expected: string[]): Promise<Readiness> {
  try {
    const rows = await db.$queryRaw<{ migration_name: string }[]>`
      SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
    const applied = new Set(rows.map((row) => row.migration_name));
    const pending = expected.filter((name) => !applied.has(name));
    return pending.length === 0
      ? { ready: true, database: "ok", migrations: "applied" }
      : { ready: false, database: "ok", migrations: "missing", pending };
  } catch (error) {
    // The client has already turned driver failures into the core's errors (failures.ts).
    if (error instanceof PaygateError && error.reason === "database_not_migrated")
      return { ready: false, database: "ok", migrations: "missing", pending: expected };
    return { ready: false, database: "unreachable", migrations: "unknown" };
  }
}

/** The catalogue in code is the source; rows are added when missing and never rewritten. */
async function ensureCurrencies(db: Database): Promise<void> {
  await db.currency.createMany({
    data: ALL_CURRENCIES.map(({ id, kind, slug, name, decimals }) => ({ id, kind, slug, name, decimals })),
    skipDuplicates: true,
  });
}
