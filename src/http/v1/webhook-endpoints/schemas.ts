// Webhook endpoints and their delivery log as the REST API shows them (issue 27), and the bodies
// that make and change an endpoint, as zod schemas: the OpenAPI document (openapi.ts beside this
// file) is generated from them.
import { z } from "zod";
import { EVENT_TYPES } from "../../../core/events/payment-events.ts";

const time = z.string().meta({ description: "ISO 8601 (UTC)." });

export const WebhookEndpoint = z
  .object({
    id: z.string().meta({ description: "`we_…`" }),
    object: z.literal("webhook_endpoint"),
    mode: z.enum(["test", "live"]),
    url: z.string(),
    description: z.string().nullable(),
    enabled_events: z.array(z.string()).meta({ description: `The event types it receives (${EVENT_TYPES.join(", ")}), or \`["*"]\`: all.` }),
    status: z.enum(["enabled", "disabled"]),
    disabled_at: time.nullable(),
    disabled_reason: z
      .string()
      .nullable()
      .meta({ description: "`manual`, or `failing`: every attempt failed for PAYGATE_WEBHOOK_DISABLE_AFTER_HOURS (72 by default)." }),
    failing_since: time.nullable().meta({ description: "The first failed attempt since its last success; null when its last attempt succeeded." }),
    primary: z.boolean().meta({ description: "The mode's first endpoint: the merchant's webhook URL and secret (merchant settings change it too)." }),
    secret_rotated_at: time.nullable(),
    previous_secret_expires_at: time.nullable().meta({ description: "Until when the secret before the last rotation also signs." }),
    created_at: time,
    updated_at: time,
    secret: z.string().optional().meta({ description: "The `whsec_…` signing secret: only in the answer that made or rotated it." }),
  })
  .meta({ id: "WebhookEndpoint" });

export const WebhookDelivery = z
  .object({
    id: z.string().meta({ description: "`wd_…` (for the mode's first endpoint, `wd_` and the event's id)." }),
    object: z.literal("webhook_delivery"),
    endpoint_id: z.string(),
    event: z.object({ id: z.string(), type: z.string() }),
    status: z.enum(["succeeded", "failed", "pending", "skipped"]).meta({
      description:
        "succeeded: delivered; failed: given up, or retrying after a failed attempt (see `next_attempt_at`); pending: not tried yet; skipped: not sent.",
    }),
    attempts: z.number().int(),
    status_code: z.number().int().nullable().meta({ description: "The receiver's status at the last attempt; null: none yet, or no answer." }),
    latency_ms: z.number().int().nullable(),
    last_attempt_at: time.nullable(),
    next_attempt_at: time.nullable(),
    delivered_at: time.nullable(),
    created_at: time.meta({ description: "When its event was written." }),
  })
  .meta({ id: "WebhookDelivery" });

const envelope = <T extends z.ZodType>(data: T, id: string) => z.object({ status: z.literal("success"), data, meta: z.object({}) }).meta({ id });

export const WebhookEndpointResponse = envelope(WebhookEndpoint, "WebhookEndpointResponse");
export const WebhookEndpointUpdateResponse = z
  .object({
    status: z.literal("success"),
    data: WebhookEndpoint,
    meta: z.object({ redelivered: z.number().int().meta({ description: "Missed deliveries queued again (re-enabling with `redeliver_missed`)." }) }),
  })
  .meta({ id: "WebhookEndpointUpdateResponse" });
export const WebhookEndpointListResponse = z
  .object({ status: z.literal("success"), data: z.array(WebhookEndpoint), has_more: z.boolean(), meta: z.object({}) })
  .meta({ id: "WebhookEndpointListResponse" });
export const WebhookEndpointDeletedResponse = envelope(
  z.object({ id: z.string(), object: z.literal("webhook_endpoint"), deleted: z.literal(true) }),
  "WebhookEndpointDeletedResponse",
);
export const WebhookDeliveryResponse = envelope(WebhookDelivery, "WebhookDeliveryResponse");
export const WebhookDeliveryListResponse = z
  .object({ status: z.literal("success"), data: z.array(WebhookDelivery), has_more: z.boolean(), meta: z.object({}) })
  .meta({ id: "WebhookDeliveryListResponse" });
export const RedeliverFailedResponse = envelope(z.object({ queued: z.number().int() }), "WebhookRedeliverFailedResponse");

export const CreateBody = z
  .object({
    url: z
      .string()
      .meta({ description: "http(s); live mode: https on a public host (docs/webhooks.md).", example: "https://shop.example.com/webhooks" }),
    enabled_events: z
      .array(z.string())
      .min(1)
      .meta({ description: `Event types (${EVENT_TYPES.join(", ")}) or \`["*"]\`.`, example: ["*"] }),
    description: z.string().max(500).optional(),
  })
  .meta({ id: "WebhookEndpointCreate" });
export const UpdateBody = z
  .object({
    url: z.string().optional(),
    enabled_events: z.array(z.string()).min(1).optional(),
    description: z.string().max(500).nullable().optional(),
    disabled: z.boolean().optional(),
    redeliver_missed: z.boolean().optional().meta({
      description: "With `disabled: false`: queue again what failed or was not sent while it was failing or disabled.",
    }),
  })
  .meta({ id: "WebhookEndpointUpdate" });
