// The e-mail façade (issue 44): the jobs' follower and sender passes, whether e-mail is on, and the
// messages a merchant sees (the dashboard, the CLI).
import { followEvents } from "../email/derive.ts";
import { type DeliveryCounts, deliverDue } from "../email/deliver.ts";
import { DEFAULT_EMAIL_RETRY, type EmailRetryPolicy, type MailTransport } from "../email/ports.ts";
import type { CoreDeps } from "../deps.ts";
import { errors } from "../errors.ts";
import type { EmailMessageRecord } from "../records/email.ts";
import type { MerchantAccess } from "./access.ts";

/** Without PAYGATE_SMTP_URL: what the rows and the dashboard say. */
export const EMAIL_OFF = "not sent: PAYGATE_SMTP_URL is not set";

export interface EmailSettings {
  /** The SMTP transport; null when PAYGATE_SMTP_URL is not set (nothing is sent, rows are SKIPPED). */
  transport: MailTransport | null;
  retry?: EmailRetryPolicy;
}

export const EMAIL_LIST_MAX = 100;

export class Email {
  private readonly retry: EmailRetryPolicy;

  constructor(
    private readonly deps: CoreDeps,
    private readonly settings: EmailSettings,
  ) {
    this.retry = settings.retry ?? DEFAULT_EMAIL_RETRY;
  }

  /** Whether messages are sent; `reason` says why not. */
  status(): { enabled: boolean; reason: string | null } {
    return this.settings.transport === null ? { enabled: false, reason: EMAIL_OFF } : { enabled: true, reason: null };
  }

  /** The follower's pass: messages derived from the events and part-paid transactions since the last pass. */
  follow(): Promise<number> {
    const { stores, clock, lifecycle } = this.deps;
    return followEvents({ store: stores.email, clock, lifecycle, offReason: this.status().reason });
  }

  /** The sender's pass; nothing without a transport. */
  async deliver(): Promise<DeliveryCounts> {
    const transport = this.settings.transport;
    if (transport === null) return { sent: 0, retried: 0, failed: 0, skipped: 0 };
    const { stores, clock, secrets, publicUrl } = this.deps;
    return deliverDue({ store: stores.email, clock, secrets, publicUrl, transport, retry: this.retry });
  }

  /** The merchant's messages in the access's mode, newest first; of one transaction when given. */
  async list(access: MerchantAccess, options: { transactionId?: string; limit?: number } = {}): Promise<EmailMessageRecord[]> {
    access.require("read");
    const limit = options.limit ?? 50;
    if (!Number.isInteger(limit) || limit < 1 || limit > EMAIL_LIST_MAX) {
      throw errors.invalidListParameters([{ field: "limit", message: `must be an integer from 1 to ${EMAIL_LIST_MAX}` }]);
    }
    return this.deps.stores.email.list(access.merchantId, access.isLive, limit, options.transactionId);
  }
}
