// Takes a test's database away under the running service, as an outage would.
// - PostgreSQL: the database refuses new connections and its open ones are terminated; restore()
//   lets connections in again, and the service must recover by itself.
// - Embedded PGlite lives in the process: it goes away only by being closed, and does not come back.
import { admin, type TestDatabase } from "./test-database.ts";

export interface Outage {
  /** Ends the outage; null where the database cannot come back (embedded). */
  restore: (() => Promise<void>) | null;
}

export async function takeDatabaseAway(store: TestDatabase): Promise<Outage> {
  const adminUrl = process.env.DATABASE_URL;
  if (store.url === null || !adminUrl) {
    await store.close();
    return { restore: null };
  }
  const name = new URL(store.url).pathname.slice(1);
  await admin(adminUrl, `ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
  await admin(adminUrl, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`);
  return { restore: () => admin(adminUrl, `ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`) };
}
