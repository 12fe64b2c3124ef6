// The receipts of a transaction (what arrived at its address, one per output, transfer or balance
// part) as every API shows them: REST and the webhook payloads in snake_case (receiptObject),
// GraphQL in its own names, so an integrator can reconcile each payment with the chain.
import { cryptoById, type CryptoSlug } from "../money/currencies.ts";
import type { TransactionStore } from "../stores/transactions.ts";
import type { ReceiptState, StoredReceipt } from "../records/transactions.ts";

export interface TransactionReceipt {
  /** Stable within the transaction: `txid:vout`, `txHash:logIndex`, `txHash`, `balance:internal:…`, a test helper's `test_…:0`. */
  key: string;
  txHash: string | null;
  /** The output of a UTXO coin's (BTC, LTC) transaction; null elsewhere. */
  outputIndex: number | null;
  /** The Transfer log of a token's (USDT) transaction; null elsewhere. */
  logIndex: number | null;
  /** In coin units, exact (a decimal string). */
  amount: string;
  blockHeight: number | null;
  confirmations: number;
  /**
   * SEEN: short of its confirmations; CONFIRMED: counted in amount_paid; DROPPED: gone from the chain (no longer
   * counted); REVERSED: gone from the chain after a SUCCESSFUL transaction counted it (lifecycle.ts).
   */
  state: ReceiptState;
  /**
   * Unconfirmed and signalling replaceability (BIP 125) when last seen: with 0 confirmations accepted it
   * is not counted until its first confirmation.
   */
  replaceable: boolean;
  /** `chain` (a watcher saw it) or `test_helper`. */
  source: string;
  firstSeenAt: Date;
  updatedAt: Date;
}

/** Whose key `txHash:n` names an output (UTXO coins) or a log (tokens); a native EVM transfer's key is its hash alone. */
const INDEX_KIND: Partial<Record<CryptoSlug, "output" | "log">> = { BTC: "output", LTC: "output", USDT: "log" };

export function receiptOf(r: StoredReceipt, paymentCurrencyId: number | null): TransactionReceipt {
  const slug = paymentCurrencyId === null ? undefined : cryptoById(paymentCurrencyId)?.slug;
  const kind = slug && INDEX_KIND[slug];
  const suffix = r.txHash !== null && r.key.startsWith(`${r.txHash}:`) ? r.key.slice(r.txHash.length + 1) : "";
  const index = /^\d{1,9}$/.test(suffix) ? Number(suffix) : null;
  return {
    key: r.key,
    txHash: r.txHash,
    outputIndex: kind === "output" ? index : null,
    logIndex: kind === "log" ? index : null,
    amount: r.amount.toFixed(),
    blockHeight: r.blockHeight,
    confirmations: r.confirmations,
    state: r.status,
    replaceable: r.replaceable,
    source: r.source,
    firstSeenAt: r.firstSeenAt,
    updatedAt: r.updatedAt,
  };
}

/**
 * Whether a transaction can have receipts: recordReceipts sets `requiredConfirmations` with the first
 * (in the same database transaction), so one without it has none and no query is needed (initiate's
 * reply, the polls of an unpaid checkout).
 */
export function mayHaveReceipts(t: { requiredConfirmations: number | null }): boolean {
  return t.requiredConfirmations !== null;
}

/** A transaction as receipts are read for it. */
type ReceiptOwner = { id: string; paymentCurrencyId: number | null; requiredConfirmations: number | null };

/** The receipts of each transaction (first seen first; dropped ones too), in one query for them all; none for those that cannot have any. */
export async function receiptsOf(transactions: TransactionStore, owners: readonly ReceiptOwner[]): Promise<Map<string, TransactionReceipt[]>> {
  const byId = new Map<string, TransactionReceipt[]>(owners.map((t) => [t.id, []]));
  const asked = owners.filter(mayHaveReceipts);
  if (asked.length === 0) return byId;
  const currencyOf = new Map(asked.map((t) => [t.id, t.paymentCurrencyId]));
  for (const row of await transactions.receiptsOf(asked.map((t) => t.id))) {
    byId.get(row.transactionId)?.push(receiptOf(row, currencyOf.get(row.transactionId) ?? null));
  }
  return byId;
}

/** One receipt as REST and the webhook payloads show it. */
export function receiptObject(r: TransactionReceipt) {
  return {
    key: r.key,
    tx_hash: r.txHash,
    output_index: r.outputIndex,
    log_index: r.logIndex,
    amount: r.amount,
    block_height: r.blockHeight,
    confirmations: r.confirmations,
    state: r.state,
    replaceable: r.replaceable,
    source: r.source,
    first_seen_at: r.firstSeenAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}
