// The OpenAPI description of the invoice routes (issue 44; routes.ts beside it), assembled into the
// document by src/http/openapi.ts.
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { errors } from "../../../core/errors.ts";
import { InvoiceListParams } from "../../../core/invoices/invoices.ts";
import {
  ANY,
  errorResponses,
  pagedList,
  json,
  KEY_ROLE,
  limited,
  queryParam,
  SECRET_ONLY,
  secretKey,
  WITH_BODY,
  WITH_PATH,
} from "../openapi-shared.ts";
import { InvoiceListResponse, InvoiceRequest, InvoiceResponse, InvoiceUpdateRequest } from "./schemas.ts";

const invoiceId = z.object({
  invoice_id: z.string().meta({ param: { name: "invoice_id", in: "path" }, description: "The invoice's `id` (`inv_…`)." }),
});

const invoicePage = pagedList(InvoiceListParams, "invoice");

export function registerInvoicePaths(registry: OpenAPIRegistry): void {
  const notFound = { error: errors.invoiceNotFound("…"), when: "an unknown id, another merchant's or the other mode's invoice" };
  const validation = {
    error: errors.invoiceValidation([{ field: "items.0.quantity", message: "items.0.quantity must be a positive integer" }]),
    when: "missing or invalid fields; the message and `errors` name each",
  };

  registry.registerPath({
    method: "post",
    path: "/v1/invoices",
    operationId: "createInvoice",
    summary: "Create an invoice",
    description:
      "Not in the spec (issue 44; docs/invoices.md): a payment request to one customer, as a draft or (`finalize: true`) open and numbered at once. Totals are computed exactly from the items and the tax lines.",
    security: secretKey,
    request: { body: json(InvoiceRequest, "The invoice.") },
    responses: {
      201: limited(InvoiceResponse, "The invoice."),
      ...errorResponses([validation, SECRET_ONLY, KEY_ROLE, ...WITH_BODY, ...ANY]),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/v1/invoices",
    operationId: "listInvoices",
    summary: "List invoices",
    description: "The secret key's merchant's invoices of its mode, newest first, paged as `/v1/transactions`.",
    security: secretKey,
    request: { query: invoicePage.query },
    responses: {
      200: limited(InvoiceListResponse, "A page of invoices."),
      ...errorResponses([...invoicePage.refusals, SECRET_ONLY, ...ANY]),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/v1/invoices/{invoice_id}",
    operationId: "retrieveInvoice",
    summary: "Retrieve an invoice",
    description: "With what its transactions paid and what is left.",
    security: secretKey,
    request: { params: invoiceId },
    responses: { 200: limited(InvoiceResponse, "The invoice."), ...errorResponses([SECRET_ONLY, notFound, ...WITH_PATH, ...ANY]) },
  });

  registry.registerPath({
    method: "get",
    path: "/v1/invoices/{invoice_id}/pdf",
    operationId: "retrieveInvoicePdf",
    summary: "An invoice's PDF",
    description:
      "The PDF of the invoice, or of its receipt once it is paid (its payments listed): `document` chooses (`invoice` or `receipt`; default: the receipt once paid, else the invoice), `lang` its language (en, fr, es, pt, de, ar; default the invoice's `locale`). A draft's is the merchant's preview.",
    security: secretKey,
    request: {
      params: invoiceId,
      query: z.object({
        document: queryParam("document", "`invoice` or `receipt` (default: the receipt once paid, else the invoice)."),
        lang: queryParam("lang", "en, fr, es, pt, de or ar (right to left). Default: the invoice's `locale`, else en."),
      }),
    },
    responses: {
      200: {
        description: 'The PDF (`Content-Disposition: inline; filename="INV-0001.pdf"`).',
        content: { "application/pdf": { schema: z.string().meta({ format: "binary" }) } },
      },
      ...errorResponses([
        SECRET_ONLY,
        notFound,
        {
          error: errors.invoiceValidation([{ field: "document", message: "document must be invoice or receipt" }]),
          when: "`document` is neither invoice nor receipt",
        },
        { error: errors.invoiceReceiptNotPaid("open"), when: "a receipt of an invoice that is not paid" },
        ...WITH_PATH,
        ...ANY,
      ]),
    },
  });

  registry.registerPath({
    method: "post",
    path: "/v1/invoices/{invoice_id}",
    operationId: "updateInvoice",
    summary: "Change an invoice's language",
    description:
      "Its `locale`, the one field a sent invoice may change, while a draft or not yet paid: the messages sent from then on, its PDF and its page are in it.",
    security: secretKey,
    request: { params: invoiceId, body: json(InvoiceUpdateRequest, "The change.") },
    responses: {
      200: limited(InvoiceResponse, "The invoice."),
      ...errorResponses([
        SECRET_ONLY,
        KEY_ROLE,
        notFound,
        {
          error: errors.invoiceValidation([{ field: "locale", message: "locale must be one of en, fr, es, pt, de, ar" }]),
          when: "`locale` is missing or not one of the six",
        },
        { error: errors.invoiceNotEditable("paid"), when: "the invoice is paid or void" },
        ...WITH_PATH,
        ...WITH_BODY,
        ...ANY,
      ]),
    },
  });

  registry.registerPath({
    method: "post",
    path: "/v1/invoices/{invoice_id}/finalize",
    operationId: "finalizeInvoice",
    summary: "Finalize an invoice",
    description: "A draft becomes open, takes the next number of its merchant and mode and gets its `hosted_url`.",
    security: secretKey,
    request: { params: invoiceId },
    responses: {
      200: limited(InvoiceResponse, "The open invoice."),
      ...errorResponses([
        SECRET_ONLY,
        KEY_ROLE,
        notFound,
        { error: errors.invoiceNotDraft("open"), when: "the invoice is not a draft" },
        ...WITH_PATH,
        ...WITH_BODY,
        ...ANY,
      ]),
    },
  });

  registry.registerPath({
    method: "post",
    path: "/v1/invoices/{invoice_id}/void",
    operationId: "voidInvoice",
    summary: "Void an invoice",
    description: "A draft, or an open invoice nothing was paid of and no payment is under way: it can no longer be paid.",
    security: secretKey,
    request: { params: invoiceId },
    responses: {
      200: limited(InvoiceResponse, "The void invoice."),
      ...errorResponses([
        SECRET_ONLY,
        KEY_ROLE,
        notFound,
        {
          error: errors.invoiceNotVoidable("paid"),
          when: "a payment counts or is under way (`invoice_paid`), or it is void already (`invoice_void`)",
        },
        ...WITH_PATH,
        ...WITH_BODY,
        ...ANY,
      ]),
    },
  });
}
