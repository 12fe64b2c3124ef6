// The records the core works on, declared here so that the core owns them: the stores (src/db)
// read rows of the same shape and hand them over, and nothing in the core imports the database's
// generated types. Amounts are the core's exact Decimal (decimal.js).
import type { Decimal } from "../money/amounts.ts";

export type TransactionStatus = "INITIATED" | "PENDING" | "SUCCESSFUL" | "ABANDONED";
export type StoredKybStatus = "NONE" | "PENDING" | "VERIFIED" | "REJECTED";
/** A webhook event's delivery: waiting, delivered, failed every attempt, or skipped (no URL for its mode). */
export type DeliveryState = "PENDING" | "DELIVERED" | "FAILED" | "SKIPPED";
/** A receipt short of its confirmations, counted, gone from the chain, or gone after a SUCCESSFUL payment counted it. */
export type ReceiptStatus = "SEEN" | "CONFIRMED" | "DROPPED" | "REVERSED";

/** A transaction as stored (table `transactions`). */
export interface Transaction {
  id: string;
  reference: string;
  merchantId: number;
  customerEmail: string;
  /** customer_email in lower case: what the list's search by e-mail compares. */
  customerEmailKey: string;
  customerName: string | null;
  paymentLinkId: number | null;
  isLive: boolean;
  status: TransactionStatus;
  description: string | null;
  initializedAmount: Decimal;
  initializedCurrencyId: number;
  /** The request's `meta`, echoed back at the top level of every response. */
  requestMeta: unknown;
  paymentCurrencyId: number | null;
  /** The network the payment currency is paid on (core/networks.ts); null until initiated. */
  paymentNetwork: string | null;
  paymentAmount: Decimal | null;
  amountPaid: Decimal | null;
  amountUnconfirmed: Decimal | null;
  confirmations: number | null;
  requiredConfirmations: number | null;
  paymentAddress: string | null;
  walletId: number | null;
  derivationIndex: number | null;
  /** TRON own-address mode (issue 40): the merchant's own address paid (branch 2 of its key); null: a per-payment address. */
  ownAddressIndex: number | null;
  refundAddress: string | null;
  quoteRate: Decimal | null;
  quoteSource: string | null;
  quotedAt: Date | null;
  /** JSON: the providers behind the locked rate when several were asked (core/transactions/rate-sources.ts). */
  quoteSources: unknown;
  /** The market rate before the merchant's spread (quoteRate is the rate used); null on rows from before spreads. */
  quoteMarketRate: Decimal | null;
  /** The merchant's spread in percent, as applied at initiate; null on rows from before spreads. */
  quoteSpreadPercent: Decimal | null;
  initiatedAt: Date | null;
  expiresAt: Date | null;
  clientSecretEnc: string | null;
  returnUrl: string | null;
  /** The checkout's "back to the shop" link before paying (initialize's cancel_url). */
  cancelUrl: string | null;
  /** The checkout's language (CHECKOUT_LOCALES); null: the customer's browser decides. */
  locale: string | null;
  /** Per-payment policies given at initialize (core/policies.ts); null: the operator's setting. */
  policyExpiresIn: number | null;
  /** Percent. */
  policyUnderpaymentTolerance: Decimal | null;
  /** JSON: confirmations by coin slug, e.g. {"BTC": 2}. */
  policyConfirmations: unknown;
  /** Percent (initialize's late_payment.accept_if_rate_moved_below); null: late payments are left to the merchant. */
  policyLatePaymentPercent: Decimal | null;
  /** JSON: what the late-payment policy decided (core/transactions/late-payments.ts); null: nothing decided. */
  latePayment: unknown;
  /** When a SUCCESSFUL transaction's counted receipts left the chain (payment.reversed); kept once set. */
  reversedAt: Date | null;
  /** When a SUCCESSFUL transaction's chain receipts reached their finality depth (the watcher stops); null while watched. */
  finalAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A webhook event of the outbox (table `webhook_events`): the event only; its deliveries are their own rows. */
export interface WebhookEventRow {
  /** `evt_…`: the Standard Webhooks `webhook-id`. */
  id: string;
  /** Commit order: events of one transaction are delivered in this order. */
  seq: bigint;
  merchantId: number;
  /** The transaction a payment.* or refund.* event is about; null for an event about something else. */
  transactionId: string | null;
  /** The refund a refund.* event is about; null for payment events. */
  refundId: string | null;
  /** What an event about no transaction is about (a consolidation's `co_…`); null otherwise. */
  subjectId: string | null;
  /** A subject that enters a state again (a flush confirmed after a reorganisation) does so in a new round; 0 otherwise. */
  subjectRound: number;
  type: string;
  isLive: boolean;
  /** The exact JSON body, signed and sent unchanged on every attempt. */
  body: string;
  createdAt: Date;
}

/**
 * An event's delivery to its mode's first endpoint (the merchant's webhook URL), as the Events API, the
 * dashboard and the CLI show it: derived from the delivery `wd_<event id>`, or skipped (no attempt) when
 * there is none because no first endpoint took the event.
 */
export interface FirstDelivery {
  state: DeliveryState;
  attemptCount: number;
  /** When it is (or was last) due; the event's time when it was never queued. */
  nextAttemptAt: Date;
  deliveredAt: Date | null;
}

/** An event with its first delivery's state. */
export type WebhookEvent = WebhookEventRow & FirstDelivery;

/** One delivery attempt of an event. */
export interface WebhookDeliveryAttempt {
  id: bigint;
  eventId: string;
  attemptedAt: Date;
  url: string;
  statusCode: number | null;
  latencyMs: number;
  responseBody: string | null;
  error: string | null;
  succeeded: boolean;
  trigger: string;
  /** The receiver's Retry-After header as sent (its first 64 characters), when it gave one. */
  retryAfter: string | null;
}

/** Value received at a transaction's payment address. */
export interface PaymentReceipt {
  id: bigint;
  transactionId: string;
  key: string;
  txHash: string | null;
  amount: Decimal;
  confirmations: number;
  blockHeight: number | null;
  status: ReceiptStatus;
  /** Unconfirmed and signalling replaceability (BIP 125) when last seen. */
  replaceable: boolean;
  source: string;
  firstSeenAt: Date;
  updatedAt: Date;
}

export type RefundState = "pending" | "succeeded" | "canceled";
export type RefundAmountKind = "full" | "overpaid" | "custom";
export type RefundValuation = "locked_rate" | "current_rate";
/** A merchant's tx_hash as the chain side checked it (issue 26). */
export type RefundVerification = "pending" | "verified" | "failed";

/** A refund as stored (table `refunds`; src/core/refunds). */
export interface Refund {
  /** `re_…`. */
  id: string;
  transactionId: string;
  merchantId: number;
  isLive: boolean;
  state: RefundState;
  amountKind: RefundAmountKind;
  /** In the payment currency: what leaves the refundable amount (a deducted network fee included). */
  amount: Decimal;
  fiatAmount: Decimal;
  fiatCurrencyId: number;
  valuation: RefundValuation;
  /** Fiat per coin, the rate the fiat amount was valued at. */
  rate: Decimal;
  deductNetworkFee: boolean;
  networkFee: Decimal | null;
  amountToCustomer: Decimal;
  /** sat/vB (BTC, LTC). */
  feeRate: Decimal | null;
  destination: string | null;
  claimTokenHash: string | null;
  /** The claim token sealed with the service's key, for the e-mail that sends the link (issue 44); null without a link. */
  claimTokenEnc: string | null;
  claimExpiresAt: Date | null;
  claimedAt: Date | null;
  txHash: string | null;
  paidBy: "watcher" | "merchant" | null;
  verification: RefundVerification | null;
  createdAt: Date;
  updatedAt: Date;
  succeededAt: Date | null;
  canceledAt: Date | null;
}
