// Merchant accounts, their keys, payment links and wallets: what the operator CLI manages today and
// the dashboard will. The rules are here; the writes are the MerchantStore's (src/db).
import { allowedNetworksText, coinNetwork, defaultNetworkOf, isNetworkSlug, type NetworkSlug, networksOf } from "../networks.ts";
import { auditEntry, OPERATOR, shortenedKey, webhookUrlTarget, type ChangeAuthor } from "../access/audit-log.ts";
import type { CoreDeps } from "../deps.ts";
import { errors } from "../errors.ts";
import { CRYPTO_CURRENCIES, cryptoById, type CryptoCurrency } from "../money/currencies.ts";
import { newPaymentLinkSlug, newPublicKey, newSecretKey, newWebhookSecret } from "../secrets.ts";
import type { MerchantWithWallets } from "../stores/merchants.ts";
import { apiKeyRow } from "./api-keys.ts";
import { formatKeyOrigin, keyOriginProblem, readKeyExpression, type KeyExpression, type KeyOrigin } from "./key-origin.ts";
import type { KybStatus } from "../records/kyb.ts";

export type { KybStatus };
import { privateTargetsHint } from "../private-targets.ts";
import { addressWalletOf, refuseSharedEvmAddresses } from "./shared-addresses.ts";
import { checkWebhookUrl } from "./webhook-url.ts";

export type MerchantDeps = Pick<CoreDeps, "stores" | "rails" | "secrets" | "privateWebhookTargets" | "clock">;

/** Where each mode's events go; null removes the URL, undefined leaves it. */
export interface WebhookUrls {
  liveWebhookUrl?: string | null;
  testWebhookUrl?: string | null;
}

/** Everything a new merchant needs, secrets included: shown once, never stored in the clear. */
export interface NewMerchant {
  id: number;
  name: string;
  testPublicKey: string;
  testSecretKey: string;
  livePublicKey: string;
  liveSecretKey: string;
  webhookSecret: string;
}

export interface WalletSetting {
  currency: CryptoCurrency;
  /** The network it receives on (core/networks.ts); absent: the coin's default. */
  network?: NetworkSlug;
  isLive: boolean;
  /** The account-level extended public key, or a descriptor key expression with its origin: `[d34db33f/84'/0'/0']xpub…` (key-origin.ts). */
  extendedPublicKey: string;
  /** The key's origin when given apart from the key; absent: the one in `extendedPublicKey`'s brackets, if any. */
  keyOrigin?: KeyOrigin | null;
}

export async function createMerchant(deps: MerchantDeps, input: { name: string; kybStatus?: KybStatus } & WebhookUrls): Promise<NewMerchant> {
  const name = input.name.trim();
  if (!name) throw errors.invalidMerchantSettings("The merchant name must not be empty");
  const urls = checkedWebhookUrls(deps, input);
  const keys = {
    testPublicKey: newPublicKey("test"),
    testSecretKey: newSecretKey("test"),
    livePublicKey: newPublicKey("live"),
    liveSecretKey: newSecretKey("live"),
  };
  const webhookSecret = newWebhookSecret();
  const merchant = await deps.stores.merchants.create({
    name,
    kybStatus: input.kybStatus ?? "NONE",
    liveWebhookUrl: urls.liveWebhookUrl ?? null,
    testWebhookUrl: urls.testWebhookUrl ?? null,
    webhookSecretEnc: deps.secrets.seal(webhookSecret),
    apiKeys: [
      apiKeyRow("PUBLIC", false, keys.testPublicKey),
      apiKeyRow("SECRET", false, keys.testSecretKey),
      apiKeyRow("PUBLIC", true, keys.livePublicKey),
      apiKeyRow("SECRET", true, keys.liveSecretKey),
    ],
    // Test mode works at once: a fresh test-network account per coin on each of its networks (a
    // merchant's own test key replaces one). The default network's wallet names none, as before networks.
    wallets: CRYPTO_CURRENCIES.flatMap((currency) =>
      networksOf(currency.slug).map(({ network }) => ({
        currencyId: currency.id,
        ...(network === defaultNetworkOf(currency.slug) ? {} : { network }),
        isLive: false,
        extendedPublicKey: deps.rails.createTestWallet(currency, network),
      })),
    ),
  });
  return { id: merchant.id, name: merchant.name, ...keys, webhookSecret };
}

/**
 * Changes a merchant's state, KYB, webhook URLs and wallets; each wallet key is checked for its
 * network and mode first. The audit log gets an entry per change, by `by`, with the change.
 */
export async function updateMerchant(
  deps: MerchantDeps,
  id: number,
  input: { active?: boolean; kybStatus?: KybStatus; wallets?: WalletSetting[]; defaultNetworks?: DefaultNetworkSetting[] } & WebhookUrls,
  by: ChangeAuthor = OPERATOR,
): Promise<MerchantWithWallets> {
  const urls = checkedWebhookUrls(deps, input);
  const wallets = (input.wallets ?? []).map((wallet) => ({ ...wallet, ...checkWalletKey(deps, wallet) }));
  if (wallets.length > 0) {
    const kept = (await deps.stores.merchants.walletUsage(id)) ?? [];
    refuseSharedEvmAddresses(
      wallets.map((w) => ({
        coin: w.currency.slug,
        network: w.network ?? defaultNetworkOf(w.currency.slug),
        isLive: w.isLive,
        extendedPublicKey: w.extendedPublicKey,
      })),
      kept.flatMap((row) => addressWalletOf(row) ?? []),
    );
  }
  const defaultNetworks = (input.defaultNetworks ?? []).map(checkedDefaultNetwork);
  const result = await deps.stores.merchants.update(id, {
    ...(input.active === undefined ? {} : { active: input.active }),
    ...(input.kybStatus === undefined ? {} : { kybStatus: input.kybStatus }),
    ...urls,
    wallets: wallets.map((w) => ({
      currencyId: w.currency.id,
      ...(w.network === undefined ? {} : { network: w.network }),
      isLive: w.isLive,
      extendedPublicKey: w.extendedPublicKey,
      ...(w.keyOrigin === null ? {} : { keyOrigin: formatKeyOrigin(w.keyOrigin) }),
    })),
    defaultNetworks: defaultNetworks.map((d) => ({ currencyId: d.currency.id, network: d.network, isLive: d.isLive })),
    audit: [
      ...auditOfUpdate(id, deps.clock.now(), by, { ...input, wallets }, urls),
      ...defaultNetworks.map((d) =>
        auditEntry(by, id, deps.clock.now(), "default_network.set", `${d.currency.slug} ${d.isLive ? "live" : "test"} ${d.network}`),
      ),
    ],
  });
  if (result.ok) return result.merchant;
  if (result.problem === "no_merchant") throw errors.merchantNotFound(id);
  if (result.problem === "no_wallet") {
    const { currencyId, network, isLive } = result.setting;
    const slug = cryptoById(currencyId)?.slug ?? String(currencyId);
    throw errors.invalidMerchantSettings(
      `default network: no ${slug} wallet on ${network} is set for ${isLive ? "live" : "test"} mode; add one before making ${network} the default for ${slug}`,
    );
  }
  throw walletTaken(cryptoById(result.currencyId)?.slug ?? String(result.currencyId));
}

/** The network a coin is paid on when an initiate names none, in one mode (`network` as given). */
export interface DefaultNetworkSetting {
  currency: CryptoCurrency;
  network: string;
  isLive: boolean;
}

/** A default network as the CLI and the dashboard show it. */
export interface DefaultNetworkRow {
  currency: string;
  isLive: boolean;
  network: NetworkSlug;
}

export async function defaultNetworks(deps: Pick<CoreDeps, "stores">, merchantId: number): Promise<DefaultNetworkRow[]> {
  return (await deps.stores.merchants.defaultNetworks(merchantId)).map((d) => ({
    currency: cryptoById(d.currencyId)?.slug ?? String(d.currencyId),
    isLive: d.isLive,
    network: d.network,
  }));
}

/** Refuses a network that does not carry the coin, naming the ones that do. */
function checkedDefaultNetwork(setting: DefaultNetworkSetting): DefaultNetworkSetting & { network: NetworkSlug } {
  const { currency, network } = setting;
  if (!isNetworkSlug(network) || !coinNetwork(currency.slug, network)) {
    throw errors.invalidMerchantSettings(
      `default network must be one of ${allowedNetworksText(currency.slug)} for ${currency.slug} (got '${network}')`,
    );
  }
  return { ...setting, network };
}

/**
 * Refuses a key that does not parse or is not of the currency's network in its mode, and a key origin
 * that is malformed or does not fit the key; the key alone and its origin otherwise.
 */
export function checkWalletKey(deps: Pick<CoreDeps, "rails">, wallet: WalletSetting): KeyExpression {
  const network = wallet.network ?? defaultNetworkOf(wallet.currency.slug);
  if (!coinNetwork(wallet.currency.slug, network)) {
    throw errors.invalidMerchantSettings(`${wallet.currency.slug} is paid on ${allowedNetworksText(wallet.currency.slug)}, not ${network}`);
  }
  const on = network === defaultNetworkOf(wallet.currency.slug) ? "" : ` on ${network}`;
  const read = readKeyExpression(wallet.extendedPublicKey);
  if (!read.ok) throw errors.invalidMerchantSettings(`${wallet.currency.slug}${on} wallet: ${read.reason}`);
  const { extendedPublicKey } = read.value;
  const keyOrigin = wallet.keyOrigin ?? read.value.keyOrigin;
  const check = deps.rails.checkExtendedPublicKey(wallet.currency, wallet.isLive, extendedPublicKey, network);
  if (!check.ok) throw errors.invalidMerchantSettings(`${wallet.currency.slug}${on} wallet: ${check.reason}`);
  const problem = keyOrigin === null ? null : keyOriginProblem(keyOrigin, check);
  if (problem !== null) throw errors.invalidMerchantSettings(`${wallet.currency.slug}${on} wallet: ${problem}`);
  return { extendedPublicKey, keyOrigin };
}

/** One audit entry per thing an update changes. */
function auditOfUpdate(
  merchantId: number,
  at: Date,
  by: ChangeAuthor,
  input: { active?: boolean; kybStatus?: KybStatus; wallets?: WalletSetting[] },
  urls: WebhookUrls,
) {
  const entry = (action: Parameters<typeof auditEntry>[3], target: string) => auditEntry(by, merchantId, at, action, target);
  return [
    ...(input.active === undefined ? [] : [entry(input.active ? "merchant.activate" : "merchant.deactivate", `merchant ${merchantId}`)]),
    ...(input.kybStatus === undefined ? [] : [entry("merchant.kyb_set", input.kybStatus)]),
    ...(urls.liveWebhookUrl === undefined ? [] : [entry("webhook_url.set", webhookUrlTarget("live", urls.liveWebhookUrl))]),
    ...(urls.testWebhookUrl === undefined ? [] : [entry("webhook_url.set", webhookUrlTarget("test", urls.testWebhookUrl))]),
    ...(input.wallets ?? []).map((w) => entry("wallet.set", `${w.currency.slug} ${w.isLive ? "live" : "test"} ${shortenedKey(w.extendedPublicKey)}`)),
  ];
}

export const walletTaken = (slug: string) =>
  errors.invalidMerchantSettings(
    `${slug} wallet: this key already belongs to another merchant; two merchants on one key would receive to the same addresses`,
  );

export async function createPaymentLink(deps: Pick<CoreDeps, "stores">, merchantId: number, isLive: boolean): Promise<{ slug: string }> {
  const link = await deps.stores.merchants.createPaymentLink(merchantId, isLive, newPaymentLinkSlug());
  if (!link) throw errors.merchantNotFound(merchantId);
  return link;
}

/** Each URL checked against its mode's rules (src/core/merchants/webhook-url.ts), normalised. */
function checkedWebhookUrls(deps: MerchantDeps, input: WebhookUrls): WebhookUrls {
  const out: WebhookUrls = {};
  for (const [field, mode] of [
    ["liveWebhookUrl", "live"],
    ["testWebhookUrl", "test"],
  ] as const) {
    const url = input[field];
    if (url === undefined) continue;
    if (url === null || url === "") {
      out[field] = null;
      continue;
    }
    const targets = deps.privateWebhookTargets;
    const check = checkWebhookUrl(url, mode, { allowPrivate: targets[mode], allowlist: targets.allowlist });
    if (!check.ok) {
      const hint = check.privateHost ? `; ${privateTargetsHint(mode)}` : "";
      throw errors.invalidMerchantSettings(`${mode === "live" ? "Live" : "Test"} webhook URL '${url}' is refused: ${check.reason}${hint}`);
    }
    out[field] = check.url;
  }
  return out;
}
