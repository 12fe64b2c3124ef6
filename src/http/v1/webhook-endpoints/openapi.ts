// The OpenAPI description of the webhook endpoints and delivery log routes (issue 27; routes.ts
// beside it), assembled into the document by src/http/openapi.ts.
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { errors } from "../../../core/errors.ts";
import { LIST_LIMIT_MAX } from "../../../core/lists.ts";
import {
  CreateBody,
  RedeliverFailedResponse,
  UpdateBody,
  WebhookDeliveryListResponse,
  WebhookDeliveryResponse,
  WebhookEndpointDeletedResponse,
  WebhookEndpointListResponse,
  WebhookEndpointResponse,
  WebhookEndpointUpdateResponse,
} from "./schemas.ts";
import { ANY, type ErrorCase, errorResponses, KEY_ROLE, limited, SECRET_ONLY, secretKey, WITH_BODY, WITH_PATH } from "../openapi-shared.ts";

const endpointId = z.object({
  endpoint_id: z.string().meta({ param: { name: "endpoint_id", in: "path" }, description: "The endpoint's `id` (`we_…`)." }),
});

export function registerWebhookEndpointPaths(registry: OpenAPIRegistry): void {
  const invalid: ErrorCase = {
    error: errors.webhookEndpointValidation([{ field: "enabled_events", message: "names no event type: payment.bogus" }]),
    when: "a URL that fails the checks of webhook URLs, an unknown event type, an unknown field; the message names each",
  };
  const notFound: ErrorCase = { error: errors.webhookEndpointNotFound("…"), when: "an unknown id, another merchant's or the other mode's endpoint" };
  const json = (schema: z.ZodType) => ({ body: { content: { "application/json": { schema } } } });
  const base = { security: secretKey };

  registry.registerPath({
    ...base,
    method: "post",
    path: "/v1/webhook_endpoints",
    operationId: "createWebhookEndpoint",
    summary: "Create a webhook endpoint",
    description:
      "Not in the spec (issue 27): a receiver of the events named, with a signing secret of its own (shown only in this answer). The mode's first endpoint is the merchant's webhook URL and secret.",
    request: json(CreateBody),
    responses: {
      201: limited(WebhookEndpointResponse, "The endpoint, with its secret."),
      ...errorResponses([
        invalid,
        { error: errors.webhookEndpointLimit(16, "test"), when: "the merchant already has PAYGATE_WEBHOOK_ENDPOINTS_MAX endpoints in this mode" },
        SECRET_ONLY,
        KEY_ROLE,
        ...WITH_BODY,
        ...ANY,
      ]),
    },
  });
  registry.registerPath({
    ...base,
    method: "get",
    path: "/v1/webhook_endpoints",
    operationId: "listWebhookEndpoints",
    summary: "List webhook endpoints",
    description: "The secret key's merchant's endpoints of its mode, the first one first. Never a secret.",
    responses: {
      200: limited(WebhookEndpointListResponse, "Every endpoint (at most PAYGATE_WEBHOOK_ENDPOINTS_MAX)."),
      ...errorResponses([SECRET_ONLY, ...ANY]),
    },
  });
  registry.registerPath({
    ...base,
    method: "get",
    path: "/v1/webhook_endpoints/{endpoint_id}",
    operationId: "retrieveWebhookEndpoint",
    summary: "Retrieve a webhook endpoint",
    request: { params: endpointId },
    responses: { 200: limited(WebhookEndpointResponse, "The endpoint."), ...errorResponses([SECRET_ONLY, notFound, ...WITH_PATH, ...ANY]) },
  });
  registry.registerPath({
    ...base,
    method: "post",
    path: "/v1/webhook_endpoints/{endpoint_id}",
    operationId: "updateWebhookEndpoint",
    summary: "Update a webhook endpoint",
    description: "Changes its URL, events or description; `disabled` disables or re-enables it (with `redeliver_missed`).",
    request: { params: endpointId, ...json(UpdateBody) },
    responses: {
      200: limited(WebhookEndpointUpdateResponse, "The endpoint."),
      ...errorResponses([invalid, SECRET_ONLY, KEY_ROLE, notFound, ...WITH_PATH, ...WITH_BODY, ...ANY]),
    },
  });
  registry.registerPath({
    ...base,
    method: "delete",
    path: "/v1/webhook_endpoints/{endpoint_id}",
    operationId: "deleteWebhookEndpoint",
    summary: "Delete a webhook endpoint",
    description: "With its delivery log. Deleting the mode's first endpoint removes the merchant's webhook URL of the mode.",
    request: { params: endpointId },
    responses: {
      200: limited(WebhookEndpointDeletedResponse, "Deleted."),
      ...errorResponses([SECRET_ONLY, KEY_ROLE, notFound, ...WITH_PATH, ...ANY]),
    },
  });
  registry.registerPath({
    ...base,
    method: "post",
    path: "/v1/webhook_endpoints/{endpoint_id}/rotate_secret",
    operationId: "rotateWebhookEndpointSecret",
    summary: "Rotate a webhook endpoint's secret",
    description:
      "A new secret, shown only in this answer; the previous one also signs every delivery for 24 hours. The first endpoint's secret is the merchant's, shared by both modes' first endpoints.",
    request: { params: endpointId },
    responses: {
      200: limited(WebhookEndpointResponse, "The endpoint, with its new secret."),
      ...errorResponses([SECRET_ONLY, KEY_ROLE, notFound, ...WITH_PATH, ...ANY]),
    },
  });
  registry.registerPath({
    ...base,
    method: "get",
    path: "/v1/webhook_endpoints/{endpoint_id}/deliveries",
    operationId: "listWebhookDeliveries",
    summary: "List an endpoint's deliveries",
    description: "The delivery log: newest first, each with its event, status, attempts, last status code and latency.",
    request: {
      params: endpointId,
      query: z.object({
        limit: z
          .string()
          .optional()
          .meta({ param: { name: "limit", in: "query" }, description: `1 to ${LIST_LIMIT_MAX} (default 10).` }),
        starting_after: z
          .string()
          .optional()
          .meta({ param: { name: "starting_after", in: "query" }, description: "The last delivery (`wd_…`) of the previous page." }),
        status: z
          .enum(["failed", "succeeded", "pending"])
          .optional()
          .meta({ param: { name: "status", in: "query" }, description: "Only these." }),
      }),
    },
    responses: {
      200: limited(WebhookDeliveryListResponse, "A page of deliveries."),
      ...errorResponses([
        {
          error: errors.invalidListParameters([{ field: "status", message: "must be one of failed, succeeded, pending" }]),
          when: "an invalid, repeated or unknown query parameter",
        },
        { error: errors.unknownCursor("starting_after", "…"), when: "a `starting_after` that is no delivery of this endpoint" },
        SECRET_ONLY,
        notFound,
        ...WITH_PATH,
        ...ANY,
      ]),
    },
  });
  registry.registerPath({
    ...base,
    method: "post",
    path: "/v1/webhook_endpoints/{endpoint_id}/redeliver_failed",
    operationId: "redeliverFailedWebhookDeliveries",
    summary: "Redeliver an endpoint's failed deliveries",
    description: "Every failed delivery of events written since `since`, queued again now with a fresh retry schedule.",
    request: {
      params: endpointId,
      ...json(z.object({ since: z.string().meta({ description: "ISO 8601." }) }).meta({ id: "WebhookRedeliverFailed" })),
    },
    responses: {
      202: limited(RedeliverFailedResponse, "How many were queued."),
      ...errorResponses([invalid, SECRET_ONLY, KEY_ROLE, notFound, ...WITH_PATH, ...WITH_BODY, ...ANY]),
    },
  });
  registry.registerPath({
    ...base,
    method: "post",
    path: "/v1/webhook_deliveries/{delivery_id}/redeliver",
    operationId: "redeliverWebhookDelivery",
    summary: "Redeliver one delivery",
    description: "Queued again now with a fresh retry schedule; the dispatcher sends it on its next pass.",
    request: {
      params: z.object({
        delivery_id: z.string().meta({ param: { name: "delivery_id", in: "path" }, description: "The delivery's `id` (`wd_…`)." }),
      }),
    },
    responses: {
      202: limited(WebhookDeliveryResponse, "The delivery, pending."),
      ...errorResponses([
        SECRET_ONLY,
        KEY_ROLE,
        { error: errors.webhookDeliveryNotFound("…"), when: "an unknown id, another merchant's or the other mode's delivery" },
        ...WITH_PATH,
        ...WITH_BODY,
        ...ANY,
      ]),
    },
  });
}
