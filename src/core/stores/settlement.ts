// Consolidations (issue 40; docs/settlement.md): the records and their changes.
// src/db/stores/settlement.ts implements it; the rules are in src/core/settlement.
import type { Decimal } from "../money/amounts.ts";
import type { ConsolidationRecord, ConsolidationState } from "../records/settlement.ts";
import type { AuditWrite } from "./audit-log.ts";
import type { OutboxEvent } from "../records/events.ts";

/** A settled payment output no consolidation holds and no refund counts against. */
export interface SettledOutput {
  transactionId: string;
  walletId: number;
  derivationIndex: number;
  /** `txid:vout`. */
  outpoint: string;
  /** In the coin. */
  amount: Decimal;
}

export interface SettledOutputQuery {
  merchantId: number;
  isLive: boolean;
  coinId: number;
  network: string;
  /** The coin's default network: rows from before networks have none and count as it. */
  isDefaultNetwork: boolean;
  limit: number;
}

/** A per-payment address a sweep plan may move funds off (issue 40; docs/settlement.md, Sweeping fresh addresses). */
export interface SweepCandidate {
  transactionId: string;
  address: string;
  currencyId: number;
  derivationIndex: number;
  /** The account key the address was derived from, and its origin when the wallet setting has one. */
  extendedPublicKey: string;
  keyOrigin: string | null;
  finalAt: Date;
}

export interface SweepCandidateQuery {
  merchantId: number;
  isLive: boolean;
  network: string;
  /** The coins whose default network this is: their rows from before networks have none. */
  defaultCoinIds: readonly number[];
  /** The transaction after which to start (the previous plan's last), in the order (final_at, id). */
  after: string | null;
  limit: number;
}

export type NewConsolidation = Omit<ConsolidationRecord, "updatedAt" | "seenAt" | "confirmedAt" | "canceledAt">;

export interface ConsolidationListQuery {
  merchantId: number;
  isLive: boolean;
  after: { createdAt: Date; id: string } | null;
  limit: number;
}

export interface SettlementStore {
  /**
   * Settled outputs of the merchant's SUCCESSFUL, final, not reversed payments in that coin, network
   * and mode: confirmed chain receipts (`txid:vout`) that no open, seen or confirmed consolidation
   * spends, of transactions with no pending or succeeded refund. Oldest first, up to `limit`.
   */
  settledOutputs(query: SettledOutputQuery): Promise<SettledOutput[]>;
  /** Inserts it with its inputs in one database transaction; an output another consolidation took meanwhile fails with DuplicateKeyError (nothing written). */
  create(consolidation: NewConsolidation, audit: AuditWrite | null): Promise<ConsolidationRecord>;
  findFor(id: string, merchantId: number, isLive: boolean): Promise<ConsolidationRecord | null>;
  page(query: ConsolidationListQuery): Promise<ConsolidationRecord[]>;
  /**
   * Moves it from `from` to `to` (canceled releases its outputs) and writes `eventOf`'s event of the moved
   * consolidation in the same database transaction; null when it had moved on (nothing written).
   */
  move(
    id: string,
    from: ConsolidationState,
    to: ConsolidationState,
    at: Date,
    audit: AuditWrite | null,
    eventOf: (moved: ConsolidationRecord) => OutboxEvent | null,
  ): Promise<ConsolidationRecord | null>;
  /**
   * Addresses of the merchant's SUCCESSFUL, final, not reversed payments on `network` in that mode that
   * were derived from its key (a derivation index), not forwarders; oldest final first, after `after`.
   */
  sweepCandidates(query: SweepCandidateQuery): Promise<SweepCandidate[]>;
  /** Open and seen consolidations, for the chain side's watch (oldest first, up to `limit`). */
  toWatch(limit: number): Promise<ConsolidationRecord[]>;
}
