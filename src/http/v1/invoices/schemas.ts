// An invoice's response shapes and POST /v1/invoices' body (issue 44; docs/invoices.md) as zod
// schemas: the OpenAPI document (openapi.ts beside this file) is generated from them.
import { z } from "zod";
import { MAX_INVOICE_ITEMS, MAX_INVOICE_TAXES, MAX_QUANTITY } from "../../../core/invoices/rules.ts";
import { CHECKOUT_LOCALES } from "../../../core/transactions/locales.ts";
import { nullable } from "../openapi-shared.ts";

const fiat = (description: string) => z.string().meta({ description: `${description} A decimal string with the currency's decimals.` });
const dateTime = () => z.string().meta({ format: "date-time" });

const InvoiceState = z
  .enum(["draft", "open", "partially_paid", "paid", "overdue", "void"])
  .meta({ id: "InvoiceState", description: "draft → open → partially_paid → paid; overdue: open past its due date with something left; void." });

/** An invoice (issue 44; docs/invoices.md). */
export const Invoice = z
  .object({
    id: z.string().meta({ example: "inv_0b7f6c2e-3d0e-4a59-9a55-2f8a1d0c4e11" }),
    object: z.literal("invoice"),
    number: nullable(z.string().meta({ description: "Per merchant and mode, without gaps, given when finalized.", example: "INV-0001" })),
    is_live: z.boolean(),
    state: InvoiceState,
    customer: z.object({ email: z.string(), name: nullable(z.string()) }),
    currency: z.string().meta({ example: "USD" }),
    items: z.array(
      z.object({
        description: z.string(),
        quantity: z.number().int(),
        unit_price: fiat("The price of one."),
        amount: fiat("quantity × unit_price."),
      }),
    ),
    taxes: z.array(
      z.object({ name: z.string(), rate: z.string().meta({ description: "Percent." }), amount: fiat("The rate of the subtotal, rounded half up.") }),
    ),
    subtotal: fiat("The items' amounts added."),
    tax_total: fiat("The taxes' amounts added."),
    total: fiat("subtotal + tax_total."),
    amount_paid: fiat("What its SUCCESSFUL transactions paid (an underpayment counts once the lifecycle accepts it)."),
    amount_due: fiat("What is left to pay."),
    amount_overpaid: fiat("Paid beyond the total."),
    memo: nullable(z.string()),
    due_date: nullable(z.string().meta({ format: "date" })),
    allow_partial_payments: z.boolean(),
    locale: nullable(
      z
        .enum(CHECKOUT_LOCALES)
        .meta({ description: "Its language: its e-mails, reminders and PDF, and its page before the browser's. Null: not set (English e-mails)." }),
    ),
    hosted_url: nullable(z.string().meta({ format: "uri", description: "The customer's page; null while a draft." })),
    transactions: z.array(
      z.object({
        id: z.string(),
        status: z.enum(["INITIATED", "PENDING", "SUCCESSFUL", "ABANDONED"]),
        amount: fiat("What the transaction asked for."),
        amount_credited: fiat("What it counts for in amount_paid."),
        created_at: dateTime(),
      }),
    ),
    created_at: dateTime(),
    finalized_at: nullable(dateTime()),
    voided_at: nullable(dateTime()),
  })
  .meta({ id: "Invoice" });

export const InvoiceResponse = z.object({ status: z.literal("success"), data: Invoice, meta: z.object({}) }).meta({ id: "InvoiceResponse" });
export const InvoiceListResponse = z
  .object({ status: z.literal("success"), data: z.array(Invoice), has_more: z.boolean(), meta: z.object({}) })
  .meta({ id: "InvoiceListResponse" });

export type InvoiceResponse = z.infer<typeof InvoiceResponse>;
export type InvoiceListResponse = z.infer<typeof InvoiceListResponse>;

export const InvoiceRequest = z
  .object({
    customer: z.object({
      email: z.string().meta({ example: "ada@example.com" }),
      name: z.string().nullable().optional().meta({ example: "Ada Obi" }),
    }),
    currency: z.string().meta({ description: "USD or NGN.", example: "USD" }),
    items: z
      .array(
        z.object({
          description: z.string().meta({ example: "Consulting, November" }),
          quantity: z
            .number()
            .int()
            .meta({ description: `A positive integer, at most ${MAX_QUANTITY}.`, example: 2 }),
          unit_price: z.string().meta({ description: "A positive decimal string, at most the currency's decimals.", example: "150.00" }),
        }),
      )
      .meta({ description: `1 to ${MAX_INVOICE_ITEMS} line items.` }),
    taxes: z
      .array(
        z.object({
          name: z.string().meta({ example: "VAT" }),
          rate: z.string().meta({ description: "Percent, 0 to 100, at most 4 decimals.", example: "7.5" }),
        }),
      )
      .nullable()
      .optional()
      .meta({ description: `Up to ${MAX_INVOICE_TAXES} tax lines, each applied to the subtotal.` }),
    memo: z.string().nullable().optional(),
    due_date: z.string().nullable().optional().meta({ format: "date", example: "2026-12-31" }),
    allow_partial_payments: z
      .boolean()
      .nullable()
      .optional()
      .meta({ description: "The hosted page lets the customer pay part of what is left. Default false." }),
    locale: z.enum(CHECKOUT_LOCALES).nullable().optional().meta({
      description:
        "Its language (e-mails, reminders, PDF; its page unless `?lang=` says otherwise). Absent: the page follows the browser, e-mails are in English.",
      example: "fr",
    }),
    finalize: z.boolean().nullable().optional().meta({ description: "true: open and numbered at once; default false (a draft)." }),
  })
  .meta({ id: "InvoiceRequest" });

export const InvoiceUpdateRequest = z
  .object({
    locale: z.enum(CHECKOUT_LOCALES).nullable().meta({
      description: "Its language (e-mails, reminders, PDF, page); null: none (its page follows the browser, e-mails in English).",
      example: "fr",
    }),
  })
  .meta({ id: "InvoiceUpdateRequest" });
