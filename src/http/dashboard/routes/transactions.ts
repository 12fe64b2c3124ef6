// The dashboard's transactions: GET /transactions (a page, GET /v1/transactions' filters and cursor),
// GET /transactions.csv (every transaction the filters match, streamed), GET /transactions/:id (its
// quote, receipts, events and delivery attempts) and POST /events/:id/redeliver. All take ?mode=;
// the gateway authorizes and rules, these only name fields and stream.
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Request, Router } from "express";
import type { TransactionDetail } from "../../../core/dashboard/transactions.ts";
import type { PaymentGateway } from "../../../core/gateway.ts";
import type { DeliveryReport } from "../../../core/ports.ts";
import type { EventWithAttempts } from "../../../core/stores/webhook-events.ts";
import type { EmailMessageRecord } from "../../../core/records/email.ts";
import type { AttemptRecord } from "../../../core/records/events.ts";
import type { TransactionRecord } from "../../../core/records/transactions.ts";
import { cryptoById, fiatById } from "../../../core/money/currencies.ts";
import { paymentObject, policiesObject, quoteObject } from "../../v1/transactions/presenters.ts";
import { accessOf, isLiveOf, modeOf, sendData } from "../session.ts";

export function transactionRoutes(router: Router, gateway: PaymentGateway): void {
  router.get("/transactions", async (req, res) => {
    const page = await gateway.payments.dashboardTransactions(accessOf(gateway, res, isLiveOf(req)), listQueryOf(req));
    const rows = page.transactions.map((t) => ({ ...transactionSummary(t), refunded: decimal(t.refunded), refunds_pending: t.refundsPending }));
    sendData(res, { transactions: rows, has_more: page.hasMore });
  });

  router.get("/transactions.csv", async (req, res) => {
    const mode = modeOf(req);
    const rows = await gateway.payments.exportTransactionsCsv(accessOf(gateway, res, mode === "live"), listQueryOf(req));
    // The header and the first page are read before the answer starts, so a database that fails
    // at once is a JSON error with its status, not a download cut short.
    const first = await rows.next();
    const second = await rows.next();
    res.status(200);
    res.setHeader("Content-Type", "text/csv; charset=utf-8");
    res.setHeader("Content-Disposition", `attachment; filename="transactions-${mode}-${new Date().toISOString().slice(0, 10)}.csv"`);
    // Readable.from pulls the next row only when the socket drains: one page of rows in memory.
    const body = Readable.from(
      (async function* () {
        if (!first.done) yield first.value;
        if (!second.done) yield second.value;
        yield* rows;
      })(),
    );
    // A failure mid-way (or the client leaving) ends the connection: the file is visibly incomplete.
    await pipeline(body, res).catch(() => {});
  });

  router.get("/transactions/:id", async (req, res) => {
    sendData(res, transactionDetail(await gateway.payments.dashboardTransaction(accessOf(gateway, res, isLiveOf(req)), String(req.params.id))));
  });

  // Issue 44: the customer's e-mails of this transaction, and whether e-mail is on at all.
  router.get("/transactions/:id/emails", async (req, res) => {
    const access = accessOf(gateway, res, isLiveOf(req));
    const emails = await gateway.email.list(access, { transactionId: String(req.params.id), limit: 100 });
    sendData(res, emailListBody(gateway, emails));
  });

  router.post("/events/:id/redeliver", async (req, res) => {
    sendData(res, deliveryReport(await gateway.payments.redeliverEvent(accessOf(gateway, res, isLiveOf(req)), String(req.params.id))));
  });
}

/** A list of messages as the dashboard shows them (a transaction's, an invoice's), with whether e-mail is on. */
export function emailListBody(gateway: PaymentGateway, emails: readonly EmailMessageRecord[]) {
  return {
    ...gateway.email.status(),
    emails: emails.map((m) => ({
      id: m.id,
      kind: m.kind,
      recipient: m.recipient,
      locale: m.locale,
      state: m.state.toLowerCase(),
      attempts: m.attemptCount,
      last_error: m.lastError,
      next_attempt_at: m.state === "QUEUED" ? m.nextAttemptAt.toISOString() : null,
      sent_at: m.sentAt?.toISOString() ?? null,
      created_at: m.createdAt.toISOString(),
    })),
  };
}

/** The query without `mode` (the dashboard's, not the list's): the list refuses parameters it does not know. */
function listQueryOf(req: Request): Record<string, unknown> {
  const { mode: _mode, ...query } = req.query;
  return query;
}

const decimal = (value: { toFixed(): string } | null) => (value === null ? null : value.toFixed());
const time = (value: Date | null) => value?.toISOString() ?? null;

/** A row of the list. Amounts are decimal strings, currencies slugs. */
export function transactionSummary(t: TransactionRecord) {
  return {
    id: t.id,
    reference: t.reference,
    created_at: t.createdAt.toISOString(),
    status: t.status,
    is_live: t.isLive,
    amount: t.initializedAmount.toFixed(),
    currency: fiatById(t.initializedCurrencyId)?.slug ?? null,
    payment_amount: decimal(t.paymentAmount),
    payment_currency: t.paymentCurrencyId === null ? null : (cryptoById(t.paymentCurrencyId)?.slug ?? null),
    amount_paid: decimal(t.amountPaid),
    customer_email: t.customerEmail,
    customer_name: t.customerName,
  };
}

function transactionDetail({ transaction: t, view, receipts, events }: TransactionDetail) {
  return {
    ...transactionSummary(t),
    description: t.description,
    amount_unconfirmed: decimal(t.amountUnconfirmed),
    payment_address: t.paymentAddress,
    refund_address: t.refundAddress,
    initiated_at: time(t.initiatedAt),
    expires_at: time(t.expiresAt),
    updated_at: t.updatedAt.toISOString(),
    quote: quoteObject(view),
    policies: policiesObject(t),
    payment: paymentObject(view),
    reversed_at: time(t.reversedAt),
    receipts: receipts.map((r) => ({
      tx_hash: r.txHash,
      key: r.key,
      amount: r.amount.toFixed(),
      confirmations: r.confirmations,
      block_height: r.blockHeight,
      status: r.status,
      replaceable: r.replaceable,
      source: r.source,
      first_seen_at: r.firstSeenAt.toISOString(),
    })),
    events: events.map(eventBody),
  };
}

function eventBody(e: EventWithAttempts) {
  return {
    id: e.id,
    type: e.type,
    created_at: e.createdAt.toISOString(),
    state: e.state,
    attempt_count: e.attemptCount,
    next_attempt_at: e.state === "PENDING" ? e.nextAttemptAt.toISOString() : null,
    delivered_at: time(e.deliveredAt),
    attempts: e.attempts.map(attemptBody),
  };
}

function attemptBody(a: Omit<AttemptRecord, "trigger"> & { trigger: string }) {
  return {
    attempted_at: a.attemptedAt.toISOString(),
    url: a.url,
    status_code: a.statusCode,
    latency_ms: a.latencyMs,
    response_body: a.responseBody,
    // Not kept when the answer came from a private address (src/core/private-targets.ts); any other answer has a body, if empty.
    response_body_withheld: a.statusCode !== null && a.responseBody === null,
    error: a.error,
    succeeded: a.succeeded,
    trigger: a.trigger,
    // What the receiver asked for with Retry-After, only when it sent one.
    ...(a.retryAfter ? { retry_after: a.retryAfter } : {}),
  };
}

function deliveryReport(report: DeliveryReport) {
  return {
    event_id: report.eventId,
    type: report.type,
    state: report.outcome.state,
    attempt: report.attempt && attemptBody(report.attempt),
  };
}
