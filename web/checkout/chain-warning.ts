// The checkout's up-front warning when the browser's wallet is on another network than the payment
// (issue 43): which network a wallet's chain id is, in the page's language, and the sentence that
// names both. The page reads the chain without asking for an account (browser-wallet.ts watchChain).
import { EVM_CHAINS } from "../../src/core/networks.ts";
import { type Messages, networkLabelIn } from "./i18n.ts";

/** A chain id as a wallet gives it (`eth_chainId`, chainChanged: hex, "0x38"); null when it is not one. */
export function chainIdOf(answer: unknown): number | null {
  if (typeof answer !== "string" || !/^0x[0-9a-fA-F]{1,13}$/.test(answer)) return null;
  return Number.parseInt(answer.slice(2), 16);
}

/** The network of an EIP-155 chain id in the page's language ("BNB Smart Chain testnet"); null when paygate does not know it. */
export function knownChainName(chainId: number, m: Messages): string | null {
  for (const chain of Object.values(EVM_CHAINS)) {
    for (const isLive of [true, false]) {
      const side = isLive ? chain.live : chain.test;
      if (side.chainId === chainId) return networkLabelIn({ slug: chain.slug, name: side.name, standard: null }, isLive, m);
    }
  }
  return null;
}

/**
 * What the page says about the wallet's chain: null when it is the payment's (or unknown: no
 * wallet, no answer). A chain paygate does not know is named by its number, and so is one whose name
 * is the payment's (a local test chain standing for a public one), so the two never read the same.
 */
export function chainWarningText(walletChainId: number | null, payment: { chainId: number; name: string }, m: Messages): string | null {
  if (walletChainId === null || walletChainId === payment.chainId) return null;
  const known = knownChainName(walletChainId, m);
  const wallet = known !== null && known !== payment.name ? known : m.chainNumbered(String(walletChainId));
  return m.walletOtherNetwork(wallet, payment.name);
}
