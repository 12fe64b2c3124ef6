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
  /** Open and seen consolidations, for the chain side's watch (oldest first, up to `limit`). */
  toWatch(limit: number): Promise<ConsolidationRecord[]>;
}
