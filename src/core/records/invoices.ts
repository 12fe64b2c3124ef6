// An invoice as stored (table `invoices`; issue 44, docs/invoices.md) and the transactions that pay it.
import type { Decimal } from "../money/amounts.ts";
import type { TransactionStatus } from "./rows.ts";

/** What is written; partially paid, paid and overdue are read from the payments and the due date (invoices/rules.ts). */
export type StoredInvoiceState = "draft" | "open" | "void";

export interface InvoiceItem {
  description: string;
  /** A positive integer. */
  quantity: number;
  /** A decimal string with at most the currency's decimals. */
  unit_price: string;
}

export interface InvoiceTax {
  name: string;
  /** Percent of the subtotal, a decimal string. */
  rate: string;
}

export interface InvoiceRecord {
  id: string;
  merchantId: number;
  isLive: boolean;
  state: StoredInvoiceState;
  /** The merchant's number in its mode, from 1 without gaps; null while a draft. */
  sequence: number | null;
  customerEmail: string;
  customerName: string | null;
  currencyId: number;
  items: InvoiceItem[];
  taxes: InvoiceTax[];
  subtotal: Decimal;
  taxTotal: Decimal;
  total: Decimal;
  memo: string | null;
  /** A day (midnight UTC); null: no due date. */
  dueDate: Date | null;
  allowPartialPayments: boolean;
  /** Its language (one of CHECKOUT_LOCALES, as the core checked it): its e-mails, reminders and PDF, and its page before the browser's; null: not set (English e-mails). */
  locale: string | null;
  token: string;
  createdAt: Date;
  updatedAt: Date;
  finalizedAt: Date | null;
  voidedAt: Date | null;
}

/** A transaction made to pay an invoice, as much of it as the paid amount needs. */
export interface InvoicePaymentRecord {
  invoiceId: string;
  transactionId: string;
  status: TransactionStatus;
  /** The fiat amount the transaction asked for. */
  initializedAmount: Decimal;
  /** Confirmed coin received, and the locked rate (fiat per coin); null until known. */
  amountPaid: Decimal | null;
  quoteRate: Decimal | null;
  /** Set when a SUCCESSFUL payment's receipts left the chain (payment.reversed): it no longer counts. */
  reversedAt: Date | null;
  createdAt: Date;
}
