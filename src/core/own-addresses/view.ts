// The own-address setting and the unmatched receipt as REST, the CLI and the webhook show them
// (docs/settlement.md, Own addresses). Amounts are exact decimal strings in the coin.
import { cryptoById } from "../money/currencies.ts";
import type { OwnAddressSettingRecord, UnmatchedReceiptRecord, UnmatchedReceiptState } from "../records/own-addresses.ts";

export interface OwnAddressSettingView {
  object: "own_address_setting";
  network: string;
  is_live: boolean;
  mode: "own_addresses";
  address_count: number;
  /** The own addresses payments go to (<account>/2/0 … k-1 of the merchant's key); empty without a wallet. */
  addresses: string[];
  /** The most base units added to a payment's amount (N): the capacity of each address. */
  max_extra_units: number;
  updated_at: string;
}

export interface UnmatchedReceiptView {
  id: string;
  object: "unmatched_receipt";
  is_live: boolean;
  network: string;
  address: string;
  currency: string;
  amount: string;
  tx_hash: string | null;
  log_index: number | null;
  block_height: number | null;
  confirmations: number;
  state: UnmatchedReceiptState;
  transaction_id: string | null;
  refund_tx_hash: string | null;
  seen_at: string;
  updated_at: string;
}

export function ownAddressSettingView(s: OwnAddressSettingRecord, addresses: string[], maxExtraUnits: number): OwnAddressSettingView {
  return {
    object: "own_address_setting",
    network: s.network,
    is_live: s.isLive,
    mode: "own_addresses",
    address_count: s.addressCount,
    addresses,
    max_extra_units: maxExtraUnits,
    updated_at: s.updatedAt.toISOString(),
  };
}

export function unmatchedReceiptView(r: UnmatchedReceiptRecord): UnmatchedReceiptView {
  return {
    id: r.id,
    object: "unmatched_receipt",
    is_live: r.isLive,
    network: r.network,
    address: r.address,
    currency: cryptoById(r.currencyId)?.slug ?? String(r.currencyId),
    amount: r.amount.toFixed(),
    tx_hash: r.txHash,
    log_index: r.logIndex,
    block_height: r.blockHeight,
    confirmations: r.confirmations,
    state: r.state,
    transaction_id: r.transactionId,
    refund_tx_hash: r.refundTxHash,
    seen_at: r.seenAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}
