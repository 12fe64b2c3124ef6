// The chains behind each crypto currency, in live mode (mainnet) and test mode (testnet).
//
// Decisions (see also the module notes in extended-keys.ts and addresses.ts):
// - BTC (id 4) and LTC (id 7) pay to native SegWit P2WPKH (BIP84): receive address i is
//   <account key>/0/i. Live: bc1… / ltc1…; test (testnet): tb1… / tltc1…; test on a regtest node
//   (utxoTestChains): bcrt1… / rltc1….
//   Accepted account keys (depth 3, hardened index):
//     BTC live: xpub, zpub           BTC test: tpub, vpub
//     LTC live: Ltub, zpub, xpub     LTC test: ttub, vpub, tpub
//   SLIP-132 version bytes are mapped to what @scure/bip32 accepts through its `versions` option.
//   A key carries no derivation path, so an xpub/tpub is trusted to be the account of a native
//   SegWit wallet (most wallets export xpub for their BIP84 accounts). ypub/upub/Mtub (BIP49,
//   wrapped SegWit) and multisig keys are refused: the wallet would not watch the bc1 addresses.
//   Private keys (xprv, zprv, tprv, …) are refused and the operator is told never to hand one over.
//   createTestWallet: random 32-byte seed → m/84'/1'/0' → a vpub (BTC and LTC); the seed and
//   private keys are wiped and dropped.
// - ETH (6), USDT (3), BNB (5) are EVM: BIP44 coin type 60, account m/44'/60'/0', receive address
//   i is <account>/0/i, address = last 20 bytes of keccak256(uncompressed public key), EIP-55.
//   Live mode takes `xpub`; test mode takes `tpub` and `xpub` (many EVM wallets export xpub even
//   for testnets — EVM addresses are the same on every chain). createTestWallet returns the tpub
//   of m/44'/60'/0' of a random seed.
//   ETH: Ethereum (chain 1), test Sepolia (11155111). BNB: native BNB on BNB Smart Chain (56),
//   test BSC testnet (97). USDT: the ERC-20 on Ethereum, 0xdAC17F958D2ee523a2206206994597C13D831ec7
//   (6 decimals); in test mode on Sepolia there is no official Tether deployment, so the default is
//   Aave's faucet USDT 0xaA8E23Fb1079EA71e0a56F48a2aA51851D8433D0 (6 decimals, mintable from the
//   Aave testnet faucet). Both contracts can be replaced with HdWalletRails' `usdtContracts` option.
// - Refund addresses (isValidAddress): BTC/LTC take bech32 v0 (20- or 32-byte programs) and
//   bech32m v1 (32-byte taproot) with the mode's HRP, and base58check P2PKH/P2SH with the mode's
//   version bytes. Witness versions 2–16 are refused: coins sent there are anyone-can-spend today.
//   EVM takes 0x + 40 hex in all-lower or all-upper case, or mixed case matching EIP-55; the zero
//   address (a burn) and, for USDT, the token contract itself are refused.
// - Payment URIs: BIP21 `bitcoin:` / `litecoin:` with a plain decimal amount; EIP-681 with the
//   amount in base units (wei, or the token's 6-decimal units for USDT). Amounts finer than the
//   base unit are rounded up (the merchant is never short); non-positive amounts throw.
import type { CryptoSlug } from "../../core/money/currencies.ts";
import { CHAINS, COIN_NETWORKS, type CoinNetwork, isEvmNetwork, type NetworkSlug, type TestChainIds } from "../../core/networks.ts";

/** Names of extended key formats (BIP32 / SLIP-132 prefixes). */
export type KeyPrefix = "xpub" | "ypub" | "zpub" | "Ypub" | "Zpub" | "tpub" | "upub" | "vpub" | "Upub" | "Vpub" | "Ltub" | "Mtub" | "ttub";

export interface UtxoNetwork {
  family: "utxo";
  /** The key's network as messages about account keys name it ("Litecoin mainnet key"); core/networks.ts has the display name. */
  name: string;
  /** "mainnet" or "testnet", for messages. */
  kind: "mainnet" | "testnet";
  bech32Hrp: string;
  /** base58check version bytes of P2PKH addresses. */
  p2pkhVersions: readonly number[];
  /** base58check version bytes of P2SH addresses. */
  p2shVersions: readonly number[];
  /** Account keys accepted, in the order they are suggested in messages. */
  acceptedKeys: readonly KeyPrefix[];
  /** BIP21 scheme. */
  uriScheme: string;
}

export interface EvmNetwork {
  family: "evm";
  name: string;
  kind: "mainnet" | "testnet";
  chainId: number;
  acceptedKeys: readonly KeyPrefix[];
  /** Set for ERC-20 tokens: the contract and its decimals. Absent for the chain's native coin. */
  token?: { contract: string; decimals: number };
}

export type Network = UtxoNetwork | EvmNetwork;

export interface CurrencyNetworks {
  slug: CryptoSlug;
  /** The network of core/networks.ts this entry is for. */
  network: NetworkSlug;
  family: "utxo" | "evm";
  live: Network;
  test: Network;
  /** Account path of wallets made by createTestWallet. */
  testAccountPath: string;
  /** Format of the extended public key createTestWallet returns. */
  testKeyFormat: KeyPrefix;
  /** Path shown to operators in messages about live keys. */
  liveAccountPath: string;
}

export { USDT_ETHEREUM_CONTRACT, USDT_SEPOLIA_CONTRACT } from "../../core/networks.ts";
/** USDT's decimals on Ethereum (on BNB Smart Chain: 18; core/networks.ts has each network's). */
export const USDT_DECIMALS = 6;
/** Native EVM coins (ETH, BNB) have 18 decimals: amounts in URIs are in wei. */
export const EVM_NATIVE_DECIMALS = 18;
/** Satoshis (and litoshis): 8 decimals. */
export const UTXO_DECIMALS = 8;

/** Chain ids from the networks table (core/networks.ts). */
export const CHAIN_IDS = {
  ethereum: chainIdOf("ethereum", "live"),
  sepolia: chainIdOf("ethereum", "test"),
  bsc: chainIdOf("bsc", "live"),
  bscTestnet: chainIdOf("bsc", "test"),
} as const;

function chainIdOf(network: NetworkSlug, mode: "live" | "test"): number {
  const id = CHAINS[network][mode].chainId;
  if (id === null) throw new Error(`${network} has no chain id`);
  return id;
}

const BTC: CurrencyNetworks = {
  slug: "BTC",
  network: "bitcoin",
  family: "utxo",
  live: {
    family: "utxo",
    name: "Bitcoin mainnet",
    kind: "mainnet",
    bech32Hrp: "bc",
    p2pkhVersions: [0x00],
    p2shVersions: [0x05],
    acceptedKeys: ["xpub", "zpub"],
    uriScheme: "bitcoin",
  },
  test: {
    family: "utxo",
    name: "Bitcoin testnet",
    kind: "testnet",
    bech32Hrp: "tb",
    p2pkhVersions: [0x6f],
    p2shVersions: [0xc4],
    acceptedKeys: ["tpub", "vpub"],
    uriScheme: "bitcoin",
  },
  testAccountPath: "m/84'/1'/0'",
  testKeyFormat: "vpub",
  liveAccountPath: "m/84'/0'/0'",
};

const LTC: CurrencyNetworks = {
  slug: "LTC",
  network: "litecoin",
  family: "utxo",
  live: {
    family: "utxo",
    name: "Litecoin mainnet",
    kind: "mainnet",
    bech32Hrp: "ltc",
    // 0x05 is the legacy P2SH version ("3…") that Litecoin used before 0x32 ("M…").
    p2pkhVersions: [0x30],
    p2shVersions: [0x32, 0x05],
    acceptedKeys: ["Ltub", "zpub", "xpub"],
    uriScheme: "litecoin",
  },
  test: {
    family: "utxo",
    name: "Litecoin testnet",
    kind: "testnet",
    bech32Hrp: "tltc",
    p2pkhVersions: [0x6f],
    p2shVersions: [0x3a, 0xc4],
    acceptedKeys: ["ttub", "vpub", "tpub"],
    uriScheme: "litecoin",
  },
  testAccountPath: "m/84'/1'/0'",
  testKeyFormat: "vpub",
  liveAccountPath: "m/84'/2'/0'",
};

function evm(
  row: CoinNetwork,
  live: { name: string; chainId: number },
  test: { name: string; chainId: number },
  token?: { live: string; test: string },
): CurrencyNetworks {
  return {
    slug: row.coin,
    network: row.network,
    family: "evm",
    live: {
      family: "evm",
      name: live.name,
      kind: "mainnet",
      chainId: live.chainId,
      acceptedKeys: ["xpub"],
      ...(token ? { token: { contract: token.live, decimals: row.decimals } } : {}),
    },
    test: {
      family: "evm",
      name: test.name,
      kind: "testnet",
      chainId: test.chainId,
      acceptedKeys: ["tpub", "xpub"],
      ...(token ? { token: { contract: token.test, decimals: row.decimals } } : {}),
    },
    testAccountPath: "m/44'/60'/0'",
    testKeyFormat: "tpub",
    liveAccountPath: "m/44'/60'/0'",
  };
}

/** The chain of BTC's or LTC's test mode, by the node's name for it (PAYGATE_BTC_TEST_CHAIN, PAYGATE_LTC_TEST_CHAIN). */
export type UtxoTestChain = "test" | "signet" | "regtest";

/** A regtest node's addresses: its own bech32 prefix; base58 versions as testnet's. */
const REGTEST_HRP: Record<string, string> = { bitcoin: "bcrt", litecoin: "rltc" };

/** BTC's or LTC's entry with its test side on the chain named (signet shares testnet's addresses). */
function onTestChain(entry: CurrencyNetworks, chain: UtxoTestChain | undefined): CurrencyNetworks {
  const hrp = REGTEST_HRP[entry.network];
  if (chain !== "regtest" || entry.test.family !== "utxo" || hrp === undefined) return entry;
  return { ...entry, test: { ...entry.test, name: `${entry.test.name.replace(/ testnet$/, "")} regtest`, bech32Hrp: hrp } };
}

export interface NetworkOptions {
  /** The chains of BTC's and LTC's test mode. Default test (testnet). */
  utxoTestChains?: { BTC?: UtxoTestChain | undefined; LTC?: "test" | "regtest" | undefined };
  /** USDT contracts on Ethereum (ERC-20, 6 decimals). Defaults: core/networks.ts's. */
  usdtContracts?: { live?: string | undefined; test?: string | undefined };
  /** Token contracts of other rows, by `COIN:network` (e.g. `USDT:bsc`). Defaults: core/networks.ts's. */
  tokenContracts?: Partial<Record<string, { live?: string | undefined; test?: string | undefined }>>;
  /**
   * Test mode on a local chain (PAYGATE_ETH_TEST_CHAIN_ID, PAYGATE_BSC_TEST_CHAIN_ID, …): payment URIs
   * name that chain, so a wallet on it pays there, instead of the network's public testnet.
   */
  testChainIds?: TestChainIds;
}

/** A test network, or the local chain that replaces it. */
function testChain(name: string, chainId: number, local: number | undefined): { name: string; chainId: number } {
  return local === undefined ? { name, chainId } : { name: `local chain ${local}`, chainId: local };
}

/** `COIN:network`, the key of a row in the tables below. */
export const rowKey = (coin: CryptoSlug, network: NetworkSlug): string => `${coin}:${network}`;

/**
 * Every row of core/networks.ts that these rails can serve (EVM and UTXO; TRON's rows are served by
 * their own rails), with the configurable token contracts filled in, by `COIN:network`.
 */
export function buildCoinNetworkTable(options: NetworkOptions = {}): ReadonlyMap<string, CurrencyNetworks> {
  const table = new Map<string, CurrencyNetworks>();
  for (const row of COIN_NETWORKS) {
    const chain = CHAINS[row.network];
    if (chain.family === "utxo") {
      const entry = row.network === "bitcoin" ? BTC : row.network === "litecoin" ? LTC : undefined;
      if (entry)
        table.set(
          rowKey(row.coin, row.network),
          onTestChain(entry, row.coin === "BTC" || row.coin === "LTC" ? options.utxoTestChains?.[row.coin] : undefined),
        );
      continue;
    }
    if (chain.family !== "evm" || chain.live.chainId === null || chain.test.chainId === null) continue;
    const local = isEvmNetwork(row.network) ? options.testChainIds?.[row.network] : undefined;
    const configured =
      row.coin === "USDT" && row.network === "ethereum" ? options.usdtContracts : options.tokenContracts?.[rowKey(row.coin, row.network)];
    const token = row.contract ? { live: configured?.live ?? row.contract.live, test: configured?.test ?? row.contract.test } : undefined;
    table.set(
      rowKey(row.coin, row.network),
      evm(row, { name: chain.live.name, chainId: chain.live.chainId }, testChain(chain.test.name, chain.test.chainId, local), token),
    );
  }
  return table;
}

/** The default network's entry of each coin, with the configurable token contracts filled in. */
export function buildNetworkTable(options: NetworkOptions = {}): Readonly<Record<CryptoSlug, CurrencyNetworks>> {
  const table = buildCoinNetworkTable(options);
  const entry = (coin: CryptoSlug, network: NetworkSlug): CurrencyNetworks => {
    const found = table.get(rowKey(coin, network));
    if (!found) throw new Error(`no rails for ${coin} on ${network}`);
    return found;
  };
  return {
    BTC: entry("BTC", "bitcoin"),
    LTC: entry("LTC", "litecoin"),
    ETH: entry("ETH", "ethereum"),
    BNB: entry("BNB", "bsc"),
    USDT: entry("USDT", "ethereum"),
    USDC: entry("USDC", "ethereum"),
  };
}
