// The hosted invoice page (issue 44; docs/invoices.md, The hosted page): GET /invoice/:token shows the
// invoice, what was paid and what is left, printable; POST /invoice/:token/pay makes a transaction of
// the invoice through initialize (the core's payInvoice) and sends the customer to its checkout.
// Rendered on the server with its own stylesheet (no script); the token is the only credential.
import express, { type Request, type Response, Router } from "express";
import { fromOwnOrigin } from "./own-origin.ts";
import { PaygateError } from "../core/errors.ts";
import type { PaymentGateway } from "../core/gateway.ts";
import type { InvoicePage } from "../core/invoices/invoices.ts";
import type { CheckoutLocale } from "../core/transactions/locales.ts";
import { HTTP_STATUS } from "../edge/status.ts";
import { type InvoiceText, localeOf, textOf } from "./invoice-page-text.ts";
import { invoicePdf, pdfFileName, receiptWord } from "./invoice-pdf.ts";

const html = (text: string) => text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

const CSP = ["default-src 'none'", "style-src 'self'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'"].join("; ");

function headers(res: Response): void {
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("X-Frame-Options", "DENY");
  res.setHeader("Content-Security-Policy", CSP);
}

function page(locale: CheckoutLocale, title: string, body: string): string {
  return `<!doctype html>
<html lang="${locale}" dir="${locale === "ar" ? "rtl" : "ltr"}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${html(title)}</title>
<link rel="stylesheet" href="/invoice/assets/invoice.css">
</head>
<body>
<main class="card">
${body}
</main>
</body>
</html>`;
}

function refusal(res: Response, locale: CheckoutLocale, status: number, message: string): void {
  headers(res);
  res
    .status(status)
    .type("html")
    .send(page(locale, message, `<h1>${html(textOf(locale).invoice)}</h1>\n<p role="alert">${html(message)}</p>`));
}

function invoiceBody(state: InvoicePage, t: InvoiceText, locale: CheckoutLocale, token: string, error: string | null): string {
  const i = state.invoice;
  const money = (amount: string) => `${html(amount)} ${html(i.currency)}`;
  const rows = i.items
    .map(
      (item) =>
        `<tr><td>${html(item.description)}</td><td class="num">${item.quantity}</td><td class="num">${money(item.unit_price)}</td><td class="num">${money(item.amount)}</td></tr>`,
    )
    .join("\n");
  const taxes = i.taxes
    .map((tax) => `<tr><th scope="row" colspan="3">${html(tax.name)} (${html(tax.rate)} %)</th><td class="num">${money(tax.amount)}</td></tr>`)
    .join("\n");
  const payable = i.state === "open" || i.state === "partially_paid" || i.state === "overdue";
  const amountField = i.allow_partial_payments
    ? `<label for="amount">${html(t.amountToPay)} (${html(i.currency)})</label>
<input id="amount" name="amount" inputmode="decimal" autocomplete="off" value="${html(i.amount_due)}"${error ? ' aria-invalid="true" aria-describedby="pay-error"' : ""}>`
    : "";
  const form = payable
    ? `<form method="post" action="/invoice/${encodeURIComponent(token)}/pay?lang=${locale}" class="pay no-print" novalidate>
${amountField}
<button type="submit">${html(t.pay)} ${i.allow_partial_payments ? "" : money(i.amount_due)}</button>
</form>`
    : "";
  return `${i.is_live ? "" : `<p class="test-banner" role="note">${html(t.testMode)}</p>`}
<header>
<h1>${html(t.invoice)} ${html(i.number ?? "")}</h1>
<p class="state state-${i.state}">${html(t.state[i.state as keyof InvoiceText["state"]] ?? i.state)}</p>
</header>
<dl class="facts">
<dt>${html(t.from)}</dt><dd>${html(state.merchantName)}</dd>
<dt>${html(t.billedTo)}</dt><dd>${html(i.customer.name ?? "")} &lt;${html(i.customer.email)}&gt;</dd>
${i.due_date ? `<dt>${html(t.due)}</dt><dd>${html(i.due_date)}</dd>` : ""}
</dl>
<div class="table-wrap" role="region" aria-label="${html(t.invoice)}" tabindex="0"><table>
<thead><tr><th scope="col">${html(t.description)}</th><th scope="col" class="num">${html(t.quantity)}</th><th scope="col" class="num">${html(t.unitPrice)}</th><th scope="col" class="num">${html(t.amount)}</th></tr></thead>
<tbody>
${rows}
</tbody>
<tfoot>
<tr><th scope="row" colspan="3">${html(t.subtotal)}</th><td class="num">${money(i.subtotal)}</td></tr>
${taxes}
<tr class="total"><th scope="row" colspan="3">${html(t.total)}</th><td class="num">${money(i.total)}</td></tr>
<tr><th scope="row" colspan="3">${html(t.paid)}</th><td class="num" id="amount-paid">${money(i.amount_paid)}</td></tr>
<tr class="total"><th scope="row" colspan="3">${html(t.left)}</th><td class="num" id="amount-due">${money(i.amount_due)}</td></tr>
</tfoot>
</table></div>
${i.memo ? `<p class="memo">${html(i.memo)}</p>` : ""}
${error ? `<p id="pay-error" class="error no-print" role="alert">${html(error)}</p>` : ""}
${form}
<p class="documents no-print"><a href="/invoice/${encodeURIComponent(token)}.pdf?document=invoice&amp;lang=${locale}">${html(t.invoice)} (PDF)</a>${
    i.state === "paid"
      ? ` · <a href="/invoice/${encodeURIComponent(token)}.pdf?document=receipt&amp;lang=${locale}">${html(receiptWord(locale))} (PDF)</a>`
      : ""
  }</p>`;
}

async function show(gateway: PaymentGateway, req: Request, res: Response, error: { status: number; message: string } | null = null): Promise<void> {
  let state: InvoicePage;
  try {
    state = await gateway.invoices.invoicePage(String(req.params.token));
  } catch (failure) {
    if (failure instanceof PaygateError && failure.code === "not_found")
      return refusal(res, localeOf(req.query.lang, req.headers["accept-language"]), 404, failure.message);
    throw failure;
  }
  const locale = localeOf(req.query.lang, req.headers["accept-language"], state.invoice.locale);
  const t = textOf(locale);
  headers(res);
  res
    .status(error?.status ?? 200)
    .type("html")
    .send(
      page(
        locale,
        `${t.invoice} ${state.invoice.number ?? ""} · ${state.merchantName}`,
        invoiceBody(state, t, locale, String(req.params.token), error?.message ?? null),
      ),
    );
}

export function invoicePage(gateway: PaymentGateway): Router {
  const router = Router();

  router.get("/invoice/assets/invoice.css", (_req, res) => {
    res.setHeader("Cache-Control", "public, max-age=3600");
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.status(200).type("css").send(INVOICE_CSS);
  });

  // The PDF (of the receipt once paid; ?document=invoice|receipt to choose), before /invoice/:token would take it.
  router.get(/^\/invoice\/([^/]+)\.pdf$/, async (req, res) => {
    const locale = localeOf(req.query.lang, req.headers["accept-language"]);
    try {
      const document = await gateway.invoices.invoicePageDocument(String(req.params[0]), req.query.document);
      const bytes = await invoicePdf(document, localeOf(req.query.lang, req.headers["accept-language"], document.invoice.locale));
      headers(res);
      res.setHeader("Content-Disposition", `inline; filename="${pdfFileName(document)}"`);
      res.status(200).type("application/pdf").send(bytes);
    } catch (failure) {
      if (!(failure instanceof PaygateError) || HTTP_STATUS[failure.code] >= 500) throw failure;
      refusal(res, locale, HTTP_STATUS[failure.code], failure.message);
    }
  });

  router.get("/invoice/:token", (req, res) => show(gateway, req, res));

  router.post("/invoice/:token/pay", express.urlencoded({ extended: false, limit: "4kb", parameterLimit: 10 }), async (req, res) => {
    const locale = localeOf(req.query.lang, req.headers["accept-language"]);
    if (!fromOwnOrigin(req, gateway.publicUrl)) return refusal(res, locale, 403, "This form can only be sent from this invoice page.");
    const amount = (req.body as Record<string, unknown> | undefined)?.amount;
    try {
      const paid = await gateway.invoices.payInvoice(String(req.params.token), { amount: typeof amount === "string" ? amount : null, locale });
      res.setHeader("Cache-Control", "no-store");
      res.redirect(303, paid.checkoutUrl);
    } catch (failure) {
      if (!(failure instanceof PaygateError) || HTTP_STATUS[failure.code] >= 500) throw failure;
      if (failure.code === "not_found") return refusal(res, locale, 404, failure.message);
      await show(gateway, req, res, { status: HTTP_STATUS[failure.code], message: failure.message });
    }
  });

  return router;
}

/** Readable at 375 px and on a desktop, visible focus, AA contrast; printed without the form, in black on white. */
const INVOICE_CSS = `*,*::before,*::after{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:1rem;line-height:1.5;color:#1a1a1a;background:#f4f5f7}
.card{max-width:48rem;margin:1.5rem auto;padding:1.5rem;background:#fff;border:1px solid #d0d4da;border-radius:.5rem}
.test-banner{margin:0 0 1rem;padding:.5rem 1rem;background:#8a4b00;color:#fff;border-radius:.25rem}
header{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:baseline;gap:.5rem}
h1{font-size:1.5rem;margin:0}
.state{margin:0;padding:.1rem .6rem;border-radius:1rem;background:#e8eaee;font-weight:600}
.state-paid{background:#d6f0dc;color:#0d5a1f}
.state-overdue{background:#fbe0dc;color:#8b1a0e}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:1rem 0}
.facts dt{font-weight:600}
.facts dd{margin:0;overflow-wrap:anywhere}
.table-wrap{overflow-x:auto}
table{width:100%;border-collapse:collapse;margin:1rem 0}
th,td{padding:.4rem .5rem;border-bottom:1px solid #d0d4da;text-align:start;vertical-align:top}
.num{text-align:end;white-space:nowrap}
tfoot th{text-align:end;font-weight:400}
tr.total th,tr.total td{font-weight:700}
.memo{white-space:pre-wrap;color:#3a3f47}
.documents{margin:1rem 0 0}
a{color:#1d4ed8}
.pay{display:flex;flex-wrap:wrap;gap:.75rem;align-items:end;margin-top:1rem}
.pay label{flex-basis:100%;font-weight:600}
.pay input{font:inherit;padding:.5rem;border:1px solid #6b7280;border-radius:.25rem;min-width:10rem}
button{font:inherit;padding:.6rem 1.4rem;border:0;border-radius:.25rem;background:#1d4ed8;color:#fff;cursor:pointer}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.error{flex-basis:100%;color:#8b1a0e;margin:0}
@media (max-width:30rem){.card{margin:0;border-radius:0;border-left:0;border-right:0;padding:1rem}th,td{padding:.3rem}}
@media print{body{background:#fff;color:#000}.card{border:0;margin:0;max-width:none}.no-print,.test-banner{display:none}}`;
