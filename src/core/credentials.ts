// Who is calling, and in which mode. Public keys and payment links open initialize (with a public
// key, a secret key of its merchant and mode also sets the merchant's rules); a secret key opens
// initiate; a transaction's client secret reads and pays that one transaction (the customer's
// browser holds it). Keys of one mode never reach objects of the other.
import { LRUCache } from "lru-cache";
import { errors } from "./errors.ts";
import { clientSecretTransactionId, hashKey, sameHash, sameSecret, type SecretBox } from "./secrets.ts";
import type { Clock } from "./ports.ts";
import type { ApiKeyRow, ClientSecretRow, CredentialStore, MerchantIdentity, PaymentLinkRow } from "./stores/credentials.ts";

export type { MerchantIdentity };

export interface Caller {
  merchant: MerchantIdentity;
  isLive: boolean;
  paymentLinkId: number | null;
  /** Which credential proved the call: a secret key sees the customer, the others do not. */
  keyKind: "PUBLIC" | "SECRET" | "PAYMENT_LINK" | "CLIENT_SECRET";
  /**
   * The one transaction a client secret is bound to (a lower-case UUID); null for keys and links,
   * which reach every transaction of their merchant and mode. Enforced by transactionFor (record.ts).
   */
  transactionId: string | null;
  /** The API key that proved the call (null: a payment link or a client secret): what it may do and whom the audit log names. */
  key: ApiKeyIdentity | null;
}

/** A key as the audit log names it, with the dashboard user who rolled it (null: the operator made it) and that user's role then. */
export interface ApiKeyIdentity {
  id: number;
  prefix: string;
  createdByUserId: string | null;
  createdByEmail: string | null;
  createdByRole: string | null;
}

/** Spec 5's 404 for an unknown public key, with a hint when the key sent is plainly not a public key. */
function publicKeyRefusal(sent: string) {
  const refusal = errors.invalidPublicKey("invalid_public_key");
  if (sent.startsWith("sec_")) {
    return refusal.withHint(
      "A secret key (sec_…) was sent where initialize takes the public key (pub_…): send the public key, and keep the secret key on your server",
    );
  }
  return sent.startsWith("pub_")
    ? refusal
    : refusal.withHint("A public key starts with pub_test_ or pub_live_: copy it whole from the dashboard or `paygate merchant create`");
}

const identityOf = (row: ApiKeyRow): ApiKeyIdentity => ({
  id: row.id,
  prefix: row.prefix,
  createdByUserId: row.createdByUserId,
  createdByEmail: row.createdByEmail,
  createdByRole: row.createdByRole,
});

/** Which credentials an operation takes besides a secret key. */
export interface InitiatorOptions {
  /** GraphQL's initiatePayment: the customer's browser picks the coin with the client secret. REST's initiate: no. */
  clientSecret: boolean;
}

export interface CredentialOptions {
  /**
   * How long a found key or link is remembered. Every request would otherwise spend a query on it;
   * the price is that a revoked key or a deactivated merchant is refused up to this long later.
   * Unknown keys are never remembered, so a new key works at once. A rolled key's end is judged on
   * every use, so it is exact; a roll or a link's deactivation is forgotten at once in the process
   * that made it (forgetKey, forgetPaymentLink), in other instances up to this long later.
   */
  cacheMs?: number;
  /** Entries kept at most; the oldest go first. */
  cacheSize?: number;
  /** Opens the sealed client secrets; without it a client secret cannot be checked (an error, not a refusal). */
  secrets?: SecretBox;
  /** Decides when a rolled key has expired; the system clock by default. */
  clock?: Clock;
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

  delete(key: string): void {
    this.entries?.delete(key);
  }
}

export class Credentials {
  private readonly keys: FoundCache<ApiKeyRow>;
  private readonly links: FoundCache<PaymentLinkRow>;
  private readonly clientSecrets: FoundCache<ClientSecretRow>;
  private readonly secrets: SecretBox | undefined;
  private readonly clock: Clock;

  constructor(
    private readonly store: CredentialStore,
    options: CredentialOptions = {},
  ) {
    this.keys = new FoundCache(options.cacheMs ?? 0, options.cacheSize ?? 10_000);
    this.links = new FoundCache(options.cacheMs ?? 0, options.cacheSize ?? 10_000);
    this.clientSecrets = new FoundCache(options.cacheMs ?? 0, options.cacheSize ?? 10_000);
    this.secrets = options.secrets;
    this.clock = options.clock ?? { now: () => new Date() };
  }

  /** Drops what this process remembers of a key (a roll ended it): the next request reads it again. */
  forgetKey(keyHash: string): void {
    this.keys.delete(keyHash);
  }

  /** Drops what this process remembers of a payment link (it was deactivated). */
  forgetPaymentLink(slug: string): void {
    this.links.delete(slug);
  }

  private async findActiveKey(key: string, kind: "PUBLIC" | "SECRET"): Promise<ApiKeyRow | null> {
    const hash = hashKey(key);
    const found = await this.keys.get(hash, () => this.store.apiKeyByHash(hash));
    if (!found || found.kind !== kind || found.revokedAt !== null || !sameHash(found.keyHash, hash)) return null;
    // Judged on every use, remembered or not: a rolled key stops at its end, not up to cacheMs later.
    if (found.expiresAt !== null && found.expiresAt <= this.clock.now()) return null;
    return found;
  }

  /**
   * Initialize's credential: a public key (header or body) or a payment link. A secret key is looked
   * up as a public key and so not found (spec section 5). Unknown, revoked or inactive: 404.
   */
  async authenticatePublic(credential: { publicKey: string } | { paymentLink: string }): Promise<Caller> {
    if ("publicKey" in credential) {
      const key = await this.findActiveKey(credential.publicKey, "PUBLIC");
      if (!key) throw publicKeyRefusal(credential.publicKey);
      if (!key.merchant.active) throw errors.invalidPublicKey("merchant_inactive");
      return { merchant: key.merchant, isLive: key.isLive, paymentLinkId: null, keyKind: "PUBLIC", transactionId: null, key: identityOf(key) };
    }
    const slug = credential.paymentLink;
    const link = await this.links.get(slug, () => this.store.paymentLinkBySlug(slug));
    if (!link?.active) throw errors.invalidPublicKey("invalid_payment_link");
    if (!link.merchant.active) throw errors.invalidPublicKey("merchant_inactive");
    return { merchant: link.merchant, isLive: link.isLive, paymentLinkId: link.id, keyKind: "PAYMENT_LINK", transactionId: null, key: null };
  }

  /**
   * Initialize from the merchant's server: the public key names merchant and mode as
   * authenticatePublic does (404), and the secret key in the header proves the caller is the merchant
   * (401 when not a secret key, 400 when another merchant's or the other mode's). The caller is the
   * secret key's, so it may set the merchant's rules (initialize.ts).
   */
  async authenticateMerchantServer(publicKey: string, secretKey: string): Promise<Caller> {
    const caller = await this.authenticatePublic({ publicKey });
    const proof = await this.authenticateSecret(secretKey);
    const how = "send the secret key of the public key's merchant and mode";
    if (proof.merchant.id !== caller.merchant.id) {
      throw errors.secretKeyMismatch(`the secret key in the Authorization header is another merchant's than public_key: ${how}`);
    }
    if (proof.isLive !== caller.isLive) {
      const mode = (live: boolean) => (live ? "live" : "test");
      throw errors.secretKeyMismatch(
        `the secret key in the Authorization header is a ${mode(proof.isLive)} key and public_key a ${mode(caller.isLive)} key: ${how}`,
      );
    }
    return { ...caller, keyKind: "SECRET", key: proof.key }; // spread: overrides only (a Caller has both keys)
  }

  /** Initiate's credential. An inactive merchant still authenticates: initiate answers it with 422. */
  async authenticateSecret(token: string | undefined): Promise<Caller> {
    if (!token) throw errors.unauthenticated("Missing secret key: send Authorization: Bearer sec_…");
    if (!token.startsWith("sec_")) throw errors.secretKeyRequired();
    const key = await this.findActiveKey(token, "SECRET");
    if (!key) throw errors.invalidSecretKey();
    return { merchant: key.merchant, isLive: key.isLive, paymentLinkId: null, keyKind: "SECRET", transactionId: null, key: identityOf(key) };
  }

  /** Initiate's credential: a secret key, or where the operation allows it, the transaction's client secret. */
  async authenticateInitiator(token: string | undefined, options: InitiatorOptions): Promise<Caller> {
    if (options.clientSecret && token !== undefined && clientSecretTransactionId(token) !== null) return this.authenticateClientSecret(token);
    return this.authenticateSecret(token);
  }

  /** Reading a transaction: a checkout page holds the public key or the client secret, the merchant's server the secret key. */
  async authenticateReader(token: string | undefined): Promise<Caller> {
    if (!token) throw errors.unauthenticated("Missing API key: send Authorization: Bearer pub_… or sec_…, or a client secret");
    if (token.startsWith("sec_")) return this.authenticateSecret(token);
    if (clientSecretTransactionId(token) !== null) return this.authenticateClientSecret(token);
    const key = await this.findActiveKey(token, "PUBLIC");
    if (!key) throw errors.invalidApiKey();
    return { merchant: key.merchant, isLive: key.isLive, paymentLinkId: null, keyKind: "PUBLIC", transactionId: null, key: identityOf(key) };
  }

  /**
   * A client secret: the transaction it names must exist and hold exactly this secret (compared in
   * constant time). An unknown id and a wrong random part get the same 401, so neither tells which
   * transactions exist.
   */
  async authenticateClientSecret(token: string): Promise<Caller> {
    const id = clientSecretTransactionId(token);
    if (id === null) throw errors.invalidClientSecret();
    const box = this.secrets;
    if (!box) throw new Error("Credentials need the SecretBox to check client secrets");
    // Rows without a secret yet (made before client secrets) are not remembered: one is stored when first shown.
    const row = await this.clientSecrets.get(id, async () => {
      const found = await this.store.clientSecretOf(id);
      return found?.clientSecretEnc ? found : null;
    });
    if (!row?.clientSecretEnc || !sameSecret(box.open(row.clientSecretEnc), token)) throw errors.invalidClientSecret();
    return { merchant: row.merchant, isLive: row.isLive, paymentLinkId: null, keyKind: "CLIENT_SECRET", transactionId: row.id, key: null };
  }
}
