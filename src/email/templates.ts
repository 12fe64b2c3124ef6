// Each kind's message as plain text and HTML, in the transaction's language (issue 44). Values are
// escaped into the HTML; amounts are the stored decimal strings, never re-formatted through a float.
import type { OutgoingEmail } from "../core/email/ports.ts";
import { directionOfLocale } from "./direction.ts";
import { INVOICE_TEXTS } from "./invoice-texts.ts";
import { NOTICE_TEXTS } from "./notice-texts.ts";
import { type EmailTexts, textsFor } from "./texts.ts";

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

const fact = (m: OutgoingEmail, key: string): string => {
  const value = m.facts[key];
  return typeof value === "string" ? value : "";
};

/** A date in the message's language, in UTC (the reader's zone is unknown). */
function when(m: OutgoingEmail, iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${new Intl.DateTimeFormat(m.locale, { dateStyle: "long", timeStyle: "short", timeZone: "UTC" }).format(date)} UTC`;
}

interface Parts {
  subject: string;
  title: string;
  lines: string[];
  rows: [string, string][];
  button: string | null;
  after: string[];
  /** Why the reader gets it, when not the customer's payment. */
  footer?: string;
}

/** A day (YYYY-MM-DD) in the message's language. */
function day(m: OutgoingEmail, value: string): string {
  const date = new Date(`${value}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? value : new Intl.DateTimeFormat(m.locale, { dateStyle: "long", timeZone: "UTC" }).format(date);
}

function invoiceParts(m: OutgoingEmail): Parts {
  const t = INVOICE_TEXTS[m.locale];
  const merchant = fact(m, "merchant");
  const number = fact(m, "number");
  const dueDate = fact(m, "dueDate");
  const rows: [string, string][] = [
    [t.number, number],
    [t.total, fact(m, "total")],
    [t.amountDue, fact(m, "amountDue")],
    [t.dueDate, dueDate ? day(m, dueDate) : ""],
  ];
  const common = { rows, button: t.viewButton, footer: t.footer(merchant) };
  if (m.kind === "invoice") {
    const subject = t.invoiceSubject(merchant, number);
    return { ...common, subject, title: subject, lines: [t.invoiceBody(merchant, fact(m, "total"))], after: m.invoice ? [t.attached] : [] };
  }
  if (m.kind === "invoice_overdue") {
    const subject = t.overdueSubject(merchant, number);
    return { ...common, subject, title: subject, lines: [t.overdueBody(day(m, dueDate), fact(m, "amountDue"))], after: [] };
  }
  const subject = t.reminderSubject(merchant, number);
  const days = fact(m, "days");
  const body = days === "0" ? t.dueTodayBody(fact(m, "amountDue")) : t.reminderBody(days, day(m, dueDate), fact(m, "amountDue"));
  return { ...common, subject, title: subject, lines: [body], after: [] };
}

function noticeParts(m: OutgoingEmail): Parts {
  const t = NOTICE_TEXTS[m.locale];
  const merchant = fact(m, "merchant");
  if (m.kind === "notice_payment_received") {
    const subject = t.paymentSubject(merchant, fact(m, "reference"));
    return {
      subject,
      title: subject,
      lines: [t.paymentBody(fact(m, "amountPaid"), fact(m, "customer"))],
      rows: [
        [t.reference, fact(m, "reference")],
        [t.network, fact(m, "network")],
        [t.date, when(m, fact(m, "paidAt"))],
      ],
      button: null,
      after: [],
      footer: t.footer(merchant),
    };
  }
  if (m.kind === "notice_unmatched_receipt") {
    const subject = t.unmatchedSubject(merchant);
    return {
      subject,
      title: subject,
      lines: [t.unmatchedBody(fact(m, "amount"), fact(m, "address"))],
      rows: [
        [t.network, fact(m, "network")],
        [t.transaction, fact(m, "txHash")],
        [t.date, when(m, fact(m, "seenAt"))],
      ],
      button: null,
      after: [t.unmatchedAfter(fact(m, "receiptId"))],
      footer: t.footer(merchant),
    };
  }
  const subject = t.endpointSubject(merchant);
  return {
    subject,
    title: subject,
    lines: [t.endpointBody(fact(m, "url"), fact(m, "reason") === "failing")],
    rows: [[t.date, when(m, fact(m, "disabledAt"))]],
    button: null,
    after: [],
    footer: t.footer(merchant),
  };
}

function partsOf(m: OutgoingEmail, t: EmailTexts): Parts {
  const merchant = fact(m, "merchant");
  const coin = fact(m, "coin");
  const amount = (key: string) => `${fact(m, key)} ${coin}`.trim();
  switch (m.kind) {
    case "receipt": {
      const hashes = Array.isArray(m.facts.txHashes) ? m.facts.txHashes : [];
      return {
        subject: t.receiptSubject(merchant),
        title: t.paidTitle,
        lines: [t.paidBody(merchant, amount("amountPaid"), fact(m, "fiat"))],
        rows: [
          [t.reference, fact(m, "reference")],
          [t.date, when(m, fact(m, "paidAt"))],
          [t.amountPaid, amount("amountPaid")],
          [t.coin, coin],
          [t.network, fact(m, "network")],
          ...hashes.map((hash): [string, string] => [t.transaction, hash]),
        ],
        button: null,
        after: [],
      };
    }
    case "pay_rest": {
      const expires = fact(m, "expiresAt");
      return {
        subject: t.payRestSubject(merchant),
        title: t.underpaidTitle,
        lines: [t.payRestBody(amount("amountPaid"), amount("amountDue"), amount("rest"))],
        rows: [
          [t.reference, fact(m, "reference")],
          [t.network, fact(m, "network")],
        ],
        button: t.payRestButton,
        after: expires ? [t.payBefore(when(m, expires))] : [],
      };
    }
    case "refund_claim": {
      const expires = fact(m, "expiresAt");
      const fiat = fact(m, "fiat");
      return {
        subject: t.refundSubject(merchant),
        title: t.refundSubject(merchant),
        lines: [t.refundBody(merchant, fiat ? `${amount("amount")} (${fiat})` : amount("amount"))],
        rows: [[t.reference, fact(m, "reference")]],
        button: t.refundButton,
        after: expires ? [t.linkUntil(when(m, expires))] : [],
      };
    }
    case "invoice":
    case "invoice_reminder":
    case "invoice_overdue":
      return invoiceParts(m);
    case "notice_payment_received":
    case "notice_endpoint_disabled":
    case "notice_unmatched_receipt":
      return noticeParts(m);
  }
}

export function renderEmail(m: OutgoingEmail): RenderedEmail {
  const t = textsFor(m.locale);
  const p = partsOf(m, t);
  const merchant = fact(m, "merchant");
  const test = m.isLive ? [] : [t.testMode];
  const footer = p.footer ?? t.footer(merchant);
  const text = [
    p.title,
    "",
    ...p.lines,
    ...(p.button && m.link ? ["", `${p.button}: ${m.link}`] : []),
    ...p.after,
    "",
    ...p.rows.filter(([, v]) => v !== "").map(([k, v]) => `${k}: ${v}`),
    "",
    ...test,
    footer,
  ].join("\n");
  const dir = directionOfLocale(m.locale);
  const rows = p.rows
    .filter(([, v]) => v !== "")
    .map(
      ([k, v]) =>
        `<tr><th scope="row" style="text-align:start;padding:4px 12px 4px 0">${escapeHtml(k)}</th><td style="word-break:break-all">${escapeHtml(v)}</td></tr>`,
    )
    .join("");
  const button =
    p.button && m.link
      ? `<p><a href="${escapeHtml(m.link)}" style="display:inline-block;padding:10px 16px;background:#1a56db;color:#fff;text-decoration:none;border-radius:6px">${escapeHtml(p.button)}</a></p>`
      : "";
  const html = `<!doctype html>
<html lang="${m.locale}" dir="${dir}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(p.subject)}</title></head>
<body style="font-family:system-ui,sans-serif;color:#111;max-width:560px;margin:0 auto;padding:16px">
<h1 style="font-size:20px">${escapeHtml(p.title)}</h1>
${p.lines.map((l) => `<p>${escapeHtml(l)}</p>`).join("\n")}
${button}
${p.after.map((l) => `<p>${escapeHtml(l)}</p>`).join("\n")}
<table role="presentation" style="border-collapse:collapse;font-size:14px">${rows}</table>
${test.map((l) => `<p><strong>${escapeHtml(l)}</strong></p>`).join("")}
<p style="font-size:12px;color:#555">${escapeHtml(footer)}</p>
</body></html>`;
  return { subject: p.subject, text, html };
}
