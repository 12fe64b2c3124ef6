// Closes refunds by themselves (issue 26; docs/refunds.md, How a refund closes): for each pending
// refund with a destination, the chain nodes the payment watcher uses (src/rails/chains: an own Core
// node, Esplora, EVM JSON-RPC, TRON) are asked what reached the destination since the refund was
// made. A transaction that pays it at least the amount to the customer, with the confirmations a
// payment in that coin needs, makes the refund succeeded with its hash (refund.succeeded). A
// merchant's tx_hash (mark paid) is checked the same way: found paying the destination, it succeeds
// as the merchant's; not found, the refund's verification says failed (not found yet) and the
// refund stays pending: a later pass that finds it, or any other transaction that pays it, closes it.
// One chain transaction closes one refund (issue 42): the hashes that closed refunds are read from the
// database, whose unique index decides a race between instances, so a restart changes nothing.
import type { PaymentGateway } from "../core/gateway.ts";
import { Decimal } from "../core/money/amounts.ts";
import { cryptoById, type CryptoCurrency } from "../core/money/currencies.ts";
import { networkOrDefault, type NetworkSlug } from "../core/networks.ts";
import type { ChainWatcher, ObservedReceipt } from "../core/ports.ts";
import type { RefundRecord } from "../core/records/refunds.ts";
import type { ConfiguredChains } from "./payment-watcher.ts";
import { Ticker } from "./ticker.ts";

/** Refunds read per pass (oldest first): more wait for the next. */
const BATCH = 500;

/** The chain nodes, and optionally the pass's addresses first (ChainWatchers: one block scan for all). */
export type RefundChains = ChainWatcher & Pick<ConfiguredChains, "beginPass">;

export interface RefundWatchSettings {
  intervalMs: number;
  /** Confirmations a transfer needs in that coin and network (the payment watcher's, PAYGATE_CONFIRMATIONS_…). */
  requiredConfirmations(currency: CryptoCurrency, network?: NetworkSlug): number;
}

/** One refund's reading: what it came to. */
export type RefundOutcome = "succeeded" | "verification_failed" | "waiting";

export class RefundWatcher extends Ticker {
  constructor(
    private readonly gateway: Pick<PaymentGateway, "refundsToWatch" | "refundSucceeded" | "refundVerificationFailed" | "refundTxHashesTaken">,
    private readonly chains: RefundChains,
    private readonly settings: RefundWatchSettings,
    log: (line: string) => void = () => {},
  ) {
    super("refund watcher", settings.intervalMs, log);
  }

  /** One pass over the pending refunds with a destination: what each came to, by refund id. */
  async tick(): Promise<Map<string, RefundOutcome>> {
    const refunds = (await this.gateway.refundsToWatch(BATCH)).flatMap((refund) => {
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
    const outcomes = new Map<string, RefundOutcome>();
    for (const { refund, currency, network, destination } of refunds) {
      try {
        const required = this.settings.requiredConfirmations(currency, network);
        const receipts = await this.chains.receiptsTo(currency, refund.isLive, destination, {
          since: refund.createdAt,
          requiredConfirmations: required,
          network,
        });
        outcomes.set(refund.id, await this.settle(refund, receipts, required, named));
      } catch (error) {
        this.log(`refund watcher: ${refund.id} (${currency.slug} to ${destination}): ${(error as Error).message}; trying again next pass`);
      }
    }
    return outcomes;
  }

  private async settle(
    refund: RefundRecord,
    receipts: readonly ObservedReceipt[],
    required: number,
    named: ReadonlyMap<string, string>,
  ): Promise<RefundOutcome> {
    const paying = payingTransactions(receipts, new Decimal(refund.amountToCustomer.toString()));
    const confirmed = (hash: string) => (paying.get(hash) ?? -1) >= required;
    const merchantHash = refund.paidBy === "merchant" && refund.txHash !== null ? refund.txHash.toLowerCase() : null;
    const taken = await this.gateway.refundTxHashesTaken(refund.isLive, [...paying.keys()]);
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
      if (refund.verification !== "failed") await this.gateway.refundVerificationFailed(refund.id);
      return "verification_failed";
    }
    return "waiting";
  }

  private async succeed(refund: RefundRecord, hash: string, paidBy: "watcher" | "merchant"): Promise<RefundOutcome | "tx_taken"> {
    const closed = await this.gateway.refundSucceeded(refund.id, hash, paidBy);
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
