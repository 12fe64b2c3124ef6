// Failures of invoices and their hosted pages (issue 44; src/core/invoices).
import { type FieldError, PaygateError, printable } from "./base.ts";

export const invoiceErrors = {
  /** The message names every refused field, so a caller reading the message alone knows what to mend. */
  invoiceValidation: (fieldErrors: FieldError[]) =>
    new PaygateError(
      "validation_error",
      fieldErrors.length === 0 ? "Missing or invalid invoice fields" : `Invalid invoice: ${fieldErrors.map((e) => e.message).join("; ")}`,
      "invalid_invoice_request",
      fieldErrors,
    ),
  /** The same for an unknown id and another merchant's or mode's invoice. */
  invoiceNotFound: (id: string) => new PaygateError("not_found", `No invoice with id '${printable(id)}'`, "invoice_not_found"),
  invoiceNotDraft: (state: string) =>
    new PaygateError("conflict", `The invoice is ${state.replace("_", " ")}, not a draft: only a draft can be finalized`, "invoice_not_draft"),
  /** Void after money arrived, or of a void invoice: nothing is changed. */
  invoiceNotVoidable: (state: string) =>
    new PaygateError(
      "conflict",
      state === "void"
        ? "The invoice is void already"
        : `The invoice is ${state.replace("_", " ")}: an invoice that received a payment cannot be voided; refund the payment instead`,
      state === "void" ? "invoice_void" : "invoice_paid",
    ),
  /** A change of a paid or void invoice (its language): nothing is changed. */
  invoiceNotEditable: (state: string) =>
    new PaygateError("conflict", `The invoice is ${state.replace("_", " ")}: it can no longer be changed`, "invoice_not_editable"),
  /** An unknown or mistyped page link: nothing says which links exist. */
  invoicePageNotFound: () =>
    new PaygateError("not_found", "This invoice link is not valid; ask the merchant for a new one", "invoice_page_not_found"),
  invoiceNotPayable: (state: string) =>
    new PaygateError(
      "conflict",
      state === "paid" ? "This invoice is paid; nothing is left to pay" : `This invoice is ${state}: it cannot be paid`,
      "invoice_not_payable",
    ),
  /** A receipt of an invoice that is not paid (yet, or ever). */
  invoiceReceiptNotPaid: (state: string) =>
    new PaygateError(
      "conflict",
      `The invoice is ${state.replace("_", " ")}: its receipt exists once it is paid; ask for document=invoice instead`,
      "invoice_not_paid",
    ),
  invoiceMerchantInactive: () => new PaygateError("forbidden", "This merchant no longer takes payments; contact the merchant", "merchant_inactive"),
};
