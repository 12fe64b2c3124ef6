// Driver adapter factories for the two stores: embedded PGlite (a folder, or memory) and a PostgreSQL server.
// One factory serves both the Prisma client (`new PrismaClient({ adapter: factory })`) and the
// migration engine (src/db/migrations.ts), which also needs `connectToShadowDb`.
import { mkdirSync } from "node:fs";
import type { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import pg from "pg";
import type { NotificationSource } from "./notifications.ts";
import { DEFAULT_PREPARED_STATEMENTS, statementNamer } from "./prepared-statements.ts";
import { directTypes, type DirectQuery } from "./direct-sql.ts";

export type DatabaseTarget =
  /** Embedded PostgreSQL; `dataDir: null` keeps the database in memory only. */
  | { kind: "pglite"; dataDir: string | null }
  /** `preparedStatements`: how many statement texts each connection keeps prepared (prepared-statements.ts); default 100, 0: none. */
  | { kind: "postgres"; url: string; poolMax?: number; preparedStatements?: number };

export type AdapterFactory = SqlMigrationAwareDriverAdapterFactory;

export interface DatabaseAdapter {
  factory: AdapterFactory;
  /**
   * Releases what the factory holds (the PGlite instance, or the pg pool). Call it after
   * `PrismaClient.$disconnect()`: disconnecting alone leaves them open. Idempotent.
   */
  close(): Promise<void>;
  /** PostgreSQL only: the pool's connections now (GET /metrics). */
  poolStats?: () => PoolStats;
  /** Where this database's change notifications are heard (src/db/notifications.ts); none: nothing is announced. */
  notifications?: NotificationSource;
  /** PostgreSQL only: a statement on the pool, named as the adapter names its own (src/db/direct-sql.ts). */
  query?: DirectQuery;
}

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

export async function createAdapterFactory(target: DatabaseTarget): Promise<DatabaseAdapter> {
  if (target.kind === "pglite") {
    // Loaded only for the embedded database: a service on PostgreSQL has no use for PGlite's modules.
    const [{ PGlite }, { PrismaPGlite }] = await Promise.all([import("@electric-sql/pglite"), import("pglite-prisma-adapter")]);
    let pglite: PGlite;
    if (target.dataDir === null) {
      pglite = await PGlite.create();
    } else {
      mkdirSync(target.dataDir, { recursive: true });
      pglite = await PGlite.create({ dataDir: target.dataDir });
    }
    return {
      factory: new PrismaPGlite(pglite),
      notifications: { kind: "pglite", pglite },
      close: once(async () => {
        if (!pglite.closed) await pglite.close();
      }),
    };
  }

  // One pool for every connection the factory hands out (the client's and the migration engine's),
  // so `poolMax` bounds them all; PrismaPg leaves a pool it was given open, and close() ends it.
  // A server that does not answer fails a request after 5 s (a 503) instead of holding it open.
  const pool = new pg.Pool({ connectionString: target.url, max: target.poolMax ?? 10, connectionTimeoutMillis: 5000 });
  // An idle connection the server dropped (restart, DROP DATABASE ... WITH (FORCE)) is discarded by
  // the pool and replaced on demand; without a listener its 'error' event would crash the process.
  pool.on("error", () => {});
  pool.on("connect", (client) => {
    // The pool listens only to idle clients. One checked out but between two queries when the server
    // drops it (a failover, pg_terminate_backend) emits 'error' to nobody, an uncaught exception (seen
    // once in the fault test); heard here, its next query fails instead (503) and the pool replaces it.
    client.on("error", () => {});
    reportCharColumnsAsText(client);
  });
  // One namer for the adapter's statements and the direct ones: a name stands for one text on every connection.
  const statementName = preparedStatementsFor(target.preparedStatements ?? DEFAULT_PREPARED_STATEMENTS);
  const types = directTypes(pg.types);
  return {
    factory: runningFunctionBodiesWhole(new PrismaPg(pool, { statementNameGenerator: statementName }), pool),
    query: async (text, values) => (await pool.query({ name: statementName?.({ sql: text }), text, values, types })).rows,
    notifications: { kind: "postgres", url: target.url },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: target.poolMax ?? 10 }),
    close: once(async () => {
      if (!pool.ended) await pool.end();
    }),
  };
}

/**
 * @prisma/adapter-pg (7.10) runs a migration script split at every ";", which cuts a function body
 * (`CREATE FUNCTION … AS $$ … $$`, the webhook_endpoints migration's triggers) apart. The native
 * engine and the PGlite adapter send a script whole, as one simple query: so does this for a script
 * with a dollar-quoted body; any other keeps the adapter's own way.
 */
function runningFunctionBodiesWhole(factory: PrismaPg, pool: pg.Pool): PrismaPg {
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    const split = adapter.executeScript.bind(adapter);
    adapter.executeScript = async (script: string) => {
      if (!script.includes("$$")) return split(script);
      try {
        await pool.query(script);
      } catch (error) {
        // The adapter's own conversion to a driver error, as its split statements get.
        const onError: unknown = Reflect.get(adapter, "onError");
        if (typeof onError === "function") Reflect.apply(onError, adapter, [error]);
        throw error;
      }
    };
    return adapter;
  };
  return factory;
}

function preparedStatementsFor(limit: number): ((query: { sql: string }) => string) | undefined {
  if (limit <= 0) return undefined;
  const nameOf = statementNamer({ limit });
  // The name goes to pg as the statement's; "" is the protocol's unnamed statement, as if none were given.
  return (query) => nameOf(query.sql) ?? "";
}

/**
 * @prisma/adapter-pg (7.10) rejects result columns of PostgreSQL's internal one-byte type "char"
 * (oid 18) as an unsupported type. The schema engine reads such columns from pg_catalog
 * (relkind, contype, ...) when it inspects a live database, so every diff against a PostgreSQL
 * server failed with "Column type 'char' could not be deserialized from the database".
 * Reported as text instead (the value is already a one-character string), they work; the
 * application's own tables never have such columns.
 */
function reportCharColumnsAsText(client: pg.PoolClient): void {
  const original: unknown = client.query;
  if (typeof original !== "function") return;
  const query = (...args: unknown[]): unknown => {
    const last = args.at(-1);
    if (typeof last === "function") {
      args[args.length - 1] = (error: unknown, result: unknown) => {
        if (!error) charFieldsAsText(result);
        Reflect.apply(last, undefined, [error, result]);
      };
      return Reflect.apply(original, client, args);
    }
    const result: unknown = Reflect.apply(original, client, args);
    if (result instanceof Promise) {
      return result.then((value: unknown) => {
        charFieldsAsText(value);
        return value;
      });
    }
    return result;
  };
  Reflect.set(client, "query", query);
}

const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

function charFieldsAsText(result: unknown): void {
  if (typeof result !== "object" || result === null || !("fields" in result) || !Array.isArray(result.fields)) return;
  for (const field of result.fields) {
    if (typeof field === "object" && field !== null && "dataTypeID" in field && field.dataTypeID === PG_CHAR_OID) {
      field.dataTypeID = PG_TEXT_OID;
    }
  }
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= fn());
}
