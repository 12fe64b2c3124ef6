// Initialize's group commit (group-commit.ts, issue 47): the initializes that arrive while one is
// being written are written together by the next statement, each transaction with its own
// payment.initiated event and announcement. Requests with an Idempotency-Key are never grouped: their
// key is written with the row (transactions.ts).
import type { OutboxEvent } from "../../core/events/outbox-event.ts";
import { queryDirect } from "../direct-sql.ts";
import { Prisma, type Transaction } from "../generated/client.ts";
import { CHANGES_CHANNEL, changePayload } from "../notifications.ts";
import { insertEventRowsSql } from "../outbox.ts";
import type { Database } from "../types.ts";
import { GROUP_COMMIT, type GroupCommit, groupCommit, type GroupCommitOptions } from "./group-commit.ts";

/** One initialize's write: the row as inserted and its event. */
export interface InitializeWrite {
  row: Transaction;
  event: OutboxEvent;
}

/** Resolves once the transaction is committed with its event and announcement. */
export type InitializeGroups = GroupCommit<InitializeWrite, void>;

/** `alone`: one initialize's own statement (transactions.ts). */
export function initializeGroups(
  db: Database,
  alone: (write: InitializeWrite) => Promise<void>,
  options: GroupCommitOptions = GROUP_COMMIT,
): InitializeGroups {
  return groupCommit(
    alone,
    async (writes) => {
      await queryDirect(db, groupStatement(writes));
      return writes.map(() => undefined);
    },
    options,
  );
}

const iso = (date: Date | null) => (date === null ? null : date.toISOString());
const text = (value: { toString(): string } | null) => (value === null ? null : value.toString());

/**
 * The transactions, their events and announcements in one statement whose text is the same for any
 * number of them (one prepared statement): each column is an array. Like the statement of one,
 * without ON CONFLICT: a key taken fails the whole group.
 */
export function groupStatement(writes: readonly InitializeWrite[]): Prisma.Sql {
  const rows = writes.map((w) => w.row);
  const column = <T>(of: (row: Transaction) => T) => rows.map(of);
  return Prisma.sql`
    WITH created AS (
      INSERT INTO transactions (id, reference, merchant_id, customer_email, customer_email_key, customer_name, payment_link_id, is_live,
        status, description, initialized_amount, initialized_currency_id, request_meta, created_at, updated_at, expires_at,
        client_secret_enc, return_url, cancel_url, locale, policy_expires_in, policy_underpayment_tolerance, policy_confirmations,
        policy_late_payment_percent)
      SELECT r.id, r.reference, r.merchant_id, r.customer_email, r.customer_email_key, r.customer_name, r.payment_link_id, r.is_live,
        'INITIATED', r.description, r.initialized_amount, r.initialized_currency_id, r.request_meta::jsonb, r.created_at, r.created_at, r.expires_at,
        r.client_secret_enc, r.return_url, r.cancel_url, r.locale, r.policy_expires_in, r.policy_underpayment_tolerance, r.policy_confirmations::jsonb,
        r.policy_late_payment_percent
      FROM unnest(${column((r) => r.id)}::text[], ${column((r) => r.reference)}::text[], ${column((r) => r.merchantId)}::int[],
        ${column((r) => r.customerEmail)}::text[], ${column((r) => r.customerEmailKey)}::text[], ${column((r) => r.customerName)}::text[],
        ${column((r) => r.paymentLinkId)}::int[], ${column((r) => r.isLive)}::boolean[], ${column((r) => r.description)}::text[],
        ${column((r) => text(r.initializedAmount))}::numeric[], ${column((r) => r.initializedCurrencyId)}::int[],
        ${column((r) => JSON.stringify(r.requestMeta))}::text[], ${column((r) => iso(r.createdAt))}::timestamptz[],
        ${column((r) => iso(r.expiresAt))}::timestamptz[], ${column((r) => r.clientSecretEnc)}::text[], ${column((r) => r.returnUrl)}::text[],
        ${column((r) => r.cancelUrl)}::text[], ${column((r) => r.locale)}::text[], ${column((r) => r.policyExpiresIn)}::int[],
        ${column((r) => text(r.policyUnderpaymentTolerance))}::numeric[],
        ${column((r) => (r.policyConfirmations === null ? null : JSON.stringify(r.policyConfirmations)))}::text[],
        ${column((r) => text(r.policyLatePaymentPercent))}::numeric[])
        AS r(id, reference, merchant_id, customer_email, customer_email_key, customer_name, payment_link_id, is_live, description,
          initialized_amount, initialized_currency_id, request_meta, created_at, expires_at, client_secret_enc, return_url, cancel_url,
          locale, policy_expires_in, policy_underpayment_tolerance, policy_confirmations, policy_late_payment_percent)
      RETURNING id),
    -- Counted, so that every announcement is made (a row source read through EXISTS would stop at its first).
    notified AS (
      SELECT count(*) AS announced FROM (
        SELECT pg_notify(${CHANGES_CHANNEL}, p) FROM unnest(${column((r) => changePayload(r.id, true))}::text[]) AS p
        WHERE EXISTS (SELECT 1 FROM created)) AS each)
    ${insertEventRowsSql(
      writes.map((w) => w.event),
      { onlyIf: Prisma.sql`EXISTS (SELECT 1 FROM created CROSS JOIN notified)` },
    )}`;
}
