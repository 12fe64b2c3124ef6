// A workaround for bench/webhooks.ts, not a fix. Every process that opens the database applies the
// migrations (src/db/migrations.ts), and Prisma's schema engine takes the session-level
// pg_advisory_lock(72707369) on a connection of the process's shared pg pool (src/db/adapters.ts)
// and never unlocks it: the connection goes back to the pool still holding the lock. The next
// process to start waits for it and fails after 10 s (P1002) unless that connection sat idle long
// enough for the pool to close it. So once a process is up (never while it migrates), its holder is ended here; its pool
// discards the dropped connection and opens another on demand.
import pg from "pg";

const PRISMA_MIGRATION_LOCK = 72707369;

/** Ends the sessions of this database that hold the migration lock, once each is idle between queries. */
export async function endMigrationLockHolders(databaseUrl: string, timeoutMs = 10_000): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
      const result = await client.query<{ state: string | null; ended: boolean }>(
        `SELECT a.state, a.state = 'idle' AND pg_terminate_backend(a.pid) AS ended
           FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
          WHERE l.locktype = 'advisory' AND l.granted AND l.objid = $1 AND a.datname = current_database()`,
        [PRISMA_MIGRATION_LOCK],
      );
      if (result.rows.every((row) => row.ended)) return;
    }
    throw new Error(`the migration lock of ${databaseUrl} was still held after ${timeoutMs} ms`);
  } finally {
    await client.end();
  }
}
