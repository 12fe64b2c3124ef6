// The networks each coin is paid on: one table that the API, the checkout, the dashboard, the
// wallets (src/rails/wallets) and the chain watchers (src/rails/chains) read. A coin on a network
// is a row; adding a network (Polygon, say) is a chain in CHAINS, its rows in COIN_NETWORKS and a
// test, not new code. Display names are written here once and shown everywhere.
import { type CryptoCurrency, type CryptoSlug, cryptoBySlug } from "./money/currencies.ts";

export type NetworkSlug = "ethereum" | "bsc" | "base" | "polygon" | "arbitrum" | "tron" | "bitcoin" | "litecoin";
/** The networks of the EVM family: each takes its node variables and block time from its row. */
export type EvmNetworkSlug = "ethereum" | "bsc" | "base" | "polygon" | "arbitrum";
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

/** What an EVM chain's watcher is configured from (src/rails/chains/config.ts reads it; nothing there is per network). */
export interface EvmChainSettings {
  /** Stem of its node variables: PAYGATE_<stem>_RPC_URL, _TEST_RPC_URL, _TEST_CHAIN_ID, _TEST_EXPLORER_URL, _FINALIZED_TAG. */
  nodeVariable: string;
  /** Stem of PAYGATE_CONFIRMATIONS_<stem> and PAYGATE_FINALITY_<stem> (ethereum's and bsc's are their coins' since before networks). */
  depthVariable: string;
  /** Nominal seconds between blocks: only a first guess, checked against block timestamps. */
  blockTimeSeconds: number;
  /** Confirmations after which a SUCCESSFUL payment is final, and why that many. */
  finalityDepth: number;
  finalityReason: string;
  /** The free public JSON-RPC endpoints used when the operator names none. */
  defaultRpc: { live: string; test: string };
}

export interface EvmChain extends Chain {
  family: "evm";
  evm: EvmChainSettings;
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

const explorer = (host: string) => ({ transaction: `https://${host}/tx/{tx}`, address: `https://${host}/address/{address}` });

/** The EVM chains, by slug. */
export const EVM_CHAINS: Readonly<Record<EvmNetworkSlug, EvmChain>> = {
  ethereum: {
    slug: "ethereum",
    family: "evm",
    feeCoin: "ETH",
    feeLevel: "HIGH",
    live: { name: "Ethereum", chainId: 1, explorer: explorer("etherscan.io") },
    test: { name: "Ethereum Sepolia testnet", chainId: 11155111, explorer: explorer("sepolia.etherscan.io") },
    evm: {
      nodeVariable: "ETH",
      depthVariable: "ETH",
      blockTimeSeconds: 12,
      finalityDepth: 64,
      finalityReason: "64 blocks are two epochs, about when Ethereum's finality checkpoint covers a block",
      defaultRpc: { live: "https://ethereum-rpc.publicnode.com", test: "https://ethereum-sepolia-rpc.publicnode.com" },
    },
  },
  bsc: {
    slug: "bsc",
    family: "evm",
    feeCoin: "BNB",
    feeLevel: "LOW",
    live: { name: "BNB Smart Chain", chainId: 56, explorer: explorer("bscscan.com") },
    test: { name: "BNB Smart Chain testnet", chainId: 97, explorer: explorer("testnet.bscscan.com") },
    evm: {
      nodeVariable: "BSC",
      depthVariable: "BNB",
      blockTimeSeconds: 0.75,
      finalityDepth: 15,
      finalityReason: "BSC's fast finality finalises within a few blocks; 15 leaves room",
      defaultRpc: { live: "https://bsc-rpc.publicnode.com", test: "https://bsc-testnet-rpc.publicnode.com" },
    },
  },
  base: {
    slug: "base",
    family: "evm",
    feeCoin: "ETH",
    feeLevel: "LOW",
    live: { name: "Base", chainId: 8453, explorer: explorer("basescan.org") },
    test: { name: "Base Sepolia testnet", chainId: 84532, explorer: explorer("sepolia.basescan.org") },
    evm: {
      nodeVariable: "BASE",
      depthVariable: "BASE",
      blockTimeSeconds: 2,
      finalityDepth: 300,
      finalityReason: "a rollup's block is final once its batch is on Ethereum and finalised there; 300 blocks of 2 s are 10 minutes",
      defaultRpc: { live: "https://base-rpc.publicnode.com", test: "https://base-sepolia-rpc.publicnode.com" },
    },
  },
  polygon: {
    slug: "polygon",
    family: "evm",
    feeCoin: "POL",
    feeLevel: "LOW",
    live: { name: "Polygon", chainId: 137, explorer: explorer("polygonscan.com") },
    test: { name: "Polygon Amoy testnet", chainId: 80002, explorer: explorer("amoy.polygonscan.com") },
    evm: {
      nodeVariable: "POLYGON",
      depthVariable: "POLYGON",
      blockTimeSeconds: 2,
      finalityDepth: 128,
      finalityReason:
        "Polygon PoS finalises in milestones within seconds since Heimdall v2; 128 blocks leave room for the reorganisations it had before",
      defaultRpc: { live: "https://polygon-bor-rpc.publicnode.com", test: "https://polygon-amoy-bor-rpc.publicnode.com" },
    },
  },
  arbitrum: {
    slug: "arbitrum",
    family: "evm",
    feeCoin: "ETH",
    feeLevel: "LOW",
    live: { name: "Arbitrum One", chainId: 42161, explorer: explorer("arbiscan.io") },
    test: { name: "Arbitrum Sepolia testnet", chainId: 421614, explorer: explorer("sepolia.arbiscan.io") },
    evm: {
      nodeVariable: "ARBITRUM",
      depthVariable: "ARBITRUM",
      blockTimeSeconds: 0.25,
      finalityDepth: 2400,
      finalityReason: "a rollup's block is final once its batch is on Ethereum and finalised there; 2400 blocks of 0.25 s are 10 minutes",
      defaultRpc: { live: "https://arbitrum-one-rpc.publicnode.com", test: "https://arbitrum-sepolia-rpc.publicnode.com" },
    },
  },
};

/** Local chain ids that replace EVM networks' public testnets (PAYGATE_<stem>_TEST_CHAIN_ID). */
export type TestChainIds = Partial<Record<EvmNetworkSlug, number | undefined>>;

export const EVM_NETWORK_SLUGS = Object.keys(EVM_CHAINS) as EvmNetworkSlug[];

export function isEvmNetwork(network: NetworkSlug): network is EvmNetworkSlug {
  return Object.hasOwn(EVM_CHAINS, network);
}

export const CHAINS: Readonly<Record<NetworkSlug, Chain>> = {
  ...EVM_CHAINS,
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
/** Tether on Polygon PoS and Arbitrum One (6 decimals): Tether's own deployments. */
export const USDT_POLYGON_CONTRACT = "0xc2132D05D31c914a87C6611C10748AEb04B58e8F";
export const USDT_ARBITRUM_CONTRACT = "0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9";
/**
 * Tether has no testnet deployments: a claimable 6-decimal test "USDT" on Amoy (listed with its
 * explorer link in fullstack-development/developers-roadmap, frontend-web3/practice/test-erc-20-tokens.md)
 * and Orderly Network's test USDT on Arbitrum Sepolia (orderly.network/docs/build-on-omnichain/addresses).
 */
export const USDT_AMOY_CONTRACT = "0x0a6DFA1eEf85B94E7e753bA222A6AcF2aE6C1a8b";
export const USDT_ARBITRUM_SEPOLIA_CONTRACT = "0xEf54C221Fc94517877F0F40eCd71E0A3866D66C2";
/**
 * Circle's native USDC (6 decimals) and its testnet deployments (Circle's faucet), as listed by
 * developers.circle.com and mirrored at docs.gelato.cloud/1Balance/USDC-Addresess (live) and
 * developer.interlace.money/docs/usdc-on-testing-networks (test).
 */
export const USDC_CONTRACTS = {
  ethereum: { live: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", test: "0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238" },
  base: { live: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", test: "0x036CbD53842c5426634e7929541eC2318f3dCF7e" },
  polygon: { live: "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359", test: "0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582" },
  arbitrum: { live: "0xaf88d065e77c8cC2239327C5EDb3A432268e5831", test: "0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d" },
  /**
   * Binance-Peg USD Coin (BEP-20, 18 decimals) and its BSC testnet token, as PancakeSwap's SDK
   * names them (USDC_BSC and USDC_TESTNET, both 18 decimals).
   */
  bsc: { live: "0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d", test: "0x64544969ed7EBf5f083679233325356EbE738930" },
} as const;
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
  {
    coin: "USDT",
    network: "polygon",
    standard: "ERC-20",
    decimals: 6,
    contract: { live: USDT_POLYGON_CONTRACT, test: USDT_AMOY_CONTRACT },
    confirmations: 64,
  },
  {
    coin: "USDT",
    network: "arbitrum",
    standard: "ERC-20",
    decimals: 6,
    contract: { live: USDT_ARBITRUM_CONTRACT, test: USDT_ARBITRUM_SEPOLIA_CONTRACT },
    confirmations: 20,
  },
  { coin: "USDC", network: "ethereum", standard: "ERC-20", decimals: 6, contract: USDC_CONTRACTS.ethereum, confirmations: 12 },
  { coin: "USDC", network: "base", standard: "ERC-20", decimals: 6, contract: USDC_CONTRACTS.base, confirmations: 10 },
  { coin: "USDC", network: "polygon", standard: "ERC-20", decimals: 6, contract: USDC_CONTRACTS.polygon, confirmations: 64 },
  { coin: "USDC", network: "arbitrum", standard: "ERC-20", decimals: 6, contract: USDC_CONTRACTS.arbitrum, confirmations: 20 },
  { coin: "USDC", network: "bsc", standard: "BEP-20", decimals: 18, contract: USDC_CONTRACTS.bsc, confirmations: 15 },
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

/**
 * The coins paid on a network, in its rows' order (USDT on tron; USDC on base). A network's fee coin
 * may be none of them: Polygon's POL is no coin paygate takes, and ETH is paid on no row of Base.
 */
export function coinsOn(network: NetworkSlug): CryptoCurrency[] {
  return COIN_NETWORKS.filter((row) => row.network === network).flatMap((row) => cryptoBySlug(row.coin) ?? []);
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

/** A token's contract on a network in a mode, with its explorer page; null for a chain's own coin. */
export function tokenContractOf(coin: CryptoSlug, network: NetworkSlug, isLive: boolean): { contract: string; url: string } | null {
  const contract = coinNetwork(coin, network)?.contract?.[isLive ? "live" : "test"];
  return contract === undefined ? null : { contract, url: explorerLink(network, isLive, "address", contract) };
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
