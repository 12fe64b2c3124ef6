// The dashboard's transaction pages, in the core: the list, one transaction with its receipts and
// webhook events, the CSV export, and redelivering an event. Each checks the signed-in user's
// permission first (access.ts), then works on that user's merchant in the mode the dashboard shows;
// another merchant's or mode's objects do not exist for it. The list's rules are list.ts's, shared
// with the secret-key API.
import type { PaymentReceipt } from "../records/rows.ts";
import type { CoreDeps } from "../deps.ts";
import { errors } from "../errors.ts";
import { redeliverEvent } from "../webhooks/deliveries.ts";
import { isEventId } from "../events/list.ts";
import type { Decimal } from "../money/amounts.ts";
import { refundSummaries } from "../refunds/refunds.ts";
import { COUNTED_REFUND_STATES, countedRefundsOf } from "../refunds/rules.ts";
import type { RefundSummary } from "../refunds/view.ts";
import type { DeliveryReport } from "../ports.ts";
import type { EventWithAttempts } from "../stores/webhook-events.ts";
import { transactionsCsv } from "../transactions/export.ts";
import { listTransactionsOf, parseTransactionFilters, type TransactionPage } from "../transactions/list.ts";
import { findTransactionFor } from "../transactions/record.ts";
import type { TransactionRecord } from "../records/transactions.ts";
import { viewOf, type TransactionView } from "../transactions/view.ts";
import type { MerchantReach } from "../access/roles.ts";

/** One transaction as its page shows it. */
export interface TransactionDetail {
  transaction: TransactionRecord;
  /** Currencies, the locked quote and the payment's progress, as the APIs show them. */
  view: TransactionView;
  /** What arrived at its address, first seen first (dropped ones too: the page says so). */
  receipts: PaymentReceipt[];
  /** Its webhook events, oldest first (the timeline), each with its delivery attempts oldest first. */
  events: EventWithAttempts[];
}

/**
 * A row of the list: the transaction with its Refunded column, the sum of its pending and succeeded
 * refunds in the payment coin (null with none, as the CSV's `refunded`), and how many are pending.
 */
export type DashboardTransactionRow = TransactionRecord & { refunded: Decimal | null; refundsPending: number };

export interface DashboardTransactionPage extends Omit<TransactionPage, "transactions"> {
  transactions: DashboardTransactionRow[];
}

/** A page of the actor's merchant's transactions in one mode: the REST list's query, rules and cursor (list.ts). */
export async function listDashboardTransactions(
  deps: Pick<CoreDeps, "stores">,
  access: MerchantReach,
  params: Record<string, unknown>,
): Promise<DashboardTransactionPage> {
  access.require("read");
  const page = await listTransactionsOf(deps.stores, { merchantId: access.merchantId, isLive: access.isLive, dashboard: true }, params);
  const summaries = await refundSummaries(deps, page.transactions);
  return { ...page, transactions: page.transactions.map((t) => ({ ...t, ...refundedOf(summaries.get(t.id)) })) };
}

function refundedOf(summary: RefundSummary | undefined): { refunded: Decimal | null; refundsPending: number } {
  const refunds = summary?.refunds ?? [];
  const counted = refunds.filter((r) => COUNTED_REFUND_STATES.includes(r.state));
  return {
    refunded: counted.length === 0 ? null : countedRefundsOf(counted),
    refundsPending: counted.filter((r) => r.state === "pending").length,
  };
}

export async function dashboardTransaction(
  deps: Pick<CoreDeps, "stores" | "lifecycle">,
  access: MerchantReach,
  id: string,
): Promise<TransactionDetail> {
  access.require("read");
  const transaction = await findTransactionFor(deps.stores.transactions, id, access.merchantId, access.isLive);
  if (!transaction) throw errors.transactionNotFound(id);
  const [receipts, events] = await Promise.all([
    deps.stores.transactions.receipts(transaction.id),
    deps.stores.webhookEvents.list({ merchantId: access.merchantId, transactionId: transaction.id }),
  ]);
  return {
    transaction,
    view: viewOf(transaction, deps.lifecycle),
    receipts,
    events: events.reverse().map((event) => ({ ...event, attempts: [...event.attempts].reverse() })),
  };
}

/**
 * The CSV of every transaction the filters match (the list's filters, no page). The query is checked
 * here, before the first row is read, so a bad filter is refused (400) before a download starts;
 * the rows are then read a page at a time as the caller consumes them (export.ts).
 */
export async function exportDashboardTransactions(
  deps: Pick<CoreDeps, "stores">,
  access: MerchantReach,
  params: Record<string, unknown>,
): Promise<AsyncGenerator<string>> {
  access.require("read");
  const filters = parseTransactionFilters({ merchantId: access.merchantId, isLive: access.isLive, dashboard: true }, params);
  return transactionsCsv(deps.stores, filters);
}

/** Sends an event of the actor's merchant and mode again now, with one attempt, and says how it went. */
export async function redeliverDashboardEvent(
  deps: Pick<CoreDeps, "stores" | "redelivery">,
  access: MerchantReach,
  eventId: string,
): Promise<DeliveryReport> {
  access.require("manage_webhooks");
  const event = isEventId(eventId) ? await deps.stores.webhookEvents.findFor(eventId, access.merchantId, access.isLive) : null;
  if (!event) throw errors.eventNotFound(eventId);
  const report = await redeliverEvent(deps.redelivery, event.id);
  // Pruned (30 days) between the two reads.
  if (!report) throw errors.eventNotFound(eventId);
  return report;
}
