// One address never receives for two obligations (issue 42). An EVM address is the same on every
// EVM network and for every coin on it, so two of a merchant's EVM wallets of one mode on one
// account key hand out the same addresses: order #k in ETH and order #k in USDT share an address,
// and the ETH a merchant sends there to pay a USDT refund's gas was counted as the ETH order's
// payment; USDT on bsc and on ethereum leased the same address and collided. So such a key is
// refused when it is set, naming the wallet that has it; each coin and network gets an account of
// its own (m/44'/60'/0', m/44'/60'/1', …). UTXO and TRON addresses differ by network, so they may share.
import { createBase58check } from "@scure/base";
import { sha256 } from "@noble/hashes/sha2.js";
import { errors, PaygateError } from "../errors.ts";
import { CHAINS, defaultNetworkOf, networkOrDefault, type NetworkSlug } from "../networks.ts";
import type { CryptoCurrency, CryptoSlug } from "../money/currencies.ts";
import { cryptoById } from "../money/currencies.ts";

const base58check = createBase58check(sha256);

/** A wallet as far as its addresses go: its coin, network, mode and account key. */
export interface AddressWallet {
  coin: CryptoSlug;
  network: NetworkSlug;
  isLive: boolean;
  extendedPublicKey: string;
}

/**
 * The account behind an extended key whatever its version bytes (an xpub and a tpub of one key
 * derive the same EVM addresses): its depth, parent, index, chain code and key.
 */
function accountOf(extendedPublicKey: string): string {
  try {
    return Buffer.from(base58check.decode(extendedPublicKey).subarray(4)).toString("hex");
  } catch {
    return extendedPublicKey;
  }
}

const label = (w: AddressWallet) => `${w.coin} wallet on ${w.network} (${w.isLive ? "live" : "test"} mode)`;

/**
 * Refuses (400) a wallet setting whose key is another EVM wallet's of the merchant in the same mode,
 * among those it keeps and those set with it. `kept`: the merchant's wallets now.
 */
export function refuseSharedEvmAddresses(setting: readonly AddressWallet[], kept: readonly AddressWallet[]): void {
  const evm = (w: AddressWallet) => CHAINS[w.network].family === "evm";
  const same = (a: AddressWallet, b: AddressWallet) => a.coin === b.coin && a.network === b.network && a.isLive === b.isLive;
  // What the merchant will have: what it sets, and what it keeps that the setting does not replace.
  const after = [...setting, ...kept.filter((k) => !setting.some((s) => same(s, k)))];
  for (const wallet of setting.filter(evm)) {
    const account = accountOf(wallet.extendedPublicKey);
    const other = after.find((o) => evm(o) && o.isLive === wallet.isLive && !same(o, wallet) && accountOf(o.extendedPublicKey) === account);
    if (other) {
      throw errors.invalidMerchantSettings(
        `${label(wallet)}: this key is already the ${label(other)}. An EVM address is the same on every EVM network, so both would hand out the same addresses and a payment (or a refund's gas) to one could be counted for the other's order; give each coin and network an account of its own (m/44'/60'/0', m/44'/60'/1', …)`,
      );
    }
  }
}

/** A stored wallet (currency id and network) in the terms above; null for an unknown currency. */
export function addressWalletOf(row: { currencyId: number; network: string; isLive: boolean; extendedPublicKey: string }): AddressWallet | null {
  const coin: CryptoCurrency | undefined = cryptoById(row.currencyId);
  if (!coin) return null;
  return { coin: coin.slug, network: networkOrDefault(coin.slug, row.network), isLive: row.isLive, extendedPublicKey: row.extendedPublicKey };
}

/**
 * Initiate's refusal (409) of a wallet whose EVM key another wallet of the merchant has in the mode,
 * set before that was refused: both would hand out the same addresses (USDT on bsc and ethereum
 * collided on the same index at every try, a 500). Nothing is handed out until one of them has a key
 * of its own; the hint names the one set later, which setting refuses now. `siblings`: the lease's.
 */
export function refuseSharedKeyAtInitiate(
  wallet: AddressWallet & { walletId: number },
  siblings: readonly { walletId: number; currencyId: number; network: string; extendedPublicKey: string }[],
): void {
  if (CHAINS[wallet.network].family !== "evm") return;
  const account = accountOf(wallet.extendedPublicKey);
  for (const sibling of siblings) {
    const other = addressWalletOf({ ...sibling, isLive: wallet.isLive });
    if (!other || CHAINS[other.network].family !== "evm" || accountOf(other.extendedPublicKey) !== account) continue;
    const later = sibling.walletId > wallet.walletId ? other : wallet;
    const mode = wallet.isLive ? "live" : "test";
    const cli = later.network === defaultNetworkOf(later.coin) ? later.coin : `${later.coin}@${later.network}`;
    throw new PaygateError(
      "conflict",
      `The merchant's ${label(wallet)} has the key of its ${label(other)}: both would hand out the same addresses, so neither hands out one until one of them has an account key of its own; nothing was changed`,
      "wallet_key_shared",
      [],
      `Give the ${later.coin} wallet on ${later.network} (${mode} mode) an account of its own (m/44'/60'/N' with an N no other EVM wallet of the merchant uses): paygate merchant update ID --mode ${mode} --wallet ${cli}=EXTENDED_PUBLIC_KEY, or the dashboard's Wallets page`,
    );
  }
}

/**
 * Initiate's refusal (409) of an address that another transaction of the mode already has in the same
 * coin: a key another wallet holds too (another merchant's, or one set before that was refused).
 */
export function paymentAddressTaken(coin: CryptoSlug, network: NetworkSlug, isLive: boolean): PaygateError {
  const mode = isLive ? "live" : "test";
  const cli = network === defaultNetworkOf(coin) ? coin : `${coin}@${network}`;
  return new PaygateError(
    "conflict",
    `The merchant's ${coin} wallet on ${network} (${mode} mode) hands out an address another ${coin} payment already has: its key is another wallet's too; nothing was changed`,
    "payment_address_taken",
    [],
    `Give the ${coin} wallet on ${network} (${mode} mode) an account key no other wallet has: paygate merchant update ID --mode ${mode} --wallet ${cli}=EXTENDED_PUBLIC_KEY, or the dashboard's Wallets page`,
  );
}
