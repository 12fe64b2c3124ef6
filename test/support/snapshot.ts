// Everything a request could change, to assert that a refused one changed nothing.
import type { Database } from "../../src/db/types.ts";

export interface StoreSnapshot {
  counts: Record<string, number>;
  transactions: unknown[];
  walletIndexes: unknown[];
}

export async function snapshotStore(db: Database): Promise<StoreSnapshot> {
  const [transactions, events, attempts, receipts, keys, merchants, apiKeys, links, walletIndexes] = await Promise.all([
    db.transaction.findMany({ orderBy: { id: "asc" } }),
    db.webhookEvent.count(),
    db.webhookDeliveryAttempt.count(),
    db.paymentReceipt.count(),
    db.idempotencyKey.count(),
    db.merchant.count(),
    db.apiKey.count(),
    db.paymentLink.count(),
    db.wallet.findMany({ select: { id: true, nextIndex: true }, orderBy: { id: "asc" } }),
  ]);
  return {
    counts: { transactions: transactions.length, events, attempts, receipts, keys, merchants, apiKeys, links },
    // Decimals and dates as text, so equal rows compare equal.
    transactions: JSON.parse(JSON.stringify(transactions)),
    walletIndexes,
  };
}
