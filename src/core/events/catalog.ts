// Every webhook event type paygate sends, in one list: the outbox's events (the payment events of
// spec 6 with payment.reversed, and the refund events), and the dashboard's and CLI's `webhook.test`. The OpenAPI document's
// `WebhookEventType` is made from it, and the SDK's typed event union from that (sdk/src/webhooks.ts).
import { EVENT_TYPES } from "./payment-events.ts";

/** The type of a test event: not a payment event, never in the outbox or the Events API. */
export const TEST_EVENT_TYPE = "webhook.test";

export const WEBHOOK_EVENT_TYPES = [...EVENT_TYPES, TEST_EVENT_TYPE] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
