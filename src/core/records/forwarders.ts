// Deposit forwarders as the core works on them (issue 40; docs/settlement.md): a merchant's setting
// per network and mode, a payment's forwarder, and a flush with what it moved.
import type { Decimal } from "../money/amounts.ts";

/** A merchant's forwarder setting for one EVM network in one mode. */
export interface ForwarderSettingRecord {
  merchantId: number;
  network: string;
  isLive: boolean;
  mode: "forwarder";
  /** The merchant's settlement address (EIP-55): the only place its forwarders can send to. */
  destination: string;
  updatedAt: Date;
}

/**
 * When the flush job flushes a merchant's settled forwarders on one network and mode: whichever
 * threshold is reached first. null: the operator's default (count and age); value has no default.
 */
export interface FlushRuleRecord {
  merchantId: number;
  network: string;
  isLive: boolean;
  minPayments: number | null;
  /** The orders' fiat amounts of the settled payments waiting, in `valueCurrencyId`'s fiat. */
  minValue: Decimal | null;
  valueCurrencyId: number | null;
  maxAgeHours: number | null;
  updatedAt: Date;
}

/** A payment's forwarder, fixed at initiate. */
export interface ForwarderDepositRecord {
  transactionId: string;
  merchantId: number;
  isLive: boolean;
  network: string;
  factory: string;
  destination: string;
  salt: string;
  address: string;
  createdAt: Date;
}

/** sending: signed, its hash recorded before it was sent; confirmed: mined and succeeded; failed: reverted or replaced. */
export type FlushState = "sending" | "confirmed" | "failed";

/** What one forwarder moved: exact decimal strings in each coin. */
export interface MovedAmount {
  coin: string;
  amount: string;
}

export interface FlushItemRecord {
  transactionId: string;
  forwarder: string;
  /** Null until the flush is mined. */
  moved: MovedAmount[] | null;
}

export interface FlushRecord {
  /** `fl_…`. */
  id: string;
  merchantId: number;
  isLive: boolean;
  network: string;
  state: FlushState;
  factory: string;
  feePayer: string;
  nonce: bigint;
  txHash: string;
  rawTx: string;
  gasUsed: bigint | null;
  /** In the network's coin. */
  fee: Decimal | null;
  createdAt: Date;
  confirmedAt: Date | null;
  /** The block it was mined in, while confirmed (read again until final: a reorganisation sends it again). */
  blockNumber: bigint | null;
  blockHash: string | null;
  /** When its block passed the network's finality depth; null before. */
  finalAt: Date | null;
  /** Times a reorganisation took it back to sending: the round of its next events. */
  reorganizations: number;
  items: FlushItemRecord[];
}
