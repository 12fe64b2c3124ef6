// The e-mail outbox's records (issue 44): a message as stored, what the follower reads to derive
// messages, and what it writes. src/db/stores/email.ts reads and writes rows of these shapes.
import type { Decimal } from "../money/amounts.ts";

export const EMAIL_STATES = ["QUEUED", "SENDING", "SENT", "FAILED", "SKIPPED"] as const;
export type EmailState = (typeof EMAIL_STATES)[number];

/** A message's facts: JSON of what it says that is not secret (src/core/email/kinds.ts gives each kind's). */
export type EmailFacts = Record<string, string | string[] | null>;

export interface EmailMessageRecord {
  /** `eml_…`, also the Message-ID. */
  id: string;
  merchantId: number;
  /** The transaction it is about; null for an invoice's messages and a merchant's notice about something else. */
  transactionId: string | null;
  refundId: string | null;
  /** The invoice an invoice, invoice_reminder or invoice_overdue message is about. */
  invoiceId: string | null;
  /** The event (`evt_…`), transaction or reminder (`inv_…:reminder:<days>`) it was derived from. */
  source: string;
  kind: string;
  recipient: string;
  locale: string;
  isLive: boolean;
  state: EmailState;
  attemptCount: number;
  nextAttemptAt: Date;
  lastError: string | null;
  facts: EmailFacts;
  sentAt: Date | null;
  createdAt: Date;
}

export type NewEmailMessage = Omit<EmailMessageRecord, "attemptCount" | "sentAt">;

/** An event of the outbox as the follower reads it, with what its transaction knows of the customer. */
export interface FollowedEvent {
  id: string;
  type: string;
  merchantId: number;
  merchantName: string;
  transactionId: string;
  refundId: string | null;
  isLive: boolean;
  createdAt: Date;
  /** The event's JSON body (spec 6), as signed. */
  body: string;
  reference: string;
  customerEmail: string;
  /** The language of the invoice it pays when that has one, else the checkout's the merchant set; null: unknown (English). */
  locale: string | null;
  initializedAmount: Decimal;
  initializedCurrencyId: number;
}

/** A dashboard user who asked for the merchant's notices, and the language it reads them in. */
export interface NoticeRecipient {
  /** Lower-cased. */
  email: string;
  /** One of the checkout's languages, as the user set it (default en). */
  locale: string;
}

/** An event about an invoice (its subject) as the follower reads it. */
export interface FollowedSubjectEvent {
  id: string;
  type: string;
  merchantId: number;
  merchantName: string;
  subjectId: string;
  isLive: boolean;
  createdAt: Date;
  body: string;
}

/** A webhook endpoint disabled (by a user, or by the dispatcher after failing too long), for the merchant's notice. */
export interface DisabledEndpoint {
  id: string;
  merchantId: number;
  merchantName: string;
  isLive: boolean;
  url: string;
  disabledAt: Date;
  /** `manual` or `failing`. */
  disabledReason: string | null;
}

/** A PENDING transaction with part of its payment confirmed and no pay-the-rest message yet. */
export interface PartPaidTransaction {
  id: string;
  merchantId: number;
  merchantName: string;
  reference: string;
  isLive: boolean;
  status: "PENDING";
  customerEmail: string;
  locale: string | null;
  paymentCurrencyId: number | null;
  paymentNetwork: string | null;
  paymentAmount: Decimal | null;
  amountPaid: Decimal | null;
  amountUnconfirmed: Decimal | null;
  policyUnderpaymentTolerance: Decimal | null;
  expiresAt: Date | null;
}

/** What a claimed message's links are made from when it is sent. */
export interface EmailLinkSources {
  /** The transaction's sealed client secret (the checkout link); null on rows from before client secrets. */
  clientSecretEnc: string | null;
  /** Whether the transaction still waits for payment (PENDING or INITIATED): a pay-the-rest link is sent only then. */
  transactionOpen: boolean;
  /** The refund's sealed claim token, while its link may still be used; null otherwise. */
  claimTokenEnc: string | null;
}
