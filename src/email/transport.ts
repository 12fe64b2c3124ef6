// The SMTP transport behind the core's MailTransport port (issue 44): nodemailer over PAYGATE_SMTP_URL,
// each message rendered from its kind's template, its id as the Message-ID, an invoice's PDF attached.
import type { Transporter } from "nodemailer";
import type { MailTransport, OutgoingEmail } from "../core/email/ports.ts";
import type { InvoiceDocument } from "../core/invoices/invoices.ts";
import type { CheckoutLocale } from "../core/transactions/locales.ts";
import { renderEmail } from "./templates.ts";

/** Draws an invoice's PDF and names its file (src/http/invoice-pdf.ts, given by the runtime). */
export interface InvoicePdfMaker {
  draw(document: InvoiceDocument, locale: CheckoutLocale): Promise<Buffer>;
  fileName(document: InvoiceDocument): string;
}

export class SmtpTransport implements MailTransport {
  private readonly url: string;
  /** Made with the first message: nodemailer loads then, not with every start (docs/operations.md, Memory). */
  private transporter: Transporter | null = null;

  constructor(
    smtpUrl: string,
    private readonly from: string,
    private readonly pdf: InvoicePdfMaker | null = null,
  ) {
    // Short timeouts: a server that hangs is a failed attempt, retried later, not a stuck sender.
    const url = new URL(smtpUrl);
    for (const [key, ms] of [
      ["connectionTimeout", "10000"],
      ["greetingTimeout", "10000"],
      ["socketTimeout", "20000"],
    ] as const) {
      if (!url.searchParams.has(key)) url.searchParams.set(key, ms);
    }
    this.url = url.toString();
  }

  private async open(): Promise<Transporter> {
    if (this.transporter === null) {
      const { default: nodemailer } = await import("nodemailer");
      this.transporter ??= nodemailer.createTransport(this.url);
    }
    return this.transporter;
  }

  async send(message: OutgoingEmail): Promise<void> {
    const rendered = renderEmail(message);
    const host = this.from.match(/@([^>\s]+)/)?.[1] ?? "paygate";
    const document = message.invoice;
    const attachments =
      document && this.pdf
        ? [{ filename: this.pdf.fileName(document), content: await this.pdf.draw(document, message.locale), contentType: "application/pdf" }]
        : [];
    const transporter = await this.open();
    await transporter.sendMail({
      from: this.from,
      to: message.to,
      subject: rendered.subject,
      text: rendered.text,
      html: rendered.html,
      messageId: `<${message.id}@${host}>`,
      headers: { "X-Paygate-Message": message.id, "Auto-Submitted": "auto-generated" },
      attachments,
    });
  }

  close(): void {
    this.transporter?.close();
  }
}
