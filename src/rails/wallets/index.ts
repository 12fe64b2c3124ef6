// PaymentRails over merchants' HD wallets: receive addresses are derived from account-level
// extended public keys, so the server never holds anything that can spend. See networks.ts for
// the chains, key formats and address rules.
import type { HDKey } from "@scure/bip32";
import { LRUCache } from "lru-cache";
import type { Decimal } from "decimal.js";
import type { CryptoCurrency } from "../../core/money/currencies.ts";
import { CHAINS, defaultNetworkOf, type NetworkSlug } from "../../core/networks.ts";
import type { ExtendedKeyCheck, PaymentRails } from "../../core/ports.ts";
import { deriveReceiveAddress, isValidUtxoAddress, isWellFormedEvmAddress, receiveChainOf, toChecksumAddress } from "./addresses.ts";
import { checkAccountKey, createAccountKey } from "./extended-keys.ts";
import {
  buildCoinNetworkTable,
  EVM_NATIVE_DECIMALS,
  rowKey,
  UTXO_DECIMALS,
  type CurrencyNetworks,
  type Network,
  type NetworkOptions,
} from "./networks.ts";
import { bip21Uri, eip681NativeUri, eip681TokenUri } from "./payment-uri.ts";
import { TronWalletRails } from "./tron.ts";

export interface HdWalletRailsOptions extends NetworkOptions {
  /** How many parsed keys (their receive-chain nodes) to keep; 0 turns the cache off. Default 1000. */
  keyCacheSize?: number;
}

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

export class HdWalletRails implements PaymentRails {
  /** The rows of core/networks.ts these rails serve, by `COIN:network`. */
  private readonly networks: ReadonlyMap<string, CurrencyNetworks>;
  /** `${slug}:${network}:${live|test}:${key}` → the <account>/0 node, least recently used out first. */
  private readonly chains: LRUCache<string, HDKey> | null;
  /** The rows on TRON (tron.ts): their own addresses, keys and URIs. */
  private readonly tron: TronWalletRails;

  constructor(options: HdWalletRailsOptions = {}) {
    for (const [mode, contract] of Object.entries(options.usdtContracts ?? {})) {
      if (contract !== undefined && !isWellFormedEvmAddress(contract)) {
        throw new Error(`usdtContracts.${mode} is not a valid EVM address: ${contract}`);
      }
    }
    const normalised: NetworkOptions["usdtContracts"] = {};
    if (options.usdtContracts?.live) normalised.live = toChecksumAddress(options.usdtContracts.live);
    if (options.usdtContracts?.test) normalised.test = toChecksumAddress(options.usdtContracts.test);
    this.networks = buildCoinNetworkTable({
      usdtContracts: normalised,
      tokenContracts: options.tokenContracts,
      testChainIds: options.testChainIds,
      utxoTestChains: options.utxoTestChains,
    });
    const size = Math.max(0, Math.floor(options.keyCacheSize ?? 1000));
    this.chains = size > 0 ? new LRUCache({ max: size }) : null;
    this.tron = new TronWalletRails({ tokenContracts: options.tokenContracts ?? {}, keyCacheSize: size });
  }

  deriveAddress(currency: CryptoCurrency, isLive: boolean, extendedPublicKey: string, index: number, network?: NetworkSlug): string {
    if (isTron(network)) return this.tron.deriveAddress(isLive, extendedPublicKey, index);
    const chain = this.receiveChain(currency, isLive, extendedPublicKey, network);
    return deriveReceiveAddress(this.network(currency, isLive, network), chain, index);
  }

  ownAddress(_currency: CryptoCurrency, isLive: boolean, extendedPublicKey: string, index: number, network: NetworkSlug): string {
    if (!isTron(network)) throw new RangeError(`Own addresses are TRON's only, not ${network}'s`);
    return this.tron.ownAddress(isLive, extendedPublicKey, index);
  }

  isValidAddress(currency: CryptoCurrency, isLive: boolean, address: string, on?: NetworkSlug): boolean {
    if (isTron(on)) return this.tron.isValidAddress(currency.slug, isLive, address);
    const network = this.network(currency, isLive, on);
    if (network.family === "utxo") return isValidUtxoAddress(network, address);
    if (!isWellFormedEvmAddress(address)) return false;
    const lower = address.toLowerCase();
    // Both are well-formed, but whatever is sent there is lost.
    if (lower === ZERO_ADDRESS) return false;
    if (network.token && lower === network.token.contract.toLowerCase()) return false;
    return true;
  }

  addressProblem(currency: CryptoCurrency, isLive: boolean, address: string, network?: NetworkSlug): string | null {
    return isTron(network) ? this.tron.refundAddressProblem(currency.slug, isLive, address) : null;
  }

  checkExtendedPublicKey(currency: CryptoCurrency, isLive: boolean, extendedPublicKey: string, network?: NetworkSlug): ExtendedKeyCheck {
    if (isTron(network)) return this.tron.checkExtendedPublicKey(isLive, extendedPublicKey);
    const check = checkAccountKey(this.entry(currency, network), isLive, extendedPublicKey);
    return check.ok ? { ok: true, depth: check.node.depth, childIndex: check.node.index } : { ok: false, reason: check.reason };
  }

  createTestWallet(currency: CryptoCurrency, network?: NetworkSlug): string {
    if (isTron(network)) return this.tron.createTestWallet();
    const entry = this.entry(currency, network);
    return createAccountKey(entry.testKeyFormat, entry.testAccountPath);
  }

  paymentUri(currency: CryptoCurrency, isLive: boolean, address: string, amount: Decimal, on?: NetworkSlug): string {
    if (isTron(on)) return this.tron.paymentUri(address, amount);
    const network = this.network(currency, isLive, on);
    if (!this.isValidAddress(currency, isLive, address, on)) {
      throw new Error(`${address} is not a ${currency.slug} address of ${network.name}`);
    }
    if (network.family === "utxo") return bip21Uri(network.uriScheme, address, amount, UTXO_DECIMALS);
    const recipient = toChecksumAddress(address);
    if (network.token) {
      return eip681TokenUri(network.token.contract, network.chainId, recipient, amount, network.token.decimals);
    }
    return eip681NativeUri(recipient, network.chainId, amount, EVM_NATIVE_DECIMALS);
  }

  private entry(currency: CryptoCurrency, network: NetworkSlug = defaultNetworkOf(currency.slug)): CurrencyNetworks {
    const entry = this.networks.get(rowKey(currency.slug, network));
    if (!entry) throw new Error(`Currency ${currency.id} (${currency.slug}) on ${network} has no wallet rails`);
    return entry;
  }

  private network(currency: CryptoCurrency, isLive: boolean, network?: NetworkSlug): Network {
    const entry = this.entry(currency, network);
    return isLive ? entry.live : entry.test;
  }

  /** The parsed <account>/0 node of a key, from the cache or checked and derived afresh. Throws on a bad key. */
  private receiveChain(currency: CryptoCurrency, isLive: boolean, extendedPublicKey: string, network?: NetworkSlug): HDKey {
    const entry = this.entry(currency, network);
    const cacheKey = `${currency.slug}:${entry.network}:${isLive ? "live" : "test"}:${extendedPublicKey}`;
    const cached = this.chains?.get(cacheKey);
    if (cached) return cached;
    const check = checkAccountKey(entry, isLive, extendedPublicKey);
    if (!check.ok) throw new Error(`Bad ${currency.slug} extended public key: ${check.reason}`);
    const chain = receiveChainOf(check.node);
    this.chains?.set(cacheKey, chain);
    return chain;
  }
}

/** Whether `network` is TRON's family (tron.ts serves it). */
function isTron(network: NetworkSlug | undefined): boolean {
  return network !== undefined && CHAINS[network].family === "tron";
}

export { toChecksumAddress } from "./addresses.ts";
export { USDT_ETHEREUM_CONTRACT, USDT_SEPOLIA_CONTRACT } from "./networks.ts";
