// REST controllers of invoices (issue 44; docs/invoices.md): parse the request, call the core, shape
// the reply. Secret key only; the rules are the core's (src/core/invoices).
import { Router, type Request, type Response } from "express";
import { errors } from "../../../core/errors.ts";
import type { PaymentGateway } from "../../../core/gateway.ts";
import type { InvoiceView } from "../../../core/invoices/view.ts";
import { bearerToken, noStore } from "../../../edge/headers.ts";
import { clientAddress } from "../../../edge/rate-limits.ts";
import { jsonBody } from "../../body.ts";
import { localeOf } from "../../invoice-page-text.ts";
import { invoicePdf, pdfFileName } from "../../invoice-pdf.ts";
import type { InvoiceListResponse, InvoiceResponse } from "./schemas.ts";

export function invoiceRoutes(gateway: PaymentGateway): Router {
  const router = Router();
  const owner = async (req: Request, res: Response) => {
    const access = await gateway.access.key(bearerToken(req.headers.authorization), clientAddress(req));
    res.locals.merchantId = access.merchantId;
    return access;
  };
  const send = (res: Response, invoice: InvoiceView, status = 200) => {
    const body: InvoiceResponse = { status: "success", data: invoice, meta: {} };
    res.status(status).json(body);
  };

  router.post("/v1/invoices", noStore, jsonBody(errors.invoiceValidation), async (req, res) => {
    send(res, await gateway.invoices.createInvoice(await owner(req, res), req.body), 201);
  });

  router.get("/v1/invoices", noStore, async (req, res) => {
    const page = await gateway.invoices.listInvoices(await owner(req, res), { ...req.query });
    const body: InvoiceListResponse = { status: "success", data: page.invoices, has_more: page.hasMore, meta: {} };
    res.status(200).json(body);
  });

  router.get("/v1/invoices/:invoice_id", noStore, async (req, res) => {
    send(res, await gateway.invoices.retrieveInvoice(await owner(req, res), String(req.params.invoice_id)));
  });

  // Its PDF: the receipt once paid, else the invoice (?document=invoice|receipt to choose; ?lang= its language).
  router.get("/v1/invoices/:invoice_id/pdf", noStore, async (req, res) => {
    const document = await gateway.invoices.invoiceDocument(await owner(req, res), String(req.params.invoice_id), req.query.document);
    const bytes = await invoicePdf(document, localeOf(req.query.lang, undefined, document.invoice.locale));
    res.setHeader("Content-Disposition", `inline; filename="${pdfFileName(document)}"`);
    res.status(200).type("application/pdf").send(bytes);
  });

  // Its language (the one field a sent invoice may change).
  router.post("/v1/invoices/:invoice_id", noStore, jsonBody(errors.invoiceValidation), async (req, res) => {
    send(res, await gateway.invoices.updateInvoice(await owner(req, res), String(req.params.invoice_id), req.body));
  });

  router.post("/v1/invoices/:invoice_id/finalize", noStore, jsonBody(errors.invoiceValidation), async (req, res) => {
    send(res, await gateway.invoices.finalizeInvoice(await owner(req, res), String(req.params.invoice_id)));
  });

  router.post("/v1/invoices/:invoice_id/void", noStore, jsonBody(errors.invoiceValidation), async (req, res) => {
    send(res, await gateway.invoices.voidInvoice(await owner(req, res), String(req.params.invoice_id)));
  });

  return router;
}
