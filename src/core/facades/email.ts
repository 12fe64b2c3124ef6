// The e-mail façade (issue 44): the jobs' follower and sender passes, whether e-mail is on, and the
// messages a merchant sees (the dashboard, the CLI).
import { followEvents } from "../email/derive.ts";
import { type DeliveryCounts, deliverDue } from "../email/deliver.ts";
import { DEFAULT_EMAIL_RETRY, type EmailRetryPolicy, type MailTransport } from "../email/ports.ts";
import type { CoreDeps } from "../deps.ts";
import { errors, PaygateError } from "../errors.ts";
import type { DashboardActor } from "../access/roles.ts";
import { invoiceDocument } from "../invoices/invoices.ts";
import { noticeLocaleOf, noticesOf, setNoticeLocale, setNotices } from "../email/notices.ts";
import { parseReminderDays, DEFAULT_REMINDER_DAYS } from "../email/invoice-messages.ts";
import type { EmailMessageRecord } from "../records/email.ts";
import type { CheckoutLocale } from "../transactions/locales.ts";
import type { MerchantAccess } from "./access.ts";

/** Without PAYGATE_SMTP_URL: what the rows and the dashboard say. */
export const EMAIL_OFF = "not sent: PAYGATE_SMTP_URL is not set";

export interface EmailSettings {
  /** The SMTP transport; null when PAYGATE_SMTP_URL is not set (nothing is sent, rows are SKIPPED). */
  transport: MailTransport | null;
  retry?: EmailRetryPolicy;
  /** PAYGATE_INVOICE_REMINDER_DAYS, parsed (days from the due date); default -3, 1 and 7. */
  reminderDays?: readonly number[];
}

const defaultReminderDays = (): number[] => {
  const parsed = parseReminderDays(DEFAULT_REMINDER_DAYS);
  return parsed.ok ? parsed.days : [];
};

export const EMAIL_LIST_MAX = 100;

export class Email {
  private readonly retry: EmailRetryPolicy;
  private readonly reminderDays: readonly number[];

  constructor(
    private readonly deps: CoreDeps,
    private readonly settings: EmailSettings,
  ) {
    this.retry = settings.retry ?? DEFAULT_EMAIL_RETRY;
    this.reminderDays = settings.reminderDays ?? defaultReminderDays();
  }

  /** Whether messages are sent; `reason` says why not. */
  status(): { enabled: boolean; reason: string | null } {
    return this.settings.transport === null ? { enabled: false, reason: EMAIL_OFF } : { enabled: true, reason: null };
  }

  /** The follower's pass: messages derived from the events and part-paid transactions since the last pass. */
  follow(): Promise<number> {
    const { stores, clock, lifecycle } = this.deps;
    const names = new Map<number, string>();
    const merchantName = async (id: number) => {
      const name = names.get(id) ?? (await stores.merchants.settings(id))?.name ?? "";
      names.set(id, name);
      return name;
    };
    return followEvents({
      store: stores.email,
      clock,
      lifecycle,
      offReason: this.status().reason,
      invoices: stores.invoices,
      merchantName,
      reminderDays: this.reminderDays,
    });
  }

  /** The sender's pass; nothing without a transport. */
  async deliver(): Promise<DeliveryCounts> {
    const transport = this.settings.transport;
    if (transport === null) return { sent: 0, retried: 0, failed: 0, skipped: 0 };
    const { stores, clock, secrets, publicUrl } = this.deps;
    const document = async (m: EmailMessageRecord) => {
      if (m.invoiceId === null) return null;
      const owner = { merchantId: m.merchantId, isLive: m.isLive };
      // Only "not found" means it is gone; any other failure (the database) is a failed attempt, retried.
      return invoiceDocument(this.deps, owner, m.invoiceId, "invoice").catch((error: unknown) => {
        if (error instanceof PaygateError && error.reason === "invoice_not_found") return null;
        throw error;
      });
    };
    return deliverDue({ store: stores.email, clock, secrets, publicUrl, transport, retry: this.retry, invoiceDocument: document });
  }

  /** The merchant's messages in the access's mode, newest first; of one transaction or invoice when given. */
  async list(access: MerchantAccess, options: { transactionId?: string; invoiceId?: string; limit?: number } = {}): Promise<EmailMessageRecord[]> {
    access.require("read");
    const limit = options.limit ?? 50;
    if (!Number.isInteger(limit) || limit < 1 || limit > EMAIL_LIST_MAX) {
      throw errors.invalidListParameters([{ field: "limit", message: `must be an integer from 1 to ${EMAIL_LIST_MAX}` }]);
    }
    return this.deps.stores.email.list(access.merchantId, access.isLive, limit, {
      transactionId: options.transactionId,
      invoiceId: options.invoiceId,
    });
  }

  /** Whether the signed-in user gets the merchant's notices by e-mail (payment received, endpoint disabled, unmatched receipt). */
  notices(actor: DashboardActor): Promise<boolean> {
    return noticesOf(this.deps.stores.email, actor);
  }

  /** The signed-in user's notice language. */
  noticeLocale(actor: DashboardActor): Promise<CheckoutLocale> {
    return noticeLocaleOf(this.deps.stores.email, actor);
  }

  /** A user sets its own notice language: 404 for anyone else's, 403 for another user of the merchant, 400 for a bad value. */
  setNoticeLocale(actor: DashboardActor, userId: string, locale: unknown): Promise<CheckoutLocale> {
    return setNoticeLocale(this.deps.stores.email, actor, userId, locale);
  }

  /** A user turns its own notices on or off: 403 for another user of the merchant, 404 for anyone else. */
  setNotices(actor: DashboardActor, userId: string, enabled: unknown): Promise<boolean> {
    return setNotices(this.deps.stores.email, actor, userId, enabled);
  }
}
