// The ledger's reads (issue 40, goal 5; docs/ledger.md): entries derived at query time from receipts,
// refunds and consolidations. src/db/stores/ledger.ts implements it; the rules are src/core/ledger.
import type { LedgerEntryRecord, LedgerKind, LedgerSumRecord } from "../records/ledger.ts";

export interface LedgerFilters {
  merchantId: number;
  isLive: boolean;
  /** Inclusive; null: from the start. */
  from: Date | null;
  /** Exclusive; null: up to now. */
  to: Date | null;
  coin: string | null;
  network: string | null;
  kind: LedgerKind | null;
}

export interface LedgerPageQuery extends LedgerFilters {
  /** Newest first by (occurredAt, id): the entries strictly after this one. */
  after: { occurredAt: Date; id: string } | null;
  limit: number;
}

export interface LedgerStore {
  /** A page of entries, newest first. */
  entries(query: LedgerPageQuery): Promise<LedgerEntryRecord[]>;
  /** One entry of the merchant's mode by its id (a list's cursor); null when none. */
  entry(id: string, merchantId: number, isLive: boolean): Promise<LedgerEntryRecord | null>;
  /** Count, amount and fee per kind, coin and network of the entries the filters match. */
  sums(filters: LedgerFilters): Promise<LedgerSumRecord[]>;
}
