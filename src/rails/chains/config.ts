// Chain nodes: the environment variables of src/rails/chains, parsed into ChainWatchers' options.
//
// Variables (an empty value means unset; `none` switches a default node off, and then payments in
// that currency and mode cannot be watched):
//
//   PAYGATE_BTC_ESPLORA_URL        Esplora API of Bitcoin mainnet (BTC live).
//                                  Default https://blockstream.info/api
//   PAYGATE_BTC_TEST_ESPLORA_URL   Esplora API of the Bitcoin test network (BTC test).
//                                  Default https://mempool.space/testnet4/api (testnet4; use
//                                  https://blockstream.info/testnet/api for testnet3, or a signet API)
//   PAYGATE_LTC_ESPLORA_URL        Esplora API of Litecoin mainnet (LTC live).
//                                  Default https://litecoinspace.org/api
//   PAYGATE_LTC_TEST_ESPLORA_URL   Esplora API of Litecoin testnet (LTC test). No default.
//   PAYGATE_BTC_NODE_URL           Bitcoin Core JSON-RPC of your own node (BTC live), e.g.
//                                  http://user:password@127.0.0.1:8332. When set, it is used instead of
//                                  Esplora for that coin and mode (core-rpc.ts). No default.
//   PAYGATE_BTC_TEST_NODE_URL      … BTC test; PAYGATE_LTC_NODE_URL, PAYGATE_LTC_TEST_NODE_URL: Litecoin Core.
//   PAYGATE_BTC_NODE_COOKIE_FILE   The node's .cookie file, instead of credentials in the URL (and
//                                  _TEST_, and LTC's).
//   PAYGATE_BTC_TEST_CHAIN         The chain of BTC's test mode: test (default), signet or regtest;
//                                  PAYGATE_LTC_TEST_CHAIN: test or regtest. Addresses (regtest: bcrt1…,
//                                  rltc1…), payment URIs, refund addresses and the test node's chain
//                                  check follow it. Live nodes must be on main.
//   PAYGATE_NODE_WALLET            The watch-only wallet on those nodes holding the handed-out
//                                  addresses (created if missing). Default paygate.
//   PAYGATE_<NET>_RPC_URL          JSON-RPC endpoint of each EVM network (NET: ETH, BSC, BASE, POLYGON,
//                                  ARBITRUM, the row's nodeVariable in core/networks.ts), live; every coin
//                                  the table pays on it is read there. Default: the row's public endpoint.
//   PAYGATE_<NET>_TEST_RPC_URL     … of its test network (Sepolia, BSC testnet, Base Sepolia, Amoy,
//                                  Arbitrum Sepolia).
//   PAYGATE_TRON_RPC_URL           TRON FullNode's Ethereum-compatible JSON-RPC (USDT on tron, live).
//                                  Default https://api.trongrid.io/jsonrpc
//   PAYGATE_TRON_TEST_RPC_URL      … of TRON's Nile test network (test). Default https://nile.trongrid.io/jsonrpc
//   PAYGATE_TRON_API_KEY           A TronGrid API key, sent as TRON-PRO-API-KEY. No default.
//   PAYGATE_<NET>_TEST_CHAIN_ID    The chain id the network's test node must have instead of its test
//                                  network's: a local development chain (anvil's 31337). Every
//                                  JSON-RPC node's eth_chainId is checked; main network ids are refused here.
//   PAYGATE_CHAIN_TIMEOUT_MS       Longest wait for one answer of a node, 100–60000. Default 5000.
//   PAYGATE_EVM_LOGS_BLOCK_RANGE   Most blocks asked of eth_getLogs at once (providers cap it; some
//                                  at 1000, some at 500), 1–1000000. Default 2000.
//   PAYGATE_CONFIRMATIONS_BTC      Confirmations before a BTC payment counts, 0–10000. Default 2.
//   PAYGATE_CONFIRMATIONS_LTC      … LTC. Default 6.
//   PAYGATE_CONFIRMATIONS_<D>      … a payment on an EVM network (D: ETH, BNB, BASE, POLYGON, ARBITRUM,
//                                  the row's depthVariable), whatever its coin. Defaults: the table's.
//   PAYGATE_CONFIRMATIONS_TRON     … a payment on TRON (USDT TRC-20). Default 19 (solidified).
//   (0 accepts unconfirmed BTC, LTC and USDT payments; native ETH and BNB always need 1, as their
//   transfers are read from blocks.)
//
// Every *_ESPLORA_URL and *_RPC_URL variable takes a list: URLs separated by commas, own node first,
// providers after; each request reads the first healthy one (node-pool.ts). PAYGATE_NODE_MAX_LAG_BLOCKS
// sets how far behind the others' head a node may fall before it is set aside.
//
// The defaults are free public endpoints: they see which addresses the gateway watches, and they
// rate-limit. A node of your own, or a provider with a key, is better in production. A URL may
// carry a key in its path (Infura, Alchemy); messages name nodes by host only.
import { z } from "zod";
import { CRYPTO_CURRENCIES, type CryptoCurrency, type CryptoSlug } from "../../core/money/currencies.ts";

const CRYPTO_SLUGS = CRYPTO_CURRENCIES.map((c) => c.slug);
import type { ChainWatchersOptions, CoreNode, NodeUrlList } from "./options.ts";
import type { CoreChain } from "./core-rpc.ts";
import {
  COIN_NETWORKS,
  coinNetwork,
  defaultNetworkOf,
  EVM_CHAINS,
  EVM_NETWORK_SLUGS,
  type EvmChain,
  type EvmNetworkSlug,
  type ExplorerSettings,
  isEvmNetwork,
  NETWORK_SLUGS,
  type NetworkSlug,
  type TestChainIds,
} from "../../core/networks.ts";
import type { UtxoTestChain } from "../wallets/networks.ts";

/**
 * A node variable's list of URLs, read in that order (failover, node-pool.ts): separated by commas
 * or spaces, own node first. One URL is a list of one; `none` (any case) or empty means no node.
 */
export function parseNodeUrls(value: string | undefined): string[] | undefined {
  if (value === undefined || value.trim().toLowerCase() === "none") return undefined;
  const urls = value.split(/[\s,]+/).filter((url) => url !== "");
  return urls.length === 0 ? undefined : urls;
}
const isNodeUrlList = (v: string | undefined) => (parseNodeUrls(v) ?? []).every((url) => /^https?:\/\/\S+$/.test(url) && URL.canParse(url));
const NODE_URL_MESSAGE = "must be http:// or https:// URLs separated by commas (own node first, providers after), or none";

/** A node URL, or several; `none` (any case) means no node. The default is applied before `none` is read. */
const nodeUrl = (fallback: string | undefined) =>
  fallback === undefined
    ? z.string().trim().optional().refine(isNodeUrlList, NODE_URL_MESSAGE).transform(nodeUrlList)
    : z.string().trim().default(fallback).refine(isNodeUrlList, NODE_URL_MESSAGE).transform(nodeUrlList);
/** TRON's HTTP API: one http(s) URL, or `none`. */
const tronHttpUrl = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v === "" ? undefined : v))
  .refine((v) => v === undefined || v === "none" || /^https?:\/\/[^\s]+$/.test(v), "must be an http(s) URL of the node's HTTP API, or none");
/**
 * The HTTP API beside a JSON-RPC URL that ends in /jsonrpc (TronGrid and providers serve both on one
 * host); undefined otherwise (a java-tron node serves them on two ports: set the variable).
 */
function httpApiBeside(jsonRpc: string | readonly string[] | undefined): string | undefined {
  const first = typeof jsonRpc === "string" ? jsonRpc : jsonRpc?.[0];
  if (first === undefined) return undefined;
  const url = new URL(first);
  if (!/\/jsonrpc\/?$/.test(url.pathname)) return undefined;
  url.pathname = url.pathname.replace(/\/jsonrpc\/?$/, "");
  return url.toString().replace(/\/+$/, "");
}

/** One URL stays a string (NodeUrlList takes both), several are a list. */
const nodeUrlList = (value: string | undefined): NodeUrlList | undefined => {
  const urls = parseNodeUrls(value);
  return urls?.length === 1 ? urls[0] : urls;
};

/** Every EVM network's live chain id: never a test chain. */
const MAIN_CHAIN_IDS = new Set(EVM_NETWORK_SLUGS.map((n) => EVM_CHAINS[n].live.chainId));

/** A test-mode chain id other than the test network's: a local chain, never a main network's. */
const testChainId = z.coerce
  .number()
  .int()
  .min(1)
  .max(Number.MAX_SAFE_INTEGER)
  .refine((id) => !MAIN_CHAIN_IDS.has(id), "is a main network's chain id: test mode never watches real money")
  .optional();

/** An own node's JSON-RPC URL (credentials allowed: never shown in messages). */
const coreNodeUrl = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v === "" ? undefined : v))
  .refine((v) => v === undefined || (/^https?:\/\/\S+$/.test(v) && URL.canParse(v)), "must be an http:// or https:// URL");
const cookieFile = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v === "" ? undefined : v));
const testChain = <const C extends readonly [UtxoTestChain, ...UtxoTestChain[]]>(coin: string, chains: C) =>
  z
    .enum(chains)
    .default("test")
    .describe(
      `The chain of ${coin}'s test mode, by the node's name for it: ${chains.join(", ")}. Default test (testnet). regtest: a local node; addresses, payment URIs and refund addresses take its prefix, and an own node (PAYGATE_${coin}_TEST_NODE_URL) must be on it.`,
    );

/** An operator's block explorer for a local test chain: the checkout's receipt links its transactions there. */
const testExplorerUrl = (what: string, local: string) =>
  z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === "" ? undefined : v))
    .refine(
      (v) => v === undefined || (/^https?:\/\/\S+$/.test(v) && v.includes("{tx}") && URL.canParse(v.replace("{tx}", "0"))),
      "must be an http:// or https:// URL with {tx} where the transaction hash goes",
    )
    .describe(
      `A block explorer of ${what}'s test chain, its transaction page with \`{tx}\` for the hash (\`http://127.0.0.1:4000/tx/{tx}\`): the checkout's receipt and the API's \`explorerTransactionUrl\` link there. When ${local}, the test chain is not the public testnet whose explorer paygate links (a local chain has none), so without this variable a receipt shows the hash without a link. Default: none (the public testnet's explorer).`,
    );

/** A row's default confirmations (core/networks.ts). */
function defaultConfirmations(coin: CryptoSlug, network: NetworkSlug): number {
  const row = coinNetwork(coin, network);
  if (!row) throw new Error(`${coin} is not paid on ${network}`);
  return row.confirmations;
}

const confirmations = (fallback: number) => z.coerce.number().int().min(0).max(10_000).default(fallback);
const finality = (fallback: number) =>
  z.coerce
    .number()
    .int("must be a whole number of blocks")
    .min(1, "must be at least 1 block")
    .max(10_000, "must be at most 10000 blocks")
    .default(fallback);

/** The coins the table pays on a network, as a description names them: "ETH, USDT and USDC". */
function coinsOn(network: NetworkSlug): string {
  const coins = COIN_NETWORKS.filter((row) => row.network === network).map((row) => row.coin);
  return coins.length > 1 ? `${coins.slice(0, -1).join(", ")} and ${coins.at(-1)}` : (coins[0] ?? "");
}

/** The variables of one EVM network, named after its row's stems (core/networks.ts): nothing here is per network. */
export function evmVariables(network: EvmNetworkSlug) {
  const { nodeVariable: n, depthVariable: d } = EVM_CHAINS[network].evm;
  return {
    rpc: { live: `PAYGATE_${n}_RPC_URL`, test: `PAYGATE_${n}_TEST_RPC_URL` },
    testChainId: `PAYGATE_${n}_TEST_CHAIN_ID`,
    testExplorer: `PAYGATE_${n}_TEST_EXPLORER_URL`,
    finalizedTag: `PAYGATE_${n}_FINALIZED_TAG`,
    confirmations: `PAYGATE_CONFIRMATIONS_${d}`,
    finality: `PAYGATE_FINALITY_${d}`,
  } as const;
}

/** A network's default confirmations: its rows' (core/networks.ts), the most any of them asks. */
function chainConfirmations(network: NetworkSlug): number {
  return Math.max(...COIN_NETWORKS.filter((row) => row.network === network).map((row) => row.confirmations));
}

function evmChainShape(chain: EvmChain): Record<string, z.ZodType> {
  const v = evmVariables(chain.slug as EvmNetworkSlug);
  const coins = coinsOn(chain.slug);
  const { live, test } = chain.evm.defaultRpc;
  const required = chainConfirmations(chain.slug);
  return {
    [v.rpc.live]: nodeUrl(live).describe(
      `${chain.live.name} JSON-RPC (${coins} live). \`none\`: no node, payments are not watched. Default: \`${live}\`.`,
    ),
    [v.rpc.test]: nodeUrl(test).describe(`${chain.test.name} JSON-RPC (${coins} test). Default: \`${test}\`.`),
    [v.testChainId]: testChainId.describe(
      `The chain id the ${chain.live.name} test node must have, for a local development chain (anvil's \`31337\`). Every JSON-RPC node's \`eth_chainId\` is checked against its mode's network; main network ids are refused here. Test-mode payment URIs then name this chain. Default: ${chain.test.name}'s \`${chain.test.chainId}\`.`,
    ),
    [v.testExplorer]: testExplorerUrl(`${coins} on ${chain.live.name}`, `${v.testChainId} is set`),
    [v.finalizedTag]: z
      .stringbool({ truthy: ["true", "1"], falsy: ["false", "0"] })
      .default(false)
      .describe(
        `Count a payment on ${chain.live.name} final only once the node's \`finalized\` block covers it (eth_getBlockByNumber with the finalized tag), instead of by ${v.finality} alone. true or false. Default: \`false\`.`,
      ),
    [v.confirmations]: confirmations(required).describe(
      `Confirmations before a payment on ${chain.live.name} (${coins}) counts (0–10000; 0 accepts unconfirmed token payments, a native coin always needs 1). Default: \`${required}\`.`,
    ),
    [v.finality]: finality(chain.evm.finalityDepth).describe(
      `Confirmations after which a SUCCESSFUL payment on ${chain.live.name} is final (1–10000 blocks; at least ${v.confirmations} is used): ${chain.evm.finalityReason}. Default: \`${chain.evm.finalityDepth}\`.`,
    ),
  };
}

/** Every EVM network's variables, from the networks table. */
function evmNetworkShape(): Record<string, z.ZodType> {
  return Object.assign({}, ...EVM_NETWORK_SLUGS.map((network) => evmChainShape(EVM_CHAINS[network])));
}

export const DEFAULT_NODE_URLS = {
  PAYGATE_BTC_ESPLORA_URL: "https://blockstream.info/api",
  PAYGATE_BTC_TEST_ESPLORA_URL: "https://mempool.space/testnet4/api",
  PAYGATE_LTC_ESPLORA_URL: "https://litecoinspace.org/api",
  PAYGATE_TRON_RPC_URL: "https://api.trongrid.io/jsonrpc",
  PAYGATE_TRON_TEST_RPC_URL: "https://nile.trongrid.io/jsonrpc",
} as const;

/** The chain variables; merge its `.shape` into the service's environment schema. */
export const ChainEnvSchema = z.object({
  PAYGATE_BTC_ESPLORA_URL: nodeUrl(DEFAULT_NODE_URLS.PAYGATE_BTC_ESPLORA_URL).describe(
    "Esplora API of Bitcoin (BTC live). `none`: no node, payments are not watched. Default: `https://blockstream.info/api`.",
  ),
  PAYGATE_BTC_TEST_ESPLORA_URL: nodeUrl(DEFAULT_NODE_URLS.PAYGATE_BTC_TEST_ESPLORA_URL).describe(
    "Esplora API of the Bitcoin test network (BTC test). Default: `https://mempool.space/testnet4/api`.",
  ),
  PAYGATE_LTC_ESPLORA_URL: nodeUrl(DEFAULT_NODE_URLS.PAYGATE_LTC_ESPLORA_URL).describe(
    "Esplora API of Litecoin (LTC live). Default: `https://litecoinspace.org/api`.",
  ),
  PAYGATE_LTC_TEST_ESPLORA_URL: nodeUrl(undefined).describe("Esplora API of Litecoin testnet (LTC test). Default: none."),
  PAYGATE_TRON_RPC_URL: nodeUrl(DEFAULT_NODE_URLS.PAYGATE_TRON_RPC_URL).describe(
    "TRON FullNode's Ethereum-compatible JSON-RPC, its `/jsonrpc` path (USDT on tron, live). The node must be on TRON mainnet (`eth_chainId` 0x2b6653dc). Default: `https://api.trongrid.io/jsonrpc` (TronGrid: set PAYGATE_TRON_API_KEY).",
  ),
  PAYGATE_TRON_TEST_RPC_URL: nodeUrl(DEFAULT_NODE_URLS.PAYGATE_TRON_TEST_RPC_URL).describe(
    "The same for TRON's Nile test network (USDT on tron, test; `eth_chainId` 0xcd8690dc). Default: `https://nile.trongrid.io/jsonrpc`.",
  ),
  PAYGATE_TRON_HTTP_URL: tronHttpUrl.describe(
    "TRON FullNode's HTTP API (`/wallet/…`, java-tron's port 8090), live: what recording a TRON sweep reads (the TRX a transaction burned, which the JSON-RPC does not tell). `none`: TRON sweeps are not recorded. Default: PAYGATE_TRON_RPC_URL without its `/jsonrpc` path when it ends so (TronGrid and most providers serve both on one host), else none.",
  ),
  PAYGATE_TRON_TEST_HTTP_URL: tronHttpUrl.describe(
    "The same for TRON's Nile test network. Default: PAYGATE_TRON_TEST_RPC_URL without its `/jsonrpc` path, as above.",
  ),
  PAYGATE_TRON_API_KEY: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === "" ? undefined : v))
    .refine((v) => v === undefined || /^[\x21-\x7e]{1,200}$/.test(v), "must be 1 to 200 printable characters without spaces")
    .describe(
      "A TronGrid API key, sent as the `TRON-PRO-API-KEY` header with every request to the TRON nodes (TronGrid limits keyless requests hard). A secret: never logged. Default: none.",
    ),
  PAYGATE_BTC_NODE_URL: coreNodeUrl.describe(
    "Your own Bitcoin Core node's JSON-RPC for BTC live, e.g. `http://user:password@127.0.0.1:8332`. When set it is used instead of Esplora for that coin and mode (see [Watching the chains](wallets-and-chains.md#watching-the-chains)). Messages name it by host, never with the password. Default: none.",
  ),
  PAYGATE_BTC_TEST_NODE_URL: coreNodeUrl.describe(
    "The same for BTC test: your own Bitcoin Core node on the test chain (`PAYGATE_BTC_TEST_CHAIN`). Default: none.",
  ),
  PAYGATE_LTC_NODE_URL: coreNodeUrl.describe(
    "Your own Litecoin Core node's JSON-RPC for LTC live, used instead of Esplora (`http://user:password@127.0.0.1:9332`). Default: none.",
  ),
  PAYGATE_LTC_TEST_NODE_URL: coreNodeUrl.describe(
    "The same for LTC test: your own Litecoin Core node on the test chain (`PAYGATE_LTC_TEST_CHAIN`). Default: none.",
  ),
  PAYGATE_BTC_NODE_COOKIE_FILE: cookieFile.describe(
    "The BTC live node's `.cookie` file (in its datadir), read at each request, instead of credentials in the node URL. Default: none.",
  ),
  PAYGATE_BTC_TEST_NODE_COOKIE_FILE: cookieFile.describe(
    "The BTC test node's `.cookie` file (in its datadir), read at each request, instead of credentials in the node URL. Default: none.",
  ),
  PAYGATE_LTC_NODE_COOKIE_FILE: cookieFile.describe(
    "The LTC live node's `.cookie` file (in its datadir), read at each request, instead of credentials in the node URL. Default: none.",
  ),
  PAYGATE_LTC_TEST_NODE_COOKIE_FILE: cookieFile.describe(
    "The LTC test node's `.cookie` file (in its datadir), read at each request, instead of credentials in the node URL. Default: none.",
  ),
  PAYGATE_BTC_TEST_CHAIN: testChain("BTC", ["test", "signet", "regtest"]),
  PAYGATE_LTC_TEST_CHAIN: testChain("LTC", ["test", "regtest"]),
  PAYGATE_BTC_TEST_EXPLORER_URL: testExplorerUrl("BTC", "PAYGATE_BTC_TEST_CHAIN is regtest or signet"),
  PAYGATE_LTC_TEST_EXPLORER_URL: testExplorerUrl("LTC", "PAYGATE_LTC_TEST_CHAIN is regtest"),
  PAYGATE_NODE_WALLET: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, "must be 1 to 64 letters, digits, dots, dashes or underscores")
    .default("paygate")
    .describe(
      "The watch-only wallet on your own Bitcoin Core and Litecoin Core nodes that holds the handed-out addresses; created (blank, without private keys) when missing. A wallet holding private keys is refused. Default: `paygate`.",
    ),
  PAYGATE_NODE_MAX_LAG_BLOCKS: z.coerce
    .number()
    .int("must be a whole number of blocks")
    .min(1, "must be at least 1 block")
    .max(100_000, "must be at most 100000 blocks")
    .optional()
    .describe(
      "Where a node variable lists several nodes: a node whose head is more than this many blocks behind the highest head of the others is set aside (and probed again with back-off) until it catches up. Default: a minute of each network's blocks, at least 2 (Ethereum 5, BNB Smart Chain 80, TRON 20).",
    ),
  PAYGATE_NODE_CHECK_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(3_600_000)
    .default(10_000)
    .describe(
      "Where a node variable lists several nodes: how often each node's head is asked and compared (lag), at most. A node set aside is asked again after 1 s, then 2, 4, … up to 60 s while it keeps failing. Default: `10000` ms.",
    ),
  PAYGATE_CHAIN_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(60_000)
    .default(5000)
    .describe("Longest wait for one answer of a node. Default: `5000` ms."),
  PAYGATE_EVM_LOGS_BLOCK_RANGE: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(2000)
    .describe("Most blocks asked of `eth_getLogs` at once (providers cap it). Default: `2000`."),
  PAYGATE_CONFIRMATIONS_BTC: confirmations(defaultConfirmations("BTC", "bitcoin")).describe(
    "Confirmations before a BTC payment counts (0–10000; 0 accepts unconfirmed BTC, LTC and USDT payments, native ETH and BNB always need 1). Default: `2`.",
  ),
  PAYGATE_CONFIRMATIONS_LTC: confirmations(defaultConfirmations("LTC", "litecoin")).describe(
    "Confirmations before a LTC payment counts (0–10000; 0 accepts unconfirmed BTC, LTC and USDT payments, native ETH and BNB always need 1). Default: `6`.",
  ),
  PAYGATE_CONFIRMATIONS_TRON: confirmations(defaultConfirmations("USDT", "tron")).describe(
    "Confirmations before a payment on TRON (USDT TRC-20) counts (0–10000). A TRON block is irreversible once 19 of the 27 super representatives built on it (solidified, about 57 s). Default: `19`.",
  ),
  PAYGATE_FINALITY_BTC: finality(6).describe(
    "Confirmations after which a SUCCESSFUL BTC payment is final: until then the watcher keeps reading it, and a payment that leaves the chain sends payment.reversed (1–10000 blocks; at least PAYGATE_CONFIRMATIONS_BTC is used). Default: `6`.",
  ),
  PAYGATE_FINALITY_LTC: finality(12).describe(
    "… of a LTC payment (blocks of 2.5 min: 12 are 30 min, about BTC's 6 in hash work at risk). Default: `12`.",
  ),
  ...evmNetworkShape(),
});

export type ChainEnv = z.output<typeof ChainEnvSchema>;

/** The variable naming each node, for the "no node configured" message. */
export const NODE_VARIABLES = {
  BTC: { live: "PAYGATE_BTC_ESPLORA_URL", test: "PAYGATE_BTC_TEST_ESPLORA_URL" },
  LTC: { live: "PAYGATE_LTC_ESPLORA_URL", test: "PAYGATE_LTC_TEST_ESPLORA_URL" },
  tron: { live: "PAYGATE_TRON_RPC_URL", test: "PAYGATE_TRON_TEST_RPC_URL" },
  tronHttp: { live: "PAYGATE_TRON_HTTP_URL", test: "PAYGATE_TRON_TEST_HTTP_URL" },
} as const;

/** The variables of each own node (core-rpc.ts), per coin and mode. */
export const CORE_NODE_VARIABLES = {
  BTC: {
    live: { url: "PAYGATE_BTC_NODE_URL", cookieFile: "PAYGATE_BTC_NODE_COOKIE_FILE", wallet: "PAYGATE_NODE_WALLET" },
    test: {
      url: "PAYGATE_BTC_TEST_NODE_URL",
      cookieFile: "PAYGATE_BTC_TEST_NODE_COOKIE_FILE",
      wallet: "PAYGATE_NODE_WALLET",
      chain: "PAYGATE_BTC_TEST_CHAIN",
    },
  },
  LTC: {
    live: { url: "PAYGATE_LTC_NODE_URL", cookieFile: "PAYGATE_LTC_NODE_COOKIE_FILE", wallet: "PAYGATE_NODE_WALLET" },
    test: {
      url: "PAYGATE_LTC_TEST_NODE_URL",
      cookieFile: "PAYGATE_LTC_TEST_NODE_COOKIE_FILE",
      wallet: "PAYGATE_NODE_WALLET",
      chain: "PAYGATE_LTC_TEST_CHAIN",
    },
  },
} as const;

export interface ChainConfig extends ChainWatchersOptions {
  /** The test chains that are local (regtest, a local chain id) and the operator's explorers, for receipts' links. */
  explorers: ExplorerSettings;
  /** The chains of BTC's and LTC's test mode, for HdWalletRails (their own nodes' chain checks take them too). */
  utxoTestChains: { BTC: UtxoTestChain; LTC: "test" | "regtest" };
  /** Confirmations before a payment on its default network counts, per currency (USDT and USDC share ETH's). */
  confirmations: Record<CryptoSlug, number>;
  /** On `network` (default: the coin's): a token counts as its chain's own coin (USDT on bsc as BNB). */
  requiredConfirmations(currency: CryptoCurrency | CryptoSlug, network?: NetworkSlug): number;
  /** Confirmations after which a SUCCESSFUL payment is final (the watcher lets it go); a token takes its chain's coin's. */
  finalityConfirmations(currency: CryptoCurrency | CryptoSlug, network?: NetworkSlug): number;
}

/** A test chain other than the public testnet of core/networks.ts: its explorer would not know the transactions. */
function explorerSettings(env: ChainEnv, testChainIds: TestChainIds): ExplorerSettings {
  const local: Partial<Record<NetworkSlug, boolean>> = {
    bitcoin: env.PAYGATE_BTC_TEST_CHAIN !== "test",
    litecoin: env.PAYGATE_LTC_TEST_CHAIN !== "test",
  };
  const own: Partial<Record<NetworkSlug, string | undefined>> = {
    bitcoin: env.PAYGATE_BTC_TEST_EXPLORER_URL,
    litecoin: env.PAYGATE_LTC_TEST_EXPLORER_URL,
  };
  for (const network of EVM_NETWORK_SLUGS) {
    const id = testChainIds[network];
    local[network] = id !== undefined && id !== EVM_CHAINS[network].test.chainId;
    own[network] = stringOf(env, evmVariables(network).testExplorer);
  }
  return {
    localTestChains: NETWORK_SLUGS.filter((network) => local[network] === true),
    testTransactionUrls: Object.fromEntries(Object.entries(own).filter(([, url]) => url !== undefined)),
  };
}

/** A parsed variable of the generated EVM part of the schema, by name (zod has checked its type). */
function variableOf(env: ChainEnv, name: string): unknown {
  return (env as Record<string, unknown>)[name];
}
function stringOf(env: ChainEnv, name: string): string | undefined {
  const value = variableOf(env, name);
  return typeof value === "string" ? value : undefined;
}
/** A node variable of the generated part: one URL (a string) or several (a list), as nodeUrl made it. */
function nodeUrlsOf(env: ChainEnv, name: string): NodeUrlList | undefined {
  const value = variableOf(env, name);
  return typeof value === "string" || Array.isArray(value) ? (value as NodeUrlList) : undefined;
}
function numberOf(env: ChainEnv, name: string): number | undefined {
  const value = variableOf(env, name);
  return typeof value === "number" ? value : undefined;
}

/** Each EVM network's settings from its variables. */
function evmSettings(env: ChainEnv) {
  const nodes: Partial<Record<EvmNetworkSlug, { live?: NodeUrlList | undefined; test?: NodeUrlList | undefined }>> = {};
  const testChainIds: TestChainIds = {};
  const finality: Partial<Record<EvmNetworkSlug, { depth: number; finalizedTag: boolean }>> = {};
  const required: Partial<Record<EvmNetworkSlug, number>> = {};
  for (const network of EVM_NETWORK_SLUGS) {
    const v = evmVariables(network);
    nodes[network] = { live: nodeUrlsOf(env, v.rpc.live), test: nodeUrlsOf(env, v.rpc.test) };
    testChainIds[network] = numberOf(env, v.testChainId);
    finality[network] = {
      depth: numberOf(env, v.finality) ?? EVM_CHAINS[network].evm.finalityDepth,
      finalizedTag: variableOf(env, v.finalizedTag) === true,
    };
    required[network] = numberOf(env, v.confirmations) ?? chainConfirmations(network);
  }
  return { nodes, testChainIds, finality, required };
}

/** The parsed variables as ChainWatchers' options (`new ChainWatchers(chainConfig(env))`). */
export function chainConfig(env: ChainEnv): ChainConfig {
  const evm = evmSettings(env);
  /** Confirmations on an EVM network: its variable's, whatever the coin (a token counts as its chain's coin). */
  const onEvm = (network: EvmNetworkSlug) => evm.required[network] ?? chainConfirmations(network);
  const confirmations = Object.fromEntries(
    CRYPTO_SLUGS.map((coin) => {
      const network = defaultNetworkOf(coin);
      if (coin === "BTC") return [coin, env.PAYGATE_CONFIRMATIONS_BTC];
      if (coin === "LTC") return [coin, env.PAYGATE_CONFIRMATIONS_LTC];
      return [coin, isEvmNetwork(network) ? onEvm(network) : env.PAYGATE_CONFIRMATIONS_TRON];
    }),
  ) as Record<CryptoSlug, number>;
  return {
    timeoutMs: env.PAYGATE_CHAIN_TIMEOUT_MS,
    nodePool: {
      probeIntervalMs: env.PAYGATE_NODE_CHECK_INTERVAL_MS,
      ...(env.PAYGATE_NODE_MAX_LAG_BLOCKS === undefined ? {} : { maxLagBlocks: env.PAYGATE_NODE_MAX_LAG_BLOCKS }),
    },
    logsBlockRange: env.PAYGATE_EVM_LOGS_BLOCK_RANGE,
    esplora: {
      BTC: { live: env.PAYGATE_BTC_ESPLORA_URL, test: env.PAYGATE_BTC_TEST_ESPLORA_URL },
      LTC: { live: env.PAYGATE_LTC_ESPLORA_URL, test: env.PAYGATE_LTC_TEST_ESPLORA_URL },
    },
    coreNodes: {
      BTC: {
        live: coreNode(env.PAYGATE_BTC_NODE_URL, env.PAYGATE_BTC_NODE_COOKIE_FILE, "main"),
        test: coreNode(env.PAYGATE_BTC_TEST_NODE_URL, env.PAYGATE_BTC_TEST_NODE_COOKIE_FILE, env.PAYGATE_BTC_TEST_CHAIN),
      },
      LTC: {
        live: coreNode(env.PAYGATE_LTC_NODE_URL, env.PAYGATE_LTC_NODE_COOKIE_FILE, "main"),
        test: coreNode(env.PAYGATE_LTC_TEST_NODE_URL, env.PAYGATE_LTC_TEST_NODE_COOKIE_FILE, env.PAYGATE_LTC_TEST_CHAIN),
      },
    },
    nodeWallet: env.PAYGATE_NODE_WALLET,
    evm: evm.nodes,
    tron: { live: env.PAYGATE_TRON_RPC_URL, test: env.PAYGATE_TRON_TEST_RPC_URL },
    tronHttp: {
      live: env.PAYGATE_TRON_HTTP_URL === "none" ? undefined : (env.PAYGATE_TRON_HTTP_URL ?? httpApiBeside(env.PAYGATE_TRON_RPC_URL)),
      test: env.PAYGATE_TRON_TEST_HTTP_URL === "none" ? undefined : (env.PAYGATE_TRON_TEST_HTTP_URL ?? httpApiBeside(env.PAYGATE_TRON_TEST_RPC_URL)),
    },
    tronApiKey: env.PAYGATE_TRON_API_KEY,
    testChainIds: evm.testChainIds,
    evmFinality: evm.finality,
    utxoTestChains: { BTC: env.PAYGATE_BTC_TEST_CHAIN, LTC: env.PAYGATE_LTC_TEST_CHAIN },
    explorers: explorerSettings(env, evm.testChainIds),
    confirmations,
    requiredConfirmations(currency, network) {
      const coin = typeof currency === "string" ? currency : currency.slug;
      const on = network ?? defaultNetworkOf(coin);
      if (on === "tron") return env.PAYGATE_CONFIRMATIONS_TRON;
      if (isEvmNetwork(on)) return onEvm(on);
      return confirmations[coin] ?? defaultConfirmations(coin, on);
    },
    finalityConfirmations(currency, network) {
      const coin = typeof currency === "string" ? currency : currency.slug;
      const on = network ?? defaultNetworkOf(coin);
      // TRON: a solidified block (19 of 27 super representatives on it) is irreversible.
      if (on === "tron") return Math.max(TRON_SOLIDIFIED_BLOCKS, this.requiredConfirmations(currency, network));
      const depth = isEvmNetwork(on)
        ? (evm.finality[on]?.depth ?? EVM_CHAINS[on].evm.finalityDepth)
        : coin === "BTC"
          ? env.PAYGATE_FINALITY_BTC
          : env.PAYGATE_FINALITY_LTC;
      return Math.max(depth, this.requiredConfirmations(currency, network));
    },
  };
}

/** Blocks after which a TRON block is solidified: 2/3 of the 27 super representatives, plus one. */
const TRON_SOLIDIFIED_BLOCKS = 19;

function coreNode(url: string | undefined, cookieFile: string | undefined, chain: CoreChain): CoreNode | undefined {
  return url === undefined ? undefined : { url, cookieFile, chain };
}
