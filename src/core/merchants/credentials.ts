// Who is calling, and in which mode. Public keys and payment links open initialize; only a
// secret key opens initiate. Keys of one mode never reach objects of the other.
import { LRUCache } from "lru-cache";
import { errors } from "../errors.ts";
import { hashKey, sameHash } from "../secrets.ts";
import type { ApiKeyRow, CredentialStore, MerchantIdentity, PaymentLinkRow } from "../stores.ts";

export type { MerchantIdentity };

export interface Caller {
  merchant: MerchantIdentity;
  isLive: boolean;
  paymentLinkId: number | null;
  /** Which key proved the call: a secret key sees the customer, a public key does not. */
  keyKind: "PUBLIC" | "SECRET" | "PAYMENT_LINK";
}

export interface CredentialOptions {
  /**
   * How long a found key or link is remembered. Every request would otherwise spend a query on it;
   * the price is that a revoked key or a deactivated merchant is refused up to this long later.
   * Unknown keys are never remembered, so a new key works at once.
   */
  cacheMs?: number;
  /** Entries kept at most; the oldest go first. */
  cacheSize?: number;
}

/** Found rows only, each for its time to live; unknown keys are looked up every time. */
class FoundCache<T extends object> {
  private readonly entries: LRUCache<string, T> | null;
  constructor(ttlMs: number, size: number) {
    this.entries = ttlMs > 0 ? new LRUCache<string, T>({ max: size, ttl: ttlMs }) : null;
  }

  async get(key: string, load: () => Promise<T | null>): Promise<T | null> {
    const hit = this.entries?.get(key);
    if (hit) return hit;
    const value = await load();
    if (value === null) this.entries?.delete(key);
    else this.entries?.set(key, value);
    return value;
  }
}

export class Credentials {
  private readonly keys: FoundCache<ApiKeyRow>;
  private readonly links: FoundCache<PaymentLinkRow>;

  constructor(
    private readonly store: CredentialStore,
    options: CredentialOptions = {},
  ) {
    this.keys = new FoundCache(options.cacheMs ?? 0, options.cacheSize ?? 10_000);
    this.links = new FoundCache(options.cacheMs ?? 0, options.cacheSize ?? 10_000);
  }

  private async findActiveKey(key: string, kind: "PUBLIC" | "SECRET"): Promise<ApiKeyRow | null> {
    const hash = hashKey(key);
    const found = await this.keys.get(hash, () => this.store.apiKeyByHash(hash));
    if (!found || found.kind !== kind || found.revokedAt !== null || !sameHash(found.keyHash, hash)) return null;
    return found;
  }

  /**
   * Initialize's credential: a public key (header or body) or a payment link. A secret key is looked
   * up as a public key and so not found (spec section 5). Unknown, revoked or inactive: 404.
   */
  async authenticatePublic(credential: { publicKey: string } | { paymentLink: string }): Promise<Caller> {
    if ("publicKey" in credential) {
      const key = await this.findActiveKey(credential.publicKey, "PUBLIC");
      if (!key) throw errors.invalidPublicKey("invalid_public_key");
      if (!key.merchant.active) throw errors.invalidPublicKey("merchant_inactive");
      return { merchant: key.merchant, isLive: key.isLive, paymentLinkId: null, keyKind: "PUBLIC" };
    }
    const slug = credential.paymentLink;
    const link = await this.links.get(slug, () => this.store.paymentLinkBySlug(slug));
    if (!link?.active) throw errors.invalidPublicKey("invalid_payment_link");
    if (!link.merchant.active) throw errors.invalidPublicKey("merchant_inactive");
    return { merchant: link.merchant, isLive: link.isLive, paymentLinkId: link.id, keyKind: "PAYMENT_LINK" };
  }

  /** Initiate's credential. An inactive merchant still authenticates: initiate answers it with 422. */
  async authenticateSecret(token: string | undefined): Promise<Caller> {
    if (!token) throw errors.unauthenticated("Missing secret key: send Authorization: Bearer sec_…");
    if (!token.startsWith("sec_")) throw errors.unauthenticated("Invalid Secret Key: this operation needs a secret key (sec_…)");
    const key = await this.findActiveKey(token, "SECRET");
    if (!key) throw errors.unauthenticated("Invalid Secret Key");
    return { merchant: key.merchant, isLive: key.isLive, paymentLinkId: null, keyKind: "SECRET" };
  }

  /** Reading a transaction: a checkout page holds the public key, the merchant's server the secret key. */
  async authenticateReader(token: string | undefined): Promise<Caller> {
    if (!token) throw errors.unauthenticated("Missing API key: send Authorization: Bearer pub_… or sec_…");
    if (token.startsWith("sec_")) return this.authenticateSecret(token);
    const key = await this.findActiveKey(token, "PUBLIC");
    if (!key) throw errors.unauthenticated("Invalid API Key");
    return { merchant: key.merchant, isLive: key.isLive, paymentLinkId: null, keyKind: "PUBLIC" };
  }
}
