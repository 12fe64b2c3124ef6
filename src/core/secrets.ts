// Credentials: generated with a CSPRNG, stored hashed (API keys) or encrypted (webhook secrets,
// which must be read back to sign), compared in constant time.
import { createCipheriv, createDecipheriv, hash, randomBytes, randomInt, timingSafeEqual } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `length` characters of base62, uniformly chosen. */
export function randomToken(length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

export type KeyMode = "test" | "live";
export const newPublicKey = (mode: KeyMode) => `pub_${mode}_${randomToken(32)}`;
export const newSecretKey = (mode: KeyMode) => `sec_${mode}_${randomToken(40)}`;
export const newPaymentLinkSlug = () => `pl_${randomToken(20)}`;
export const newReference = () => `bq_${randomToken(24)}`;
/**
 * A transaction's client secret (Stripe's PaymentIntent model): its id, then 32 base62 characters
 * (190 bits). It lets a browser read and pay that one transaction; stored sealed, not hashed, so an
 * idempotent replay of initialize and the merchant can be shown it again.
 */
export const newClientSecret = (transactionId: string) => `${transactionId}_secret_${randomToken(32)}`;
/** A client secret's form: the transaction's UUID (any case), `_secret_`, 32 base62 characters. */
export const CLIENT_SECRET = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})_secret_[0-9A-Za-z]{32}$/i;

/** The transaction id (lower case) a token of the client secret's form names, or null. */
export function clientSecretTransactionId(token: string): string | null {
  const match = CLIENT_SECRET.exec(token);
  return match?.[1] ? match[1].toLowerCase() : null;
}

/** Constant-time equality of two secrets as text (their SHA-256 digests are compared, so lengths leak nothing). */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(hash("sha256", a, "buffer"), hash("sha256", b, "buffer"));
}
/** Standard Webhooks secret format: `whsec_` and base64 of 24 random bytes. */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString("base64")}`;

export function hashKey(key: string): string {
  return hash("sha256", key, "hex");
}

export function sameHash(aHex: string, bHex: string): boolean {
  const a = Buffer.from(aHex, "hex");
  const b = Buffer.from(bHex, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}

/** AES-256-GCM with a 32-byte key; `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error("The encryption key must be 32 bytes");
    this.key = key;
  }

  /** Accepts 32 bytes as 64 hex digits or as base64. */
  static fromString(text: string): SecretBox {
    const trimmed = text.trim();
    const bytes = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, "hex") : Buffer.from(trimmed, "base64");
    if (bytes.length !== 32) {
      throw new Error("PAYGATE_ENCRYPTION_KEY must be 32 bytes, as 64 hex digits or base64 (openssl rand -base64 32)");
    }
    return new SecretBox(bytes);
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return ["v1", iv, cipher.getAuthTag(), body].map((p) => (typeof p === "string" ? p : p.toString("base64url"))).join(".");
  }

  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split(".");
    if (version !== "v1" || !iv || !tag || body === undefined) throw new Error("Unrecognised sealed secret");
    const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  }
}
