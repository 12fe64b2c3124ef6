// The refunds context's façade (issue 26; docs/refunds.md): every door (a secret key, a dashboard user)
// comes with a MerchantAccess; each use case checks its permission on it once, then works on that
// merchant and mode. The claim page's and the refund watcher's operations need no merchant access.
import type { CoreDeps } from "../deps.ts";
import type { MerchantAccess } from "./access.ts";
import type { TransactionRecord } from "../records/transactions.ts";
import * as refunds from "../refunds/refunds.ts";
import type { RefundOutcome, RefundRequest } from "../refunds/refunds.ts";
import type { RefundSummary } from "../refunds/view.ts";
import type { RefundRecord } from "../records/refunds.ts";

/** Whose refunds a read works on (`read`): nothing audited. */
function readerOf(access: MerchantAccess): refunds.RefundOwner {
  access.require("read");
  return { merchantId: access.merchantId, isLive: access.isLive, by: null };
}

/** Whose refunds a change works on (`manage_refunds`), audited as whoever acts. */
function changerOf(access: MerchantAccess): refunds.RefundOwner {
  access.require("manage_refunds");
  return { merchantId: access.merchantId, isLive: access.isLive, by: access.by };
}

export class Refunds {
  constructor(private readonly deps: CoreDeps) {}

  /**
   * The REST body and Idempotency-Key (docs/refunds.md); the dashboard's Refund action sends the same.
   * From the dashboard it needs a recent password (sudo mode): a refund sends money out and its reply
   * holds the claim link, so a stolen session could send it anywhere. Cancelling and marking paid
   * need none: they stop a refund or record the merchant's own payment, and hand out nothing.
   */
  async createRefund(access: MerchantAccess, request: RefundRequest): Promise<RefundOutcome> {
    const owner = changerOf(access);
    access.requireRecentProof();
    return refunds.createRefund(this.deps, owner, request);
  }

  async retrieveRefund(access: MerchantAccess, id: string): Promise<RefundOutcome> {
    return refunds.retrieveRefund(this.deps, readerOf(access), id);
  }

  async transactionRefunds(access: MerchantAccess, transactionId: string): Promise<refunds.TransactionRefunds> {
    return refunds.transactionRefunds(this.deps, readerOf(access), transactionId);
  }

  async listRefunds(access: MerchantAccess, params: Record<string, unknown>) {
    return refunds.listRefunds(this.deps, readerOf(access), params);
  }

  async cancelRefund(access: MerchantAccess, id: string): Promise<RefundOutcome> {
    return refunds.cancelRefund(this.deps, changerOf(access), id);
  }

  async markRefundPaid(access: MerchantAccess, id: string, body: unknown): Promise<RefundOutcome> {
    return refunds.markRefundPaid(this.deps, changerOf(access), id, body);
  }

  /** The transactions' refunds in short and what is left to refund (the transaction replies' added fields). */
  refundSummaries(transactions: readonly TransactionRecord[]): Promise<Map<string, RefundSummary>> {
    return refunds.refundSummaries(this.deps, transactions);
  }

  /** The claim page's refund (GET /refund/:token), or why the link is refused. */
  refundClaim(token: string): Promise<refunds.ClaimState> {
    return refunds.claimState(this.deps, token);
  }

  claimRefund(token: string, address: unknown): Promise<refunds.ClaimOutcome> {
    return refunds.claimRefund(this.deps, token, address);
  }

  // ── The refund watcher's (the chain side) ──

  /** Pending refunds with a destination, oldest first. */
  refundsToWatch(limit: number): Promise<RefundRecord[]> {
    return this.deps.stores.refunds.openWithDestination(limit);
  }

  /** The refund's transaction reached its destination (refund.succeeded); null when not pending, `tx_taken` when that transaction closed another refund already. */
  refundSucceeded(id: string, txHash: string, paidBy: "watcher" | "merchant"): Promise<RefundRecord | "tx_taken" | null> {
    return refunds.refundSucceeded(this.deps, id, txHash, paidBy);
  }

  /** Of these tx hashes (lower case), those that closed a refund of the mode. */
  refundTxHashesTaken(isLive: boolean, hashes: readonly string[]): Promise<Set<string>> {
    return refunds.refundTxHashesTaken(this.deps, isLive, hashes);
  }

  /** A merchant's tx_hash does not pay the refund (verification failed; it stays pending). */
  refundVerificationFailed(id: string): Promise<RefundRecord | null> {
    return refunds.refundVerificationFailed(this.deps, id);
  }
}
