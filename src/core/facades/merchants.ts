// The merchants-and-keys context's façade: a merchant's settings, webhook URLs and signing secret, API
// keys, wallets, funds held, default networks, pricing and payment links. Every use case takes the
// caller's MerchantAccess (access.ts) and states there what it needs (a permission; a recent password
// for a change that redirects money or events or hands out access; a live key for a live setting),
// once, whichever door (the operator's CLI, a secret key, a dashboard user) called it.
import type { CoreDeps } from "../deps.ts";
import type { LiveCredentials } from "../transactions/updates.ts";
import type { MerchantAccess } from "./access.ts";
import { listApiKeys, rollApiKey, type ApiKeyRollRequest, type ApiKeyView, type RolledApiKey } from "../merchants/api-keys.ts";
import { defaultNetworkChoices, setDefaultNetwork, type DefaultNetworkChoice } from "../merchants/default-networks.ts";
import { fundsHeld, type FundsHeldQuery, type HeldFunds } from "../transactions/funds-held.ts";
import { createPaymentLink } from "../merchants/merchants.ts";
import { checkedMode, type Mode } from "../mode.ts";
import { deactivatePaymentLink, listPaymentLinks, type PaymentLinkView } from "../merchants/payment-links.ts";
import { merchantPricing, setMerchantPricing, type MerchantPricing } from "../merchants/pricing.ts";
import { listWallets, previewWallet, setWallet, type WalletPreview, type WalletRequest, type WalletView } from "../merchants/wallets.ts";
import { rotateWebhookSecret, type RotatedWebhookSecret } from "../webhooks/secrets.ts";
import { merchantSettings, sendTestEvent, setWebhookUrl, shownTestEvent, type MerchantSettings, type ShownTestEvent } from "../webhooks/settings.ts";

export class Merchants {
  constructor(
    private readonly deps: CoreDeps,
    private readonly liveCredentials: LiveCredentials,
  ) {}

  /** Name, KYB, webhook URLs per mode and the signing secret's rotation state; never a secret. */
  async settings(access: MerchantAccess): Promise<MerchantSettings> {
    access.require("read");
    return merchantSettings(this.deps, access.merchantId);
  }

  // The changes that redirect money or events, or hand out access, also need a recent proof of the
  // password in the dashboard (sudo mode) and are written to the audit log as whoever acts.

  /** One mode's webhook URL (null or "" removes it), with merchant update's checks. */
  async setWebhookUrl(access: MerchantAccess, mode: Mode, url: string | null): Promise<MerchantSettings> {
    access.require("manage_webhooks");
    access.requireRecentProof();
    return setWebhookUrl(this.deps, access.merchantId, mode, url, access.by);
  }

  /** A new signing secret (returned once); the previous one keeps signing deliveries for 24 hours. */
  async rotateWebhookSecret(access: MerchantAccess): Promise<RotatedWebhookSecret> {
    access.require("manage_webhooks");
    access.requireRecentProof();
    return rotateWebhookSecret(this.deps, access.merchantId, access.by);
  }

  /**
   * A signed `webhook.test` POST to the mode's URL now, nothing stored; to a private target only whether
   * it was delivered, unless the operator asked for details (never a private answer's body). The
   * operator's CLI, which shows everything, has its own (operator.ts).
   */
  async sendTestEvent(access: MerchantAccess, mode: Mode): Promise<ShownTestEvent> {
    access.require("manage_webhooks");
    const attempt = await sendTestEvent(this.deps, access.merchantId, mode);
    return shownTestEvent(attempt, { details: this.deps.webhookTestEventDetails ?? false, privateTargets: this.deps.privateWebhookTargets });
  }

  /** Every key of the merchant for display (prefix, kind, mode, dates, status); never a secret. */
  async listApiKeys(access: MerchantAccess): Promise<ApiKeyView[]> {
    access.require("read");
    return listApiKeys(this.deps, access.merchantId);
  }

  /** A new key of a kind and mode (returned once); the keys it replaces work until the chosen end. */
  async rollApiKey(access: MerchantAccess, request: ApiKeyRollRequest): Promise<RolledApiKey> {
    access.require("manage_keys");
    access.requireRecentProof();
    const user = access.user;
    const rolledBy = user === null ? null : { userId: user.userId, email: user.email, role: user.role };
    const rolled = await rollApiKey(this.deps, access.merchantId, request, access.by, rolledBy);
    // A key ended now ends its live updates in this process at once (other instances at their next check).
    await this.liveCredentials.recheckAll();
    return rolled;
  }

  /** The checks of setting a wallet key, and the next three addresses it would hand out; nothing stored. Sudo mode too: the preview is the first step of a wallet change. */
  async previewWallet(access: MerchantAccess, request: WalletRequest): Promise<WalletPreview> {
    access.require("manage_wallets");
    access.requireRecentProof();
    return previewWallet(this.deps, access.merchantId, request);
  }

  async setWallet(access: MerchantAccess, request: WalletRequest): Promise<WalletView> {
    access.require("manage_wallets");
    access.requireRecentProof();
    return setWallet(this.deps, access.merchantId, request, access.by);
  }

  /** Every coin in both modes, with its wallet (key shortened), next index and gap-limit warning. */
  async listWallets(access: MerchantAccess): Promise<WalletView[]> {
    access.require("read");
    return listWallets(this.deps, access.merchantId);
  }

  /** What each handed-out address holds now, with the fee coin a token on it needs (`paygate holdings`). */
  async fundsHeld(access: MerchantAccess, query: FundsHeldQuery): Promise<HeldFunds[]> {
    access.require("read");
    return fundsHeld(this.deps, access.merchantId, query);
  }

  /** Each coin's network choices in a mode, the one chosen marked. */
  async defaultNetworkChoices(access: MerchantAccess, mode: Mode): Promise<DefaultNetworkChoice[]> {
    access.require("read");
    return defaultNetworkChoices(this.deps, access.merchantId, checkedMode(mode) === "live");
  }

  /** The owner's call: it decides where customers pay when a request names no network. */
  async setDefaultNetwork(access: MerchantAccess, request: { currency: string; network: string; mode: Mode }): Promise<DefaultNetworkChoice[]> {
    access.require("manage_default_networks");
    const isLive = checkedMode(request.mode) === "live";
    return setDefaultNetwork(this.deps, access.merchantId, { currency: request.currency, network: request.network, isLive }, access.by);
  }

  /** The merchant's spread and price providers (merchant pricing), with the providers it may choose from. */
  async pricing(access: MerchantAccess): Promise<MerchantPricing> {
    access.require("read");
    return merchantPricing(this.deps, access.merchantId);
  }

  /** Sets the spread and/or the providers: what customers pay, so owners only, and never with a test key. */
  async setPricing(access: MerchantAccess, input: { spread?: unknown; sources?: unknown }): Promise<MerchantPricing> {
    access.requireLiveSetting("pricing");
    access.require("manage_pricing");
    return setMerchantPricing(this.deps, access.merchantId, input, access.by);
  }

  async listPaymentLinks(access: MerchantAccess): Promise<PaymentLinkView[]> {
    access.require("read");
    return listPaymentLinks(this.deps, access.merchantId);
  }

  /** A new payment link of a mode. */
  async createPaymentLink(access: MerchantAccess, mode: Mode): Promise<{ slug: string }> {
    access.require("manage_payment_links");
    return createPaymentLink(this.deps, access.merchantId, checkedMode(mode) === "live");
  }

  /** The link starts no more transactions; not_found for an unknown slug or another merchant's link. */
  async deactivatePaymentLink(access: MerchantAccess, slug: string): Promise<PaymentLinkView> {
    access.require("manage_payment_links");
    return deactivatePaymentLink(this.deps, access.merchantId, slug);
  }
}
