// The forwarder setting and the flush objects as REST and the CLI show them (docs/settlement.md).
// Amounts are decimal strings in the coin: exact; gas is an integer string.
import type { FlushRecord, FlushState, ForwarderSettingRecord, MovedAmount } from "../records/forwarders.ts";

export interface ForwarderSettingView {
  object: "forwarder_setting";
  network: string;
  is_live: boolean;
  mode: "forwarder";
  destination: string;
  /** The factory the network's forwarders are created by (the operator's). */
  factory: string | null;
  updated_at: string;
}

export interface FlushView {
  id: string;
  object: "flush";
  is_live: boolean;
  network: string;
  state: FlushState;
  tx_hash: string;
  fee_payer: string;
  gas_used: string | null;
  /** In the network's coin. */
  fee: string | null;
  payments: { transaction_id: string; forwarder: string; moved: MovedAmount[] | null }[];
  created_at: string;
  confirmed_at: string | null;
  /** The block it was mined in, while confirmed; null otherwise. */
  block_number: string | null;
  block_hash: string | null;
  /** Times a reorganisation took it out of the chain (it was sent again and confirmed again). */
  reorganizations: number;
}

export function forwarderSettingView(s: ForwarderSettingRecord, factory: string | null): ForwarderSettingView {
  return {
    object: "forwarder_setting",
    network: s.network,
    is_live: s.isLive,
    mode: s.mode,
    destination: s.destination,
    factory,
    updated_at: s.updatedAt.toISOString(),
  };
}

export function flushView(f: FlushRecord): FlushView {
  return {
    id: f.id,
    object: "flush",
    is_live: f.isLive,
    network: f.network,
    state: f.state,
    tx_hash: f.txHash,
    fee_payer: f.feePayer,
    gas_used: f.gasUsed === null ? null : f.gasUsed.toString(),
    fee: f.fee === null ? null : f.fee.toFixed(),
    payments: f.items.map((i) => ({ transaction_id: i.transactionId, forwarder: i.forwarder, moved: i.moved })),
    created_at: f.createdAt.toISOString(),
    confirmed_at: f.confirmedAt === null ? null : f.confirmedAt.toISOString(),
    block_number: f.blockNumber === null ? null : f.blockNumber.toString(),
    block_hash: f.blockHash,
    reorganizations: f.reorganizations,
  };
}
