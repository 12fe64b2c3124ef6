// Invoices on Prisma (src/core/stores/invoices.ts). A number is taken from the merchant and mode's
// counter row (invoice_numbers) inside the database transaction that writes it: its row lock orders
// concurrent finalizations, and a rollback gives the number back, so numbers have no gaps.
import { Decimal } from "../../core/money/amounts.ts";
import type { InvoicePaymentRecord, InvoiceRecord } from "../../core/records/invoices.ts";
import type { InvoiceStore } from "../../core/stores/invoices.ts";
import type { Database, DatabaseTransaction } from "../types.ts";

interface InvoiceRow extends Omit<InvoiceRecord, "subtotal" | "taxTotal" | "total" | "items" | "taxes" | "state"> {
  state: string;
  items: unknown;
  taxes: unknown;
  subtotal: { toString(): string };
  taxTotal: { toString(): string };
  total: { toString(): string };
}

/** The row as the core's record: amounts in the core's Decimal; state, items and taxes as the core wrote them. */
function asRecord(row: InvoiceRow): InvoiceRecord {
  return {
    ...row,
    state: row.state as InvoiceRecord["state"],
    items: row.items as InvoiceRecord["items"],
    taxes: row.taxes as InvoiceRecord["taxes"],
    subtotal: new Decimal(row.subtotal.toString()),
    taxTotal: new Decimal(row.taxTotal.toString()),
    total: new Decimal(row.total.toString()),
  };
}

const maybe = (row: InvoiceRow | null) => (row ? asRecord(row) : null);

/** The mode's next number, under the counter row's lock until the surrounding transaction ends. */
async function nextSequence(tx: DatabaseTransaction, merchantId: number, isLive: boolean): Promise<number> {
  const [row] = await tx.$queryRaw<{ last: number }[]>`
    INSERT INTO invoice_numbers (merchant_id, is_live, last) VALUES (${merchantId}, ${isLive}, 1)
    ON CONFLICT (merchant_id, is_live) DO UPDATE SET last = invoice_numbers.last + 1
    RETURNING last`;
  if (!row) throw new Error("The invoice counter returned no number");
  return row.last;
}

async function paymentsOf(db: Database | DatabaseTransaction, invoiceIds: readonly string[]): Promise<InvoicePaymentRecord[]> {
  if (invoiceIds.length === 0) return [];
  const rows = await db.invoicePayment.findMany({
    where: { invoiceId: { in: [...invoiceIds] } },
    include: { transaction: { select: { status: true, initializedAmount: true, amountPaid: true, quoteRate: true, reversedAt: true } } },
    orderBy: [{ createdAt: "asc" }, { transactionId: "asc" }],
  });
  return rows.map((row) => ({
    invoiceId: row.invoiceId,
    transactionId: row.transactionId,
    status: row.transaction.status,
    initializedAmount: new Decimal(row.transaction.initializedAmount.toString()),
    amountPaid: row.transaction.amountPaid === null ? null : new Decimal(row.transaction.amountPaid.toString()),
    quoteRate: row.transaction.quoteRate === null ? null : new Decimal(row.transaction.quoteRate.toString()),
    reversedAt: row.transaction.reversedAt,
    createdAt: row.createdAt,
  }));
}

export function invoiceStore(db: Database): InvoiceStore {
  return {
    create: (invoice, finalize) =>
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
        return asRecord(row);
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

    finalize: (id, now) =>
      db.$transaction(async (tx) => {
        const [draft] = await tx.$queryRaw<{ merchant_id: number; is_live: boolean }[]>`
          SELECT merchant_id, is_live FROM invoices WHERE id = ${id} AND state = 'draft' FOR UPDATE`;
        if (!draft) return null;
        const sequence = await nextSequence(tx, draft.merchant_id, draft.is_live);
        return asRecord(await tx.invoice.update({ where: { id }, data: { state: "open", sequence, finalizedAt: now } }));
      }),

    void: (id, now, check) =>
      db.$transaction(async (tx) => {
        // The invoice's row lock: a Pay that links a transaction waits for the void, or the void sees it.
        const [row] = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM invoices WHERE id = ${id} AND state IN ('draft', 'open') FOR UPDATE`;
        if (!row) return null;
        check(await paymentsOf(tx, [id]));
        return asRecord(await tx.invoice.update({ where: { id }, data: { state: "void", voidedAt: now } }));
      }),

    paymentsOf: (invoiceIds) => paymentsOf(db, invoiceIds),

    addPayment: (invoiceId, transactionId, now) =>
      db.$transaction(async (tx) => {
        const [open] = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM invoices WHERE id = ${invoiceId} AND state = 'open' FOR UPDATE`;
        if (!open) return false;
        await tx.invoicePayment.create({ data: { invoiceId, transactionId, createdAt: now } });
        return true;
      }),
  };
}
