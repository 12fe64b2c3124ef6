// The merchants store: merchants, their API keys, wallets, payment links and webhook secrets.
// src/db/stores/merchants.ts implements it.
import type { KybStatus } from "../records/kyb.ts";
import type { NetworkSlug } from "../networks.ts";
import type { StoredKybStatus } from "../records/rows.ts";
import type { AuditWrite } from "./audit-log.ts";

export interface ApiKeyWrite {
  kind: "PUBLIC" | "SECRET";
  isLive: boolean;
  /** What a list shows of the key: a public key whole, a secret key's first characters. */
  prefix: string;
  keyHash: string;
  /** Who rolled it in the dashboard, and that user's role then (absent: the operator made it). */
  createdByUserId?: string;
  createdByEmail?: string;
  createdByRole?: string;
}

export interface WalletWrite {
  currencyId: number;
  /** The network it receives on (core/networks.ts); absent: the coin's default. */
  network?: NetworkSlug;
  isLive: boolean;
  extendedPublicKey: string;
  /** The key's origin, `d34db33f/84'/0'/0'` (core/merchants/key-origin.ts); absent: the wallet keeps the one it has. */
  keyOrigin?: string;
}

export interface MerchantWrite {
  name: string;
  kybStatus: KybStatus;
  liveWebhookUrl: string | null;
  testWebhookUrl: string | null;
  webhookSecretEnc: string;
  apiKeys: ApiKeyWrite[];
  wallets: WalletWrite[];
}

/** A merchant's default network for a coin in one mode (merchant_default_networks). */
export interface DefaultNetworkWrite {
  currencyId: number;
  network: NetworkSlug;
  isLive: boolean;
}

export interface MerchantChanges {
  active?: boolean;
  kybStatus?: KybStatus;
  liveWebhookUrl?: string | null;
  testWebhookUrl?: string | null;
  wallets: WalletWrite[];
  /** The network each coin is paid on when an initiate names none, per mode; set after `wallets`, each needs a wallet there. */
  defaultNetworks?: DefaultNetworkWrite[];
  /** The audit log's entries of the change, written in its database transaction. */
  audit?: AuditWrite[];
}

/** A merchant with its wallets per currency and mode, as an operator sees it after a change. */
export interface MerchantWithWallets {
  id: number;
  name: string;
  active: boolean;
  kybStatus: StoredKybStatus;
  liveWebhookUrl: string | null;
  testWebhookUrl: string | null;
  createdAt: Date;
  paymentProcessors: {
    currencyId: number;
    network: string;
    isLive: boolean;
    currency: { id: number; slug: string; name: string; decimals: number };
    wallet: { id: number; extendedPublicKey: string; nextIndex: number };
  }[];
}

export type MerchantUpdate =
  | { ok: true; merchant: MerchantWithWallets }
  | { ok: false; problem: "no_merchant" }
  /** The key is another merchant's wallet already: two merchants would receive to the same addresses. */
  | { ok: false; problem: "wallet_taken"; currencyId: number }
  /** A default network the merchant has no wallet on (for that coin and mode): nothing was changed. */
  | { ok: false; problem: "no_wallet"; setting: DefaultNetworkWrite };

/** A merchant's settings and webhook signing state, sealed secrets included (the core never shows them). */
export interface MerchantSettingsRow {
  id: number;
  name: string;
  active: boolean;
  kybStatus: KybStatus;
  liveWebhookUrl: string | null;
  testWebhookUrl: string | null;
  webhookSecretEnc: string;
  webhookSecretRotatedAt: Date | null;
  previousWebhookSecretEnc: string | null;
  previousWebhookSecretExpiresAt: Date | null;
  /** Test mode's own secrets (core/webhooks/secrets.ts); null: the ones above sign test deliveries too. */
  testWebhookSecretEnc: string | null;
  testPreviousWebhookSecretEnc: string | null;
  testPreviousWebhookSecretExpiresAt: Date | null;
}

/** Which signing secret a rotation changes: one mode's, or the merchant's (both modes get the new one). */
export type WebhookSecretScope = "live" | "test" | "both";

/** A merchant's pricing (src/core/merchants/pricing.ts) as stored. */
export interface MerchantPricingRow {
  spreadPercent: { toString(): string } | null;
  sources: string[];
}

/** An API key as a list shows it: never its hash. */
export interface ApiKeyListRow {
  id: number;
  kind: "PUBLIC" | "SECRET";
  isLive: boolean;
  prefix: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** A roll: the new key, and the end the keys it replaces get (an earlier end they already had is kept). */
export interface ApiKeyRoll {
  kind: "PUBLIC" | "SECRET";
  isLive: boolean;
  newKey: ApiKeyWrite;
  oldExpiresAt: Date;
  now: Date;
  /** The audit log's entry of the roll, written in its database transaction. */
  audit?: AuditWrite;
}

/** The wallet that receives a currency in a mode, with how far its addresses are used. */
export interface WalletUsageRow {
  currencyId: number;
  network: string;
  isLive: boolean;
  extendedPublicKey: string;
  nextIndex: number;
  /** The highest index whose transaction received anything (a receipt not dropped); null: none. */
  highestPaidIndex: number | null;
}

export interface PaymentLinkListRow {
  id: number;
  slug: string;
  isLive: boolean;
  active: boolean;
  createdAt: Date;
  transactionCount: number;
}

export interface MerchantStore {
  /** The merchant, its keys and wallets, in one database transaction. */
  create(merchant: MerchantWrite): Promise<{ id: number; name: string }>;
  /** The changes and wallets in one database transaction; a wallet key seen before keeps its counter. */
  update(id: number, changes: MerchantChanges): Promise<MerchantUpdate>;
  /** Null when there is no such merchant. */
  createPaymentLink(merchantId: number, isLive: boolean, slug: string): Promise<{ slug: string } | null>;
  /** Null when there is no such merchant. */
  settings(merchantId: number): Promise<MerchantSettingsRow | null>;
  /** The merchant's spread (percent; null: none) and chosen providers in its order (empty: the operator's); null: no such merchant. */
  pricing(merchantId: number): Promise<MerchantPricingRow | null>;
  /** Sets both, with the audit log's entry, in one database transaction; false: no such merchant. */
  setPricing(merchantId: number, pricing: { spreadPercent: string | null; sources: string[] }, now: Date, audit: AuditWrite): Promise<boolean>;
  /**
   * In one statement, for the scope's modes: the current secret becomes the previous one (until
   * `previousExpiresAt`; null: none), `sealed` the current one; whatever was previous before is dropped.
   * Live alone: test mode keeps signing with what it had (given live mode's old secrets if it had none
   * of its own). Both: test mode with a secret of its own rotates too; without, it follows live mode.
   * False: no such merchant.
   */
  rotateWebhookSecret(
    merchantId: number,
    scope: WebhookSecretScope,
    sealed: string,
    now: Date,
    previousExpiresAt: Date | null,
    audit?: AuditWrite,
  ): Promise<boolean>;
  /** Every key of the merchant, newest first; null when there is no such merchant. */
  apiKeys(merchantId: number): Promise<ApiKeyListRow[] | null>;
  /**
   * In one database transaction: every usable key of the merchant, kind and mode gets `oldExpiresAt`
   * as its end (or keeps an earlier one), and the new key is stored. Returns the hashes and ends of
   * the keys it ended; null when there is no such merchant.
   */
  rollApiKey(merchantId: number, roll: ApiKeyRoll): Promise<{ keyHash: string; prefix: string; expiresAt: Date }[] | null>;
  /** A wallet's key and its origin (`d34db33f/84'/0'/0'`), by id: what a refund PSBT is derived from; null: no such wallet. */
  walletKey(walletId: number): Promise<{ extendedPublicKey: string; keyOrigin: string | null } | null>;
  /** Who holds a wallet key of a currency and mode, and its next index; null: nobody yet. */
  walletByKey(
    currencyId: number,
    isLive: boolean,
    extendedPublicKey: string,
    network?: NetworkSlug,
  ): Promise<{ merchantId: number; nextIndex: number } | null>;
  /** The merchant's default networks (both modes); a coin without a row is paid on its own default. */
  defaultNetworks(merchantId: number): Promise<DefaultNetworkWrite[]>;
  /** The network the merchant set for a coin in a mode; null: none set. */
  defaultNetwork(merchantId: number, currencyId: number, isLive: boolean): Promise<string | null>;
  /** The wallets that receive the merchant's payments (one per currency and mode), with their use; null: no such merchant. */
  walletUsage(merchantId: number): Promise<WalletUsageRow[] | null>;
  /** Newest first; null when there is no such merchant. */
  paymentLinks(merchantId: number): Promise<PaymentLinkListRow[] | null>;
  /** The merchant's link, now inactive; null when the merchant has no link with this slug. */
  deactivatePaymentLink(merchantId: number, slug: string): Promise<PaymentLinkListRow | null>;
}
