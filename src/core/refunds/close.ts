// How a refund closes from the chain side (issue 26, issue 42): the refund watcher
// (src/jobs/refund-watcher.ts) finds its transaction, or checks the merchant's tx_hash; one chain
// transaction closes one refund.
import { DuplicateKeyError } from "../errors.ts";
import { refundEvent } from "./refund-events.ts";
import type { RefundChange } from "../stores/refunds.ts";
import type { RefundRecord } from "../records/refunds.ts";
import type { RefundDeps } from "./owners.ts";

/**
 * For the chain side (issue 26): the refund's transaction reached its destination. `paidBy` `watcher`
 * when the watcher found it, `merchant` when it verified a merchant's tx_hash. Null when not pending;
 * `tx_taken` when that transaction already closed another refund of the mode (issue 42): one chain
 * transaction closes one refund, and this one stays pending.
 */
export async function refundSucceeded(
  deps: Pick<RefundDeps, "stores" | "clock">,
  id: string,
  txHash: string,
  paidBy: "watcher" | "merchant",
): Promise<RefundRecord | "tx_taken" | null> {
  const change: RefundChange = {
    state: "succeeded",
    succeededAt: deps.clock.now(),
    txHash,
    paidBy,
    verification: paidBy === "merchant" ? "verified" : null,
  };
  try {
    return await deps.stores.refunds.change(id, "pending", change, (record) => refundEvent("refund.succeeded", record));
  } catch (error) {
    // The refunds' unique index on succeeded tx hashes: another refund (another instance's, or just now) took it.
    if (error instanceof DuplicateKeyError) return "tx_taken";
    throw error;
  }
}

/** For the chain side: of these tx hashes (lower case), those that closed a refund of the mode; none closes a second. */
export function refundTxHashesTaken(deps: Pick<RefundDeps, "stores">, isLive: boolean, hashes: readonly string[]): Promise<Set<string>> {
  return deps.stores.refunds.closingTxHashes(isLive, hashes);
}

/** For the chain side: a merchant's tx_hash does not pay the refund; it stays pending for another. */
export function refundVerificationFailed(deps: Pick<RefundDeps, "stores">, id: string): Promise<RefundRecord | null> {
  return deps.stores.refunds.change(id, "pending", { verification: "failed" }, null);
}
