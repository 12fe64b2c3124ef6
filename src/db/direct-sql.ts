// The hot paths' hand-written statements straight to the driver (issue 30).
//
// Prisma's `$queryRaw` runs a hand-written statement through its client runtime: the arguments
// serialised, the request through its query interpreter, the rows deserialised to its types. For
// initiate's reads and move, whose SQL is already written out, that was most of the 14-21 % of an
// initiate's CPU that profiles put in Prisma's runtime; `pg`'s own `query` of the same statement costs
// a quarter of it (docs/benchmarks.md, "The cost per payment"). On PostgreSQL such a statement goes to
// the adapter's pool, named as the adapter names its statements (prepared-statements.ts), with rows of
// the shapes `$queryRaw` gives (numeric as Prisma's Decimal, timestamps as Dates in UTC, json parsed)
// and driver failures as the core's errors (failures.ts). On PGlite, and on a client without a pool
// (inside an interactive transaction), it is `$queryRaw` itself.
import type pg from "pg";
import { Prisma } from "./generated/client.ts";
import type { Database } from "./types.ts";

/** Runs a statement's text with its values and answers its rows. */
export type DirectQuery = (text: string, values: unknown[]) => Promise<unknown[]>;

const direct = new WeakMap<object, DirectQuery>();

/** From now on `queryDirect(db, …)` runs on `query` (openDatabaseOn, when the adapter has a pool). */
export function useDirectQueries(db: Database, query: DirectQuery): void {
  direct.set(db, query);
}

/** The rows of a hand-written statement, as `db.$queryRaw` would answer them. */
export async function queryDirect<T>(db: Database, sql: Prisma.Sql): Promise<T[]> {
  const query = direct.get(db);
  if (!query) return db.$queryRaw<T[]>(sql);
  return (await query(sql.text, sql.values.map(driverValue))) as T[];
}

/** A value as Prisma's adapter sends it: Dates as UTC without a zone, decimals and bigints as text. */
function driverValue(value: unknown): unknown {
  if (value instanceof Date) return utcDateTime(value);
  if (Array.isArray(value)) return value.map(driverValue);
  if (typeof value === "bigint") return value.toString();
  if (Prisma.Decimal.isDecimal(value)) return value.toString();
  return value;
}

function utcDateTime(date: Date): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  const ms = date.getUTCMilliseconds();
  return (
    `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}${ms ? `.${pad(ms, 3)}` : ""}`
  );
}

const NUMERIC_OID = 1700;
const TIMESTAMP_OID = 1114;
const INT8_OID = 20;

/** Result types as `$queryRaw` gives them; the rest as `pg` parses them (timestamptz to Date, json parsed, arrays). */
export function directTypes(types: typeof pg.types): pg.CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, format?: string) => {
      if (format === undefined || format === "text") {
        if (oid === NUMERIC_OID) return (text: string) => new Prisma.Decimal(text);
        // `timestamp` (without a zone) holds UTC here, as Prisma writes and reads it.
        if (oid === TIMESTAMP_OID) return (text: string) => new Date(`${text.replace(" ", "T")}Z`);
        if (oid === INT8_OID) return (text: string) => BigInt(text);
      }
      return types.getTypeParser(oid, format as "text");
    }) as pg.CustomTypesConfig["getTypeParser"],
  };
}
