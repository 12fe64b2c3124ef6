// TRON own-address mode (issue 40; docs/settlement.md): settings, unique-amount reservations and
// unmatched receipts. src/db/stores/own-addresses.ts implements it on Prisma.
import type { OutboxEvent } from "../records/events.ts";
import type {
  AmountReservation,
  AmountReservationRequest,
  OwnAddressSettingChange,
  OwnAddressSettingRecord,
  UnmatchedReceiptRecord,
  UnmatchedReceiptState,
} from "../records/own-addresses.ts";
import type { AuditWrite } from "./audit-log.ts";

/** What a watcher read needs to tell a payment's receipts on a shared address from the others. */
export interface OwnAddressView {
  /** Whether the transaction still holds its amount (an exact transfer of it is its payment). */
  holding: boolean;
  /** Unmatched receipts the merchant assigned to it (by key). */
  assigned: ReadonlySet<string>;
  /** Of the keys asked about, those another transaction recorded already. */
  takenElsewhere: ReadonlySet<string>;
}

export interface OwnAddressStore {
  setting(merchantId: number, network: string, isLive: boolean): Promise<OwnAddressSettingRecord | null>;
  settings(merchantId: number, isLive: boolean): Promise<OwnAddressSettingRecord[]>;
  /** A new setting is turned on at its `updatedAt`, which its scan starts from; a change of k keeps both. */
  putSetting(setting: OwnAddressSettingChange, audit: AuditWrite | null): Promise<OwnAddressSettingRecord>;
  /** Every merchant's settings in both modes (the idle scan's list, core/own-addresses/idle-scan.ts). */
  allSettings(): Promise<OwnAddressSettingRecord[]>;
  /**
   * Moves the setting's scan cursor forward to `to` (never back: two instances may scan one setting
   * while their shares change); nothing when the setting is gone.
   */
  advanceScan(merchantId: number, network: string, isLive: boolean, to: Date): Promise<void>;
  /** False when there was none. */
  removeSetting(merchantId: number, network: string, isLive: boolean, audit: AuditWrite | null): Promise<boolean>;
  /** The merchant's wallet key for the coin on the network in the mode, or null without one. */
  walletKey(merchantId: number, currencyId: number, network: string, isLive: boolean): Promise<string | null>;
  /** One statement: the unique index on (network, mode, address, coin, amount) decides between instances. */
  reserve(request: AmountReservationRequest): Promise<AmountReservation>;
  /** Frees the transaction's amount at once (an initiate that failed after reserving). */
  release(transactionId: string): Promise<void>;
  view(transactionId: string, address: string, keys: readonly string[], now: Date): Promise<OwnAddressView>;
  /**
   * Records a transfer that no open amount of its address matches and no transaction recorded; one
   * already recorded gets its confirmations and block. Returns the row when it was new (its event is
   * written with it), else null: also when another writer (the idle scan, a payment's read) recorded
   * the same transfer at the same moment.
   */
  recordUnmatched(
    receipt: UnmatchedReceiptRecord,
    now: Date,
    event: (r: UnmatchedReceiptRecord) => OutboxEvent,
  ): Promise<UnmatchedReceiptRecord | null>;
  findUnmatched(id: string, merchantId: number, isLive: boolean): Promise<UnmatchedReceiptRecord | null>;
  unmatchedPage(query: {
    merchantId: number;
    isLive: boolean;
    state: UnmatchedReceiptState | null;
    after: { seenAt: Date; id: string } | null;
    limit: number;
  }): Promise<UnmatchedReceiptRecord[]>;
  /** open → assigned or refunded, only from open: null when it was not open any more. */
  settleUnmatched(
    id: string,
    change: { state: "assigned"; transactionId: string } | { state: "refunded"; refundTxHash: string },
    now: Date,
    audit: AuditWrite | null,
  ): Promise<UnmatchedReceiptRecord | null>;
}
