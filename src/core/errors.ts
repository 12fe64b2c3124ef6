// Every failure the core reports, with the message the spec gives it (section 7). The error's
// `code` decides its HTTP status, in one table of the HTTP layer (src/edge/status.ts); REST and
// GraphQL both map these, and neither invents its own.
// The catalogue lives by context in src/core/errors/; this file composes it, so every caller imports one `errors`.
import { dashboardErrors } from "./errors/dashboard.ts";
import { emailErrors } from "./errors/email.ts";
import { invoiceErrors } from "./errors/invoices.ts";
import { refundErrors } from "./errors/refunds.ts";
import { requestErrors } from "./errors/requests.ts";
import { settlementErrors } from "./errors/settlement.ts";
import { webhookErrors } from "./errors/webhooks.ts";

export {
  DuplicateKeyError,
  type ErrorCode,
  type FieldError,
  isDatabaseOutage,
  MESSAGES,
  PaygateError,
  RetryLaterError,
} from "./errors/base.ts";

export const errors = {
  ...requestErrors,
  ...webhookErrors,
  ...refundErrors,
  ...invoiceErrors,
  ...settlementErrors,
  ...dashboardErrors,
  ...emailErrors,
};
