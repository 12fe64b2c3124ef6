// The e-mail outbox on Prisma (src/core/stores/email.ts): the follower's cursor and reads of the events
// outbox and transactions (read only: the webhook tables are the webhooks'), the messages, and the
// sender's claim with FOR UPDATE SKIP LOCKED so two instances never take one message.
import { Decimal } from "../../core/money/amounts.ts";
import type {
  DisabledEndpoint,
  EmailFacts,
  EmailMessageRecord,
  FollowedEvent,
  FollowedSubjectEvent,
  PartPaidTransaction,
} from "../../core/records/email.ts";
import type { EmailStore } from "../../core/stores/email.ts";
import { Prisma } from "../generated/client.ts";
import type { Database } from "../types.ts";

/** A message as Prisma reads it: the record, with its facts still untyped JSON. */
type MessageRow = Omit<EmailMessageRecord, "facts"> & { facts: unknown };

const asMessage = (row: MessageRow): EmailMessageRecord => ({
  ...row,
  facts: (typeof row.facts === "string" ? JSON.parse(row.facts) : row.facts) as EmailFacts,
});

const MESSAGE_COLUMNS = Prisma.sql`id, merchant_id AS "merchantId", transaction_id AS "transactionId", refund_id AS "refundId", invoice_id AS "invoiceId",
  source, kind, recipient, locale, is_live AS "isLive", state::text AS "state", attempt_count AS "attemptCount",
  next_attempt_at AS "nextAttemptAt", last_error AS "lastError", facts, sent_at AS "sentAt", created_at AS "createdAt"`;

/** A transaction's messages are in its invoice's language when it pays one that has a language, else in its checkout's. */
const INVOICE_OR_CHECKOUT_LOCALE = Prisma.sql`COALESCE((SELECT i.locale FROM invoice_payments p JOIN invoices i ON i.id = p.invoice_id
  WHERE p.transaction_id = t.id), t.locale)`;

const exact = (value: string | null) => (value === null ? null : new Decimal(value));

export function emailStore(db: Database): EmailStore {
  return {
    async readCursor(name) {
      return (await db.emailCursor.findUnique({ where: { name } }))?.readUntil ?? null;
    },

    async writeCursor(name, readUntil) {
      await db.emailCursor.upsert({ where: { name }, create: { name, readUntil }, update: { readUntil } });
    },

    async eventsSince(from, after, types, limit) {
      const keyset = after === null ? Prisma.empty : Prisma.sql`AND (e.created_at, e.id) > (${after.createdAt}, ${after.id})`;
      const rows = await db.$queryRaw<(Omit<FollowedEvent, "initializedAmount"> & { initializedAmount: string })[]>`
        SELECT e.id, e.type, e.merchant_id AS "merchantId", m.name AS "merchantName", e.transaction_id AS "transactionId",
               e.refund_id AS "refundId", e.is_live AS "isLive", e.created_at AS "createdAt", e.body,
               t.reference, t.customer_email AS "customerEmail", ${INVOICE_OR_CHECKOUT_LOCALE} AS locale,
               t.initialized_amount::text AS "initializedAmount", t.initialized_currency_id AS "initializedCurrencyId"
        FROM webhook_events e
        JOIN transactions t ON t.id = e.transaction_id
        JOIN merchants m ON m.id = e.merchant_id
        WHERE e.created_at >= ${from} AND e.type IN (${Prisma.join(types)}) ${keyset}
        ORDER BY e.created_at, e.id
        LIMIT ${limit}`;
      return rows.map((r) => ({ ...r, initializedAmount: new Decimal(r.initializedAmount) }));
    },

    async subjectEventsSince(from, after, types, limit) {
      const keyset = after === null ? Prisma.empty : Prisma.sql`AND (e.created_at, e.id) > (${after.createdAt}, ${after.id})`;
      return db.$queryRaw<FollowedSubjectEvent[]>`
        SELECT e.id, e.type, e.merchant_id AS "merchantId", m.name AS "merchantName", e.subject_id AS "subjectId",
               e.is_live AS "isLive", e.created_at AS "createdAt", e.body
        FROM webhook_events e
        JOIN merchants m ON m.id = e.merchant_id
        WHERE e.subject_id IS NOT NULL AND e.created_at >= ${from} AND e.type IN (${Prisma.join(types)}) ${keyset}
        ORDER BY e.created_at, e.id
        LIMIT ${limit}`;
    },

    async endpointsDisabledSince(from, limit) {
      return db.$queryRaw<DisabledEndpoint[]>`
        SELECT w.id, w.merchant_id AS "merchantId", m.name AS "merchantName", w.is_live AS "isLive", w.url,
               w.disabled_at AS "disabledAt", w.disabled_reason AS "disabledReason"
        FROM webhook_endpoints w
        JOIN merchants m ON m.id = w.merchant_id
        WHERE w.disabled_at >= ${from}
        ORDER BY w.disabled_at, w.id
        LIMIT ${limit}`;
    },

    async noticeRecipients(merchantId) {
      const users = await db.dashboardUser.findMany({ where: { merchantId, emailNotices: true }, select: { email: true, noticeLocale: true } });
      return users.map((u) => ({ email: u.email.toLowerCase(), locale: u.noticeLocale }));
    },

    async noticesOf(merchantId, userId) {
      return (await db.dashboardUser.findFirst({ where: { id: userId, merchantId }, select: { emailNotices: true } }))?.emailNotices ?? null;
    },

    async setNotices(merchantId, userId, enabled) {
      return (await db.dashboardUser.updateMany({ where: { id: userId, merchantId }, data: { emailNotices: enabled } })).count === 1;
    },

    async noticeLocaleOf(merchantId, userId) {
      return (await db.dashboardUser.findFirst({ where: { id: userId, merchantId }, select: { noticeLocale: true } }))?.noticeLocale ?? null;
    },

    async setNoticeLocale(merchantId, userId, locale) {
      return (await db.dashboardUser.updateMany({ where: { id: userId, merchantId }, data: { noticeLocale: locale } })).count === 1;
    },

    async partPaid(kind, limit) {
      type Row = Omit<PartPaidTransaction, "paymentAmount" | "amountPaid" | "amountUnconfirmed" | "policyUnderpaymentTolerance"> & {
        paymentAmount: string | null;
        amountPaid: string | null;
        amountUnconfirmed: string | null;
        policyUnderpaymentTolerance: string | null;
      };
      const rows = await db.$queryRaw<Row[]>`
        SELECT t.id, t.merchant_id AS "merchantId", m.name AS "merchantName", t.reference, t.is_live AS "isLive",
               t.status::text AS "status", t.customer_email AS "customerEmail", ${INVOICE_OR_CHECKOUT_LOCALE} AS locale,
               t.payment_currency_id AS "paymentCurrencyId", t.payment_network AS "paymentNetwork",
               t.payment_amount::text AS "paymentAmount", t.amount_paid::text AS "amountPaid",
               t.amount_unconfirmed::text AS "amountUnconfirmed",
               t.policy_underpayment_tolerance::text AS "policyUnderpaymentTolerance", t.expires_at AS "expiresAt"
        FROM transactions t
        JOIN merchants m ON m.id = t.merchant_id
        WHERE t.status = 'PENDING' AND t.amount_paid > 0 AND t.amount_paid < t.payment_amount
          AND NOT EXISTS (SELECT 1 FROM email_messages x WHERE x.source = t.id AND x.kind = ${kind})
        ORDER BY t.created_at
        LIMIT ${limit}`;
      return rows.map((r) => ({
        ...r,
        paymentAmount: exact(r.paymentAmount),
        amountPaid: exact(r.amountPaid),
        amountUnconfirmed: exact(r.amountUnconfirmed),
        policyUnderpaymentTolerance: exact(r.policyUnderpaymentTolerance),
      }));
    },

    async userEmails(merchantId) {
      const users = await db.dashboardUser.findMany({ where: { merchantId }, select: { email: true } });
      return users.map((u) => u.email.toLowerCase());
    },

    async enqueue(messages) {
      if (messages.length === 0) return 0;
      const result = await db.emailMessage.createMany({
        data: messages.map((m) => ({ ...m, facts: m.facts as Prisma.InputJsonValue })),
        skipDuplicates: true,
      });
      return result.count;
    },

    async claimDue(now, staleBefore, limit, token) {
      const rows = await db.$queryRaw<MessageRow[]>`
        WITH due AS (
          SELECT id FROM email_messages
          WHERE (state = 'QUEUED' AND next_attempt_at <= ${now}) OR (state = 'SENDING' AND claimed_at < ${staleBefore})
          ORDER BY next_attempt_at
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        UPDATE email_messages SET state = 'SENDING', claim_token = ${token}, claimed_at = ${now}
        FROM due WHERE email_messages.id = due.id
        RETURNING ${Prisma.sql`email_messages.id, email_messages.merchant_id AS "merchantId", email_messages.transaction_id AS "transactionId",
          email_messages.refund_id AS "refundId", email_messages.invoice_id AS "invoiceId", email_messages.source, email_messages.kind, email_messages.recipient,
          email_messages.locale, email_messages.is_live AS "isLive", email_messages.state::text AS "state",
          email_messages.attempt_count AS "attemptCount", email_messages.next_attempt_at AS "nextAttemptAt",
          email_messages.last_error AS "lastError", email_messages.facts, email_messages.sent_at AS "sentAt",
          email_messages.created_at AS "createdAt"`}`;
      return rows.map(asMessage).sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime());
    },

    async settle(id, token, s) {
      const result = await db.emailMessage.updateMany({
        where: { id, claimToken: token, state: "SENDING" },
        data: { ...s, claimToken: null, claimedAt: null },
      });
      return result.count === 1;
    },

    async linkSources(message) {
      const transaction =
        message.transactionId === null
          ? null
          : await db.transaction.findUnique({ where: { id: message.transactionId }, select: { clientSecretEnc: true, status: true } });
      const refund =
        message.refundId === null
          ? null
          : await db.refund.findUnique({ where: { id: message.refundId }, select: { claimTokenEnc: true, state: true, destination: true } });
      return {
        clientSecretEnc: transaction?.clientSecretEnc ?? null,
        transactionOpen: transaction?.status === "PENDING" || transaction?.status === "INITIATED",
        claimTokenEnc: refund && refund.state === "pending" && refund.destination === null ? refund.claimTokenEnc : null,
      };
    },

    async list(merchantId, isLive, limit, about = {}) {
      const only =
        about.transactionId !== undefined
          ? Prisma.sql`AND transaction_id = ${about.transactionId}`
          : about.invoiceId !== undefined
            ? Prisma.sql`AND invoice_id = ${about.invoiceId}`
            : Prisma.empty;
      const rows = await db.$queryRaw<MessageRow[]>`
        SELECT ${MESSAGE_COLUMNS} FROM email_messages
        WHERE merchant_id = ${merchantId} AND is_live = ${isLive} ${only}
        ORDER BY created_at DESC, id DESC
        LIMIT ${limit}`;
      return rows.map(asMessage);
    },
  };
}
