// The consolidation object as REST and the CLI show it (docs/settlement.md). Amounts are decimal
// strings in the coin: exact.
import type { ConsolidationRecord, ConsolidationState } from "../records/settlement.ts";

export interface ConsolidationView {
  id: string;
  object: "consolidation";
  is_live: boolean;
  state: ConsolidationState;
  coin: string;
  network: string;
  destination: string;
  /** sat/vB. */
  fee_rate: string;
  /** What the inputs hold. */
  total: string;
  network_fee: string;
  /** What reaches the destination: the total less the network fee. */
  amount_to_receive: string;
  inputs: { transaction_id: string; outpoint: string; amount: string }[];
  /** The unsigned PSBT (base64, BIP 174) while open; null once seen on the chain or canceled. */
  psbt: string | null;
  /** The transaction's id: the signed PSBT keeps it (segwit inputs). */
  tx_hash: string;
  /** In the reply that made it only: what the wallet setting lacks for a PSBT the wallet can sign; null when every input has its key origin. */
  key_origin_missing: string | null;
  created_at: string;
  seen_at: string | null;
  confirmed_at: string | null;
  canceled_at: string | null;
}

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

export function consolidationView(c: ConsolidationRecord, keyOriginMissing: string | null = null): ConsolidationView {
  return {
    id: c.id,
    object: "consolidation",
    is_live: c.isLive,
    state: c.state,
    coin: c.coin,
    network: c.network,
    destination: c.destination,
    fee_rate: c.feeRate.toFixed(),
    total: c.total.toFixed(),
    network_fee: c.networkFee.toFixed(),
    amount_to_receive: c.amountToReceive.toFixed(),
    inputs: c.inputs.map((i) => ({ transaction_id: i.transactionId, outpoint: i.outpoint, amount: i.amount.toFixed() })),
    psbt: c.state === "open" ? c.psbt : null,
    tx_hash: c.txHash,
    key_origin_missing: keyOriginMissing,
    created_at: c.createdAt.toISOString(),
    seen_at: iso(c.seenAt),
    confirmed_at: iso(c.confirmedAt),
    canceled_at: iso(c.canceledAt),
  };
}
