// Invoices on Prisma (src/core/stores/invoices.ts). A number is taken from the merchant and mode's
// counter row (invoice_numbers) inside the database transaction that writes it: its row lock orders
// concurrent finalizations, and a rollback gives the number back, so numbers have no gaps.
import type { InvoiceRecord } from "../../core/records/invoices.ts";
import type { InvoiceAuditOf, InvoiceEventOf, InvoiceStore } from "../../core/stores/invoices.ts";
import { Prisma } from "../generated/client.ts";
import { insertEventsSql } from "../outbox.ts";
import type { Database, DatabaseTransaction } from "../types.ts";
import { auditRow } from "./audit-log.ts";
import { asRecord, maybe, paymentsOf } from "./invoice-rows.ts";

/** Writes the change's audit entry on its database transaction: rolled back with it, never without it. */
async function writeAudit(tx: DatabaseTransaction, changed: InvoiceRecord, auditOf: InvoiceAuditOf): Promise<InvoiceRecord> {
  await tx.auditLogEntry.create({ data: auditRow(auditOf(changed)) });
  return changed;
}

/** Writes the change's event (if any) and its audit entry on its database transaction. */
async function writeEventAndAudit(tx: DatabaseTransaction, changed: InvoiceRecord, eventOf: InvoiceEventOf, auditOf: InvoiceAuditOf) {
  const event = eventOf(changed, await paymentsOf(tx, [changed.id]));
  if (event) await tx.$executeRaw(insertEventsSql([event]));
  return writeAudit(tx, changed, auditOf);
}

/** The mode's next number, under the counter row's lock until the surrounding transaction ends. */
async function nextSequence(tx: DatabaseTransaction, merchantId: number, isLive: boolean): Promise<number> {
  const [row] = await tx.$queryRaw<{ last: number }[]>`
    INSERT INTO invoice_numbers (merchant_id, is_live, last) VALUES (${merchantId}, ${isLive}, 1)
    ON CONFLICT (merchant_id, is_live) DO UPDATE SET last = invoice_numbers.last + 1
    RETURNING last`;
  if (!row) throw new Error("The invoice counter returned no number");
  return row.last;
}

export function invoiceStore(db: Database): InvoiceStore {
  return {
    create: (invoice, finalize, eventOf, auditOf) =>
      db.$transaction(async (tx) => {
        const sequence = finalize ? await nextSequence(tx, invoice.merchantId, invoice.isLive) : null;
        const row = await tx.invoice.create({
          data: {
            ...invoice,
            sequence,
            items: invoice.items.map((item) => ({ ...item })),
            taxes: invoice.taxes.map((tax) => ({ ...tax })),
            subtotal: invoice.subtotal.toFixed(),
            taxTotal: invoice.taxTotal.toFixed(),
            total: invoice.total.toFixed(),
            updatedAt: invoice.createdAt,
          },
        });
        return writeEventAndAudit(tx, asRecord(row), eventOf, auditOf);
      }),

    findFor: async (id, merchantId, isLive) => maybe(await db.invoice.findFirst({ where: { id, merchantId, isLive } })),

    findByToken: async (token) => maybe(await db.invoice.findUnique({ where: { token } })),

    async page(query) {
      const after = query.after;
      const rows = await db.invoice.findMany({
        where: {
          merchantId: query.merchantId,
          isLive: query.isLive,
          ...(after === null ? {} : { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }),
        },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: query.limit,
      });
      return rows.map(asRecord);
    },

    finalize: (id, now, eventOf, auditOf) =>
      db.$transaction(async (tx) => {
        const [draft] = await tx.$queryRaw<{ merchant_id: number; is_live: boolean }[]>`
          SELECT merchant_id, is_live FROM invoices WHERE id = ${id} AND state = 'draft' FOR UPDATE`;
        if (!draft) return null;
        const sequence = await nextSequence(tx, draft.merchant_id, draft.is_live);
        const finalized = await tx.invoice.update({ where: { id }, data: { state: "open", sequence, finalizedAt: now } });
        return writeEventAndAudit(tx, asRecord(finalized), eventOf, auditOf);
      }),

    setLocale: (id, locale, now, auditOf) =>
      db.$transaction(async (tx) => {
        const changed = await tx.invoice.updateMany({ where: { id, state: { in: ["draft", "open"] } }, data: { locale, updatedAt: now } });
        const invoice = changed.count === 1 ? maybe(await tx.invoice.findUnique({ where: { id } })) : null;
        return invoice && writeAudit(tx, invoice, auditOf);
      }),

    void: (id, now, check, eventOf, auditOf) =>
      db.$transaction(async (tx) => {
        // The invoice's row lock: a Pay that links a transaction waits for the void, or the void sees it.
        const [row] = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM invoices WHERE id = ${id} AND state IN ('draft', 'open') FOR UPDATE`;
        if (!row) return null;
        check(await paymentsOf(tx, [id]));
        return writeEventAndAudit(tx, asRecord(await tx.invoice.update({ where: { id }, data: { state: "void", voidedAt: now } })), eventOf, auditOf);
      }),

    paymentsOf: (invoiceIds) => paymentsOf(db, invoiceIds),

    async openDueWithin(q) {
      const day = (d: Date) => d.toISOString().slice(0, 10);
      const after = q.afterId === null ? Prisma.empty : Prisma.sql`AND i.id > ${q.afterId}`;
      const without =
        q.withoutEvent === null
          ? Prisma.empty
          : Prisma.sql`AND NOT EXISTS (SELECT 1 FROM webhook_events e WHERE e.subject_id = i.id AND e.type = ${q.withoutEvent})`;
      const ids = await db.$queryRaw<{ id: string }[]>`
        SELECT i.id FROM invoices i
        WHERE i.state = 'open' AND i.due_date IS NOT NULL
          AND i.due_date BETWEEN ${day(q.fromDay)}::date AND ${day(q.toDay)}::date ${after} ${without}
        ORDER BY i.id
        LIMIT ${q.limit}`;
      if (ids.length === 0) return [];
      const rows = await db.invoice.findMany({ where: { id: { in: ids.map((r) => r.id) } }, orderBy: { id: "asc" } });
      return rows.map(asRecord);
    },

    async writeEvents(events) {
      if (events.length === 0) return 0;
      return (await db.$queryRaw<unknown[]>(insertEventsSql(events))).length;
    },

    addPayment: (invoiceId, transactionId, now) =>
      db.$transaction(async (tx) => {
        const [open] = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM invoices WHERE id = ${invoiceId} AND state = 'open' FOR UPDATE`;
        if (!open) return false;
        await tx.invoicePayment.create({ data: { invoiceId, transactionId, createdAt: now } });
        return true;
      }),
  };
}
