// The watcher's side of own-address mode (issue 40; docs/settlement.md, Own addresses): many payments
// share an own address, so a read of it shows every transfer to it. A payment takes a transfer of
// exactly its amount while it holds that amount, and the transfers already recorded for it or assigned
// to it by the merchant; the lifecycle then counts them as any receipt (confirmations, finality,
// reorganisations). A transfer no open amount matches and no payment recorded is an unmatched receipt.
import { randomUUID } from "node:crypto";
import type { CoreDeps } from "../deps.ts";
import { subjectOutboxEvent } from "../events/outbox-event.ts";
import type { ObservedReceipt } from "../ports.ts";
import type { UnmatchedReceiptRecord } from "../records/own-addresses.ts";
import type { OwnAddressStore } from "../stores/own-addresses.ts";
import type { WatchedAddress } from "../stores/transactions.ts";
import { unmatchedReceiptView } from "./view.ts";

export type MatchingDeps = Pick<CoreDeps, "stores" | "clock">;

/** A log index from a receipt's key (`txHash:logIndex`), else null. */
function logIndexOf(r: ObservedReceipt): number | null {
  const suffix = r.txHash !== null && r.key.startsWith(`${r.txHash}:`) ? r.key.slice(r.txHash.length + 1) : "";
  return /^\d{1,9}$/.test(suffix) ? Number(suffix) : null;
}

export const unmatchedEvent = (r: UnmatchedReceiptRecord, now: Date) =>
  subjectOutboxEvent(r, { type: "settlement.unmatched_receipt.created", body: { unmatched_receipt: unmatchedReceiptView(r) } }, now);

/** Whose own address a transfer reached, and in which coin. */
export interface OwnAddressPlace {
  merchantId: number;
  isLive: boolean;
  network: string;
  address: string;
  currencyId: number;
}

/**
 * Records a transfer to an own address as an unmatched receipt, unless an open amount of the address
 * or a payment takes it (the store checks, in its database transaction); a known one gets its
 * confirmations. The payment's read (ownReceipts) and the idle scan (idle-scan.ts) both come here.
 */
export function recordUnmatchedReceipt(
  deps: { stores: { ownAddresses: Pick<OwnAddressStore, "recordUnmatched"> } },
  place: OwnAddressPlace,
  o: ObservedReceipt,
  now: Date,
): Promise<UnmatchedReceiptRecord | null> {
  const receipt: UnmatchedReceiptRecord = {
    id: `ur_${randomUUID()}`,
    ...place,
    amount: o.amount,
    key: o.key,
    txHash: o.txHash,
    logIndex: logIndexOf(o),
    blockHeight: o.blockHeight,
    confirmations: o.confirmations,
    seenAt: now,
    state: "open",
    transactionId: null,
    refundTxHash: null,
    updatedAt: now,
  };
  return deps.stores.ownAddresses.recordUnmatched(receipt, now, (r) => unmatchedEvent(r, now));
}

/**
 * Of a read of an own address for one payment, the receipts that are that payment's; the others are
 * recorded as unmatched receipts (once; the store checks, in its statement, that no open amount and no
 * payment takes them).
 */
export async function ownReceipts(deps: MatchingDeps, row: WatchedAddress, observed: ObservedReceipt[]): Promise<ObservedReceipt[]> {
  if (row.ownAddressIndex == null || row.paymentAddress === null || row.paymentAmount == null) return observed;
  const now = deps.clock.now();
  const address = row.paymentAddress;
  const view = await deps.stores.ownAddresses.view(
    row.id,
    address,
    observed.map((o) => o.key),
    now,
  );
  const recorded = new Set(row.receipts.map((r) => r.key));
  const due = row.paymentAmount.toString();
  const mine = (o: ObservedReceipt) =>
    recorded.has(o.key) || view.assigned.has(o.key) || (view.holding && o.amount.eq(due) && !view.takenElsewhere.has(o.key));
  const others = observed.filter((o) => !mine(o) && !view.takenElsewhere.has(o.key));
  if (row.paymentCurrencyId !== null && row.merchantId !== undefined) {
    const place = {
      merchantId: row.merchantId,
      isLive: row.isLive,
      network: row.paymentNetwork ?? "tron",
      address,
      currencyId: row.paymentCurrencyId,
    };
    for (const o of others) await recordUnmatchedReceipt(deps, place, o, now);
  }
  return observed.filter(mine);
}
