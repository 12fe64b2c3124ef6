// A recorded sweep as REST, the CLI and the webhook show it (issue 40; docs/settlement.md, Recording
// sweeps). Amounts are exact decimal strings: `amount` in `coin`, the fees in `fee_coin`.
import { CHAINS, isNetworkSlug } from "../networks.ts";
import type { SweepRecord } from "../records/sweeps.ts";

export interface SweepView {
  id: string;
  object: "sweep";
  is_live: boolean;
  network: string;
  tx_hash: string;
  from_address: string;
  transaction_id: string | null;
  destination: string;
  coin: string;
  amount: string;
  fee: string;
  fee_coin: string;
  block_number: string;
  block_hash: string;
  mined_at: string;
  top_up: { tx_hash: string; from: string | null; amount: string | null; fee: string | null } | null;
  created_at: string;
}

export function sweepView(s: SweepRecord): SweepView {
  return {
    id: s.id,
    object: "sweep",
    is_live: s.isLive,
    network: s.network,
    tx_hash: s.txHash,
    from_address: s.fromAddress,
    transaction_id: s.transactionId,
    destination: s.destination,
    coin: s.coin,
    amount: s.amount.toFixed(),
    fee: s.fee.toFixed(),
    fee_coin: isNetworkSlug(s.network) ? CHAINS[s.network].feeCoin : s.coin,
    block_number: s.blockNumber.toString(),
    block_hash: s.blockHash,
    mined_at: s.minedAt.toISOString(),
    top_up:
      s.topUpTxHash === null
        ? null
        : { tx_hash: s.topUpTxHash, from: s.topUpFrom, amount: s.topUpAmount?.toFixed() ?? null, fee: s.topUpFee?.toFixed() ?? null },
    created_at: s.createdAt.toISOString(),
  };
}
