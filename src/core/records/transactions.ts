// A transaction as the core hands it to adapters, and what is stored with it (receipts, quote sources, the
// late-payment decision): shapes the stores read and write, declared apart from the rules that use them.
import type { Transaction } from "./rows.ts";

export type TransactionRecord = Transaction & { merchant: { id: number; name: string } };

/**
 * Every column of a transaction, in the table's order: what a copy of a row kept apart from it holds
 * (the rows an instance remembers for initiate, src/db/stores/initiate-memory.ts). A column missing
 * here fails to compile.
 */
export const TRANSACTION_COLUMNS = [
  "id",
  "reference",
  "merchantId",
  "customerEmail",
  "customerEmailKey",
  "customerName",
  "paymentLinkId",
  "isLive",
  "status",
  "description",
  "initializedAmount",
  "initializedCurrencyId",
  "requestMeta",
  "paymentCurrencyId",
  "paymentNetwork",
  "paymentAmount",
  "amountPaid",
  "amountUnconfirmed",
  "confirmations",
  "requiredConfirmations",
  "paymentAddress",
  "walletId",
  "derivationIndex",
  "ownAddressIndex",
  "refundAddress",
  "quoteRate",
  "quoteSource",
  "quotedAt",
  "quoteSources",
  "quoteMarketRate",
  "quoteSpreadPercent",
  "initiatedAt",
  "expiresAt",
  "clientSecretEnc",
  "returnUrl",
  "cancelUrl",
  "locale",
  "policyExpiresIn",
  "policyUnderpaymentTolerance",
  "policyConfirmations",
  "policyLatePaymentPercent",
  "latePayment",
  "reversedAt",
  "finalAt",
  "createdAt",
  "updatedAt",
] as const satisfies readonly (keyof Transaction)[];
type UnlistedColumn = Exclude<keyof Transaction, (typeof TRANSACTION_COLUMNS)[number]>;
const everyColumnListed: [UnlistedColumn] extends [never] ? true : UnlistedColumn = true;
void everyColumnListed;

/**
 * The row with its merchant, every column written out. Not `{ ...row, merchant }`: on Node 20's V8 a key
 * added to a spread copy of a row of 46 columns costs 7–11 µs (a new hidden class with all 46 descriptors),
 * and every initialize, initiate and read makes one (docs/benchmarks.md, issue 47). A column added to
 * Transaction and not here fails to compile.
 */
export function transactionRecordOf(row: Transaction, merchant: { id: number; name: string }): TransactionRecord {
  return {
    id: row.id,
    reference: row.reference,
    merchantId: row.merchantId,
    customerEmail: row.customerEmail,
    customerEmailKey: row.customerEmailKey,
    customerName: row.customerName,
    paymentLinkId: row.paymentLinkId,
    isLive: row.isLive,
    status: row.status,
    description: row.description,
    initializedAmount: row.initializedAmount,
    initializedCurrencyId: row.initializedCurrencyId,
    requestMeta: row.requestMeta,
    paymentCurrencyId: row.paymentCurrencyId,
    paymentNetwork: row.paymentNetwork,
    paymentAmount: row.paymentAmount,
    amountPaid: row.amountPaid,
    amountUnconfirmed: row.amountUnconfirmed,
    confirmations: row.confirmations,
    requiredConfirmations: row.requiredConfirmations,
    paymentAddress: row.paymentAddress,
    walletId: row.walletId,
    derivationIndex: row.derivationIndex,
    ownAddressIndex: row.ownAddressIndex,
    refundAddress: row.refundAddress,
    quoteRate: row.quoteRate,
    quoteSource: row.quoteSource,
    quotedAt: row.quotedAt,
    quoteSources: row.quoteSources,
    quoteMarketRate: row.quoteMarketRate,
    quoteSpreadPercent: row.quoteSpreadPercent,
    initiatedAt: row.initiatedAt,
    expiresAt: row.expiresAt,
    clientSecretEnc: row.clientSecretEnc,
    returnUrl: row.returnUrl,
    cancelUrl: row.cancelUrl,
    locale: row.locale,
    policyExpiresIn: row.policyExpiresIn,
    policyUnderpaymentTolerance: row.policyUnderpaymentTolerance,
    policyConfirmations: row.policyConfirmations,
    policyLatePaymentPercent: row.policyLatePaymentPercent,
    latePayment: row.latePayment,
    reversedAt: row.reversedAt,
    finalAt: row.finalAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    merchant,
  };
}

export type ReceiptState = "SEEN" | "CONFIRMED" | "DROPPED" | "REVERSED";

/** A receipt as stored (PaymentReceipt): what the views below are made from. */
export interface StoredReceipt {
  transactionId: string;
  key: string;
  txHash: string | null;
  amount: { toFixed(): string };
  confirmations: number;
  blockHeight: number | null;
  status: ReceiptState;
  replaceable: boolean;
  source: string;
  firstSeenAt: Date;
  updatedAt: Date;
}

/** One provider's part, as stored: the quote time as an ISO string. */
export interface StoredRateSource {
  provider: string;
  rate: string | null;
  quotedAt: string | null;
  used: boolean;
  reason: string | null;
  detail: string | null;
}

/** What the late-payment policy decided (lifecycle.ts, settleLatePayment), as stored in transactions.late_payment. */
export interface LatePaymentDecision {
  /** True: the late payment was accepted (the transaction became SUCCESSFUL); false: left to the merchant (paid_late). */
  accepted: boolean;
  /** The rate locked at initiate before the spread, and the market rate when the late payment was seen (decimal strings). */
  lockedRate: string;
  marketRate: string;
  /** How far the market rate moved from the locked one, in percent (2 decimals, rounded up). */
  movedPercent: string;
  /** ISO time of the check. */
  checkedAt: string;
}
