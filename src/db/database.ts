// Opens the store: embedded PGlite or a PostgreSQL server, migrated, with the currency catalogue in place.
import { ALL_CURRENCIES } from "../core/money/currencies.ts";
import { lockEmbeddedDatabase } from "./embedded-lock.ts";
import { createAdapterFactory, type DatabaseTarget } from "./adapters.ts";
import { PrismaClient } from "./generated/client.ts";
import { applyMigrations } from "./migrations.ts";
import { withOutbox } from "./outbox.ts";
import type { Database } from "./types.ts";

export interface OpenDatabase {
  db: Database;
  ping(): Promise<void>;
  close(): Promise<void>;
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
  const migrator = await createAdapterFactory({ ...target, poolMax: 1 });
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
    const db = withOutbox(new PrismaClient({ adapter: adapter.factory }));
    await ensureCurrencies(db);
    return {
      db,
      ping: async () => {
        await db.$queryRaw`SELECT 1`;
      },
      close: async () => {
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

/** The catalogue in code is the source; rows are added when missing and never rewritten. */
async function ensureCurrencies(db: Database): Promise<void> {
  await db.currency.createMany({
    data: ALL_CURRENCIES.map(({ id, kind, slug, name, decimals }) => ({ id, kind, slug, name, decimals })),
    skipDuplicates: true,
  });
}
