// The core's rate-limit counters (src/core/rate-limits.ts) in the table rate_limit_counters, so
// that every instance on the database counts together. One statement per hit: an upsert that adds
// one and returns the total, atomic under any number of concurrent instances (the primary key
// serialises the writers of one counter). Outages reach the caller as the core's
// database_unavailable, as on every query of this client.
import type { RateLimitCounters } from "../core/rate-limits.ts";
import type { Database } from "./types.ts";

export function rateLimitCounters(db: Database): RateLimitCounters {
  return {
    async hit(key, windowStart, windowEnd) {
      const rows = await db.$queryRaw<{ hits: number }[]>`
        INSERT INTO rate_limit_counters (key, window_start, hits, expires_at)
        VALUES (${key}, ${windowStart}, 1, ${windowEnd})
        ON CONFLICT (key, window_start) DO UPDATE SET hits = rate_limit_counters.hits + 1
        RETURNING hits`;
      return Number(rows[0]?.hits ?? 1);
    },
    async read(key, windowStart) {
      const rows = await db.$queryRaw<{ hits: number }[]>`
        SELECT hits FROM rate_limit_counters WHERE key = ${key} AND window_start = ${windowStart}`;
      return Number(rows[0]?.hits ?? 0);
    },
    prune: (now) => db.$executeRaw`DELETE FROM rate_limit_counters WHERE expires_at <= ${now}`,
  };
}
