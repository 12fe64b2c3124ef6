// Database failures as the core's errors. A driver error that an operator or a client can cause
// (the server is down or refuses connections, the schema is not migrated, a value PostgreSQL
// cannot store) becomes a PaygateError that says so, so the API answers 503 or 400 with the cause
// instead of a bare 500. An outage is logged once when it starts and once when it ends, not per
// request. A unique violation becomes DuplicateKeyError (the idempotency race reads it); anything
// else passes through unchanged.
import { DuplicateKeyError, errors, PaygateError } from "../core/errors.ts";
import type { Database } from "./types.ts";

interface DriverCause {
  kind?: string;
  /** SQLSTATE, on errors the server sent. */
  originalCode?: string;
  originalMessage?: string;
}

// Prisma's own codes for the same failures, when no driver cause is attached.
const PRISMA_UNREACHABLE = new Set(["P1001", "P1002", "P1003", "P1008", "P1010", "P1017", "P2024", "P2028"]);
const PRISMA_NOT_MIGRATED = new Set(["P2021", "P2022"]);

const KIND_UNREACHABLE = new Set([
  "DatabaseNotReachable",
  "DatabaseDoesNotExist",
  "DatabaseAccessDenied",
  "AuthenticationFailed",
  "ConnectionClosed",
  "TlsConnectionError",
  "TooManyConnections",
  "SocketTimeout",
  "TransactionAlreadyClosed",
]);
const KIND_NOT_MIGRATED = new Set(["TableDoesNotExist", "ColumnNotFound"]);
const KIND_UNSTORABLE = new Set(["ValueOutOfRange", "InvalidInputValue"]);

/** SQLSTATE classes and codes: connection trouble, shutdown, no resources, refused logins, a read-only standby. */
function unreachableState(state: string): boolean {
  return /^(08|28|53|57P0[1-4]|3D000|55000|25006)/.test(state);
}
/** Undefined table, column, function or type: the schema is behind the code. */
const NOT_MIGRATED_STATES = new Set(["42P01", "42703", "42883", "42704"]);
/** NUL or unconvertible characters, bad JSON text, numeric overflow, too long for the type or an index. */
const UNSTORABLE_STATES = new Set(["22021", "22P05", "22P02", "22003", "22001", "54000"]);

function causeOf(error: unknown): DriverCause | null {
  if (typeof error !== "object" || error === null) return null;
  const meta = (error as { meta?: { driverAdapterError?: { cause?: DriverCause } } }).meta;
  const fromMeta = meta?.driverAdapterError?.cause;
  if (fromMeta) return fromMeta;
  if ((error as { name?: unknown }).name === "DriverAdapterError") return (error as { cause?: DriverCause }).cause ?? null;
  // pg's own DatabaseError, from the statements that go to the driver directly (direct-sql.ts): its SQLSTATE.
  const { code, severity, message } = error as { code?: unknown; severity?: unknown; message?: unknown };
  if (typeof code === "string" && typeof severity === "string") return { originalCode: code, originalMessage: String(message) };
  return null;
}

/** The core error a driver failure stands for, or null when it is not one of those above. */
export function serviceErrorOf(error: unknown): PaygateError | null {
  if (error instanceof PaygateError) return null;
  const cause = causeOf(error);
  const state = cause?.originalCode ?? "";
  const kind = cause?.kind ?? "";
  const prismaCode = typeof error === "object" && error !== null ? String((error as { code?: unknown }).code ?? "") : "";
  if (KIND_UNREACHABLE.has(kind) || unreachableState(state) || (!cause && PRISMA_UNREACHABLE.has(prismaCode))) {
    return errors.databaseUnavailable("database_unreachable");
  }
  if (KIND_NOT_MIGRATED.has(kind) || NOT_MIGRATED_STATES.has(state) || (!cause && PRISMA_NOT_MIGRATED.has(prismaCode))) {
    return errors.databaseUnavailable("database_not_migrated");
  }
  if (KIND_UNSTORABLE.has(kind) || UNSTORABLE_STATES.has(state)) return errors.unstorableValue();
  // A connection the pool handed out and the server then dropped, before the adapter could name it;
  // or the embedded database, closed (the service is shutting down).
  if (
    error instanceof Error &&
    /Connection terminated|not queryable|timeout exceeded when trying to connect|ECONNREFUSED|ECONNRESET|server closed the connection|PGlite is closed/i.test(
      error.message,
    )
  ) {
    return errors.databaseUnavailable("database_unreachable");
  }
  return null;
}

/** Whether a unique index refused the write, by SQLSTATE 23505 (or Prisma's P2002 when no driver cause is attached). */
export function isUniqueViolation(error: unknown): boolean {
  const cause = causeOf(error);
  if (cause) return cause.kind === "UniqueConstraintViolation" || cause.originalCode === "23505";
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2002";
}

/** One short line about a driver failure, for the operator: never the query's values. */
function describe(error: unknown): string {
  const cause = causeOf(error);
  if (cause) return [cause.kind, cause.originalCode, cause.originalMessage].filter(Boolean).join(" ");
  const text = error instanceof Error ? error.message : String(error);
  return text.trim().split("\n").at(-1)?.slice(0, 200) ?? "";
}

/** Logs an outage when it starts and when it ends; the requests in between only count. */
export class OutageLog {
  private outage: { since: number; failed: number } | null = null;

  constructor(private readonly log: (line: string) => void) {}

  failed(serviceError: PaygateError, error: unknown): void {
    if (serviceError.code !== "database_unavailable") return;
    if (this.outage) {
      this.outage.failed++;
      return;
    }
    this.outage = { since: Date.now(), failed: 1 };
    this.log(`database unavailable (${serviceError.reason}: ${describe(error)}); API calls answer 503 until it is back`);
  }

  succeeded(): void {
    if (!this.outage) return;
    const { since, failed } = this.outage;
    this.outage = null;
    this.log(`database available again after ${((Date.now() - since) / 1000).toFixed(1)} s; ${failed} operations failed meanwhile`);
  }
}

/** A driver failure as the core's error (logged as an outage when it is one), and a success that ends an outage. */
export function serviceErrors(outages: OutageLog): { translate: (error: unknown) => never; succeed: <T>(value: T) => T } {
  return {
    translate: (error) => {
      if (isUniqueViolation(error)) throw new DuplicateKeyError(error);
      const serviceError = serviceErrorOf(error);
      if (!serviceError) throw error;
      outages.failed(serviceError, error);
      throw serviceError;
    },
    succeed: (value) => {
      outages.succeeded();
      return value;
    },
  };
}

/**
 * The client with failures translated, on every query and on interactive transactions as a whole
 * (a connection lost at BEGIN or COMMIT fails there, outside any query).
 */
export function withServiceErrors(db: Database, outages: OutageLog): Database {
  const { translate, succeed } = serviceErrors(outages);
  const translated = db.$extends({
    name: "paygate-service-errors",
    query: {
      async $allOperations({ args, query }) {
        return query(args).then(succeed, translate);
      },
    },
    client: {
      $transaction(...params: unknown[]) {
        return (Reflect.apply(db.$transaction, db, params) as Promise<unknown>).then(succeed, translate);
      },
    },
  });
  // The extension changes no types: the client keeps the plain client's API (as in outbox.ts).
  return translated as unknown as Database;
}
