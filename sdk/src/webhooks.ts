// Verifying a delivery (docs/webhooks.md): Standard Webhooks signatures, checked by that
// specification's own library, and the body typed as the OpenAPI document's `WebhookPayload`
// (made from the service's one list of event types, src/core/events/catalog.ts).
import { Webhook, WebhookVerificationError as SignatureError } from "standardwebhooks";
import { WebhookVerificationError } from "./errors.ts";
import type { components } from "./generated/openapi.ts";

/** Any event paygate sends: a payment event or `webhook.test`, told apart by `event`. */
export type WebhookEvent = components["schemas"]["WebhookPayload"];
/** Every event type paygate sends (the service's one list, src/core/events/catalog.ts, through the OpenAPI document). */
export type WebhookEventType = WebhookEvent["event"];
export type PaymentWebhookEvent = components["schemas"]["PaymentWebhook"];
export type TestWebhookEvent = components["schemas"]["TestWebhook"];
/** The transaction in a payment event, as it was when its state changed (spec 6). */
export type WebhookTransaction = components["schemas"]["WebhookTransaction"];

/** Headers as Node (IncomingHttpHeaders), fetch (Headers) or a plain object give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const NAMES = ["webhook-id", "webhook-timestamp", "webhook-signature"] as const;

function signatureHeaders(headers: WebhookHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of NAMES) {
    let value: string | string[] | null | undefined;
    if (headers instanceof Headers) value = headers.get(name);
    else value = headers[name] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
    if (Array.isArray(value)) value = value[0];
    if (typeof value !== "string" || value === "") {
      throw new WebhookVerificationError(`Missing ${name} header: this request is not a signed paygate webhook`);
    }
    out[name] = value;
  }
  return out;
}

/**
 * Checks a delivery's signature with the endpoint's secret (`whsec_…`; in a rotation's overlap either
 * the old or the new one) and returns its event, typed. `body` must be the raw request body, byte for
 * byte (a parsed and re-serialised body no longer matches). Throws WebhookVerificationError otherwise.
 */
export function verifyWebhook(body: string | Uint8Array, headers: WebhookHeaders, secret: string): WebhookEvent {
  const text = typeof body === "string" ? body : new TextDecoder().decode(body);
  let webhook: Webhook;
  try {
    webhook = new Webhook(secret);
  } catch {
    throw new WebhookVerificationError(
      "The webhook secret must be the whsec_… string paygate gave (the endpoint's, or the one `paygate listen` printed)",
    );
  }
  let payload: unknown;
  try {
    payload = webhook.verify(text, signatureHeaders(headers));
  } catch (error) {
    if (error instanceof WebhookVerificationError) throw error;
    const reason = error instanceof SignatureError ? error.message : String(error);
    throw new WebhookVerificationError(
      `Webhook signature verification failed (${reason}): check the secret (whsec_…) and pass the raw body, unparsed`,
    );
  }
  if (typeof payload !== "object" || payload === null || !("event" in payload) || typeof payload.event !== "string" || !("data" in payload)) {
    throw new WebhookVerificationError("The signed body is not a paygate event ({ event, data })");
  }
  return payload as WebhookEvent;
}
