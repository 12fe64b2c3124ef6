// "Pay with browser wallet" on EVM networks: a wallet the browser injects (EIP-1193, window.ethereum)
// is asked to switch to the payment's chain (EIP-3326 wallet_switchEthereumChain; EIP-3085
// wallet_addEthereumChain when it does not know it, error 4902) and to send the exact amount: a native
// transfer, or the token's transfer(to, amount). Everything comes from the payment's EIP-681 URI, the
// one its QR code holds (chain id, recipient or token contract, base units), so the amount is exact and
// the chain is the one the service watches. The page then follows the payment as for any other.
import { chainIdOf } from "./chain-warning.ts";

/** An EIP-1193 provider: `request`, and the events of those wallets that emit them (chainChanged). */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
  on?(event: string, listener: (value: unknown) => void): unknown;
  removeListener?(event: string, listener: (value: unknown) => void): unknown;
}

/** The chain offered to a wallet that asks (EIP-3085): its name, native coin (null: none offered) and explorer. */
export interface ChainOffer {
  name: string;
  nativeSymbol: string | null;
  explorer: string | null;
}

/** What the URI asks to send, in base units. */
export type EvmTransfer =
  | { kind: "native"; chainId: number; to: string; value: bigint }
  | { kind: "token"; chainId: number; contract: string; to: string; units: bigint };

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The EIP-681 URI of an EVM payment (`ethereum:to@chain?value=…`, `ethereum:token@chain/transfer?address=…&uint256=…`); null otherwise. */
export function evmTransferOf(uri: string | null): EvmTransfer | null {
  const match = /^ethereum:(0x[0-9a-fA-F]{40})@(\d{1,12})(\/transfer)?\?(.*)$/.exec(uri ?? "");
  if (!match) return null;
  const [, target = "", chain = "", transfer, query = ""] = match;
  const params = new URLSearchParams(query);
  const chainId = Number(chain);
  if (transfer) {
    const to = params.get("address") ?? "";
    const units = params.get("uint256") ?? "";
    if (!ADDRESS.test(to) || !/^\d{1,78}$/.test(units)) return null;
    return { kind: "token", chainId, contract: target, to, units: BigInt(units) };
  }
  const value = params.get("value") ?? "";
  if (!/^\d{1,78}$/.test(value)) return null;
  return { kind: "native", chainId, to: target, value: BigInt(value) };
}

/** The injected provider, when the browser has a wallet. */
export function injectedProvider(): Eip1193Provider | null {
  const candidate = (window as unknown as { ethereum?: unknown }).ethereum;
  if (typeof candidate !== "object" || candidate === null) return null;
  const request = (candidate as { request?: unknown }).request;
  return typeof request === "function" ? (candidate as Eip1193Provider) : null;
}

/** Why a browser-wallet payment stopped, for the page's words. */
export type WalletFailure =
  | { kind: "rejected" }
  | { kind: "no_account" }
  | { kind: "unknown_chain" }
  | { kind: "wrong_chain" }
  | { kind: "failed"; message: string };

export class WalletPaymentError extends Error {
  constructor(readonly failure: WalletFailure) {
    super(failure.kind);
  }
}

export type WalletStep = "connecting" | "switching" | "confirming";

/** The wallet's error code (EIP-1193: 4001 user rejected, 4902 unknown chain), when it gave one. */
function codeOf(error: unknown): number | null {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "number" ? code : null;
}

function messageOf(error: unknown): string {
  const message = typeof error === "object" && error !== null ? (error as { message?: unknown }).message : undefined;
  return typeof message === "string" && message ? message : String(error);
}

/** A wallet's error as the page says it: a decline (4001), else what the wallet said. */
function fail(error: unknown): never {
  if (error instanceof WalletPaymentError) throw error;
  if (codeOf(error) === 4001) throw new WalletPaymentError({ kind: "rejected" });
  throw new WalletPaymentError({ kind: "failed", message: messageOf(error) });
}

const hex = (n: bigint | number) => `0x${n.toString(16)}`;
const word = (hexDigits: string) => hexDigits.padStart(64, "0");

/** The transaction that pays `transfer` from `from`. */
export function transactionOf(transfer: EvmTransfer, from: string): { from: string; to: string; value?: string; data?: string } {
  if (transfer.kind === "native") return { from, to: transfer.to, value: hex(transfer.value) };
  // transfer(address,uint256): selector 0xa9059cbb, then the recipient and the amount, 32 bytes each.
  const data = `0xa9059cbb${word(transfer.to.slice(2).toLowerCase())}${word(transfer.units.toString(16))}`;
  return { from, to: transfer.contract, data };
}

/**
 * Asks the wallet for an account, to be on the transfer's chain, and to send it. Returns the
 * transaction hash; rejects with WalletPaymentError saying why not.
 */
export async function payWithWallet(
  provider: Eip1193Provider,
  transfer: EvmTransfer,
  chain: ChainOffer,
  onStep: (step: WalletStep) => void,
): Promise<string> {
  onStep("connecting");
  const accounts = await provider.request({ method: "eth_requestAccounts" }).catch(fail);
  const from = Array.isArray(accounts) && typeof accounts[0] === "string" ? accounts[0] : null;
  if (from === null) throw new WalletPaymentError({ kind: "no_account" });
  const current = await provider.request({ method: "eth_chainId" }).catch(fail);
  if (!isChain(current, transfer.chainId)) {
    onStep("switching");
    await switchChain(provider, transfer.chainId, chain);
  }
  onStep("confirming");
  const hash = await provider.request({ method: "eth_sendTransaction", params: [transactionOf(transfer, from)] }).catch(fail);
  if (typeof hash !== "string") throw new WalletPaymentError({ kind: "failed", message: "no transaction hash" });
  return hash;
}

/** Whether a wallet's `eth_chainId` answer is `chainId`. */
function isChain(answer: unknown, chainId: number): boolean {
  return chainIdOf(answer) === chainId;
}

/**
 * Follows the wallet's chain without asking for an account (no connect prompt): `eth_chainId` once,
 * then EIP-1193's chainChanged. The returned stop removes the listener; an answer after it is dropped,
 * and so is a first answer that comes after an event (the event is newer).
 */
export function watchChain(provider: Eip1193Provider, onChain: (chainId: number | null) => void): () => void {
  let stopped = false;
  let heard = false;
  const listener = (value: unknown) => {
    heard = true;
    if (!stopped) onChain(chainIdOf(value));
  };
  provider.on?.("chainChanged", listener);
  provider.request({ method: "eth_chainId" }).then(
    (answer) => {
      if (!stopped && !heard) onChain(chainIdOf(answer));
    },
    () => {
      // A wallet that does not say its chain: nothing is shown.
    },
  );
  return () => {
    stopped = true;
    provider.removeListener?.("chainChanged", listener);
  };
}

/**
 * Asks the wallet to switch to `chainId` (EIP-3326), offering the chain when it does not know it
 * (EIP-3085, error 4902), then checks that it did. Rejects with WalletPaymentError saying why not.
 * The pay button and the checkout's wrong-network warning both switch through it.
 */
export async function switchChain(provider: Eip1193Provider, chainId: number, chain: ChainOffer): Promise<void> {
  const wanted = hex(chainId);
  try {
    await provider.request({ method: "wallet_switchEthereumChain", params: [{ chainId: wanted }] });
  } catch (error) {
    if (codeOf(error) !== 4902) fail(error);
    if (chain.nativeSymbol === null) throw new WalletPaymentError({ kind: "unknown_chain" });
    // The wallet does not know the chain: it is offered, and the wallet asks its user.
    await provider
      .request({
        method: "wallet_addEthereumChain",
        params: [
          {
            chainId: wanted,
            chainName: chain.name,
            nativeCurrency: { name: chain.nativeSymbol, symbol: chain.nativeSymbol, decimals: 18 },
            rpcUrls: [],
            ...(chain.explorer ? { blockExplorerUrls: [chain.explorer] } : {}),
          },
        ],
      })
      .catch((added: unknown) => {
        if (codeOf(added) === 4001) throw new WalletPaymentError({ kind: "rejected" });
        throw new WalletPaymentError({ kind: "unknown_chain" });
      });
  }
  // Only on the right chain is anything sent: a wallet that stayed elsewhere is told so.
  const now = await provider.request({ method: "eth_chainId" }).catch(fail);
  if (!isChain(now, chainId)) throw new WalletPaymentError({ kind: "wrong_chain" });
}
