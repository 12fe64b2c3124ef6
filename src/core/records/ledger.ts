// A ledger entry as the store derives it (issue 40, goal 5; docs/ledger.md): one row of what is
// already recorded (a confirmed receipt, a succeeded refund, a confirmed consolidation, what a confirmed
// flush moved out of one payment's forwarder), never a copy.
import type { Decimal } from "../money/amounts.ts";

/**
 * What an entry records. A flush entry is one payment's forwarder emptied into its settlement address,
 * one per coin it moved. A sweep entry is a transaction the merchant sent from one of its payment addresses
 * and posted back (POST /v1/settlements/sweeps), read from the node.
 */
export const LEDGER_KINDS = ["receipt", "refund", "consolidation", "flush", "sweep"] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

export interface LedgerEntryRecord {
  kind: LedgerKind;
  /** `<kind>:<the source's id>`: `receipt:42`, `refund:re_…`, `consolidation:co_…`, `flush:<item>:<coin>`, `sweep:sw_…`. */
  id: string;
  isLive: boolean;
  /** A receipt: first seen on the chain; a refund: succeeded; a consolidation or a flush: confirmed. */
  occurredAt: Date;
  coin: string;
  network: string;
  /** In the coin, never negative: what arrived, what reached the customer, what reached the destination. */
  amount: Decimal;
  /**
   * In the entry's coin; null when the merchant's addresses did not pay it: a receipt's fee is the
   * payer's, a flush's the operator's fee payer's (on the flush itself, GET /v1/settlements/flushes).
   */
  fee: Decimal | null;
  txHash: string | null;
  /** Where the money went: the payment address, the refund's or the consolidation's destination. */
  address: string | null;
  transactionId: string | null;
  reference: string | null;
  description: string | null;
  /** The transaction's fiat (the refund's for a refund); null for a consolidation (many payments). A flush entry is one payment's. */
  fiatCurrencyId: number | null;
  /** Fiat per coin, the transaction's locked quote. */
  lockedRate: Decimal | null;
  /**
   * Fiat per coin at the time of the entry, when recorded: a refund's valuation rate (its
   * current_rate, or the locked rate it chose). Receipts record none: null.
   */
  rateAtTime: Decimal | null;
  /** A sweep's top-up from the merchant's fee wallet: its hash and its own fee (in the network's coin); null for every other entry. */
  topUpTxHash: string | null;
  topUpFee: Decimal | null;
}

/** The sums of one kind of entry in one coin and network. */
export interface LedgerSumRecord {
  kind: LedgerKind;
  coin: string;
  network: string;
  count: number;
  amount: Decimal;
  /** Fees recorded; entries without one add nothing. A sweep's is in the network's coin. */
  fee: Decimal;
  /** Sweeps: their top-ups' fees, paid by the merchant's fee wallet in the network's coin; zero for the other kinds. */
  topUpFee: Decimal;
}
