// The networks each coin is paid on: one table that the API, the checkout, the dashboard, the
// wallets (src/rails/wallets) and the chain watchers (src/rails/chains) read. A coin on a network
// is a row; adding a network (Polygon, say) is a chain in CHAINS, its rows in COIN_NETWORKS and a
// test, not new code. Display names are written here once and shown everywhere.
import type { CryptoSlug } from "./money/currencies.ts";

export type NetworkSlug = "ethereum" | "bsc" | "tron" | "bitcoin" | "litecoin";
export type NetworkFamily = "evm" | "utxo" | "tron";
export type NetworkMode = "live" | "test";
/** A rough level of what a transfer costs on the network, for a customer choosing one. */
export type FeeLevel = "LOW" | "MEDIUM" | "HIGH";

/** One side (live or test) of a chain. */
export interface ChainSide {
  /** The display name, used everywhere (messages, API, checkout, dashboard). */
  name: string;
  /** EIP-155 chain id of EVM chains; null elsewhere. */
  chainId: number | null;
  /** Explorer links: `{tx}` / `{address}` are replaced. */
  explorer: { transaction: string; address: string };
}

export interface Chain {
  slug: NetworkSlug;
  family: NetworkFamily;
  /** The coin transfers on it pay their fees in (TRX is not a coin paygate takes). */
  feeCoin: string;
  feeLevel: FeeLevel;
  live: ChainSide;
  test: ChainSide;
}

/** A coin as it is paid on one network. */
export interface CoinNetwork {
  coin: CryptoSlug;
  network: NetworkSlug;
  /** The token standard (ERC-20, BEP-20, TRC-20); null for the chain's own coin. */
  standard: string | null;
  /** Digits of the coin's base unit on this network (a token's `decimals()`): amounts on the chain are exact to it. */
  decimals: number;
  /** The token contract per mode; null for the chain's own coin. */
  contract: { live: string; test: string } | null;
  /** Default confirmations before a receipt counts (each has its PAYGATE_CONFIRMATIONS_… variable). */
  confirmations: number;
}

export const CHAINS: Readonly<Record<NetworkSlug, Chain>> = {
  ethereum: {
    slug: "ethereum",
    family: "evm",
    feeCoin: "ETH",
    feeLevel: "HIGH",
    live: {
      name: "Ethereum",
      chainId: 1,
      explorer: { transaction: "https://etherscan.io/tx/{tx}", address: "https://etherscan.io/address/{address}" },
    },
    test: {
      name: "Ethereum Sepolia testnet",
      chainId: 11155111,
      explorer: { transaction: "https://sepolia.etherscan.io/tx/{tx}", address: "https://sepolia.etherscan.io/address/{address}" },
    },
  },
  bsc: {
    slug: "bsc",
    family: "evm",
    feeCoin: "BNB",
    feeLevel: "LOW",
    live: {
      name: "BNB Smart Chain",
      chainId: 56,
      explorer: { transaction: "https://bscscan.com/tx/{tx}", address: "https://bscscan.com/address/{address}" },
    },
    test: {
      name: "BNB Smart Chain testnet",
      chainId: 97,
      explorer: { transaction: "https://testnet.bscscan.com/tx/{tx}", address: "https://testnet.bscscan.com/address/{address}" },
    },
  },
  tron: {
    slug: "tron",
    family: "tron",
    feeCoin: "TRX",
    feeLevel: "LOW",
    live: {
      name: "TRON",
      chainId: null,
      explorer: { transaction: "https://tronscan.org/#/transaction/{tx}", address: "https://tronscan.org/#/address/{address}" },
    },
    test: {
      name: "TRON Nile testnet",
      chainId: null,
      explorer: { transaction: "https://nile.tronscan.org/#/transaction/{tx}", address: "https://nile.tronscan.org/#/address/{address}" },
    },
  },
  bitcoin: {
    slug: "bitcoin",
    family: "utxo",
    feeCoin: "BTC",
    feeLevel: "MEDIUM",
    live: {
      name: "Bitcoin",
      chainId: null,
      explorer: { transaction: "https://mempool.space/tx/{tx}", address: "https://mempool.space/address/{address}" },
    },
    test: {
      name: "Bitcoin testnet",
      chainId: null,
      explorer: { transaction: "https://mempool.space/testnet4/tx/{tx}", address: "https://mempool.space/testnet4/address/{address}" },
    },
  },
  litecoin: {
    slug: "litecoin",
    family: "utxo",
    feeCoin: "LTC",
    feeLevel: "LOW",
    live: {
      name: "Litecoin",
      chainId: null,
      explorer: { transaction: "https://litecoinspace.org/tx/{tx}", address: "https://litecoinspace.org/address/{address}" },
    },
    test: {
      name: "Litecoin testnet",
      chainId: null,
      explorer: { transaction: "https://litecoinspace.org/testnet/tx/{tx}", address: "https://litecoinspace.org/testnet/address/{address}" },
    },
  },
};

/** Tether on Ethereum (ERC-20, 6 decimals). */
export const USDT_ETHEREUM_CONTRACT = "0xdAC17F958D2ee523a2206206994597C13D831ec7";
/** Aave v3's faucet "USDT" on Sepolia (6 decimals): Tether has no Sepolia deployment. */
export const USDT_SEPOLIA_CONTRACT = "0xaA8E23Fb1079EA71e0a56F48a2aA51851D8433D0";
/** Binance-Peg BSC-USD on BNB Smart Chain (BEP-20, 18 decimals). */
export const USDT_BSC_CONTRACT = "0x55d398326f99059fF775485246999027B3197955";
/** The community "USDT" on BSC testnet (BEP-20, 18 decimals). */
export const USDT_BSC_TESTNET_CONTRACT = "0x337610d27c682E347C9cD60BD4b3b107C9d34dDd";
/** Tether on TRON (TRC-20, 6 decimals), base58 form. */
export const USDT_TRON_CONTRACT = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
/** Tether's USDT on TRON Nile (TRC-20, 6 decimals), base58 form. */
export const USDT_TRON_NILE_CONTRACT = "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf";

/**
 * Every coin × network, the coin's default network first (the network a request without `network`
 * is paid on, and the one every wallet and transaction made before networks has).
 */
export const COIN_NETWORKS: readonly CoinNetwork[] = [
  {
    coin: "USDT",
    network: "ethereum",
    standard: "ERC-20",
    decimals: 6,
    contract: { live: USDT_ETHEREUM_CONTRACT, test: USDT_SEPOLIA_CONTRACT },
    confirmations: 12,
  },
  {
    coin: "USDT",
    network: "bsc",
    standard: "BEP-20",
    decimals: 18,
    contract: { live: USDT_BSC_CONTRACT, test: USDT_BSC_TESTNET_CONTRACT },
    confirmations: 15,
  },
  {
    coin: "USDT",
    network: "tron",
    standard: "TRC-20",
    decimals: 6,
    contract: { live: USDT_TRON_CONTRACT, test: USDT_TRON_NILE_CONTRACT },
    confirmations: 19,
  },
  { coin: "BTC", network: "bitcoin", standard: null, decimals: 8, contract: null, confirmations: 2 },
  { coin: "BNB", network: "bsc", standard: null, decimals: 18, contract: null, confirmations: 15 },
  { coin: "ETH", network: "ethereum", standard: null, decimals: 18, contract: null, confirmations: 12 },
  { coin: "LTC", network: "litecoin", standard: null, decimals: 8, contract: null, confirmations: 6 },
];

export const NETWORK_SLUGS = Object.keys(CHAINS) as NetworkSlug[];

export function isNetworkSlug(value: string): value is NetworkSlug {
  return Object.hasOwn(CHAINS, value);
}

/** The networks a coin is paid on, its default first. */
export function networksOf(coin: CryptoSlug): CoinNetwork[] {
  return COIN_NETWORKS.filter((row) => row.coin === coin);
}

/** The network a coin is paid on when none is named: today's (USDT: ethereum). */
export function defaultNetworkOf(coin: CryptoSlug): NetworkSlug {
  const first = COIN_NETWORKS.find((row) => row.coin === coin);
  if (!first) throw new Error(`${coin} has no network`);
  return first.network;
}

export function coinNetwork(coin: CryptoSlug, network: NetworkSlug): CoinNetwork | undefined {
  return COIN_NETWORKS.find((row) => row.coin === coin && row.network === network);
}

/** The display name of a network in a mode ("Ethereum Sepolia testnet"). */
export function networkName(network: NetworkSlug, isLive: boolean): string {
  return CHAINS[network][isLive ? "live" : "test"].name;
}

/** How a coin on a network is named to people: "USDT on BNB Smart Chain (BEP-20)". */
export function coinNetworkLabel(row: CoinNetwork, isLive: boolean): string {
  const name = networkName(row.network, isLive);
  return row.standard ? `${row.coin} on ${name} (${row.standard})` : `${row.coin} on ${name}`;
}

/** An explorer link to a transaction or an address on a network in a mode. */
export function explorerLink(network: NetworkSlug, isLive: boolean, kind: "transaction" | "address", value: string): string {
  const template = CHAINS[network][isLive ? "live" : "test"].explorer[kind];
  return template.replace(kind === "transaction" ? "{tx}" : "{address}", encodeURIComponent(value));
}

/**
 * Test chains an operator runs locally instead of the public testnets (PAYGATE_LTC_TEST_CHAIN=regtest,
 * an EVM test chain id such as anvil's 31337): no public explorer knows their transactions, so a
 * receipt links none, unless the operator names an explorer of their own.
 */
export interface ExplorerSettings {
  /** Networks whose test side is not the public testnet of CHAINS. */
  localTestChains: readonly NetworkSlug[];
  /** The operator's explorer of a network's test chain (PAYGATE_<COIN>_TEST_EXPLORER_URL): `{tx}` is the hash. */
  testTransactionUrls?: Partial<Record<NetworkSlug, string>>;
}

/** Every test side on its public testnet: the explorers of CHAINS. */
export const PUBLIC_TEST_CHAINS: ExplorerSettings = { localTestChains: [] };

/** The explorer page template (`{tx}`) of a transaction on a network in a mode; null when no explorer can show it. */
export function transactionExplorer(network: NetworkSlug, isLive: boolean, settings: ExplorerSettings = PUBLIC_TEST_CHAINS): string | null {
  if (isLive) return CHAINS[network].live.explorer.transaction;
  const own = settings.testTransactionUrls?.[network];
  if (own) return own;
  return settings.localTestChains.includes(network) ? null : CHAINS[network].test.explorer.transaction;
}

/** The network of a wallet or payment of `currencyId`: the one named, else the coin's default. */
export function networkOrDefault(coin: CryptoSlug, network: string | null | undefined): NetworkSlug {
  return network && isNetworkSlug(network) ? network : defaultNetworkOf(coin);
}

/** The networks a coin is paid on, as a message lists them: "ethereum, bsc, tron". */
export function allowedNetworksText(coin: CryptoSlug): string {
  return networksOf(coin)
    .map((row) => row.network)
    .join(", ");
}
