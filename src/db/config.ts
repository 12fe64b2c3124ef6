// The database's configuration: a PostgreSQL server or the embedded PGlite, its pool and prepared statements
// (src/config.ts composes it into the service's).
import { z } from "zod";
import { availableParallelism } from "node:os";
import { DEFAULT_PREPARED_STATEMENTS } from "./prepared-statements.ts";

/**
 * The pool's default size: 2 × CPUs + 1, as Prisma sizes its own, at most 10 (what it was, so no
 * deployment opens more connections than before). A statement costs PostgreSQL more CPU when more
 * backends than cores take turns (issue 47: a pool of 10 on 2 CPUs, about a fifth more per initiate).
 */
export function defaultPoolMax(cpus = availableParallelism()): number {
  return Math.min(10, 2 * cpus + 1);
}

export const DatabaseEnvSchema = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional()
    .describe("`postgres://…` of a PostgreSQL server. Unset: embedded PGlite under `PAYGATE_DATA_DIR`. Default: unset."),
  PAYGATE_DATA_DIR: z
    .string()
    .min(1)
    .default("./.data")
    .describe("Folder of the embedded database (`pglite/`) and, without `PAYGATE_ENCRYPTION_KEY`, of `encryption.key`. Default: `./.data`."),
  PAYGATE_DB_POOL_MAX: z.coerce
    .number()
    .int()
    .min(1)
    .max(500)
    .default(() => defaultPoolMax())
    .describe(
      "Connections in the PostgreSQL pool. Default: twice the CPUs plus one (Prisma's own default), at most `10`: `5` on 2 CPUs. More connections than PostgreSQL can run at once cost it CPU per statement (a pool of 10 on 2 CPUs: about a fifth more per initiate; [Benchmarks](benchmarks.md)).",
    ),
  PAYGATE_DB_PREPARED_STATEMENTS: z.coerce
    .number()
    .int()
    .min(0)
    .max(1000)
    .default(DEFAULT_PREPARED_STATEMENTS)
    .describe(
      "How many statement texts each PostgreSQL connection keeps prepared (parsed and planned once, then run by name): a text gets a name the third time it runs, up to this many; the rest run unnamed. Cut PostgreSQL's CPU per initiate by about a third ([Benchmarks](benchmarks.md)). `0`: none, for a connection pooler in transaction mode that does not carry prepared statements (PgBouncer before 1.21, or without `max_prepared_statements`). Default: `100`.",
    ),
});
