// How instances on one database share the payment watcher's addresses. Each instance holds a slot
// of its own (on PostgreSQL a session advisory lock, src/db/watch-slots.ts); the slots held now are
// the live instances, and an instance watches the addresses whose hash falls to its rank among
// them. One that dies loses its slot with its session, so at their next pass the others see one
// instance fewer and cover its share: take-over needs no heartbeat table and no timeout. While the
// count changes, one pass may read an address twice or late (harmless: what a node shows is
// recorded idempotently). The embedded database has one process, which watches everything.
import type { WatchShare } from "../stores/transactions.ts";

export type { WatchShare };

/** What the payment watcher (src/jobs/payment-watcher.ts) asks before each pass. */
export interface WatchShares {
  /** This instance's share for the next pass; null when it has none now (its slot is unknown or none is free). */
  current(): Promise<WatchShare | null>;
  release(): Promise<void>;
}

/** One instance watches everything (the embedded database). */
export const wholeWatchList: WatchShares = { current: async () => ({ index: 0, of: 1 }), release: async () => {} };

/** The slots instances hold, where the database keeps them (src/db/watch-slots.ts). */
export interface WatchSlots {
  /** How many slots there are: more instances than any deployment runs. */
  readonly capacity: number;
  /**
   * The slots held now by live instances, and this instance's own: kept while its session lasts,
   * else the lowest free one taken now (null when all are taken). Throws when the database cannot be asked.
   */
  claim(): Promise<{ own: number | null; held: number[] }>;
  /** Gives this instance's slot up (its session ends). */
  release(): Promise<void>;
}

/** An instance's share is its slot's rank among the slots held now. */
export function shareOf(own: number, held: readonly number[]): WatchShare {
  const slots = [...new Set([...held, own])].sort((a, b) => a - b);
  return { index: slots.indexOf(own), of: slots.length };
}

/** The watcher's shares from the slots instances hold. */
export class SlotWatchShares implements WatchShares {
  constructor(
    private readonly slots: WatchSlots,
    private readonly log: (line: string) => void = () => {},
  ) {}

  async current(): Promise<WatchShare | null> {
    try {
      const { own, held } = await this.slots.claim();
      if (own === null) {
        this.log(`payment watcher: all ${this.slots.capacity} watch slots are taken; watching nothing until one is free`);
        return null;
      }
      return shareOf(own, held);
    } catch (error) {
      this.log(`payment watcher: its share of the watch list is unknown (${(error as Error).message}); asking again at the next pass`);
      await this.slots.release();
      return null;
    }
  }

  release(): Promise<void> {
    return this.slots.release();
  }
}
