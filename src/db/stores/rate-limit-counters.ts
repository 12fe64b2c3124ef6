// The core's rate-limit counters (src/core/rate-limits.ts) in the table rate_limit_counters, so
// that every instance on the database counts together. Every request adds one to its bucket's
// counter (or more: the hits its bucket counts ahead, src/core/rate-limit-leads.ts) and reads the
// total, atomic under any number of concurrent instances (the primary key serialises the writers of
// one counter), with the read of the address's failed authentications
// beside it. Outages reach the caller as the core's database_unavailable, as on every query of this
// client.
//
// Counts are written as a group commit: a request that arrives while no statement of this process
// is under way is written at once, and the requests that arrive meanwhile are written together by
// the next statement, one upsert per counter adding how many they are. Each request still gets its
// own total, in arrival order. So a busy instance runs far fewer statements than requests (each was
// a round trip and most of a request's cost), and an idle one waits for nothing.
//
// A request may carry a next counter (a sign-in attempt's e-mail), counted in the same statement
// only when the request's own total is within the limit it names: the statement decides it from
// the totals it writes, so no attempt in flight slips past a limit however many arrive at once.
import { errors } from "../../core/errors.ts";
import { COUNT_WAIT_MS, type CounterWindow, type NextCounter, type RateLimitCounters } from "../../core/rate-limits.ts";
import { queryDirect } from "../direct-sql.ts";
import { Prisma } from "../generated/client.ts";
import type { Database } from "../types.ts";

interface Counted {
  hits: number;
  read: number;
  next?: number;
}

interface Pending {
  hit: CounterWindow | null;
  /** How many hits it adds to `hit`'s counter (a request and the hits its bucket counts ahead). */
  hits: number;
  read: CounterWindow | null;
  /** Only with `hit`. */
  next: NextCounter | null;
  resolve(counted: Counted): void;
  reject(error: unknown): void;
  /** Gives up waiting for the statement before it (see countWaitMs). */
  timer: NodeJS.Timeout;
}

export interface CounterOptions {
  /**
   * How long a request waits for the statement under way before it gives up with database_unavailable
   * (the limiter then lets it through to its own queries, which answer for themselves): a database that
   * stopped answering must not hold every request behind one statement. The pool's wait for a connection.
   */
  countWaitMs?: number;
}

interface CounterRow {
  kind: "hit" | "read" | "next";
  key: string;
  start: Date;
  hits: number;
}

/** A counter's identity: its key and window. */
const counterId = (window: { key: string; start: Date }) => `${window.key}\u0000${window.start.toISOString()}`;

export function rateLimitCounters(db: Database, options: CounterOptions = {}): RateLimitCounters {
  const countWaitMs = options.countWaitMs ?? COUNT_WAIT_MS;
  let waiting: Pending[] = [];
  let writing = false;

  /** One request alone (an idle instance, and always on PGlite, which runs one statement at a time): the plainest statement. */
  async function writeOne(request: Pending): Promise<void> {
    const { hit, read, hits } = request;
    if (!hit) {
      const rows = await queryDirect<{ hits: number }>(
        db,
        Prisma.sql`SELECT hits FROM rate_limit_counters WHERE key = ${read?.key} AND window_start = ${read?.start}`,
      );
      request.resolve({ hits: 0, read: Number(rows[0]?.hits ?? 0) });
      return;
    }
    // Its commit does not wait for the disk (synchronous_commit off for this statement only, read
    // with the hits so that it runs): a count lost in a crash costs nothing.
    const upsert = Prisma.sql`
      WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true))
      INSERT INTO rate_limit_counters (key, window_start, hits, expires_at)
      VALUES (${hit.key}, ${hit.start}, (SELECT ${hits}::int FROM relaxed), ${hit.end})
      ON CONFLICT (key, window_start) DO UPDATE SET hits = rate_limit_counters.hits + excluded.hits
      RETURNING hits`;
    // The read sees the table as it was before the upsert: never the same row (their keys differ).
    const readOf = (window: CounterWindow) =>
      Prisma.sql`(SELECT hits FROM rate_limit_counters WHERE key = ${window.key} AND window_start = ${window.start})`;
    const { next } = request;
    if (next) {
      // Counted only when the hit's total is within its limit; otherwise read, unchanged by this statement.
      const rows = await queryDirect<{ hits: number; read: number | null; next: number | null }>(
        db,
        Prisma.sql`
        WITH hit AS (${upsert}),
        counted AS (
          INSERT INTO rate_limit_counters (key, window_start, hits, expires_at)
          SELECT ${next.window.key}, ${next.window.start}::timestamptz, 1, ${next.window.end}::timestamptz FROM hit
          WHERE hit.hits <= ${next.ifHitsAtMost}::int
          ON CONFLICT (key, window_start) DO UPDATE SET hits = rate_limit_counters.hits + 1
          RETURNING hits)
        SELECT hit.hits, ${read ? readOf(read) : Prisma.sql`NULL::int`} AS read, COALESCE((SELECT hits FROM counted), ${readOf(next.window)}) AS next
        FROM hit`,
      );
      const row = rows[0];
      request.resolve({ hits: Number(row?.hits ?? 1), read: Number(row?.read ?? 0), next: Number(row?.next ?? 0) });
      return;
    }
    const rows = read
      ? await queryDirect<{ hits: number; read: number | null }>(
          db,
          Prisma.sql`
          WITH hit AS (${upsert})
          SELECT hit.hits, ${readOf(read)} AS read
          FROM hit`,
        )
      : await queryDirect<{ hits: number }>(db, upsert);
    const row = rows[0] as { hits: number; read?: number | null } | undefined;
    request.resolve({ hits: Number(row?.hits ?? 1), read: Number(row?.read ?? 0) });
  }

  /** Several requests: one upsert per counter and every read, in one statement. */
  async function write(batch: Pending[]): Promise<void> {
    if (batch.length === 1 && batch[0]) return writeOne(batch[0]);
    // One upsert per counter, adding its requests' hits: a statement may change a row only once.
    // `place`: where each request's hits end among its counter's, in arrival order (from 1).
    const added = new Map<string, { window: CounterWindow; n: number }>();
    const place = batch.map(({ hit, hits }) => {
      if (!hit) return 0;
      const id = counterId(hit);
      const entry = added.get(id) ?? { window: hit, n: 0 };
      entry.n += hits;
      added.set(id, entry);
      return entry.n;
    });
    const reads = new Map<string, CounterWindow>();
    for (const { read } of batch) if (read) reads.set(counterId(read), read);
    const hits = [...added.values()];
    const iso = (date: Date) => date.toISOString();
    // The requests with a next counter: the statement counts each whose own hit total (its counter's
    // new total, less the hits added after it) is within its limit, as the totals below are given.
    const withNext = batch.flatMap((request, i) =>
      request.hit && request.next ? [{ hit: request.hit, next: request.next, place: place[i] ?? 0 }] : [],
    );
    const nextSql =
      withNext.length === 0
        ? { cte: Prisma.empty, rows: Prisma.empty }
        : {
            cte: Prisma.sql`,
      next_input AS (
        SELECT hit_key, hit_start::timestamptz AS hit_start, place, lim, key, window_start::timestamptz AS window_start, expires_at::timestamptz AS expires_at
        FROM unnest(${withNext.map((r) => r.hit.key)}::text[], ${withNext.map((r) => iso(r.hit.start))}::text[], ${withNext.map((r) => r.place)}::int[],
          ${withNext.map((r) => r.next.ifHitsAtMost)}::int[], ${withNext.map((r) => r.next.window.key)}::text[],
          ${withNext.map((r) => iso(r.next.window.start))}::text[], ${withNext.map((r) => iso(r.next.window.end))}::text[])
          AS x(hit_key, hit_start, place, lim, key, window_start, expires_at)),
      counted AS (
        INSERT INTO rate_limit_counters (key, window_start, hits, expires_at)
        SELECT x.key, x.window_start, count(*)::int, x.expires_at
        FROM next_input x
        JOIN input i ON i.key = x.hit_key AND i.window_start = x.hit_start
        JOIN hit h ON h.key = x.hit_key AND h.window_start = x.hit_start
        WHERE h.hits - i.n + x.place <= x.lim
        GROUP BY x.key, x.window_start, x.expires_at
        ORDER BY x.key, x.window_start
        ON CONFLICT (key, window_start) DO UPDATE SET hits = rate_limit_counters.hits + excluded.hits
        RETURNING key, window_start, hits)`,
            rows: Prisma.sql`
      UNION ALL
      SELECT 'next', key, window_start, hits FROM counted
      UNION ALL
      SELECT 'read', c.key, c.window_start, c.hits
      FROM rate_limit_counters c JOIN (SELECT DISTINCT key, window_start FROM next_input) n ON c.key = n.key AND c.window_start = n.window_start`,
          };
    // The reads see the table as it was before the upserts; they never read a counter written here
    // (a failure counter's key differs from every request bucket's) but a next counter's, which
    // the 'next' rows then give as written.
    const rows = await queryDirect<CounterRow>(
      db,
      Prisma.sql`
      WITH input AS (
        SELECT key, window_start::timestamptz AS window_start, expires_at::timestamptz AS expires_at, n
        FROM unnest(${hits.map((h) => h.window.key)}::text[], ${hits.map((h) => iso(h.window.start))}::text[],
          ${hits.map((h) => iso(h.window.end))}::text[], ${hits.map((h) => h.n)}::int[]) AS i(key, window_start, expires_at, n)),
      relaxed AS (SELECT set_config('synchronous_commit', 'off', true)),
      hit AS (
        INSERT INTO rate_limit_counters (key, window_start, hits, expires_at)
        SELECT key, window_start, n, expires_at FROM input CROSS JOIN relaxed
        ORDER BY key, window_start
        ON CONFLICT (key, window_start) DO UPDATE SET hits = rate_limit_counters.hits + excluded.hits
        RETURNING key, window_start, hits)${nextSql.cte}
      SELECT 'hit' AS kind, key, window_start AS start, hits FROM hit
      UNION ALL
      SELECT 'read', c.key, c.window_start, c.hits
      FROM rate_limit_counters c
      JOIN unnest(${[...reads.values()].map((r) => r.key)}::text[], ${[...reads.values()].map((r) => iso(r.start))}::text[]) AS r(key, window_start)
        ON c.key = r.key AND c.window_start = r.window_start::timestamptz${nextSql.rows}`,
    );
    const totals = new Map<string, number>();
    const readTotals = new Map<string, number>();
    const nextTotals = new Map<string, number>();
    for (const row of rows) (row.kind === "hit" ? totals : row.kind === "next" ? nextTotals : readTotals).set(counterId(row), Number(row.hits));
    // Each counter's requests, in arrival order, get the totals that end at the counter's new total;
    // so do a next counter's requests that it counted (the others get its total).
    const hitsOf = batch.map((request, i) => {
      if (!request.hit) return 0;
      const id = counterId(request.hit);
      return (totals.get(id) ?? 0) - (added.get(id)?.n ?? 0) + (place[i] ?? 0);
    });
    const nextCounted = new Map<string, number>();
    const nextPlace = batch.map((request, i) => {
      if (!request.next || (hitsOf[i] ?? 0) > request.next.ifHitsAtMost) return 0;
      const id = counterId(request.next.window);
      const n = (nextCounted.get(id) ?? 0) + 1;
      nextCounted.set(id, n);
      return n;
    });
    batch.forEach((request, i) => {
      const counted: Counted = { hits: hitsOf[i] ?? 0, read: request.read ? (readTotals.get(counterId(request.read)) ?? 0) : 0 };
      if (request.next) {
        const id = counterId(request.next.window);
        const total = nextTotals.get(id) ?? readTotals.get(id) ?? 0;
        const at = nextPlace[i] ?? 0;
        counted.next = at === 0 ? total : total - (nextCounted.get(id) ?? 0) + at;
      }
      request.resolve(counted);
    });
  }

  async function drain(): Promise<void> {
    writing = true;
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      for (const request of batch) clearTimeout(request.timer);
      try {
        await write(batch);
      } catch (error) {
        for (const request of batch) request.reject(error);
      }
    }
    writing = false;
  }

  return {
    count(hit, read, next = null, hits = 1) {
      if (!hit && !read) return Promise.resolve({ hits: 0, read: 0 });
      if (next && !hit) return Promise.reject(new TypeError("A next counter is counted only beside a hit"));
      if (!Number.isSafeInteger(hits) || hits < 1 || (next && hits !== 1)) {
        return Promise.reject(new TypeError("A request adds one hit or more, and exactly one beside a next counter"));
      }
      return new Promise((resolve, reject) => {
        const request: Pending = {
          hit,
          hits,
          read,
          next,
          resolve,
          reject,
          timer: setTimeout(() => {
            waiting = waiting.filter((other) => other !== request);
            reject(errors.databaseUnavailable("database_unreachable"));
          }, countWaitMs).unref(),
        };
        waiting.push(request);
        if (!writing) void drain();
      });
    },
    async giveBack(window) {
      await db.$executeRaw`UPDATE rate_limit_counters SET hits = hits - 1 WHERE key = ${window.key} AND window_start = ${window.start} AND hits > 0`;
    },
    prune: (now) => db.$executeRaw`DELETE FROM rate_limit_counters WHERE expires_at <= ${now}`,
  };
}
