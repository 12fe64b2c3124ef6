// What the e-mail concern needs from outside (issue 44): an SMTP transport that renders and sends one
// message (src/email/ implements it with nodemailer and the templates), and its settings.
import type { InvoiceDocument } from "../invoices/invoices.ts";
import type { EmailFacts } from "../records/email.ts";
import type { CheckoutLocale } from "../transactions/locales.ts";
import type { EmailKind } from "./kinds.ts";

/** One message to send: its kind, language and facts, with the link it carries made just now. */
export interface OutgoingEmail {
  /** `eml_…`: the Message-ID, so a resend after a crash is the same message to the receiving server. */
  id: string;
  kind: EmailKind;
  to: string;
  locale: CheckoutLocale;
  isLive: boolean;
  facts: EmailFacts;
  /** The checkout (pay_rest), the refund's claim page (refund_claim) or the invoice's page; null for a kind without a link. */
  link: string | null;
  /** An invoice's messages: the invoice as its PDF shows it, which the transport attaches. */
  invoice: InvoiceDocument | null;
}

/** Sends one message; throws when the SMTP server refused it or could not be reached (the message says which). */
export interface MailTransport {
  send(message: OutgoingEmail): Promise<void>;
}

/** How the outbox retries (PAYGATE_EMAIL_*, src/email/config.ts). */
export interface EmailRetryPolicy {
  /** Attempts before a message is FAILED. */
  maxAttempts: number;
  /** The wait after the first failed attempt; each next one doubles it, up to `maxDelayMs`. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** A message held by a sender longer than this (a sender that died) is taken again. */
  leaseMs: number;
}

export const DEFAULT_EMAIL_RETRY: EmailRetryPolicy = { maxAttempts: 8, firstDelayMs: 60_000, maxDelayMs: 6 * 3_600_000, leaseMs: 10 * 60_000 };

/** The wait before attempt `attempt + 1`: doubling from the first delay, bounded. */
export function retryDelayMs(policy: EmailRetryPolicy, attempt: number): number {
  return Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** Math.max(0, attempt - 1));
}
