// The core's rate-limit counters (src/core/rate-limits.ts) in the table rate_limit_counters, so
// that every instance on the database counts together. One statement per request: an upsert that
// adds one to the request's bucket and returns the total, atomic under any number of concurrent
// instances (the primary key serialises the writers of one counter), with the read of the
// address's failed authentications beside it. Outages reach the caller as the core's
// database_unavailable, as on every query of this client.
import type { RateLimitCounters } from "../../core/rate-limits.ts";
import { Prisma } from "../generated/client.ts";
import type { Database } from "../types.ts";

export function rateLimitCounters(db: Database): RateLimitCounters {
  return {
    async count(hit, read) {
      if (hit) {
        // Its commit does not wait for the disk (synchronous_commit off for this statement only, read
        // as the hits' 1 so that it runs): a count lost in a crash costs nothing, and under load the
        // writers of one key's counter no longer queue behind each other's WAL flush.
        const upsert = Prisma.sql`
          WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true))
          INSERT INTO rate_limit_counters (key, window_start, hits, expires_at)
          VALUES (${hit.key}, ${hit.start}, (SELECT 1 FROM relaxed), ${hit.end})
          ON CONFLICT (key, window_start) DO UPDATE SET hits = rate_limit_counters.hits + 1
          RETURNING hits`;
        // The read sees the table as it was before the upsert: never the same row (their keys differ).
        const rows = read
          ? await db.$queryRaw<{ hits: number; read: number | null }[]>`
              WITH hit AS (${upsert})
              SELECT hit.hits, (SELECT hits FROM rate_limit_counters WHERE key = ${read.key} AND window_start = ${read.start}) AS read
              FROM hit`
          : await db.$queryRaw<{ hits: number }[]>(upsert);
        const row = rows[0] as { hits: number; read?: number | null } | undefined;
        return { hits: Number(row?.hits ?? 1), read: Number(row?.read ?? 0) };
      }
      if (!read) return { hits: 0, read: 0 };
      const rows = await db.$queryRaw<{ hits: number }[]>`
        SELECT hits FROM rate_limit_counters WHERE key = ${read.key} AND window_start = ${read.start}`;
      return { hits: 0, read: Number(rows[0]?.hits ?? 0) };
    },
    prune: (now) => db.$executeRaw`DELETE FROM rate_limit_counters WHERE expires_at <= ${now}`,
  };
}
