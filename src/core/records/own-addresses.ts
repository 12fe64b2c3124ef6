// TRON own-address mode as the core works on it (issue 40; docs/settlement.md, Own addresses): a
// merchant's setting per network and mode, the unique amounts held on its own addresses, and the
// transfers that matched none of them (unmatched receipts).
import type { Decimal } from "../money/amounts.ts";

/** A merchant's own-address setting (table settlement_settings, mode own_addresses). */
export interface OwnAddressSettingRecord {
  merchantId: number;
  network: string;
  isLive: boolean;
  /** k: payments go to the first k own addresses (indexes 0..k-1 of branch 2 of the key). */
  addressCount: number;
  updatedAt: Date;
  /** When the mode was turned on (a change of k keeps it): a transfer mined before is not the mode's. */
  turnedOnAt: Date;
  /** The idle scan's cursor: the start of its last scan that read every address of the setting (core/own-addresses/idle-scan.ts). */
  scannedFrom: Date;
}

/** A setting as the merchant changes it: the times of the mode and its scan are the store's. */
export type OwnAddressSettingChange = Omit<OwnAddressSettingRecord, "turnedOnAt" | "scannedFrom">;

/** A unique amount to hold for a payment: the first free `base + n × unit` (1 ≤ n ≤ maxExtraUnits) on one of the addresses. */
export interface AmountReservationRequest {
  network: string;
  isLive: boolean;
  currencyId: number;
  /** The own addresses, by index. */
  addresses: readonly string[];
  /** The locked amount, in the coin (exact decimal string). */
  base: string;
  /** One base unit of the coin, in the coin ("0.000001" for USDT). */
  unit: string;
  maxExtraUnits: number;
  transactionId: string;
  now: Date;
  heldUntil: Date;
}

/** held: this payment's amount and address; full: every amount of every address is held; conflict: another instance took the one picked (pick again). */
export type AmountReservation = { held: true; address: string; amount: string } | { held: false; reason: "full" | "conflict" };

export type UnmatchedReceiptState = "open" | "assigned" | "refunded";

export interface UnmatchedReceiptRecord {
  /** `ur_…`. */
  id: string;
  merchantId: number;
  isLive: boolean;
  network: string;
  address: string;
  currencyId: number;
  amount: Decimal;
  /** The receipt's key as the watcher reads it (`txHash:logIndex`). */
  key: string;
  txHash: string | null;
  logIndex: number | null;
  blockHeight: number | null;
  confirmations: number;
  seenAt: Date;
  state: UnmatchedReceiptState;
  /** The transaction it was assigned to. */
  transactionId: string | null;
  /** The merchant's refund transaction, when marked refunded. */
  refundTxHash: string | null;
  updatedAt: Date;
}

/** The operator's bounds (PAYGATE_OWN_ADDRESS_MAX_EXTRA_UNITS; the late window of PAYGATE_LATE_PAYMENT_WATCH_HOURS). */
export interface OwnAddressPolicy {
  /** N: the most base units added to an amount (999: at most 0.000999 USDT). */
  maxExtraUnits: number;
  /** How long after its window closes a payment's amount stays held (its late window). */
  holdAfterWindowMs: number;
}
