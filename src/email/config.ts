// E-mail's configuration (PAYGATE_SMTP_URL, PAYGATE_EMAIL_…; issue 44): its schema, with each variable's
// description, and what the transport and the core are given (src/config.ts composes it into the service's).
import { z } from "zod";
import { DEFAULT_REMINDER_DAYS, parseReminderDays } from "../core/email/invoice-messages.ts";
import { boolean } from "../env.ts";

const smtpUrl = z
  .string()
  .refine((v) => /^smtps?:\/\/[^\s]+$/.test(v) && URL.canParse(v), "must be an smtp:// or smtps:// URL, e.g. smtp://user:pass@mail.example.com:587")
  .optional();

export const EmailEnvSchema = z.object({
  PAYGATE_SMTP_URL: smtpUrl.describe(
    "The SMTP server customers' e-mails are sent through (`smtp://user:password@host:587`, STARTTLS when the server offers it; `smtps://…:465` for TLS from the start). Unset: no e-mail is sent, each message is listed as not sent and the dashboard says so ([E-mail](email.md)). Default: unset.",
  ),
  PAYGATE_EMAIL_FROM: z
    .string()
    .min(3)
    .optional()
    .describe(
      "The From of every e-mail, e.g. `Shop payments <payments@example.com>`. Default: `paygate <no-reply@HOST>`, HOST being PAYGATE_PUBLIC_URL's.",
    ),
  PAYGATE_EMAIL_SENDER: boolean
    .default(true)
    .describe("Run the e-mail follower and sender in the service (like the webhook dispatcher, `paygate worker` runs them too). Default: `true`."),
  PAYGATE_EMAIL_MAX_ATTEMPTS: z.coerce
    .number()
    .int()
    .min(1)
    .max(50)
    .default(8)
    .describe("Attempts of one message before it is shown as failed. Default: `8`."),
  PAYGATE_EMAIL_RETRY_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(86_400)
    .default(60)
    .describe("The wait after a message's first failed attempt; each next wait doubles, up to 6 hours. Default: `60` seconds."),
  PAYGATE_INVOICE_REMINDER_DAYS: z
    .string()
    .default(DEFAULT_REMINDER_DAYS)
    .superRefine((value, ctx) => {
      const parsed = parseReminderDays(value);
      if (!parsed.ok) ctx.addIssue({ code: "custom", message: `must be whole days from the due date separated by commas: ${parsed.why}` });
    })
    .describe(
      "When an open invoice's customer is reminded by e-mail: days from its due date, separated by commas; negative before it, `0` on it, positive after it (overdue), each from -90 to 90. Each reminder is sent once, never for a paid or void invoice; `none`: no reminders ([E-mail](email.md#invoices-and-reminders)). Default: `-3,1,7`.",
    ),
  PAYGATE_EMAIL_POLL_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(5_000)
    .describe("How often the e-mail follower reads new events and the sender looks for due messages. Default: `5000` ms."),
});

export interface EmailConfig {
  smtpUrl: string | null;
  from: string;
  sender: boolean;
  maxAttempts: number;
  firstDelayMs: number;
  pollMs: number;
  /** Days from an invoice's due date its reminders go out, sorted. */
  reminderDays: number[];
}

export function emailConfig(e: z.infer<typeof EmailEnvSchema>, publicUrl: string): EmailConfig {
  return {
    smtpUrl: e.PAYGATE_SMTP_URL ?? null,
    from: e.PAYGATE_EMAIL_FROM ?? `paygate <no-reply@${new URL(publicUrl).hostname.replace(/^\[|\]$/g, "")}>`,
    sender: e.PAYGATE_EMAIL_SENDER,
    maxAttempts: e.PAYGATE_EMAIL_MAX_ATTEMPTS,
    firstDelayMs: e.PAYGATE_EMAIL_RETRY_SECONDS * 1000,
    pollMs: e.PAYGATE_EMAIL_POLL_MS,
    reminderDays: (() => {
      const parsed = parseReminderDays(e.PAYGATE_INVOICE_REMINDER_DAYS);
      return parsed.ok ? parsed.days : [];
    })(),
  };
}
