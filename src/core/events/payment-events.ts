// The webhook events of spec section 6: which state change sends which event, and the exact body.
import { paymentNetworkOf } from "../transactions/view.ts";
import { paymentStateOf } from "../transactions/lifecycle.ts";
import { DEFAULT_LIFECYCLE, type LifecyclePolicy } from "../policies.ts";
import type { TransactionStatus } from "../records/rows.ts";
import { Decimal, toJsonNumber } from "../money/amounts.ts";
import { cryptoById } from "../money/currencies.ts";
import { randomToken } from "../secrets.ts";
import { receiptObject, receiptOf } from "../transactions/receipts.ts";
import type { StoredReceipt } from "../records/transactions.ts";

/** A transaction enters each state once, so each event is sent at most once per transaction. */
export const EVENT_FOR_STATUS = {
  INITIATED: "payment.initiated",
  PENDING: "payment.pending",
  SUCCESSFUL: "payment.received",
  ABANDONED: "payment.abandoned",
} as const satisfies Record<TransactionStatus, string>;

/**
 * Not a state of spec 3 (the status stays SUCCESSFUL): a SUCCESSFUL transaction whose counted payment
 * left the chain (lifecycle.ts) sends it once, when `reversedAt` is set. An extension of spec 6.
 */
export const REVERSED_EVENT = "payment.reversed";

export type PaymentEventType = (typeof EVENT_FOR_STATUS)[TransactionStatus] | typeof REVERSED_EVENT;
export const PAYMENT_EVENT_TYPES = [
  EVENT_FOR_STATUS.INITIATED,
  EVENT_FOR_STATUS.PENDING,
  EVENT_FOR_STATUS.SUCCESSFUL,
  EVENT_FOR_STATUS.ABANDONED,
  REVERSED_EVENT,
] as const satisfies readonly PaymentEventType[];

/** A refund's events (issue 26; core/events/refund-events.ts), one of each per refund, through the same outbox and signing. */
export const REFUND_EVENT_TYPES = ["refund.created", "refund.succeeded", "refund.canceled"] as const;
export type RefundEventType = (typeof REFUND_EVENT_TYPES)[number];

/**
 * A consolidation's events (issue 40; core/settlement/events.ts): seen on the chain, confirmed, canceled; about no
 * transaction (their subject is the consolidation), through the same outbox and signing.
 */
export const CONSOLIDATION_EVENT_TYPES = [
  "settlement.consolidation.seen",
  "settlement.consolidation.confirmed",
  "settlement.consolidation.canceled",
] as const;

/**
 * A forwarder flush's events (issue 40): mined and succeeded, failed (reverted or replaced), or reorganized (its block
 * left the chain: sending again, and confirmed again in a new round); the flush is the subject.
 */
export const FLUSH_EVENT_TYPES = ["settlement.flush.confirmed", "settlement.flush.failed", "settlement.flush.reorganized"] as const;

/** A transfer to a merchant's own TRON address that matched no open amount (issue 40); the unmatched receipt is the subject. */
export const UNMATCHED_RECEIPT_EVENT_TYPES = ["settlement.unmatched_receipt.created"] as const;

/** A sweep the merchant sent from its payment addresses, posted back and read from the node (issue 40); the sweep is the subject. */
export const SWEEP_EVENT_TYPES = ["settlement.sweep.recorded"] as const;

/** Every event about a settlement move rather than a transaction. */
export const SETTLEMENT_EVENT_TYPES = [
  ...CONSOLIDATION_EVENT_TYPES,
  ...FLUSH_EVENT_TYPES,
  ...UNMATCHED_RECEIPT_EVENT_TYPES,
  ...SWEEP_EVENT_TYPES,
] as const;
export type SettlementEventType = (typeof SETTLEMENT_EVENT_TYPES)[number];

/**
 * An invoice's events (issue 44; core/invoices/events.ts): finalized (numbered, open), voided, paid once the
 * transaction that pays its last part succeeds, partially paid when one pays a first part, overdue when its due
 * date passes with something left; the invoice is the subject, one event of each type per invoice.
 */
export const INVOICE_EVENT_TYPES = ["invoice.finalized", "invoice.voided", "invoice.paid", "invoice.partially_paid", "invoice.overdue"] as const;
export type InvoiceEventType = (typeof INVOICE_EVENT_TYPES)[number];

/** Every event type paygate sends: what a filter of event types may name. */
export const EVENT_TYPES = [...PAYMENT_EVENT_TYPES, ...REFUND_EVENT_TYPES, ...SETTLEMENT_EVENT_TYPES, ...INVOICE_EVENT_TYPES] as const;

/** `evt_…`: sent as the Standard Webhooks `webhook-id`, unchanged on every attempt. */
export const newEventId = () => `evt_${randomToken(24)}`;

/** What an event tells about its transaction, as it was when the event was written. */
export interface TransactionSnapshot {
  reference: string;
  status: TransactionStatus;
  isLive: boolean;
  description: string | null;
  customerEmail: string;
  customerName: string | null;
  paymentCurrencyId: number | null;
  /** core/networks.ts; null on rows from before networks (the coin's default). */
  paymentNetwork: string | null;
  paymentAmount: { toString(): string } | null;
  amountPaid: { toString(): string } | null;
  /** With amountPaid and the tolerance: the payment state REST and GraphQL show (`meta.payment.state`). */
  amountUnconfirmed: { toString(): string } | null;
  policyUnderpaymentTolerance: { toString(): string } | null;
  requestMeta: unknown;
  createdAt: Date;
  /** Set once a SUCCESSFUL transaction's payment left the chain after it was counted. */
  reversedAt: Date | null;
  merchant: { name: string };
  /** What arrived at its address then, first seen first (none before the first payment is seen). */
  receipts: readonly StoredReceipt[];
}

/**
 * The snapshot of a transaction row as its event tells it, key by key: spreading the row and adding the
 * merchant and receipts cost about 1.7 µs a key on Node 20's V8, on every payment (docs/benchmarks.md, issue 47).
 */
export function transactionSnapshot(
  row: Omit<TransactionSnapshot, "merchant" | "receipts"> & { id: string; merchantId: number },
  merchant: { name: string },
  receipts: readonly StoredReceipt[],
): TransactionSnapshot & { id: string; merchantId: number } {
  return {
    id: row.id,
    merchantId: row.merchantId,
    reference: row.reference,
    status: row.status,
    isLive: row.isLive,
    description: row.description,
    customerEmail: row.customerEmail,
    customerName: row.customerName,
    paymentCurrencyId: row.paymentCurrencyId,
    paymentNetwork: row.paymentNetwork,
    paymentAmount: row.paymentAmount,
    amountPaid: row.amountPaid,
    amountUnconfirmed: row.amountUnconfirmed,
    policyUnderpaymentTolerance: row.policyUnderpaymentTolerance,
    requestMeta: row.requestMeta,
    createdAt: row.createdAt,
    reversedAt: row.reversedAt,
    merchant,
    receipts,
  };
}

export interface PaymentEvent {
  id: string;
  type: PaymentEventType;
  /** The JSON body, kept as text so that every attempt sends (and signs) the same bytes. */
  body: string;
}

/** `policy`: the operator's lifecycle settings; its underpayment tolerance decides the state of a short payment. */
export function paymentEventFor(transaction: TransactionSnapshot, policy: LifecyclePolicy = DEFAULT_LIFECYCLE): PaymentEvent {
  const type = transaction.status === "SUCCESSFUL" && transaction.reversedAt !== null ? REVERSED_EVENT : EVENT_FOR_STATUS[transaction.status];
  return { id: newEventId(), type, body: JSON.stringify(paymentEventPayload(type, transaction, policy)) };
}

/** `{ event, data: { transaction } }`, field for field as spec section 6 lists them, and the receipts. */
export function paymentEventPayload(type: PaymentEventType, t: TransactionSnapshot, policy: LifecyclePolicy = DEFAULT_LIFECYCLE) {
  const crypto = t.paymentCurrencyId === null ? undefined : cryptoById(t.paymentCurrencyId);
  const network = paymentNetworkOf(t);
  const meta = t.requestMeta;
  return {
    event: type,
    data: {
      transaction: {
        reference: t.reference,
        merchant_name: t.merchant.name,
        payment_currency: t.paymentCurrencyId,
        payment_currency_name: crypto?.name ?? null,
        payment_currency_slug: crypto?.slug ?? null,
        // Not in spec 6: the network it is paid on, and its display name in the transaction's mode.
        payment_network: network?.slug ?? null,
        payment_network_name: network?.name ?? null,
        status: t.status,
        customer_email: t.customerEmail,
        // The spec types it as a string, not "or null": a customer without a name is "".
        customer_name: t.customerName ?? "",
        payment_amount: t.paymentAmount === null ? null : toJsonNumber(t.paymentAmount),
        amount_paid: t.amountPaid === null ? null : toJsonNumber(t.amountPaid),
        description: t.description,
        is_live: t.isLive,
        created_at: t.createdAt.toISOString(),
        meta: typeof meta === "object" && meta !== null && !Array.isArray(meta) ? meta : {},
        // Not in spec 6 (an extension adds fields): each payment, for reconciling without the dashboard.
        receipts: t.receipts.map((r) => receiptObject(receiptOf(r, t.paymentCurrencyId))),
        // Not in spec 6 either: when a SUCCESSFUL payment was reversed (payment.reversed), else null.
        reversed_at: t.reversedAt?.toISOString() ?? null,
        // Not in spec 6 (issue 42): the payment state as REST's meta.payment.state shows it ("reversed",
        // "underpaid", "paid", …), so a receiver need not work it out; null before initiate.
        state: paymentStateOf(amountsOf(t), policy),
      },
    },
  };
}

/** The snapshot's amounts as the state rules read them (exact decimals). */
function amountsOf(t: TransactionSnapshot) {
  const exact = (amount: { toString(): string } | null) => (amount === null ? null : new Decimal(amount.toString()));
  return {
    status: t.status,
    paymentAmount: exact(t.paymentAmount),
    amountPaid: exact(t.amountPaid),
    amountUnconfirmed: exact(t.amountUnconfirmed),
    reversedAt: t.reversedAt,
    policyUnderpaymentTolerance: t.policyUnderpaymentTolerance,
  };
}
