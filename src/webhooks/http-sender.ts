// One webhook delivery attempt over the shared outbound client. Retries, scheduling and recording
// belong to the caller; this never throws, so every attempt yields a DeliveryResult to record.
import { privateExceptions, privateTargetsHint, type PrivateTargets } from "../core/private-targets.ts";
import type { WebhookMode } from "../core/merchants/webhook-url.ts";
import type { WebhookAttemptResult, WebhookSender } from "../core/ports.ts";
import { fetchPrefix } from "../rails/http/outbound.ts";
import { signatureHeaders } from "./signing.ts";

export interface DeliveryRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  mode: WebhookMode;
  /** The private destinations the operator lets the mode reach: the URL's host is checked again at connect time. */
  privateTargets: PrivateTargets;
}

/** The port's result of one attempt, with what the dispatcher's retry needs. */
export interface DeliveryResult extends WebhookAttemptResult {
  /** The receiver's Retry-After header as sent, when it gave one (the core decides what it means: src/core/webhooks/deliveries.ts). */
  retryAfter?: string;
}

/** Enough of the receiver's answer to show a merchant why it failed, and no more. */
export const MAX_RESPONSE_BYTES = 1024;

export async function deliver(request: DeliveryRequest): Promise<DeliveryResult> {
  const started = performance.now();
  const outcome = await fetchPrefix(request.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "user-agent": "paygate-webhooks/1",
      ...request.headers,
      "content-length": String(Buffer.byteLength(request.body, "utf8")),
    },
    body: request.body,
    timeoutMs: request.timeoutMs,
    maxBytes: MAX_RESPONSE_BYTES,
    // Deliveries leave from our network: a merchant's URL must not reach our own infrastructure (SSRF),
    // except where the operator allows it for the mode.
    publicOnly: true,
    privateExceptions: privateExceptions(request.privateTargets, request.mode),
  });
  const latencyMs = Math.round(performance.now() - started);
  if (outcome.ok) {
    const { status, text, privateAddress, retryAfter } = outcome.value;
    const asked = retryAfter === undefined ? {} : { retryAfter };
    return { ok: status >= 200 && status < 300, statusCode: status, latencyMs, responseBody: text, privateAddress, error: null, ...asked };
  }
  const { failure } = outcome;
  const error =
    failure.kind === "timeout"
      ? `timed out after ${failure.timeoutMs}ms`
      : failure.refusedAddress
        ? `${failure.reason}; ${privateTargetsHint(request.mode)}`
        : failure.reason;
  return { ok: false, statusCode: null, latencyMs, responseBody: null, privateAddress: false, error };
}

/**
 * The gateway's sender of one-off signed POSTs (the dashboard's test events): signed and sent as the
 * dispatcher sends deliveries, with its timeout and address rules.
 */
export function webhookSender(settings: { timeoutMs: number; privateTargets: PrivateTargets }, send = deliver): WebhookSender {
  return {
    send: ({ url, mode, messageId, timestamp, body, secrets }) =>
      send({
        url,
        headers: { ...signatureHeaders(secrets, messageId, timestamp, body) },
        body,
        timeoutMs: settings.timeoutMs,
        mode,
        privateTargets: settings.privateTargets,
      }),
  };
}
