// The OpenAPI description of the Events API (routes.ts and stream.ts beside it), and of what a webhook
// receiver gets (OpenAPI 3.1 `webhooks`), assembled into the document by src/http/openapi.ts.
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { errors } from "../../../core/errors.ts";
import { EventListParams } from "../../../core/events/list.ts";
import { EVENT_TYPES } from "../../../core/events/payment-events.ts";
import { EventStreamParams } from "../../../core/events/stream.ts";
import { parseListQuery } from "../../../core/lists.ts";
import { ANY, errorResponses, limited, pageParams, queryParam, refusalOf, SECRET_ONLY, secretKey, WITH_PATH } from "../openapi-shared.ts";
import { EventListResponse, EventResponse, EventStreamMessage, WebhookPayload } from "./schemas.ts";
import { eventStreamErrors } from "./stream.ts";

export function registerEventPaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: "get",
    path: "/v1/events",
    operationId: "listEvents",
    summary: "List events",
    description:
      "Not in the spec (issue 13; Stripe's Events API): the webhook events of the secret key's merchant and mode from the last 30 days, newest first, whatever became of their delivery, so a receiver that was down can catch up.",
    security: secretKey,
    request: {
      query: z.object({
        ...pageParams("The `id` (`evt_…`) of the last event of the previous page; events written meanwhile do not shift the pages."),
        type: queryParam("type", `One of ${EVENT_TYPES.join(", ")}.`),
        transaction: queryParam("transaction", "Only the events of this transaction (its id)."),
      }),
    },
    responses: {
      200: limited(EventListResponse, "A page of events."),
      ...errorResponses([
        {
          error: refusalOf(() => parseListQuery(EventListParams, { type: "payment.unknown" })),
          when: "an invalid, repeated or unknown query parameter; the message and `errors` name each",
        },
        {
          error: errors.unknownCursor("starting_after", "…"),
          when: "a `starting_after` that is no event of this merchant and mode (or was pruned)",
        },
        SECRET_ONLY,
        ...ANY,
      ]),
    },
  });
  // Before /v1/events/{event_id}, which its path would also match.
  registry.registerPath({
    method: "get",
    path: "/v1/events/stream",
    operationId: "streamEvents",
    summary: "Stream events",
    description:
      "Not in the spec (issue 27; what `paygate listen` follows): Server-Sent Events, one per new event of the secret key's merchant and mode as any instance writes it (`id:` the event's id, `event:` its type, `data:` an `EventStreamMessage`: the Event with its exact signed `body`), and a `: heartbeat` comment when idle. A reconnecting client sends `Last-Event-ID` (an EventSource does) or `starting_after` and first gets every event written after that one (30 days kept). Open streams are capped per key and per instance (docs/configuration.md).",
    security: secretKey,
    request: {
      query: z.object({
        starting_after: queryParam("starting_after", "Resume after this event (`evt_…`): the events written since come first."),
        types: queryParam("types", `Only these event types, comma-separated: ${EVENT_TYPES.join(", ")}.`),
      }),
      headers: z.object({
        "Last-Event-ID": z
          .string()
          .optional()
          .meta({
            param: { name: "Last-Event-ID", in: "header" },
            description: "As `starting_after`, and preferred over it: what an EventSource resends.",
          }),
      }),
    },
    responses: {
      200: {
        description: "The stream: `text/event-stream`, open until the client leaves or the key stops working.",
        content: { "text/event-stream": { schema: EventStreamMessage } },
      },
      ...errorResponses([
        {
          error: refusalOf(() => parseListQuery(EventStreamParams, { types: "payment.unknown" })),
          when: "an unknown event type or query parameter, or a malformed cursor; the message names it",
        },
        {
          error: errors.unknownCursor("starting_after", "…"),
          when: "a `Last-Event-ID` or `starting_after` that is no event of this merchant and mode (or was pruned)",
        },
        { error: eventStreamErrors.tooManyForKey(5), when: "this key already holds the most open streams allowed" },
        { error: eventStreamErrors.full(1000), when: "this instance already serves the most open streams it holds" },
        SECRET_ONLY,
        ...ANY,
      ]),
    },
  });
  registry.registerPath({
    method: "get",
    path: "/v1/events/{event_id}",
    operationId: "retrieveEvent",
    summary: "Retrieve an event",
    description: "Not in the spec (issue 13): one event of the secret key's merchant and mode, kept 30 days.",
    security: secretKey,
    request: {
      params: z.object({ event_id: z.string().meta({ param: { name: "event_id", in: "path" }, description: "The event's `id` (`evt_…`)." }) }),
    },
    responses: {
      200: limited(EventResponse, "The event."),
      ...errorResponses([
        SECRET_ONLY,
        {
          error: errors.eventNotFound("…"),
          when: "an unknown or pruned id, another merchant's or the other mode's event",
        },
        ...WITH_PATH,
        ...ANY,
      ]),
    },
  });
}

export function registerEventWebhook(registry: OpenAPIRegistry): void {
  // What the service POSTs to receivers (OpenAPI 3.1 `webhooks`): generated clients, the SDK's among them, type them.
  registry.registerWebhook({
    method: "post",
    path: "paymentEvent",
    operationId: "receivePaygateEvent",
    summary: "A webhook delivery",
    description:
      "Every event paygate sends to a merchant's webhook URL (docs/webhooks.md): a payment event or `webhook.test`, signed with Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`). Verify the signature over the raw body before trusting anything in it.",
    // No API key: the receiver checks the Standard Webhooks signature instead.
    security: [],
    request: { body: { description: "The event.", content: { "application/json": { schema: WebhookPayload } } } },
    responses: { 200: { description: "Any 2xx: delivered. Anything else (or no answer in time) is retried on the schedule." } },
  });
}
