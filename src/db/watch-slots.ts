// The payment watcher's slots on PostgreSQL (src/core/transactions/watch-shares.ts says how they
// share the addresses): a session advisory lock per slot, on a connection of this instance's own,
// so that a dead instance's slot is freed with its session.
import pg from "pg";
import type { WatchSlots } from "../core/transactions/watch-shares.ts";

/** The first key of the two-key advisory locks (pg_try_advisory_lock(int4, int4)): the slots' namespace. */
export const WATCHER_SLOTS_LOCK_CLASS = 741_310;
/** More instances than any deployment runs; a slot is taken from the lowest free one. */
const MAX_SLOTS = 1024;

export class PostgresWatchSlots implements WatchSlots {
  readonly capacity = MAX_SLOTS;
  private client: pg.Client | null = null;
  private slot: number | null = null;

  constructor(
    private readonly url: string,
    private readonly lockClass: number = WATCHER_SLOTS_LOCK_CLASS,
  ) {}

  async claim(): Promise<{ own: number | null; held: number[] }> {
    const client = await this.connection();
    const held = await this.heldSlots(client);
    if (this.slot === null) this.slot = await this.takeSlot(client, held);
    return { own: this.slot, held };
  }

  async release(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.slot = null;
    await client?.end().catch(() => {}); // ending the session frees the slot
  }

  /** The slots that live sessions hold in this database (pg_locks shows every session's advisory locks). */
  private async heldSlots(client: pg.Client): Promise<number[]> {
    const { rows } = await client.query<{ slot: number }>(
      `SELECT objid::int AS slot FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND classid = $1::int::oid
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [this.lockClass],
    );
    return rows.map((row) => row.slot);
  }

  private async takeSlot(client: pg.Client, held: number[]): Promise<number | null> {
    const taken = new Set(held);
    for (let slot = 0; slot < MAX_SLOTS; slot++) {
      if (taken.has(slot)) continue;
      // Another instance may take the same free slot between the read and here: then try the next.
      const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1, $2) AS locked", [this.lockClass, slot]);
      if (rows[0]?.locked === true) return slot;
    }
    return null;
  }

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    const client = new pg.Client({ connectionString: this.url });
    // A lost connection loses the slot with it: take one again at the next pass.
    client.on("error", () => void this.release());
    client.on("end", () => {
      if (this.client === client) {
        this.client = null;
        this.slot = null;
      }
    });
    await client.connect();
    this.client = client;
    return client;
  }
}
