// Each kind's message as plain text and HTML, in the transaction's language (issue 44). Values are
// escaped into the HTML; amounts are the stored decimal strings, never re-formatted through a float.
import type { OutgoingEmail } from "../core/email/ports.ts";
import { directionOfLocale } from "./direction.ts";
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
  }
}

export function renderEmail(m: OutgoingEmail): RenderedEmail {
  const t = textsFor(m.locale);
  const p = partsOf(m, t);
  const merchant = fact(m, "merchant");
  const test = m.isLive ? [] : [t.testMode];
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
    t.footer(merchant),
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
<p style="font-size:12px;color:#555">${escapeHtml(t.footer(merchant))}</p>
</body></html>`;
  return { subject: p.subject, text, html };
}
