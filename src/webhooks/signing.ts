// Standard Webhooks (https://www.standardwebhooks.com) signatures, so merchants can verify our
// deliveries with any of that specification's libraries (Svix's included).
import { createHmac } from "node:crypto";

export interface SignatureHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

const PREFIX = "whsec_";
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The HMAC key inside a `whsec_<base64>` secret. Throws on any other shape: a typo must not sign silently. */
function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : "";
  // Buffer.from skips bad characters rather than failing, so the alphabet is checked first.
  const key = BASE64.test(encoded) ? Buffer.from(encoded, "base64") : Buffer.alloc(0);
  if (key.length === 0) throw new Error("Webhook secrets must look like whsec_<base64 key>");
  return key;
}

/** The three headers of one signed delivery; `body` must be sent byte for byte as given here. */
export function signatureHeaders(secret: string, messageId: string, timestamp: Date, body: string): SignatureHeaders {
  const seconds = Math.floor(timestamp.getTime() / 1000);
  if (!Number.isFinite(seconds)) throw new Error("Webhook timestamp must be a valid date");
  const signature = createHmac("sha256", secretKey(secret)).update(`${messageId}.${seconds}.${body}`, "utf8").digest("base64");
  return { "webhook-id": messageId, "webhook-timestamp": String(seconds), "webhook-signature": `v1,${signature}` };
}
