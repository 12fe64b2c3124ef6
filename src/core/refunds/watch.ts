// Closing refunds by themselves (issue 26; docs/refunds.md, How a refund closes), as a use case: for
// each pending refund with a destination, the chain is asked what reached the destination since the
// refund was made. A transaction that pays it at least the amount to the customer, with the
// confirmations a payment in that coin needs, makes the refund succeeded with its hash
// (refund.succeeded). A merchant's tx_hash (mark paid) is checked the same way: found paying the
// destination, it succeeds as the merchant's; not found, the refund's verification says failed (not
// found yet) and the refund stays pending: a later pass that finds it, or any other transaction that
// pays it, closes it. One chain transaction closes one refund (issue 42): the hashes that closed
// refunds are the store's, whose unique index decides a race between instances, so a restart changes
// nothing. The job (src/jobs/refund-watcher.ts) only schedules passes.
import { Decimal } from "../money/amounts.ts";
import { cryptoById, type CryptoCurrency } from "../money/currencies.ts";
import { networkOrDefault, type NetworkSlug } from "../networks.ts";
import type { ChainWatcher, ObservedReceipt } from "../ports.ts";
import type { PassChains } from "../watching/watch-pass.ts";
import type { RefundRecord } from "../records/refunds.ts";

/** The chain nodes, and optionally the pass's addresses first (the rails' ChainWatchers: one block scan for all). */
export type RefundChains = ChainWatcher & Pick<PassChains, "beginPass">;

/** The refunds' side of a pass (close.ts; the gateway's methods of these names). */
export interface RefundsToClose {
  /** Pending refunds with a destination, oldest first. */
  refundsToWatch(limit: number): Promise<RefundRecord[]>;
  refundSucceeded(id: string, txHash: string, paidBy: "watcher" | "merchant"): Promise<RefundRecord | "tx_taken" | null>;
  refundVerificationFailed(id: string): Promise<RefundRecord | null>;
  refundTxHashesTaken(isLive: boolean, hashes: readonly string[]): Promise<Set<string>>;
}

/** One refund's reading: what it came to. */
export type RefundReading = "succeeded" | "verification_failed" | "waiting";

/** A refund whose destination the node could not be asked about: nothing changed, the next pass asks again. */
export type RefundReadFailed = (refund: RefundRecord, currency: CryptoCurrency, destination: string, error: unknown) => void;

export class RefundWatch {
  constructor(
    private readonly refunds: RefundsToClose,
    private readonly chains: RefundChains,
    /** Confirmations a transfer needs in that coin and network (the payment watcher's). */
    private readonly requiredConfirmations: (currency: CryptoCurrency, network?: NetworkSlug) => number,
  ) {}

  /** One pass over at most `limit` pending refunds with a destination (oldest first): what each came to, by refund id. */
  async run(limit: number, readFailed: RefundReadFailed = () => {}): Promise<Map<string, RefundReading>> {
    const refunds = (await this.refunds.refundsToWatch(limit)).flatMap((refund) => {
      const currency = cryptoById(refund.transaction.paymentCurrencyId ?? 0);
      if (currency === undefined || refund.destination === null) return [];
      return [{ refund, currency, network: networkOrDefault(currency.slug, refund.transaction.paymentNetwork), destination: refund.destination }];
    });
    this.chains.beginPass?.(
      refunds.map(({ refund, currency, network, destination }) => ({
        currency,
        network,
        isLive: refund.isLive,
        address: destination,
        since: refund.createdAt,
        receipts: [],
      })),
    );
    // A hash a merchant named for one pending refund (mark paid) is that refund's: no other takes it.
    const named = new Map<string, string>();
    for (const { refund } of refunds) if (refund.paidBy === "merchant" && refund.txHash !== null) named.set(refund.txHash.toLowerCase(), refund.id);
    const outcomes = new Map<string, RefundReading>();
    for (const { refund, currency, network, destination } of refunds) {
      try {
        const required = this.requiredConfirmations(currency, network);
        const receipts = await this.chains.receiptsTo(currency, refund.isLive, destination, {
          since: refund.createdAt,
          requiredConfirmations: required,
          network,
        });
        outcomes.set(refund.id, await this.settle(refund, receipts, required, named));
      } catch (error) {
        readFailed(refund, currency, destination, error);
      }
    }
    return outcomes;
  }

  private async settle(
    refund: RefundRecord,
    receipts: readonly ObservedReceipt[],
    required: number,
    named: ReadonlyMap<string, string>,
  ): Promise<RefundReading> {
    const paying = payingTransactions(receipts, new Decimal(refund.amountToCustomer.toString()));
    const confirmed = (hash: string) => (paying.get(hash) ?? -1) >= required;
    const merchantHash = refund.paidBy === "merchant" && refund.txHash !== null ? refund.txHash.toLowerCase() : null;
    const taken = await this.refunds.refundTxHashesTaken(refund.isLive, [...paying.keys()]);
    let merchantTaken = merchantHash !== null && taken.has(merchantHash);
    if (merchantHash !== null && !merchantTaken && confirmed(merchantHash)) {
      const outcome = await this.succeed(refund, merchantHash, "merchant");
      if (outcome !== "tx_taken") return outcome;
      merchantTaken = true;
    }
    // Any other confirmed transaction that pays it; one taken meanwhile (by another instance) leaves the next.
    for (const hash of paying.keys()) {
      if (hash === merchantHash || taken.has(hash) || !confirmed(hash) || (named.get(hash) ?? refund.id) !== refund.id) continue;
      const outcome = await this.succeed(refund, hash, "watcher");
      if (outcome !== "tx_taken") return outcome;
    }
    // The merchant's hash pays nothing here, or paid another refund: it does not close this one.
    if (merchantHash !== null && (merchantTaken || !paying.has(merchantHash))) {
      if (refund.verification !== "failed") await this.refunds.refundVerificationFailed(refund.id);
      return "verification_failed";
    }
    return "waiting";
  }

  private async succeed(refund: RefundRecord, hash: string, paidBy: "watcher" | "merchant"): Promise<RefundReading | "tx_taken"> {
    const closed = await this.refunds.refundSucceeded(refund.id, hash, paidBy);
    if (closed === "tx_taken") return "tx_taken";
    return closed === null ? "waiting" : "succeeded";
  }
}

/**
 * The transactions that pay the destination at least `amount` (their outputs or transfers to it
 * summed), by hash in lower case, with their confirmations. Receipts without a transaction (an EVM
 * balance beyond the transfers found) name no refund transaction and are left out.
 */
export function payingTransactions(receipts: readonly ObservedReceipt[], amount: Decimal): Map<string, number> {
  const byHash = new Map<string, { sum: Decimal; confirmations: number }>();
  for (const receipt of receipts) {
    if (receipt.txHash === null) continue;
    const hash = receipt.txHash.toLowerCase();
    const seen = byHash.get(hash);
    byHash.set(hash, {
      sum: (seen?.sum ?? new Decimal(0)).plus(receipt.amount.toString()),
      // Unconfirmed and replaceable (BIP 125): its sender may still swap it, so it never counts at 0 confirmations.
      confirmations: Math.min(
        seen?.confirmations ?? Number.MAX_SAFE_INTEGER,
        receipt.confirmations === 0 && receipt.replaceable ? -1 : receipt.confirmations,
      ),
    });
  }
  const paying = new Map<string, number>();
  for (const [hash, { sum, confirmations }] of byHash) if (sum.gte(amount)) paying.set(hash, confirmations);
  return paying;
}
