// A sweep the merchant sent from one of its payment addresses (issue 40; docs/settlement.md, Recording
// sweeps): its transaction as the node showed it when the merchant posted the hash, and the top-up
// from the merchant's fee wallet that paid its gas, if any.
import type { Decimal } from "../money/amounts.ts";

export interface SweepRecord {
  /** `sw_…`. */
  id: string;
  merchantId: number;
  isLive: boolean;
  network: string;
  txHash: string;
  /** The payment address it was sent from, and the merchant's latest payment on it. */
  fromAddress: string;
  transactionId: string | null;
  destination: string;
  coin: string;
  /** In the coin: what reached the destination. */
  amount: Decimal;
  /** In the network's coin, paid by the payment address: gas used × effective gas price. */
  fee: Decimal;
  blockNumber: bigint;
  blockHash: string;
  minedAt: Date;
  /** The fee wallet's top-up of the payment address and its own fee (the merchant's own fee coin); null without one. */
  topUpTxHash: string | null;
  topUpFrom: string | null;
  topUpAmount: Decimal | null;
  topUpFee: Decimal | null;
  createdAt: Date;
}
