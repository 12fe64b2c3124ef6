// Which instance runs a job that should run once per database (the payment watcher: every instance
// reading every address would multiply the load on the chain nodes). On PostgreSQL the leader is
// the process holding a session advisory lock on a connection of its own: if it dies, its session
// ends, the lock is free, and the next instance to ask takes over. The embedded database has one
// process, which always leads.
import pg from "pg";

export interface Leadership {
  /** Whether this process leads now; asks for the lock when it does not. */
  isLeader(): Promise<boolean>;
  release(): Promise<void>;
}

export const soleLeader: Leadership = { isLeader: async () => true, release: async () => {} };

/** A lock key of its own for each job (pg_try_advisory_lock takes a bigint). */
export const PAYMENT_WATCHER_LOCK = 7_413_100_001n;

export class PostgresLeadership implements Leadership {
  private client: pg.Client | null = null;
  private leading = false;

  constructor(
    private readonly url: string,
    private readonly lockKey: bigint,
    private readonly log: (line: string) => void = () => {},
  ) {}

  async isLeader(): Promise<boolean> {
    if (this.leading && this.client) return true;
    try {
      const client = await this.connection();
      const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [this.lockKey.toString()]);
      this.leading = rows[0]?.locked === true;
      return this.leading;
    } catch (error) {
      this.log(`leadership: ${(error as Error).message}; asking again at the next pass`);
      await this.drop();
      return false;
    }
  }

  async release(): Promise<void> {
    await this.drop(); // ending the session frees the lock
  }

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    const client = new pg.Client({ connectionString: this.url });
    // A lost connection loses the lock with it: lead no more until the lock is taken again.
    client.on("error", () => void this.drop());
    client.on("end", () => {
      if (this.client === client) {
        this.client = null;
        this.leading = false;
      }
    });
    await client.connect();
    this.client = client;
    return client;
  }

  private async drop(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.leading = false;
    await client?.end().catch(() => {});
  }
}
