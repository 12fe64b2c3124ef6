// PaymentRails over merchants' HD wallets: receive addresses are derived from account-level
// extended public keys, so the server never holds anything that can spend. See networks.ts for
// the chains, key formats and address rules.
import { randomBytes } from "node:crypto";
import { HDKey } from "@scure/bip32";
import { LRUCache } from "lru-cache";
import type { Decimal } from "decimal.js";
import type { CryptoCurrency, CryptoSlug } from "../../core/money/currencies.ts";
import type { ExtendedKeyCheck, PaymentRails } from "../../core/ports.ts";
import { deriveReceiveAddress, isValidUtxoAddress, isWellFormedEvmAddress, receiveChainOf, toChecksumAddress } from "./addresses.ts";
import { checkAccountKey, versionsOf } from "./extended-keys.ts";
import { buildNetworkTable, EVM_NATIVE_DECIMALS, UTXO_DECIMALS, type CurrencyNetworks, type Network, type NetworkOptions } from "./networks.ts";
import { bip21Uri, eip681NativeUri, eip681TokenUri } from "./payment-uri.ts";

export interface HdWalletRailsOptions extends NetworkOptions {
  /** How many parsed keys (their receive-chain nodes) to keep; 0 turns the cache off. Default 1000. */
  keyCacheSize?: number;
}

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

export class HdWalletRails implements PaymentRails {
  private readonly networks: Readonly<Record<CryptoSlug, CurrencyNetworks>>;
  /** `${slug}:${live|test}:${key}` → the <account>/0 node, least recently used out first. */
  private readonly chains: LRUCache<string, HDKey> | null;

  constructor(options: HdWalletRailsOptions = {}) {
    for (const [mode, contract] of Object.entries(options.usdtContracts ?? {})) {
      if (contract !== undefined && !isWellFormedEvmAddress(contract)) {
        throw new Error(`usdtContracts.${mode} is not a valid EVM address: ${contract}`);
      }
    }
    const normalised: NetworkOptions["usdtContracts"] = {};
    if (options.usdtContracts?.live) normalised.live = toChecksumAddress(options.usdtContracts.live);
    if (options.usdtContracts?.test) normalised.test = toChecksumAddress(options.usdtContracts.test);
    this.networks = buildNetworkTable({ usdtContracts: normalised, testChainIds: options.testChainIds });
    const size = Math.max(0, Math.floor(options.keyCacheSize ?? 1000));
    this.chains = size > 0 ? new LRUCache({ max: size }) : null;
  }

  deriveAddress(currency: CryptoCurrency, isLive: boolean, extendedPublicKey: string, index: number): string {
    const chain = this.receiveChain(currency, isLive, extendedPublicKey);
    return deriveReceiveAddress(this.network(currency, isLive), chain, index);
  }

  isValidAddress(currency: CryptoCurrency, isLive: boolean, address: string): boolean {
    const network = this.network(currency, isLive);
    if (network.family === "utxo") return isValidUtxoAddress(network, address);
    if (!isWellFormedEvmAddress(address)) return false;
    const lower = address.toLowerCase();
    // Both are well-formed, but whatever is sent there is lost.
    if (lower === ZERO_ADDRESS) return false;
    if (network.token && lower === network.token.contract.toLowerCase()) return false;
    return true;
  }

  checkExtendedPublicKey(currency: CryptoCurrency, isLive: boolean, extendedPublicKey: string): ExtendedKeyCheck {
    const check = checkAccountKey(this.entry(currency), isLive, extendedPublicKey);
    return check.ok ? { ok: true } : { ok: false, reason: check.reason };
  }

  createTestWallet(currency: CryptoCurrency): string {
    const entry = this.entry(currency);
    const seed = randomBytes(32);
    const master = HDKey.fromMasterSeed(seed, versionsOf(entry.testKeyFormat));
    const account = master.derive(entry.testAccountPath);
    const key = account.publicExtendedKey;
    account.wipePrivateData();
    master.wipePrivateData();
    seed.fill(0);
    return key;
  }

  paymentUri(currency: CryptoCurrency, isLive: boolean, address: string, amount: Decimal): string {
    const network = this.network(currency, isLive);
    if (!this.isValidAddress(currency, isLive, address)) {
      throw new Error(`${address} is not a ${currency.slug} address of ${network.name}`);
    }
    if (network.family === "utxo") return bip21Uri(network.uriScheme, address, amount, UTXO_DECIMALS);
    const recipient = toChecksumAddress(address);
    if (network.token) {
      return eip681TokenUri(network.token.contract, network.chainId, recipient, amount, network.token.decimals);
    }
    return eip681NativeUri(recipient, network.chainId, amount, EVM_NATIVE_DECIMALS);
  }

  private entry(currency: CryptoCurrency): CurrencyNetworks {
    const entry = (this.networks as Partial<Record<string, CurrencyNetworks>>)[currency.slug];
    if (!entry) throw new Error(`Currency ${currency.id} (${currency.slug}) has no wallet rails`);
    return entry;
  }

  private network(currency: CryptoCurrency, isLive: boolean): Network {
    const entry = this.entry(currency);
    return isLive ? entry.live : entry.test;
  }

  /** The parsed <account>/0 node of a key, from the cache or checked and derived afresh. Throws on a bad key. */
  private receiveChain(currency: CryptoCurrency, isLive: boolean, extendedPublicKey: string): HDKey {
    const cacheKey = `${currency.slug}:${isLive ? "live" : "test"}:${extendedPublicKey}`;
    const cached = this.chains?.get(cacheKey);
    if (cached) return cached;
    const check = checkAccountKey(this.entry(currency), isLive, extendedPublicKey);
    if (!check.ok) throw new Error(`Bad ${currency.slug} extended public key: ${check.reason}`);
    const chain = receiveChainOf(check.node);
    this.chains?.set(cacheKey, chain);
    return chain;
  }
}

export { toChecksumAddress } from "./addresses.ts";
export { USDT_ETHEREUM_CONTRACT, USDT_SEPOLIA_CONTRACT } from "./networks.ts";
