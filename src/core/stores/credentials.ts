// The credentials store: API keys, payment links and client secrets, each with its merchant.
// src/db/stores/credentials.ts implements it.
import type { KybStatus } from "../records/kyb.ts";

export interface MerchantIdentity {
  id: number;
  name: string;
  active: boolean;
  kybStatus: KybStatus;
}

export interface ApiKeyRow {
  id: number;
  kind: "PUBLIC" | "SECRET";
  /** What the key list shows of it. */
  prefix: string;
  /** Who rolled it in the dashboard and with which role (null: the operator made it); the key may do what that role may. */
  createdByUserId: string | null;
  createdByEmail: string | null;
  createdByRole: string | null;
  isLive: boolean;
  revokedAt: Date | null;
  /** A rolled key's end (src/core/merchants/api-keys.ts); null: none. */
  expiresAt: Date | null;
  keyHash: string;
  merchant: MerchantIdentity;
}

export interface PaymentLinkRow {
  id: number;
  isLive: boolean;
  active: boolean;
  merchant: MerchantIdentity;
}

/** The transaction a client secret names, with what proves the secret. */
export interface ClientSecretRow {
  id: string;
  isLive: boolean;
  clientSecretEnc: string | null;
  merchant: MerchantIdentity;
}

export interface CredentialStore {
  apiKeyByHash(keyHash: string): Promise<ApiKeyRow | null>;
  /** `id` is a lower-case UUID. */
  clientSecretOf(transactionId: string): Promise<ClientSecretRow | null>;
  paymentLinkBySlug(slug: string): Promise<PaymentLinkRow | null>;
}
