// The dashboard's invoices (issue 44; docs/invoices.md): the list, one invoice, a new draft, finalize
// and void, each in the page's ?mode=. The invoices' façade checks the role (`read`, or
// `manage_invoices` for a change) and every rule; these name fields and answer as REST does.
import type { Request, Router } from "express";
import type { PaymentGateway } from "../../../core/gateway.ts";
import { localeOf } from "../../invoice-page-text.ts";
import { invoicePdf, pdfFileName } from "../../invoice-pdf.ts";
import { accessOf, bodyOf, isLiveOf, sendData } from "../session.ts";
import { emailListBody } from "./transactions.ts";

/** The query without `mode` (the dashboard's, not the list's): the list refuses parameters it does not know. */
function listQueryOf(req: Request): Record<string, unknown> {
  const { mode: _mode, ...query } = req.query;
  return query;
}

export function invoiceRoutes(router: Router, gateway: PaymentGateway): void {
  router.get("/invoices", async (req, res) => {
    const page = await gateway.invoices.listInvoices(accessOf(gateway, res, isLiveOf(req)), listQueryOf(req));
    sendData(res, { invoices: page.invoices, has_more: page.hasMore });
  });

  router.post("/invoices", async (req, res) => {
    sendData(res, await gateway.invoices.createInvoice(accessOf(gateway, res, isLiveOf(req)), bodyOf(req)), 201);
  });

  router.get("/invoices/:id", async (req, res) => {
    sendData(res, await gateway.invoices.retrieveInvoice(accessOf(gateway, res, isLiveOf(req)), String(req.params.id)));
  });

  router.get("/invoices/:id/pdf", async (req, res) => {
    const document = await gateway.invoices.invoiceDocument(accessOf(gateway, res, isLiveOf(req)), String(req.params.id), req.query.document);
    const bytes = await invoicePdf(document, localeOf(req.query.lang, req.headers["accept-language"], document.invoice.locale));
    res.setHeader("Content-Disposition", `attachment; filename="${pdfFileName(document)}"`);
    res.status(200).type("application/pdf").send(bytes);
  });

  // The customer's e-mails of this invoice (the invoice, its reminders), and whether e-mail is on at all.
  router.get("/invoices/:id/emails", async (req, res) => {
    const access = accessOf(gateway, res, isLiveOf(req));
    const invoice = await gateway.invoices.retrieveInvoice(access, String(req.params.id));
    sendData(res, emailListBody(gateway, await gateway.email.list(access, { invoiceId: invoice.id, limit: 100 })));
  });

  router.post("/invoices/:id/finalize", async (req, res) => {
    sendData(res, await gateway.invoices.finalizeInvoice(accessOf(gateway, res, isLiveOf(req)), String(req.params.id)));
  });

  router.post("/invoices/:id/void", async (req, res) => {
    sendData(res, await gateway.invoices.voidInvoice(accessOf(gateway, res, isLiveOf(req)), String(req.params.id)));
  });
}
