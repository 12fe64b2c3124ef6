// The PDF of an invoice, or of its receipt once paid (issue 44; docs/invoices.md, Its PDF), drawn
// with pdfkit in DejaVu Sans (any Latin, Greek, Cyrillic or Arabic name prints as written; the PDF's 14
// standard fonts know only Western European letters). Its words are the hosted page's, in its six
// languages; Arabic is laid out right to left (its lines ordered by pdf-bidi.ts, its columns mirrored).
import { createRequire } from "node:module";
import path from "node:path";
import type { InvoiceDocument } from "../core/invoices/invoices.ts";
import type { CheckoutLocale } from "../core/transactions/locales.ts";
import { type InvoiceText, textOf } from "./invoice-page-text.ts";
import { visualLine } from "./pdf-bidi.ts";

const FONTS = path.join(path.dirname(createRequire(import.meta.url).resolve("dejavu-fonts-ttf/package.json")), "ttf");
const REGULAR = path.join(FONTS, "DejaVuSans.ttf");
const BOLD = path.join(FONTS, "DejaVuSans-Bold.ttf");

type PdfLocale = CheckoutLocale;

interface PdfText {
  receipt: string;
  issued: string;
  payments: string;
  date: string;
  transaction: string;
  paidInFull: string;
  payOnline: string;
  draft: string;
  overpaid: string;
}

const PDF_TEXT: Record<PdfLocale, PdfText> = {
  en: {
    receipt: "Receipt",
    issued: "Issued",
    payments: "Payments",
    date: "Date",
    transaction: "Transaction",
    paidInFull: "Paid in full. Thank you.",
    payOnline: "Pay online",
    draft: "Draft: not sent to the customer",
    overpaid: "Overpaid",
  },
  fr: {
    receipt: "Reçu",
    issued: "Émise le",
    payments: "Paiements",
    date: "Date",
    transaction: "Transaction",
    paidInFull: "Payée intégralement. Merci.",
    payOnline: "Payer en ligne",
    draft: "Brouillon : pas encore envoyée au client",
    overpaid: "Trop-perçu",
  },
  es: {
    receipt: "Recibo",
    issued: "Emitida",
    payments: "Pagos",
    date: "Fecha",
    transaction: "Transacción",
    paidInFull: "Pagada en su totalidad. Gracias.",
    payOnline: "Pagar en línea",
    draft: "Borrador: aún no enviada al cliente",
    overpaid: "Pagado de más",
  },
  pt: {
    receipt: "Recibo",
    issued: "Emitida em",
    payments: "Pagamentos",
    date: "Data",
    transaction: "Transação",
    paidInFull: "Paga integralmente. Obrigado.",
    payOnline: "Pagar online",
    draft: "Rascunho: ainda não enviada ao cliente",
    overpaid: "Pago a mais",
  },
  de: {
    receipt: "Quittung",
    issued: "Ausgestellt am",
    payments: "Zahlungen",
    date: "Datum",
    transaction: "Transaktion",
    paidInFull: "Vollständig bezahlt. Vielen Dank.",
    payOnline: "Online bezahlen",
    draft: "Entwurf: noch nicht an den Kunden gesendet",
    overpaid: "Überzahlt",
  },
  ar: {
    receipt: "إيصال",
    issued: "تاريخ الإصدار",
    payments: "المدفوعات",
    date: "التاريخ",
    transaction: "المعاملة",
    paidInFull: "مدفوعة بالكامل. شكرًا لك.",
    payOnline: "ادفع عبر الإنترنت",
    draft: "مسودة: لم تُرسل إلى العميل بعد",
    overpaid: "مدفوع بالزيادة",
  },
};

/** The language the PDF is written in: the page's. */
export const pdfLocaleOf = (locale: CheckoutLocale): PdfLocale => locale;

/** The receipt's name in the page's language. */
export const receiptWord = (locale: CheckoutLocale): string => PDF_TEXT[pdfLocaleOf(locale)].receipt;

/** "INV-0001.pdf", "receipt-INV-0001.pdf"; a draft by its id. */
export function pdfFileName(document: InvoiceDocument): string {
  const name = document.invoice.number ?? document.invoice.id;
  return `${document.kind === "receipt" ? "receipt-" : ""}${name}.pdf`;
}

const MARGIN = 50;
const WIDTH = 595.28 - 2 * MARGIN; // A4
/** Description, quantity, unit price, amount: the x of each column and its width. */
const COLUMNS = [
  { x: MARGIN, width: 245 },
  { x: MARGIN + 250, width: 40 },
  { x: MARGIN + 295, width: 100 },
  { x: MARGIN + 395, width: WIDTH - 395 },
];

/** Draws the document; resolves with the whole file (an invoice is a page or two: no need to stream). */
export async function invoicePdf(document: InvoiceDocument, locale: CheckoutLocale): Promise<Buffer> {
  // pdfkit, fontkit and their tables load with the first PDF, not with every start (docs/operations.md, Memory).
  const { default: PDFDocument } = await import("pdfkit");
  const lang = pdfLocaleOf(locale);
  const t = textOf(lang);
  const p = PDF_TEXT[lang];
  const i = document.invoice;
  const receipt = document.kind === "receipt";
  const title = `${receipt ? p.receipt : t.invoice} ${i.number ?? ""}`.trim();
  const pdf = new PDFDocument({
    size: "A4",
    margin: MARGIN,
    lang,
    info: { Title: `${title} · ${document.merchantName}`, Author: document.merchantName, Creator: "paygate" },
  });
  pdf.registerFont("regular", REGULAR);
  pdf.registerFont("bold", BOLD);
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on("data", (chunk: Buffer) => chunks.push(chunk));
    pdf.on("end", () => resolve(Buffer.concat(chunks)));
    pdf.on("error", reject);
  });
  const money = (amount: string) => `${amount} ${i.currency}`;
  const rtl = lang === "ar";
  /** A line across the page, from the side its language starts on. */
  const line = (text: string, options: PDFKit.Mixins.TextOptions = {}) =>
    rtl ? pdf.text(visualLine(text), MARGIN, pdf.y, { ...options, width: WIDTH, align: "right", features: [] }) : pdf.text(text, options);

  pdf.font("bold").fontSize(20);
  line(title);
  pdf.font("regular").fontSize(10).moveDown(0.3);
  const state = i.state === "draft" ? p.draft : (t.state[i.state as keyof InvoiceText["state"]] ?? i.state);
  line(state);
  if (!i.is_live) line(t.testMode);
  pdf.moveDown();

  const fact = (label: string, value: string) => {
    if (rtl) return line(`${label}: ${value}`);
    pdf.font("bold").text(`${label}: `, { continued: true }).font("regular").text(value);
  };
  fact(t.from, document.merchantName);
  fact(t.billedTo, i.customer.name ? `${i.customer.name} <${i.customer.email}>` : i.customer.email);
  if (i.finalized_at) fact(p.issued, i.finalized_at.slice(0, 10));
  if (i.due_date && !receipt) fact(t.due, i.due_date);
  pdf.moveDown();

  row(pdf, rtl, [t.description, t.quantity, t.unitPrice, t.amount], true);
  rule(pdf);
  for (const item of i.items) row(pdf, rtl, [item.description, String(item.quantity), money(item.unit_price), money(item.amount)]);
  rule(pdf);
  const total = (label: string, amount: string, strong = false) => row(pdf, rtl, [label, "", "", money(amount)], strong);
  total(t.subtotal, i.subtotal);
  for (const tax of i.taxes) total(`${tax.name} (${tax.rate} %)`, tax.amount);
  total(t.total, i.total, true);
  total(t.paid, i.amount_paid);
  total(t.left, i.amount_due, true);
  if (!/^0(\.0+)?$/.test(i.amount_overpaid)) total(p.overpaid, i.amount_overpaid);

  if (i.memo) {
    pdf.moveDown();
    pdf.font("regular");
    if (rtl) line(i.memo);
    else pdf.text(i.memo, MARGIN, pdf.y, { width: WIDTH });
  }
  const counted = i.transactions.filter((tx) => !/^0(\.0+)?$/.test(tx.amount_credited));
  if (receipt || counted.length > 0) {
    pdf.moveDown();
    pdf.font("bold").fontSize(12);
    if (rtl) line(p.payments);
    else pdf.text(p.payments, MARGIN, pdf.y);
    pdf.fontSize(10).moveDown(0.3);
    for (const tx of counted) row(pdf, rtl, [tx.id, "", tx.created_at.slice(0, 10), money(tx.amount_credited)]);
  }
  if (receipt) {
    pdf.moveDown();
    pdf.font("bold");
    if (rtl) line(p.paidInFull);
    else pdf.text(p.paidInFull, MARGIN, pdf.y);
  } else if (i.hosted_url && i.state !== "void" && i.state !== "paid") {
    pdf.moveDown();
    pdf.font("bold");
    if (rtl) line(`${p.payOnline}: ${i.hosted_url}`, { link: i.hosted_url });
    else pdf.text(`${p.payOnline}: `, MARGIN, pdf.y, { continued: true }).font("regular").text(i.hosted_url, { link: i.hosted_url });
  }
  pdf.end();
  return done;
}

/**
 * One line of the table: each cell in its column (the description wraps), the next line below the tallest;
 * right to left, the columns mirrored (the description on the right) and each cell's line ordered.
 */
function row(pdf: PDFKit.PDFDocument, rtl: boolean, cells: string[], strong = false): void {
  pdf.font(strong ? "bold" : "regular").fontSize(10);
  if (pdf.y > pdf.page.height - MARGIN - 40) pdf.addPage();
  const top = pdf.y;
  let bottom = top;
  cells.forEach((cell, n) => {
    const column = COLUMNS[n];
    if (!column || cell === "") return;
    const start = n === 0 ? "left" : "right";
    if (rtl) {
      const x = 2 * MARGIN + WIDTH - column.x - column.width;
      pdf.text(visualLine(cell), x, top, { width: column.width, align: start === "left" ? "right" : "left", features: [] });
    } else pdf.text(cell, column.x, top, { width: column.width, align: start });
    bottom = Math.max(bottom, pdf.y);
  });
  pdf.x = MARGIN;
  pdf.y = bottom + 3;
}

function rule(pdf: PDFKit.PDFDocument): void {
  pdf
    .moveTo(MARGIN, pdf.y)
    .lineTo(MARGIN + WIDTH, pdf.y)
    .lineWidth(0.5)
    .strokeColor("#888888")
    .stroke();
  pdf.y += 4;
}
