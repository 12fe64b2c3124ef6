// paygate's webhooks, signed the Standard Webhooks way (docs/webhooks.md): verified here, and mapped
// to Medusa's payment webhook actions.
import { PaymentActions } from "@medusajs/framework/utils";
import type { WebhookActionResult } from "@medusajs/framework/types";
import { Webhook, WebhookVerificationError } from "standardwebhooks";

/** The message of the error a bad signature raises: the plugin's route answers 401 on it. */
export const INVALID_SIGNATURE = "paygate: the webhook signature is invalid";

export class InvalidSignatureError extends Error {
  constructor(detail: string) {
    super(`${INVALID_SIGNATURE} (${detail})`);
    this.name = "InvalidSignatureError";
  }
}

/** True for the error of a bad signature, however it crossed the payment module. */
export function isInvalidSignature(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith(INVALID_SIGNATURE);
}

/** The body of a payment event, as much as the provider reads. */
export interface PaygateEvent {
  event: string;
  data: {
    transaction?: {
      id?: string;
      reference: string;
      status: string;
      state?: string | null;
      payment_amount: number | null;
      amount_paid: number | null;
      meta?: Record<string, unknown> | null;
    };
  };
}

/** Verifies the raw body against the `webhook-*` headers with the merchant's `whsec_…` secret; the event. */
export function verifyEvent(secret: string, rawBody: string | Buffer | undefined, headers: Record<string, unknown>): PaygateEvent {
  if (rawBody === undefined) throw new InvalidSignatureError("no raw body: the route must preserve it");
  const plain: Record<string, string> = {};
  for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
    const value = headers[name];
    if (typeof value === "string") plain[name] = value;
  }
  try {
    return new Webhook(secret).verify(typeof rawBody === "string" ? rawBody : rawBody.toString("utf8"), plain) as PaygateEvent;
  } catch (error) {
    if (error instanceof WebhookVerificationError) throw new InvalidSignatureError(error.message);
    throw error;
  }
}

/** Medusa's action for a verified event: only events of a transaction this plugin made (its session id in `meta`). */
export function actionOf(event: PaygateEvent): WebhookActionResult {
  const meta = event.data.transaction?.meta ?? {};
  const sessionId = meta.medusa_session_id;
  const amount = meta.medusa_amount;
  if (typeof sessionId !== "string" || typeof amount !== "string") return { action: PaymentActions.NOT_SUPPORTED };
  const data = { session_id: sessionId, amount };
  // Received (paid, overpaid, or a late payment the merchant's policy accepted): authorized and captured.
  if (event.event === "payment.received") return { action: PaymentActions.SUCCESSFUL, data };
  // The checkout window closed unpaid or underpaid: the session is cancelled (never an order: see the route).
  if (event.event === "payment.abandoned") return { action: PaymentActions.CANCELED, data };
  return { action: PaymentActions.NOT_SUPPORTED };
}
