// How instances on one database share the payment watcher's addresses. Each instance holds a
// session advisory lock on a slot of its own (a connection of its own); the slots held now are the
// live instances, and an instance watches the addresses whose hash falls to its rank among them. One
// that dies loses its session and its lock with it, so at their next pass the others see one
// instance fewer and cover its share: take-over needs no heartbeat table and no timeout. While the
// count changes, one pass may read an address twice or late (harmless: what a node shows is
// recorded idempotently). The embedded database has one process, which watches everything.
import pg from "pg";
import type { WatchShare } from "../core/stores.ts";

export type { WatchShare };

export interface WatchShares {
  /** This instance's share for the next pass; null when it has none now (its connection is down). */
  current(): Promise<WatchShare | null>;
  release(): Promise<void>;
}

export const wholeWatchList: WatchShares = { current: async () => ({ index: 0, of: 1 }), release: async () => {} };

/** The first key of the two-key advisory locks (pg_try_advisory_lock(int4, int4)): the slots' namespace. */
export const WATCHER_SLOTS_LOCK_CLASS = 741_310;
/** More instances than any deployment runs; a slot is taken from the lowest free one. */
const MAX_SLOTS = 1024;

export class PostgresWatchShares implements WatchShares {
  private client: pg.Client | null = null;
  private slot: number | null = null;

  constructor(
    private readonly url: string,
    private readonly log: (line: string) => void = () => {},
    private readonly lockClass: number = WATCHER_SLOTS_LOCK_CLASS,
  ) {}

  async current(): Promise<WatchShare | null> {
    try {
      const client = await this.connection();
      const held = await this.heldSlots(client);
      if (this.slot === null) this.slot = await this.takeSlot(client, held);
      if (this.slot === null) {
        this.log(`payment watcher: all ${MAX_SLOTS} watch slots are taken; watching nothing until one is free`);
        return null;
      }
      if (!held.includes(this.slot)) held.push(this.slot);
      held.sort((a, b) => a - b);
      return { index: held.indexOf(this.slot), of: held.length };
    } catch (error) {
      this.log(`payment watcher: its share of the watch list is unknown (${(error as Error).message}); asking again at the next pass`);
      await this.drop();
      return null;
    }
  }

  async release(): Promise<void> {
    await this.drop(); // ending the session frees the slot
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
    client.on("error", () => void this.drop());
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

  private async drop(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.slot = null;
    await client?.end().catch(() => {});
  }
}
