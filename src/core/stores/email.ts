// What the e-mail concern needs from its database (issue 44): the follower's cursor and reads, the
// outbox of messages, the sender's claim and settlement, the dashboard's list. src/db/stores/email.ts implements it.
import type {
  DisabledEndpoint,
  EmailLinkSources,
  EmailMessageRecord,
  EmailState,
  FollowedEvent,
  FollowedSubjectEvent,
  NewEmailMessage,
  NoticeRecipient,
  PartPaidTransaction,
} from "../records/email.ts";

export interface EmailSettlement {
  state: EmailState;
  attemptCount: number;
  nextAttemptAt: Date;
  lastError: string | null;
  sentAt: Date | null;
}

export interface EmailStore {
  /** Where the named follower stopped reading; null before its first pass. */
  readCursor(name: string): Promise<Date | null>;
  writeCursor(name: string, readUntil: Date): Promise<void>;
  /** Events of these types created at or after `from`, after `after` in (created_at, id) order, oldest first. */
  eventsSince(from: Date, after: { createdAt: Date; id: string } | null, types: readonly string[], limit: number): Promise<FollowedEvent[]>;
  /** Events about a subject (an invoice) of these types, as eventsSince reads them. */
  subjectEventsSince(
    from: Date,
    after: { createdAt: Date; id: string } | null,
    types: readonly string[],
    limit: number,
  ): Promise<FollowedSubjectEvent[]>;
  /** Webhook endpoints disabled at or after `from`, oldest first. */
  endpointsDisabledSince(from: Date, limit: number): Promise<DisabledEndpoint[]>;
  /** The merchant's dashboard users who asked for its notices by e-mail: lower-cased e-mail and notice language. */
  noticeRecipients(merchantId: number): Promise<NoticeRecipient[]>;
  /** Whether the user asked for notices; null when no user of this merchant has this id. */
  noticesOf(merchantId: number, userId: string): Promise<boolean | null>;
  /** Turns the user's notices on or off; false when no user of this merchant has this id. */
  setNotices(merchantId: number, userId: string, enabled: boolean): Promise<boolean>;
  /** The user's notice language; null when no user of this merchant has this id. */
  noticeLocaleOf(merchantId: number, userId: string): Promise<string | null>;
  /** Sets the user's notice language; false when no user of this merchant has this id. */
  setNoticeLocale(merchantId: number, userId: string, locale: string): Promise<boolean>;
  /** PENDING transactions with a confirmed part short of the payment amount and no message of `kind`, oldest first. */
  partPaid(kind: string, limit: number): Promise<PartPaidTransaction[]>;
  /** Lower-cased e-mails of the merchant's dashboard users. */
  userEmails(merchantId: number): Promise<string[]>;
  /** Writes the messages not yet written (one per source, kind and recipient); answers how many were new. */
  enqueue(messages: readonly NewEmailMessage[]): Promise<number>;
  /**
   * Takes up to `limit` messages due at `now` (QUEUED), or held by a sender since before `staleBefore`
   * (SENDING), marks them SENDING with `token`; two senders never take one message (FOR UPDATE SKIP LOCKED).
   */
  claimDue(now: Date, staleBefore: Date, limit: number, token: string): Promise<EmailMessageRecord[]>;
  /** Settles a message its holder still holds; false when another took it since. */
  settle(id: string, token: string, settlement: EmailSettlement): Promise<boolean>;
  /** The sealed secrets its links are made from. */
  linkSources(message: Pick<EmailMessageRecord, "transactionId" | "refundId">): Promise<EmailLinkSources>;
  /** One merchant's messages in one mode, newest first; of one transaction or invoice when given. */
  list(merchantId: number, isLive: boolean, limit: number, about?: { transactionId?: string; invoiceId?: string }): Promise<EmailMessageRecord[]>;
}
