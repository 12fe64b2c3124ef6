// A transaction as the core hands it to adapters, and what is stored with it (receipts, quote sources, the
// late-payment decision): shapes the stores read and write, declared apart from the rules that use them.
import type { Transaction } from "./rows.ts";

export type TransactionRecord = Transaction & { merchant: { id: number; name: string } };

export type ReceiptState = "SEEN" | "CONFIRMED" | "DROPPED" | "REVERSED";

/** A receipt as stored (PaymentReceipt): what the views below are made from. */
export interface StoredReceipt {
  transactionId: string;
  key: string;
  txHash: string | null;
  amount: { toFixed(): string };
  confirmations: number;
  blockHeight: number | null;
  status: ReceiptState;
  replaceable: boolean;
  source: string;
  firstSeenAt: Date;
  updatedAt: Date;
}

/** One provider's part, as stored: the quote time as an ISO string. */
export interface StoredRateSource {
  provider: string;
  rate: string | null;
  quotedAt: string | null;
  used: boolean;
  reason: string | null;
  detail: string | null;
}

/** What the late-payment policy decided (lifecycle.ts, settleLatePayment), as stored in transactions.late_payment. */
export interface LatePaymentDecision {
  /** True: the late payment was accepted (the transaction became SUCCESSFUL); false: left to the merchant (paid_late). */
  accepted: boolean;
  /** The rate locked at initiate before the spread, and the market rate when the late payment was seen (decimal strings). */
  lockedRate: string;
  marketRate: string;
  /** How far the market rate moved from the locked one, in percent (2 decimals, rounded up). */
  movedPercent: string;
  /** ISO time of the check. */
  checkedAt: string;
}
