// Recorded sweeps (issue 40; docs/settlement.md, Recording sweeps). src/db/stores/sweeps.ts implements
// it; the rules are src/core/settlement/sweeps.ts.
import type { OutboxEvent } from "../records/events.ts";
import type { SweepRecord } from "../records/sweeps.ts";

/** The merchant's latest payment whose address is `address` (any case) on the network, in the mode. */
export interface SweepPaymentQuery {
  merchantId: number;
  isLive: boolean;
  network: string;
  /** The coins whose default network this is: their rows from before networks have none. */
  defaultCoinIds: readonly number[];
  address: string;
}

export interface SweepListQuery {
  merchantId: number;
  isLive: boolean;
  network: string | null;
  after: { createdAt: Date; id: string } | null;
  limit: number;
}

export interface SweepStore {
  /** The payment's id and address as recorded, or null when no payment of the merchant's mode has that address. */
  paymentAt(query: SweepPaymentQuery): Promise<{ transactionId: string; address: string } | null>;
  /** The sweeps already recorded with these hashes (or these top-ups) on the network and mode, whoever's. */
  findByHashes(network: string, isLive: boolean, txHashes: readonly string[]): Promise<SweepRecord[]>;
  /**
   * Inserts the sweeps and one event each (`eventOf`) in one database transaction; a hash or a top-up
   * recorded meanwhile by another request is skipped (no event): the caller reads what is recorded then.
   */
  record(sweeps: readonly SweepRecord[], eventOf: (sweep: SweepRecord) => OutboxEvent): Promise<SweepRecord[]>;
  findFor(id: string, merchantId: number, isLive: boolean): Promise<SweepRecord | null>;
  /** Newest first by (createdAt, id). */
  page(query: SweepListQuery): Promise<SweepRecord[]>;
}
