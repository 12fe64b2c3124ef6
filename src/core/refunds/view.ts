// The refund object as REST, GraphQL, the events and the claim page show it (docs/refunds.md).
// Amounts are decimal strings: exact, in the payment coin unless named fiat.
import { cryptoById, fiatById } from "../money/currencies.ts";
import type { RefundInstructions } from "../ports.ts";
import type { Refund } from "../records/rows.ts";
import { paymentNetworkOf } from "../transactions/view.ts";
import type { RefundRecord } from "../records/refunds.ts";

/** How to pay the refund, from the refund rails (RefundPayments), with a QR code of its URI. */
export interface RefundPaymentView {
  uri: string;
  qr: string;
  psbt: string | null;
  network_fee: string | null;
  evm_transaction: RefundInstructions["evmTransaction"];
  gas_needed: RefundInstructions["gasNeeded"];
  key_origin_missing: string | null;
  /**
   * Set when the refund is not paid from the payment address: a payment made to a deposit forwarder
   * (issue 40) is refunded from the merchant's settlement address, where the forwarder sends its money.
   */
  paid_from: { kind: "settlement_address"; address: string; note: string } | null;
  /** Why the refund rails built no transaction (only the URI and QR are given then); null when they did. */
  problem: string | null;
}

export interface RefundView {
  id: string;
  object: "refund";
  transaction_id: string;
  transaction_reference: string;
  is_live: boolean;
  state: Refund["state"];
  amount_kind: Refund["amountKind"];
  /** In `currency`, the payment coin: what leaves the refundable amount. */
  amount: string;
  currency: string;
  network: string | null;
  fiat_amount: string;
  fiat_currency: string;
  valuation: Refund["valuation"];
  /** Fiat per coin: the rate `fiat_amount` was valued at. */
  rate: string;
  deduct_network_fee: boolean;
  network_fee: string | null;
  amount_to_customer: string;
  fee_rate: string | null;
  destination: string | null;
  /** Where the destination came from: the transaction's refund_address, or the customer's claim. */
  destination_source: "refund_address" | "claim";
  /** The claim link, shown once, in the reply that made the refund; null afterwards and when not needed. */
  refund_url: string | null;
  claim_expires_at: string | null;
  claimed_at: string | null;
  tx_hash: string | null;
  paid_by: Refund["paidBy"];
  verification: Refund["verification"];
  /** How to pay it; null until it has a destination, once it is closed, or while no refund rails are set up. */
  payment: RefundPaymentView | null;
  created_at: string;
  updated_at: string;
  succeeded_at: string | null;
  canceled_at: string | null;
}

export function coinOf(r: RefundRecord): string {
  return cryptoById(r.transaction.paymentCurrencyId ?? 0)?.slug ?? "";
}

export function refundView(r: RefundRecord, extra: { refundUrl?: string | null; payment?: RefundPaymentView | null } = {}): RefundView {
  return {
    id: r.id,
    object: "refund",
    transaction_id: r.transactionId,
    transaction_reference: r.transaction.reference,
    is_live: r.isLive,
    state: r.state,
    amount_kind: r.amountKind,
    amount: r.amount.toFixed(),
    currency: coinOf(r),
    network: paymentNetworkOf(r.transaction)?.slug ?? null,
    fiat_amount: r.fiatAmount.toFixed(fiatById(r.fiatCurrencyId)?.decimals ?? 2),
    fiat_currency: fiatById(r.fiatCurrencyId)?.slug ?? "",
    valuation: r.valuation,
    rate: r.rate.toFixed(),
    deduct_network_fee: r.deductNetworkFee,
    network_fee: r.networkFee?.toFixed() ?? null,
    amount_to_customer: r.amountToCustomer.toFixed(),
    fee_rate: r.feeRate?.toFixed() ?? null,
    destination: r.destination,
    destination_source: r.claimTokenHash === null ? "refund_address" : "claim",
    refund_url: extra.refundUrl ?? null,
    claim_expires_at: r.claimExpiresAt?.toISOString() ?? null,
    claimed_at: r.claimedAt?.toISOString() ?? null,
    tx_hash: r.txHash,
    paid_by: r.paidBy,
    verification: r.verification,
    payment: extra.payment ?? null,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
    succeeded_at: r.succeededAt?.toISOString() ?? null,
    canceled_at: r.canceledAt?.toISOString() ?? null,
  };
}

/** The transaction's refunds in its reply: each one short, and what is left to refund. */
export interface RefundSummary {
  refunds: { id: string; state: Refund["state"]; amount: string; created_at: string }[];
  /** In the payment coin; null before a payment currency is chosen. */
  amount_refundable: string | null;
}
