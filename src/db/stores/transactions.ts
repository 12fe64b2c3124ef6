// Initialize is the hot path of the API. Prisma's `create` spends about 0.9 ms of CPU per row
// building and reading back the query; this one statement spends about 0.35 ms (README, Benchmark).
// It writes the transaction and its payment.initiated event together, as the outbox hook would
// (src/db/outbox.ts): one statement is one database transaction.
// The returned row is typed as Prisma's model, so a column added to the schema fails to compile here.
import { paymentEventFor } from "../core/events/payment-events.ts";
import { Prisma, type Transaction } from "./generated/client.ts";
import type { IdempotencyRecord, NewTransaction, TransactionStore } from "../core/ports.ts";
import type { Database } from "./types.ts";

/** The core's TransactionStore on this database. */
export function transactionStore(db: Database): TransactionStore {
  return { insertInitiated: (t, merchant, idempotency) => insertInitiatedTransaction(db, t, merchant, idempotency) };
}

export async function insertInitiatedTransaction(
  db: Database,
  t: NewTransaction,
  merchant: { name: string },
  idempotency: IdempotencyRecord | null = null,
): Promise<Transaction> {
  const row: Transaction = {
    ...t,
    status: "INITIATED",
    initializedAmount: new Prisma.Decimal(t.initializedAmount),
    requestMeta: t.requestMeta as Prisma.JsonObject,
    paymentCurrencyId: null,
    paymentAmount: null,
    amountPaid: null,
    amountUnconfirmed: null,
    paymentAddress: null,
    walletId: null,
    derivationIndex: null,
    refundAddress: null,
    quoteRate: null,
    quoteSource: null,
    quotedAt: null,
    initiatedAt: null,
    updatedAt: t.createdAt,
  };
  const event = paymentEventFor({ ...row, merchant });
  const meta = JSON.stringify(t.requestMeta);
  // A key already taken fails the whole statement (primary key), so nothing is created twice.
  const remembered = idempotency
    ? Prisma.sql`, remembered AS (
      INSERT INTO idempotency_keys (merchant_id, is_live, key, operation, fingerprint, transaction_id, created_at)
      SELECT ${t.merchantId}, ${t.isLive}, ${idempotency.key}, 'initialize', ${idempotency.fingerprint}, created.id, ${t.createdAt}
      FROM created)`
    : Prisma.empty;
  await db.$executeRaw`
    WITH created AS (
      INSERT INTO transactions (id, reference, merchant_id, customer_email, customer_name, payment_link_id, is_live,
        status, description, initialized_amount, initialized_currency_id, request_meta, created_at, updated_at, expires_at)
      VALUES (${t.id}, ${t.reference}, ${t.merchantId}, ${t.customerEmail}, ${t.customerName}, ${t.paymentLinkId}, ${t.isLive},
        'INITIATED', ${t.description}, ${t.initializedAmount}::numeric, ${t.initializedCurrencyId}, ${meta}::jsonb,
        ${t.createdAt}, ${t.createdAt}, ${t.expiresAt})
      RETURNING id)${remembered}
    INSERT INTO webhook_events (id, merchant_id, transaction_id, type, is_live, body, next_attempt_at, created_at)
    SELECT ${event.id}, ${t.merchantId}, created.id, ${event.type}, ${t.isLive}, ${event.body}, ${t.createdAt}, ${t.createdAt}
    FROM created`;
  return row;
}
