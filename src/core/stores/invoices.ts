// Invoices (issue 44): records, gapless numbers and the transactions that pay them.
// src/db/stores/invoices.ts implements it; the rules are in src/core/invoices.
import type { OutboxEvent } from "../records/events.ts";
import type { AuditWrite } from "./audit-log.ts";
import type { InvoicePaymentRecord, InvoiceRecord } from "../records/invoices.ts";

export type NewInvoice = Omit<InvoiceRecord, "updatedAt" | "voidedAt">;

/** A page of a merchant's invoices in one mode, newest first, (createdAt, id) as the cursor. */
export interface InvoiceListQuery {
  merchantId: number;
  isLive: boolean;
  after: { createdAt: Date; id: string } | null;
  limit: number;
}

/** The event of a change (core/invoices/events.ts) from the changed invoice and its payments, written in the change's database transaction. */
export type InvoiceEventOf = (changed: InvoiceRecord, payments: InvoicePaymentRecord[]) => OutboxEvent | null;

/** A change's audit entry from the changed invoice (its number once finalized), written in the change's database transaction. */
export type InvoiceAuditOf = (changed: InvoiceRecord) => AuditWrite;

export interface InvoiceStore {
  /**
   * Inserts the invoice; with `sequence` "next" (created and finalized at once) it takes the mode's next
   * number in the same database transaction, so a failed insert uses up no number; `eventOf`'s event and
   * `auditOf`'s entry too.
   */
  create(invoice: Omit<NewInvoice, "sequence">, finalize: boolean, eventOf: InvoiceEventOf, auditOf: InvoiceAuditOf): Promise<InvoiceRecord>;
  findFor(id: string, merchantId: number, isLive: boolean): Promise<InvoiceRecord | null>;
  findByToken(token: string): Promise<InvoiceRecord | null>;
  page(query: InvoiceListQuery): Promise<InvoiceRecord[]>;
  /**
   * A draft becomes open with the next number of its merchant and mode, taken under the counter's row
   * lock in the same database transaction: no gap, no number twice; `eventOf`'s event and `auditOf`'s
   * entry in it too. Null when it was no longer a draft (nothing written).
   */
  finalize(id: string, now: Date, eventOf: InvoiceEventOf, auditOf: InvoiceAuditOf): Promise<InvoiceRecord | null>;
  /**
   * Voids a draft or open invoice that no transaction has paid anything of (`check` reads its payments
   * under the invoice's row lock and throws to refuse), with `eventOf`'s event and `auditOf`'s entry in
   * the same database transaction; null when it was not draft or open (nothing written).
   */
  void(
    id: string,
    now: Date,
    check: (payments: InvoicePaymentRecord[]) => void,
    eventOf: InvoiceEventOf,
    auditOf: InvoiceAuditOf,
  ): Promise<InvoiceRecord | null>;
  /** Sets a draft's or open invoice's language, with `auditOf`'s entry; null when it was neither (nothing written). */
  setLocale(id: string, locale: string | null, now: Date, auditOf: InvoiceAuditOf): Promise<InvoiceRecord | null>;
  /** The transactions of these invoices, oldest first. */
  paymentsOf(invoiceIds: readonly string[]): Promise<InvoicePaymentRecord[]>;
  /**
   * Open invoices due from `fromDay` to `toDay` (UTC days, both included), by id after `afterId`; without
   * an event of type `withoutEvent` when given. The reminder and overdue passes read them.
   */
  openDueWithin(query: { fromDay: Date; toDay: Date; withoutEvent: string | null; afterId: string | null; limit: number }): Promise<InvoiceRecord[]>;
  /** Writes events about invoices; one already written (same invoice and type) is skipped. Answers how many were new. */
  writeEvents(events: readonly OutboxEvent[]): Promise<number>;
  /** Records that the transaction pays the invoice, under its row lock; false when it is no longer open (voided meanwhile). */
  addPayment(invoiceId: string, transactionId: string, now: Date): Promise<boolean>;
}
