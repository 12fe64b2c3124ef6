// Invoice rows as the core's records, shared by the invoice store and the outbox hook (invoice.paid,
// src/db/outbox.ts), which must not import the store (the store imports the outbox's insert).
import { Decimal } from "../../core/money/amounts.ts";
import type { InvoicePaymentRecord, InvoiceRecord } from "../../core/records/invoices.ts";
import type { Database, DatabaseTransaction } from "../types.ts";

export interface InvoiceRow extends Omit<InvoiceRecord, "subtotal" | "taxTotal" | "total" | "items" | "taxes" | "state"> {
  state: string;
  items: unknown;
  taxes: unknown;
  subtotal: { toString(): string };
  taxTotal: { toString(): string };
  total: { toString(): string };
}

/** The row as the core's record: amounts in the core's Decimal; state, items and taxes as the core wrote them. */
export function asRecord(row: InvoiceRow): InvoiceRecord {
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

export const maybe = (row: InvoiceRow | null) => (row ? asRecord(row) : null);

/** The transactions of these invoices, oldest first, with what each counts (status, amounts). */
export async function paymentsOf(db: Database | DatabaseTransaction, invoiceIds: readonly string[]): Promise<InvoicePaymentRecord[]> {
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
