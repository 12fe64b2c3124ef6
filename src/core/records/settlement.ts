// A consolidation as the core works on it (issue 40; docs/settlement.md): the stored row with the
// payment outputs it spends.
import type { Decimal } from "../money/amounts.ts";

/** open (built, not yet seen on the chain), seen (in the mempool or short of its confirmations), confirmed, canceled. */
export type ConsolidationState = "open" | "seen" | "confirmed" | "canceled";

export interface ConsolidationInputRecord {
  transactionId: string;
  /** `txid:vout`. */
  outpoint: string;
  /** In the coin. */
  amount: Decimal;
}

export interface ConsolidationRecord {
  /** `co_…`. */
  id: string;
  merchantId: number;
  isLive: boolean;
  coin: string;
  network: string;
  state: ConsolidationState;
  destination: string;
  feeRate: Decimal;
  total: Decimal;
  networkFee: Decimal;
  amountToReceive: Decimal;
  psbt: string;
  txHash: string;
  createdAt: Date;
  updatedAt: Date;
  seenAt: Date | null;
  confirmedAt: Date | null;
  canceledAt: Date | null;
  inputs: ConsolidationInputRecord[];
}
