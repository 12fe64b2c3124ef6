// The transactional outbox: every state change of a transaction writes its webhook event in the
// same database transaction (spec 6). A Prisma client extension (Prisma 7's replacement of
// middleware) hooks the model's writes, so no code path can change a state and forget its event,
// and a rolled-back change leaves no event behind. The dispatcher (src/webhooks) delivers them.
// The same hook announces every write of a transaction (NOTIFY, src/db/notifications.ts) in that
// database transaction: live updates and event streams hear of it once it commits. Dispatchers are
// woken by the outbox's own triggers, only for an event due for an endpoint (paygate_deliveries_due).
// A transaction that pays the last part of an invoice writes invoice.paid there too, or invoice.partially_paid for a part (core/invoices/events.ts).
import { AsyncLocalStorage } from "node:async_hooks";
import { type OutboxEvent, paymentOutboxEvent } from "../core/events/outbox-event.ts";
import { EVENT_FOR_STATUS } from "../core/events/payment-events.ts";
import { invoicePaymentEvent } from "../core/invoices/events.ts";
import { DEFAULT_LIFECYCLE, type LifecyclePolicy } from "../core/policies.ts";
import { Prisma, type PrismaClient } from "./generated/client.ts";
import { mayHaveReceipts } from "../core/transactions/receipts.ts";
import { notifySql } from "./notifications.ts";
import { asRecord, paymentsOf } from "./stores/invoice-rows.ts";
import { receiptsOf } from "./stores/rows.ts";
import type { Database, DatabaseTransaction } from "./types.ts";

/** Writes that the outbox sees row by row, so it knows which transactions changed. */
const HOOKED_WRITES = ["create", "update", "upsert", "updateManyAndReturn", "createManyAndReturn"] as const;
type HookedWrite = (typeof HOOKED_WRITES)[number];
/** Writes that do not say which rows they changed: refused, so none slips past the outbox. */
const REFUSED_WRITES = ["updateMany", "createMany"] as const;

/**
 * The client the application uses. A write of a transaction inside a batch `$transaction([...])`
 * would get its event in a transaction of its own, outside the batch: use the callback form. Its API is the plain client's (a query extension changes no
 * types), so it is typed as one; `$transaction` additionally lets the hooks write events on the
 * caller's own database transaction.
 */
export function withOutbox(base: PrismaClient, rules: EventRules = { policy: DEFAULT_LIFECYCLE, publicUrl: "" }): Database {
  // The interactive transaction a hooked write runs in, if any (set by $transaction below).
  const openTransaction = new AsyncLocalStorage<DatabaseTransaction>();

  const hooked = base.$extends({
    name: "paygate-outbox",
    query: {
      transaction: {
        async $allOperations({ operation, args, query }) {
          if ((REFUSED_WRITES as readonly string[]).includes(operation)) {
            throw new Error(`transaction.${operation} is refused: the webhook outbox must see the rows a write changes; use ${operation}AndReturn`);
          }
          if (!(HOOKED_WRITES as readonly string[]).includes(operation)) return query(args);
          const write = operation as HookedWrite;
          const withId = selectingId(args);
          const tx = openTransaction.getStore();
          if (tx) {
            const result = await query(withId as typeof args);
            await writeEvents(tx, changedIds(result), rules);
            return result;
          }
          // A lone write: run it and its events in a database transaction of their own.
          return base.$transaction(async (own) => {
            const result: unknown = await Reflect.apply(own.transaction[write], own.transaction, [withId]);
            await writeEvents(own, changedIds(result), rules);
            return result;
          });
        },
      },
    },
  });

  const outboxed = hooked.$extends({
    client: {
      $transaction(...params: unknown[]) {
        const [fn, options] = params;
        if (typeof fn !== "function") return Reflect.apply(hooked.$transaction, hooked, params);
        return hooked.$transaction(
          (tx) => openTransaction.run(tx as unknown as DatabaseTransaction, () => Reflect.apply(fn, undefined, [tx])),
          options as Parameters<typeof hooked.$transaction>[1],
        );
      },
    },
  });
  // Query hooks and the $transaction wrapper keep the client's shape (see the comment above).
  return outboxed as unknown as Database;
}

/** What the events' bodies are built with: the operator's lifecycle settings, set once the configuration is read. */
export interface EventRules {
  policy: LifecyclePolicy;
  /** PAYGATE_PUBLIC_URL, for an invoice's hosted_url in invoice.paid ("" until the runtime sets it). */
  publicUrl: string;
}

const eventRules = new WeakMap<object, EventRules>();

/** Registers the rules the outbox of `db` builds its events with (openDatabaseOn). */
export function useEventRules(db: Database, rules: EventRules): void {
  eventRules.set(db, rules);
}

/** The operator's lifecycle settings for the events written on `db` (the runtime sets them; the defaults before). */
export function setEventPolicy(db: Database, policy: LifecyclePolicy): void {
  const rules = eventRules.get(db);
  if (rules) rules.policy = policy;
  else eventRules.set(db, { policy, publicUrl: "" });
}

/** The service's public URL, which invoice.paid's invoice shows in hosted_url (the runtime sets it). */
export function setEventPublicUrl(db: Database, publicUrl: string): void {
  const rules = eventRules.get(db);
  if (rules) rules.publicUrl = publicUrl;
  else eventRules.set(db, { policy: DEFAULT_LIFECYCLE, publicUrl });
}

/** The lifecycle settings events on `db` are built with: the one-statement writers build theirs as the hook does. */
export function eventPolicyOf(db: Database): LifecyclePolicy {
  return eventRules.get(db)?.policy ?? DEFAULT_LIFECYCLE;
}

/**
 * One event per (transaction, state): a write that did not change the state adds none. Every
 * written transaction is announced, with or without an event (receipts and confirmations change
 * amounts without a state change, and subscribers follow those too).
 */
async function writeEvents(tx: DatabaseTransaction, ids: string[], { policy, publicUrl }: EventRules): Promise<void> {
  if (ids.length === 0) return;
  const rows = await tx.transaction.findMany({ where: { id: { in: ids } }, include: { merchant: { select: { name: true } } } });
  // The payload's receipts, in one query for the rows that can have any (none before a first payment).
  const paid = rows.filter(mayHaveReceipts).map((row) => row.id);
  const receipts = paid.length === 0 ? [] : await receiptsOf(tx, paid);
  const now = new Date();
  const events = rows.map((row) => paymentOutboxEvent({ ...row, receipts: receipts.filter((r) => r.transactionId === row.id) }, now, policy));
  const written = events.length === 0 ? [] : await tx.$queryRaw<{ transactionId: string }[]>(insertEventsSql(events));
  const withEvent = new Set(written.map((event) => event.transactionId));
  // Only a transaction that has just become SUCCESSFUL (its payment.received written now) can pay an invoice's last part.
  const received = events.flatMap((e) =>
    e.type === EVENT_FOR_STATUS.SUCCESSFUL && e.transactionId && withEvent.has(e.transactionId) ? [e.transactionId] : [],
  );
  if (received.length > 0) await writeInvoicePaidEvents(tx, received, publicUrl, now);
  await tx.$executeRaw(notifySql([...new Set(ids)].map((id) => ({ transactionId: id, eventWritten: withEvent.has(id) }))));
}

/**
 * invoice.paid for the invoices these newly SUCCESSFUL transactions pay in full, invoice.partially_paid for those they pay a part of (the core decides); one
 * lookup by invoice_payments' primary key, and nothing more for a transaction of no invoice. The invoice's
 * row lock orders two of its payments succeeding at once: the later one reads the earlier's status.
 */
async function writeInvoicePaidEvents(tx: DatabaseTransaction, transactionIds: string[], publicUrl: string, now: Date): Promise<void> {
  const links = await tx.invoicePayment.findMany({ where: { transactionId: { in: transactionIds } }, select: { invoiceId: true } });
  if (links.length === 0) return;
  const invoiceIds = [...new Set(links.map((l) => l.invoiceId))].sort();
  await tx.$queryRaw`SELECT id FROM invoices WHERE id IN (${Prisma.join(invoiceIds)}) ORDER BY id FOR UPDATE`;
  const invoices = await tx.invoice.findMany({ where: { id: { in: invoiceIds } } });
  const payments = await paymentsOf(tx, invoiceIds);
  const events = invoices.flatMap((row) => {
    const event = invoicePaymentEvent(
      asRecord(row),
      payments.filter((p) => p.invoiceId === row.id),
      publicUrl,
      now,
    );
    return event ? [event] : [];
  });
  if (events.length > 0) await tx.$executeRaw(insertEventsSql(events));
}

/**
 * The one INSERT of outbox rows, for every writer (the hook above, initialize's and initiate's
 * statements, refunds, subjects' events). An event the transaction or subject already has (same state) is skipped. `onlyIf`, a
 * FROM list inside a larger statement, writes them only when it has a row. Answers the transaction
 * ids of the rows written (null for a subject's). Times go as ISO text with their zone, whatever the session's.
 *
 * `firstOfItsKind`: the caller's own statement makes the state the event tells, which no earlier
 * statement can have made (a transaction created; moved out of INITIATED, which nothing moves back
 * to), so none can be there to skip. Such an event is written without ON CONFLICT, whose
 * speculative insertion costs PostgreSQL a lock and one more WAL record (docs/benchmarks.md, issue
 * 47); were one there after all, the unique index would fail the statement rather than skip it.
 */
export function insertEventsSql(
  events: readonly OutboxEvent[],
  { onlyIf, firstOfItsKind = false }: { onlyIf?: Prisma.Sql; firstOfItsKind?: boolean } = {},
): Prisma.Sql {
  const values = events.map(
    (e) =>
      Prisma.sql`(${e.id}, ${e.merchantId}::int, ${e.transactionId}::text, ${e.refundId}::text, ${e.subjectId}::text, ${e.type}, ${e.isLive}::boolean, ${e.body},
        ${e.createdAt.toISOString()}::timestamptz, ${e.subjectRound ?? 0}::int)`,
  );
  return Prisma.sql`
    INSERT INTO webhook_events (id, merchant_id, transaction_id, refund_id, subject_id, type, is_live, body, created_at, subject_round)
    SELECT e.* FROM (VALUES ${Prisma.join(values)}) AS e${onlyIf ? Prisma.sql` WHERE EXISTS (SELECT 1 FROM ${onlyIf})` : Prisma.empty}
    ${firstOfItsKind ? Prisma.empty : Prisma.sql`ON CONFLICT DO NOTHING`}
    RETURNING transaction_id AS "transactionId"`;
}

/**
 * insertEventsSql's rows as one array per column: the same statement text for any number of events
 * (one prepared statement), for the group commits (stores/initialize-groups.ts, move-groups.ts).
 * `onlyIf` is a condition on each row, which may name `e.ord`, the event's place in `events` (from 0).
 * Written without ON CONFLICT: its caller's statement makes the states its events tell (see
 * insertEventsSql's `firstOfItsKind`).
 */
export function insertEventRowsSql(events: readonly OutboxEvent[], { onlyIf }: { onlyIf: Prisma.Sql }): Prisma.Sql {
  const column = <T>(of: (event: OutboxEvent) => T) => events.map(of);
  return Prisma.sql`
    INSERT INTO webhook_events (id, merchant_id, transaction_id, refund_id, subject_id, type, is_live, body, created_at, subject_round)
    SELECT e.id, e.merchant_id, e.transaction_id, e.refund_id, e.subject_id, e.type, e.is_live, e.body, e.created_at, e.subject_round
    FROM unnest(${events.map((_, i) => i)}::int[], ${column((e) => e.id)}::text[], ${column((e) => e.merchantId)}::int[],
      ${column((e) => e.transactionId)}::text[], ${column((e) => e.refundId)}::text[], ${column((e) => e.subjectId)}::text[],
      ${column((e) => e.type)}::text[], ${column((e) => e.isLive)}::boolean[], ${column((e) => e.body)}::text[],
      ${column((e) => e.createdAt.toISOString())}::timestamptz[], ${column((e) => e.subjectRound ?? 0)}::int[])
      AS e(ord, id, merchant_id, transaction_id, refund_id, subject_id, type, is_live, body, created_at, subject_round)
    WHERE ${onlyIf}
    RETURNING transaction_id AS "transactionId"`;
}

function selectingId<A>(args: A): A {
  if (typeof args !== "object" || args === null || !("select" in args)) return args;
  const select = (args as { select?: Record<string, unknown> }).select;
  return select ? { ...args, select: { ...select, id: true } } : args;
}

function changedIds(result: unknown): string[] {
  const rows = Array.isArray(result) ? result : [result];
  return rows.flatMap((row) => (typeof row === "object" && row !== null && "id" in row && typeof row.id === "string" ? [row.id] : []));
}
