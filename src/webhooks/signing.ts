// Standard Webhooks (https://www.standardwebhooks.com) signatures, made by that specification's own
// library, so merchants can verify our deliveries with any of its libraries (Svix's included).
import { Webhook } from "standardwebhooks";

export interface SignatureHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

const PREFIX = "whsec_";
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Throws unless the secret is `whsec_<base64>`: the library would sign with whatever it could decode, and a typo must not sign silently. */
function checkSecret(secret: string): void {
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : "";
  if (!BASE64.test(encoded)) throw new Error("Webhook secrets must look like whsec_<base64 key>");
}

/**
 * The three headers of one signed delivery; `body` must be sent byte for byte as given here. Several
 * secrets (during a rotation's overlap) give several space-separated `v1,` signatures, as Standard
 * Webhooks allows: a receiver verifying with either secret accepts the delivery.
 */
export function signatureHeaders(secrets: string | readonly string[], messageId: string, timestamp: Date, body: string): SignatureHeaders {
  const seconds = Math.floor(timestamp.getTime() / 1000);
  if (!Number.isFinite(seconds)) throw new Error("Webhook timestamp must be a valid date");
  const all = typeof secrets === "string" ? [secrets] : secrets;
  if (all.length === 0) throw new Error("A webhook needs at least one signing secret");
  const signatures = all.map((secret) => {
    checkSecret(secret);
    return new Webhook(secret).sign(messageId, new Date(seconds * 1000), body);
  });
  return { "webhook-id": messageId, "webhook-timestamp": String(seconds), "webhook-signature": signatures.join(" ") };
}
