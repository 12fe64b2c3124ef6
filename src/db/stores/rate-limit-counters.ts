// The core's rate-limit counters (src/core/rate-limits.ts) in the table rate_limit_counters, so
// that every instance on the database counts together. Every request adds one to its bucket's
// counter and reads the total, atomic under any number of concurrent instances (the primary key
// serialises the writers of one counter), with the read of the address's failed authentications
// beside it. Outages reach the caller as the core's database_unavailable, as on every query of this
// client.
//
// Counts are written as a group commit: a request that arrives while no statement of this process
// is under way is written at once, and the requests that arrive meanwhile are written together by
// the next statement, one upsert per counter adding how many they are. Each request still gets its
// own total, in arrival order. So a busy instance runs far fewer statements than requests (each was
// a round trip and most of a request's cost), and an idle one waits for nothing.
import { errors } from "../../core/errors.ts";
import type { CounterWindow, RateLimitCounters } from "../../core/rate-limits.ts";
import { Prisma } from "../generated/client.ts";
import type { Database } from "../types.ts";

interface Pending {
  hit: CounterWindow | null;
  read: CounterWindow | null;
  resolve(counted: { hits: number; read: number }): void;
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

const COUNT_WAIT_MS = 5_000;

interface CounterRow {
  kind: "hit" | "read";
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
    const { hit, read } = request;
    if (!hit) {
      const rows = await db.$queryRaw<{ hits: number }[]>`
        SELECT hits FROM rate_limit_counters WHERE key = ${read?.key} AND window_start = ${read?.start}`;
      request.resolve({ hits: 0, read: Number(rows[0]?.hits ?? 0) });
      return;
    }
    // Its commit does not wait for the disk (synchronous_commit off for this statement only, read as
    // the hits' 1 so that it runs): a count lost in a crash costs nothing.
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
    request.resolve({ hits: Number(row?.hits ?? 1), read: Number(row?.read ?? 0) });
  }

  /** Several requests: one upsert per counter and every read, in one statement. */
  async function write(batch: Pending[]): Promise<void> {
    if (batch.length === 1 && batch[0]) return writeOne(batch[0]);
    // One upsert per counter, adding its requests' hits: a statement may change a row only once.
    const added = new Map<string, { window: CounterWindow; n: number }>();
    for (const { hit } of batch) {
      if (!hit) continue;
      const id = counterId(hit);
      const entry = added.get(id) ?? { window: hit, n: 0 };
      entry.n += 1;
      added.set(id, entry);
    }
    const reads = new Map<string, CounterWindow>();
    for (const { read } of batch) if (read) reads.set(counterId(read), read);
    const hits = [...added.values()];
    const iso = (date: Date) => date.toISOString();
    // The reads see the table as it was before the upserts; they never read a counter written here
    // (a failure counter's key differs from every request bucket's).
    const rows = await db.$queryRaw<CounterRow[]>`
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
        RETURNING key, window_start, hits)
      SELECT 'hit' AS kind, key, window_start AS start, hits FROM hit
      UNION ALL
      SELECT 'read', c.key, c.window_start, c.hits
      FROM rate_limit_counters c
      JOIN unnest(${[...reads.values()].map((r) => r.key)}::text[], ${[...reads.values()].map((r) => iso(r.start))}::text[]) AS r(key, window_start)
        ON c.key = r.key AND c.window_start = r.window_start::timestamptz`;
    const totals = new Map<string, number>();
    const readTotals = new Map<string, number>();
    for (const row of rows) (row.kind === "hit" ? totals : readTotals).set(counterId(row), Number(row.hits));
    // Each counter's requests, in arrival order, get the totals that end at the counter's new total.
    const given = new Map<string, number>();
    for (const request of batch) {
      let hitsNow = 0;
      if (request.hit) {
        const id = counterId(request.hit);
        const before = given.get(id) ?? 0;
        given.set(id, before + 1);
        const total = totals.get(id) ?? 0;
        hitsNow = total - (added.get(id)?.n ?? 0) + before + 1;
      }
      request.resolve({ hits: hitsNow, read: request.read ? (readTotals.get(counterId(request.read)) ?? 0) : 0 });
    }
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
    count(hit, read) {
      if (!hit && !read) return Promise.resolve({ hits: 0, read: 0 });
      return new Promise((resolve, reject) => {
        const request: Pending = {
          hit,
          read,
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
    prune: (now) => db.$executeRaw`DELETE FROM rate_limit_counters WHERE expires_at <= ${now}`,
  };
}
