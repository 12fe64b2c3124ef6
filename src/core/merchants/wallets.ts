// The dashboard's Wallets page: a preview of the addresses a key would hand out (so a merchant can
// compare them with its own wallet before accepting payments, as BTCPay shows them), setting a key
// with the checks of merchant update, and the wallets per coin and mode with a gap-limit warning.
import { OPERATOR, shortenedKey, type ChangeAuthor } from "../access/audit-log.ts";
import type { CoreDeps } from "../deps.ts";
import { errors } from "../errors.ts";
import { CRYPTO_CURRENCIES, cryptoBySlug, type CryptoCurrency, type CryptoSlug } from "../money/currencies.ts";
import { allowedNetworksText, COIN_NETWORKS, coinNetwork, defaultNetworkOf, isNetworkSlug, networkName, type NetworkSlug } from "../networks.ts";
import type { WalletUsageRow } from "../stores/merchants.ts";
import { formatKeyOrigin } from "./key-origin.ts";
import { checkWalletKey, updateMerchant, walletTaken, type MerchantDeps } from "./merchants.ts";
import { checkedMode, modeOf, MODES, type Mode } from "../mode.ts";

/**
 * Wallets stop looking for payments after this many unused addresses in a row (BIP44's gap limit,
 * Electrum's and most wallets' default): payments beyond it arrive but the wallet does not show them.
 */
export const GAP_LIMIT = 20;

/** How many addresses a preview shows. */
const PREVIEW_COUNT = 3;

export interface WalletRequest {
  /** A crypto slug: USDT, BTC, BNB, ETH or LTC. */
  currency: string;
  /** The network it receives on (core/networks.ts); absent: the coin's default. */
  network?: string | undefined;
  mode: Mode;
  /** The account-level extended public key (never a private key), alone or with its origin: `[d34db33f/84'/0'/0']xpub…`. */
  extendedPublicKey: string;
}

export interface WalletPreview {
  currency: CryptoSlug;
  network: NetworkSlug;
  mode: Mode;
  /** The key as it would be set: with its origin in brackets when one was given (key-origin.ts). */
  extendedPublicKey: string;
  /** The next addresses the key hands out: from index 0 for a new key, from its next index for one this merchant had before. */
  addresses: { index: number; address: string }[];
}

export interface WalletView {
  currency: CryptoSlug;
  network: NetworkSlug;
  /** The network's display name in the wallet's mode. */
  networkName: string;
  mode: Mode;
  /** The key shortened for display (its start and end); null when no wallet is set for this coin and mode. */
  extendedPublicKey: string | null;
  /** The index of the next address to hand out; null without a wallet. */
  nextIndex: number | null;
  /** Handed-out addresses at the end of the index range that received nothing. */
  unpaidAtEnd: number;
  /** Set when unpaidAtEnd reaches the gap limit: what it means and what to do. */
  gapWarning: string | null;
}

function checkedRequest(request: WalletRequest): { currency: CryptoCurrency; network: NetworkSlug; isLive: boolean; extendedPublicKey: string } {
  const currency = cryptoBySlug(String(request.currency).toUpperCase());
  if (!currency) {
    throw errors.invalidMerchantSettings(
      `currency must be one of ${CRYPTO_CURRENCIES.map((c) => c.slug).join(", ")} (got '${String(request.currency)}')`,
    );
  }
  const network = request.network === undefined || request.network === "" ? defaultNetworkOf(currency.slug) : String(request.network);
  if (!isNetworkSlug(network) || !coinNetwork(currency.slug, network)) {
    throw errors.invalidMerchantSettings(`network must be one of ${allowedNetworksText(currency.slug)} for ${currency.slug} (got '${network}')`);
  }
  const extendedPublicKey = String(request.extendedPublicKey ?? "").trim();
  if (!extendedPublicKey) throw errors.invalidMerchantSettings(`${currency.slug} wallet: give the account-level extended public key`);
  return { currency, network, isLive: checkedMode(request.mode) === "live", extendedPublicKey };
}

/** The checks of setting the key, then its next three addresses; nothing is stored. */
export async function previewWallet(deps: MerchantDeps, merchantId: number, request: WalletRequest): Promise<WalletPreview> {
  const asked = checkedRequest(request);
  const key = checkWalletKey(deps, asked);
  const wallet = { ...asked, extendedPublicKey: key.extendedPublicKey };
  if (!(await deps.stores.merchants.settings(merchantId))) throw errors.merchantNotFound(merchantId);
  const holder = await deps.stores.merchants.walletByKey(wallet.currency.id, wallet.isLive, wallet.extendedPublicKey, wallet.network);
  if (holder && holder.merchantId !== merchantId) throw walletTaken(wallet.currency.slug);
  // A key this merchant had before keeps its counter (no address is handed out twice): it resumes there.
  const first = holder?.nextIndex ?? 0;
  const addresses = Array.from({ length: PREVIEW_COUNT }, (_, i) => ({
    index: first + i,
    address: deps.rails.deriveAddress(wallet.currency, wallet.isLive, wallet.extendedPublicKey, first + i, wallet.network),
  }));
  return {
    currency: wallet.currency.slug,
    network: wallet.network,
    mode: modeOf(wallet.isLive),
    extendedPublicKey: key.keyOrigin === null ? key.extendedPublicKey : `[${formatKeyOrigin(key.keyOrigin)}]${key.extendedPublicKey}`,
    addresses,
  };
}

/** Makes the key the one that receives the currency in the mode (merchant update's checks and rules, and its audit entry). */
export async function setWallet(deps: MerchantDeps, merchantId: number, request: WalletRequest, by: ChangeAuthor = OPERATOR): Promise<WalletView> {
  const wallet = checkedRequest(request);
  await updateMerchant(deps, merchantId, { wallets: [wallet] }, by);
  const views = await listWallets(deps, merchantId);
  const view = views.find((w) => w.currency === wallet.currency.slug && w.network === wallet.network && w.mode === modeOf(wallet.isLive));
  if (!view) throw new Error("The wallet just set is not listed");
  return view;
}

/**
 * Every coin in both modes, test first: the wallet that receives it on its default network (or none),
 * then those on its other networks that the merchant has set, with their gap-limit state.
 */
export async function listWallets(deps: Pick<CoreDeps, "stores">, merchantId: number): Promise<WalletView[]> {
  const rows = await deps.stores.merchants.walletUsage(merchantId);
  if (!rows) throw errors.merchantNotFound(merchantId);
  const views: WalletView[] = [];
  for (const mode of MODES) {
    for (const currency of CRYPTO_CURRENCIES) {
      for (const { network } of COIN_NETWORKS.filter((r) => r.coin === currency.slug)) {
        const row = rows.find((r) => r.currencyId === currency.id && r.network === network && modeOf(r.isLive) === mode);
        const named = { currency: currency.slug, network, networkName: networkName(network, mode === "live"), mode };
        if (!row) {
          if (network === defaultNetworkOf(currency.slug))
            views.push({ ...named, extendedPublicKey: null, nextIndex: null, unpaidAtEnd: 0, gapWarning: null });
          continue;
        }
        views.push(usedWallet(named, row));
      }
    }
  }
  return views;
}

/** A set wallet's view: its key shortened, and how many addresses at its end went unpaid. */
function usedWallet(named: Pick<WalletView, "currency" | "network" | "networkName" | "mode">, row: WalletUsageRow): WalletView {
  const unpaidAtEnd = row.nextIndex - (row.highestPaidIndex ?? -1) - 1;
  return {
    ...named,
    extendedPublicKey: shortenedKey(row.extendedPublicKey),
    nextIndex: row.nextIndex,
    unpaidAtEnd,
    gapWarning: unpaidAtEnd >= GAP_LIMIT ? gapWarning(named.currency, unpaidAtEnd) : null,
  };
}

function gapWarning(slug: string, unpaid: number): string {
  return (
    `The last ${unpaid} ${slug} addresses handed out received nothing. Wallets stop looking for payments after ` +
    `${GAP_LIMIT} unused addresses in a row (the gap limit), so your wallet may not show payments to newer addresses ` +
    `until you raise its gap limit (e.g. to ${Math.max(unpaid + GAP_LIMIT, 100)}) or rescan.`
  );
}
