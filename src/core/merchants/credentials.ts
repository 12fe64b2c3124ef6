// Who is calling, and in which mode. Public keys and payment links open initialize; only a
// secret key opens initiate. Keys of one mode never reach objects of the other.
import type { Database } from "../../db/types.ts";
import { errors } from "../errors.ts";
import { hashKey, sameHash } from "../secrets.ts";

export interface MerchantIdentity {
  id: number;
  name: string;
  active: boolean;
  kybStatus: "NONE" | "PENDING" | "VERIFIED" | "REJECTED";
}

export interface Caller {
  merchant: MerchantIdentity;
  isLive: boolean;
  paymentLinkId: number | null;
  /** Which key proved the call: a secret key sees the customer, a public key does not. */
  keyKind: "PUBLIC" | "SECRET" | "PAYMENT_LINK";
}

const merchantFields = { id: true, name: true, active: true, kybStatus: true } as const;

/** The key from `Authorization: Bearer <key>`, or undefined when the header is absent or not Bearer. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  return match?.[1];
}

async function findActiveKey(db: Database, key: string, kind: "PUBLIC" | "SECRET") {
  const hash = hashKey(key);
  const found = await db.apiKey.findUnique({
    where: { keyHash: hash },
    select: { kind: true, isLive: true, revokedAt: true, keyHash: true, merchant: { select: merchantFields } },
  });
  if (!found || found.kind !== kind || found.revokedAt !== null || !sameHash(found.keyHash, hash)) return null;
  return found;
}

/**
 * Initialize's credential: a public key (header or body) or a payment link. A secret key is looked
 * up as a public key and so not found (spec section 5). Unknown, revoked or inactive: 404.
 */
export async function authenticatePublic(
  db: Database,
  credential: { publicKey: string } | { paymentLink: string },
): Promise<Caller> {
  if ("publicKey" in credential) {
    const key = await findActiveKey(db, credential.publicKey, "PUBLIC");
    if (!key) throw errors.invalidPublicKey("invalid_public_key");
    if (!key.merchant.active) throw errors.invalidPublicKey("merchant_inactive");
    return { merchant: key.merchant, isLive: key.isLive, paymentLinkId: null, keyKind: "PUBLIC" };
  }
  const link = await db.paymentLink.findUnique({
    where: { slug: credential.paymentLink },
    select: { id: true, isLive: true, active: true, merchant: { select: merchantFields } },
  });
  if (!link || !link.active) throw errors.invalidPublicKey("invalid_payment_link");
  if (!link.merchant.active) throw errors.invalidPublicKey("merchant_inactive");
  return { merchant: link.merchant, isLive: link.isLive, paymentLinkId: link.id, keyKind: "PAYMENT_LINK" };
}

/** Initiate's credential. An inactive merchant still authenticates: initiate answers it with 422. */
export async function authenticateSecret(db: Database, token: string | undefined): Promise<Caller> {
  if (!token) throw errors.unauthenticated("Missing secret key: send Authorization: Bearer sec_…");
  if (!token.startsWith("sec_")) throw errors.unauthenticated("Invalid Secret Key: this operation needs a secret key (sec_…)");
  const key = await findActiveKey(db, token, "SECRET");
  if (!key) throw errors.unauthenticated("Invalid Secret Key");
  return { merchant: key.merchant, isLive: key.isLive, paymentLinkId: null, keyKind: "SECRET" };
}

/** Reading a transaction: a checkout page holds the public key, the merchant's server the secret key. */
export async function authenticateReader(db: Database, token: string | undefined): Promise<Caller> {
  if (!token) throw errors.unauthenticated("Missing API key: send Authorization: Bearer pub_… or sec_…");
  if (token.startsWith("sec_")) return authenticateSecret(db, token);
  const key = await findActiveKey(db, token, "PUBLIC");
  if (!key) throw errors.unauthenticated("Invalid API Key");
  return { merchant: key.merchant, isLive: key.isLive, paymentLinkId: null, keyKind: "PUBLIC" };
}
