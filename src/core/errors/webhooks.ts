// Failures of webhook endpoints and their delivery log (issue 27; src/core/webhooks).
import { type FieldError, PaygateError, printable } from "./base.ts";

export const webhookErrors = {
  // ── Webhook endpoints (issue 27; src/core/webhooks) ──
  /** Refused endpoint fields: the message names each, nothing changed. */
  webhookEndpointValidation: (fieldErrors: FieldError[]) =>
    new PaygateError(
      "validation_error",
      `Invalid webhook endpoint: ${fieldErrors.map((e) => `${e.field} ${e.message}`).join("; ")}`,
      "invalid_webhook_endpoint",
      fieldErrors,
    ),
  /** The same for an unknown id and another merchant's or mode's endpoint. */
  webhookEndpointNotFound: (id: string) =>
    new PaygateError("not_found", `No webhook endpoint with id '${printable(id)}'`, "webhook_endpoint_not_found"),
  webhookEndpointLimit: (max: number, mode: "test" | "live") =>
    new PaygateError(
      "conflict",
      `This merchant already has ${max} ${mode}-mode webhook endpoints, the most allowed (PAYGATE_WEBHOOK_ENDPOINTS_MAX); delete one first`,
      "webhook_endpoint_limit",
    ),
  /** The same for an unknown id and another merchant's or mode's delivery. */
  webhookDeliveryNotFound: (id: string) =>
    new PaygateError("not_found", `No webhook delivery with id '${printable(id)}'`, "webhook_delivery_not_found"),
  webhookEventNotFound: (id: string) =>
    new PaygateError("not_found", `No webhook event with id ${printable(id)}; list them with: paygate webhooks list`, "webhook_event_not_found"),
};
