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
//   PAYGATE_ETH_RPC_URL            JSON-RPC endpoint of Ethereum mainnet (ETH and USDT live).
//                                  Default https://ethereum-rpc.publicnode.com
//   PAYGATE_ETH_TEST_RPC_URL       JSON-RPC endpoint of Sepolia (ETH and USDT test).
//                                  Default https://ethereum-sepolia-rpc.publicnode.com
//   PAYGATE_BSC_RPC_URL            JSON-RPC endpoint of BNB Smart Chain (BNB live).
//                                  Default https://bsc-rpc.publicnode.com
//   PAYGATE_BSC_TEST_RPC_URL       JSON-RPC endpoint of BNB Smart Chain testnet (BNB test).
//                                  Default https://bsc-testnet-rpc.publicnode.com
//   PAYGATE_TRON_RPC_URL           TRON FullNode's Ethereum-compatible JSON-RPC (USDT on tron, live).
//                                  Default https://api.trongrid.io/jsonrpc
//   PAYGATE_TRON_TEST_RPC_URL      … of TRON's Nile test network (test). Default https://nile.trongrid.io/jsonrpc
//   PAYGATE_TRON_API_KEY           A TronGrid API key, sent as TRON-PRO-API-KEY. No default.
//   PAYGATE_ETH_TEST_CHAIN_ID      The chain id the ETH test node must have instead of Sepolia's
//                                  11155111: a local development chain (anvil's 31337). Every
//                                  JSON-RPC node's eth_chainId is checked; mainnet ids are refused here.
//   PAYGATE_BSC_TEST_CHAIN_ID      … the BNB test node, instead of BSC testnet's 97.
//   PAYGATE_CHAIN_TIMEOUT_MS       Longest wait for one answer of a node, 100–60000. Default 5000.
//   PAYGATE_EVM_LOGS_BLOCK_RANGE   Most blocks asked of eth_getLogs at once (providers cap it; some
//                                  at 1000, some at 500), 1–1000000. Default 2000.
//   PAYGATE_CONFIRMATIONS_BTC      Confirmations before a BTC payment counts, 0–10000. Default 2.
//   PAYGATE_CONFIRMATIONS_LTC      … LTC. Default 6.
//   PAYGATE_CONFIRMATIONS_ETH      … ETH, and USDT (an Ethereum token). Default 12.
//   PAYGATE_CONFIRMATIONS_BNB      … BNB. Default 15.
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
import type { CryptoCurrency, CryptoSlug } from "../../core/money/currencies.ts";
import type { ChainWatchersOptions, CoreNode, NodeUrlList } from "./options.ts";
import type { CoreChain } from "./core-rpc.ts";
import { CHAINS, coinNetwork, defaultNetworkOf, type ExplorerSettings, NETWORK_SLUGS, type NetworkSlug } from "../../core/networks.ts";
import { CHAIN_IDS, type UtxoTestChain } from "../wallets/networks.ts";

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
/** One URL stays a string (NodeUrlList takes both), several are a list. */
const nodeUrlList = (value: string | undefined): NodeUrlList | undefined => {
  const urls = parseNodeUrls(value);
  return urls?.length === 1 ? urls[0] : urls;
};

/** A test-mode chain id other than the test network's: a local chain, never a main network's. */
const testChainId = z.coerce
  .number()
  .int()
  .min(1)
  .max(Number.MAX_SAFE_INTEGER)
  .refine((id) => id !== CHAIN_IDS.ethereum && id !== CHAIN_IDS.bsc, "is a main network's chain id: test mode never watches real money")
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

export const DEFAULT_NODE_URLS = {
  PAYGATE_BTC_ESPLORA_URL: "https://blockstream.info/api",
  PAYGATE_BTC_TEST_ESPLORA_URL: "https://mempool.space/testnet4/api",
  PAYGATE_LTC_ESPLORA_URL: "https://litecoinspace.org/api",
  PAYGATE_ETH_RPC_URL: "https://ethereum-rpc.publicnode.com",
  PAYGATE_ETH_TEST_RPC_URL: "https://ethereum-sepolia-rpc.publicnode.com",
  PAYGATE_BSC_RPC_URL: "https://bsc-rpc.publicnode.com",
  PAYGATE_BSC_TEST_RPC_URL: "https://bsc-testnet-rpc.publicnode.com",
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
  PAYGATE_ETH_RPC_URL: nodeUrl(DEFAULT_NODE_URLS.PAYGATE_ETH_RPC_URL).describe(
    "Ethereum JSON-RPC (ETH and USDT live). Default: `https://ethereum-rpc.publicnode.com`.",
  ),
  PAYGATE_ETH_TEST_RPC_URL: nodeUrl(DEFAULT_NODE_URLS.PAYGATE_ETH_TEST_RPC_URL).describe(
    "Sepolia JSON-RPC (ETH and USDT test). Default: `https://ethereum-sepolia-rpc.publicnode.com`.",
  ),
  PAYGATE_BSC_RPC_URL: nodeUrl(DEFAULT_NODE_URLS.PAYGATE_BSC_RPC_URL).describe(
    "BNB Smart Chain JSON-RPC (BNB live). Default: `https://bsc-rpc.publicnode.com`.",
  ),
  PAYGATE_BSC_TEST_RPC_URL: nodeUrl(DEFAULT_NODE_URLS.PAYGATE_BSC_TEST_RPC_URL).describe(
    "BNB Smart Chain testnet JSON-RPC (BNB test). Default: `https://bsc-testnet-rpc.publicnode.com`.",
  ),
  PAYGATE_TRON_RPC_URL: nodeUrl(DEFAULT_NODE_URLS.PAYGATE_TRON_RPC_URL).describe(
    "TRON FullNode's Ethereum-compatible JSON-RPC, its `/jsonrpc` path (USDT on tron, live). The node must be on TRON mainnet (`eth_chainId` 0x2b6653dc). Default: `https://api.trongrid.io/jsonrpc` (TronGrid: set PAYGATE_TRON_API_KEY).",
  ),
  PAYGATE_TRON_TEST_RPC_URL: nodeUrl(DEFAULT_NODE_URLS.PAYGATE_TRON_TEST_RPC_URL).describe(
    "The same for TRON's Nile test network (USDT on tron, test; `eth_chainId` 0xcd8690dc). Default: `https://nile.trongrid.io/jsonrpc`.",
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
  PAYGATE_ETH_TEST_CHAIN_ID: testChainId.describe(
    "The chain id the ETH/USDT test node must have, for a local development chain (anvil's `31337`). Every JSON-RPC node's `eth_chainId` is checked against its mode's network; main network ids (1, 56) are refused here. Test-mode payment URIs then name this chain (`ethereum:0x…@31337?value=…`). Default: Sepolia's `11155111`.",
  ),
  PAYGATE_BSC_TEST_CHAIN_ID: testChainId.describe(
    "The chain id the BNB test node must have, for a local development chain; main network ids (1, 56) are refused here. Test-mode BNB payment URIs then name this chain. Default: BSC testnet's `97`.",
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
  PAYGATE_ETH_TEST_EXPLORER_URL: testExplorerUrl("ETH/USDT on Ethereum", "PAYGATE_ETH_TEST_CHAIN_ID is set"),
  PAYGATE_BSC_TEST_EXPLORER_URL: testExplorerUrl("BNB/USDT on BNB Smart Chain", "PAYGATE_BSC_TEST_CHAIN_ID is set"),
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
  PAYGATE_CONFIRMATIONS_ETH: confirmations(defaultConfirmations("ETH", "ethereum")).describe(
    "Confirmations before a ETH payment counts (0–10000; 0 accepts unconfirmed BTC, LTC and USDT payments, native ETH and BNB always need 1). USDT, an Ethereum token, uses ETH's. Default: `12`.",
  ),
  PAYGATE_CONFIRMATIONS_BNB: confirmations(defaultConfirmations("BNB", "bsc")).describe(
    "Confirmations before a BNB payment counts (0–10000; 0 accepts unconfirmed BTC, LTC and USDT payments, native ETH and BNB always need 1). USDT on BNB Smart Chain (BEP-20) uses BNB's. Default: `15`.",
  ),
  PAYGATE_CONFIRMATIONS_TRON: confirmations(defaultConfirmations("USDT", "tron")).describe(
    "Confirmations before a payment on TRON (USDT TRC-20) counts (0–10000). A TRON block is irreversible once 19 of the 27 super representatives built on it (solidified, about 57 s). Default: `19`.",
  ),
  PAYGATE_ETH_FINALIZED_TAG: z
    .stringbool({ truthy: ["true", "1"], falsy: ["false", "0"] })
    .default(false)
    .describe(
      "Count an ETH (and Ethereum USDT) payment final only once the node's `finalized` block covers it (eth_getBlockByNumber with the finalized tag), instead of by PAYGATE_FINALITY_ETH alone. true or false. Default: `false`.",
    ),
  PAYGATE_BSC_FINALIZED_TAG: z
    .stringbool({ truthy: ["true", "1"], falsy: ["false", "0"] })
    .default(false)
    .describe(
      "… of a BNB (and BEP-20 USDT) payment, by the BNB Smart Chain node's `finalized` block (fast finality). true or false. Default: `false`.",
    ),
  PAYGATE_FINALITY_BTC: finality(6).describe(
    "Confirmations after which a SUCCESSFUL BTC payment is final: until then the watcher keeps reading it, and a payment that leaves the chain sends payment.reversed (1–10000 blocks; at least PAYGATE_CONFIRMATIONS_BTC is used). Default: `6`.",
  ),
  PAYGATE_FINALITY_LTC: finality(12).describe(
    "… of a LTC payment (blocks of 2.5 min: 12 are 30 min, about BTC's 6 in hash work at risk). Default: `12`.",
  ),
  PAYGATE_FINALITY_ETH: finality(64).describe(
    "… of an ETH payment, and of USDT on Ethereum: 64 blocks are two epochs, about when Ethereum's finality checkpoint covers a block. Default: `64`.",
  ),
  PAYGATE_FINALITY_BNB: finality(15).describe(
    "… of a BNB payment, and of USDT on BNB Smart Chain: BSC's fast finality finalises within a few blocks; 15 leaves room. Default: `15`.",
  ),
});

export type ChainEnv = z.output<typeof ChainEnvSchema>;

/** The variable naming each node, for the "no node configured" message. */
export const NODE_VARIABLES = {
  BTC: { live: "PAYGATE_BTC_ESPLORA_URL", test: "PAYGATE_BTC_TEST_ESPLORA_URL" },
  LTC: { live: "PAYGATE_LTC_ESPLORA_URL", test: "PAYGATE_LTC_TEST_ESPLORA_URL" },
  ethereum: { live: "PAYGATE_ETH_RPC_URL", test: "PAYGATE_ETH_TEST_RPC_URL" },
  bsc: { live: "PAYGATE_BSC_RPC_URL", test: "PAYGATE_BSC_TEST_RPC_URL" },
  tron: { live: "PAYGATE_TRON_RPC_URL", test: "PAYGATE_TRON_TEST_RPC_URL" },
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

/** The variables that let test mode take a local chain id (ChainWatchersOptions.testChainIds). */
export const CHAIN_ID_VARIABLES = { ethereum: "PAYGATE_ETH_TEST_CHAIN_ID", bsc: "PAYGATE_BSC_TEST_CHAIN_ID" } as const;

export interface ChainConfig extends ChainWatchersOptions {
  /** The test chains that are local (regtest, a local chain id) and the operator's explorers, for receipts' links. */
  explorers: ExplorerSettings;
  /** The chains of BTC's and LTC's test mode, for HdWalletRails (their own nodes' chain checks take them too). */
  utxoTestChains: { BTC: UtxoTestChain; LTC: "test" | "regtest" };
  /** Confirmations before a payment counts, per currency (USDT shares ETH's). */
  confirmations: Record<CryptoSlug, number>;
  /** On `network` (default: the coin's): a token counts as its chain's own coin (USDT on bsc as BNB). */
  requiredConfirmations(currency: CryptoCurrency | CryptoSlug, network?: NetworkSlug): number;
  /** Confirmations after which a SUCCESSFUL payment is final (the watcher lets it go); a token takes its chain's coin's. */
  finalityConfirmations(currency: CryptoCurrency | CryptoSlug, network?: NetworkSlug): number;
}

/** A test chain other than the public testnet of core/networks.ts: its explorer would not know the transactions. */
function explorerSettings(env: ChainEnv): ExplorerSettings {
  const local: Record<NetworkSlug, boolean> = {
    bitcoin: env.PAYGATE_BTC_TEST_CHAIN !== "test",
    litecoin: env.PAYGATE_LTC_TEST_CHAIN !== "test",
    ethereum: env.PAYGATE_ETH_TEST_CHAIN_ID !== undefined && env.PAYGATE_ETH_TEST_CHAIN_ID !== CHAINS.ethereum.test.chainId,
    bsc: env.PAYGATE_BSC_TEST_CHAIN_ID !== undefined && env.PAYGATE_BSC_TEST_CHAIN_ID !== CHAINS.bsc.test.chainId,
    tron: false,
  };
  const own: Partial<Record<NetworkSlug, string | undefined>> = {
    bitcoin: env.PAYGATE_BTC_TEST_EXPLORER_URL,
    litecoin: env.PAYGATE_LTC_TEST_EXPLORER_URL,
    ethereum: env.PAYGATE_ETH_TEST_EXPLORER_URL,
    bsc: env.PAYGATE_BSC_TEST_EXPLORER_URL,
  };
  return {
    localTestChains: NETWORK_SLUGS.filter((network) => local[network]),
    testTransactionUrls: Object.fromEntries(Object.entries(own).filter(([, url]) => url !== undefined)),
  };
}

/** The parsed variables as ChainWatchers' options (`new ChainWatchers(chainConfig(env))`). */
export function chainConfig(env: ChainEnv): ChainConfig {
  const confirmations: Record<CryptoSlug, number> = {
    BTC: env.PAYGATE_CONFIRMATIONS_BTC,
    LTC: env.PAYGATE_CONFIRMATIONS_LTC,
    ETH: env.PAYGATE_CONFIRMATIONS_ETH,
    USDT: env.PAYGATE_CONFIRMATIONS_ETH,
    BNB: env.PAYGATE_CONFIRMATIONS_BNB,
  };
  // USDT's finality is its chain's (ETH's on Ethereum, BNB's on BNB Smart Chain).
  const finalities: Record<CryptoSlug, number> = {
    BTC: env.PAYGATE_FINALITY_BTC,
    LTC: env.PAYGATE_FINALITY_LTC,
    ETH: env.PAYGATE_FINALITY_ETH,
    USDT: env.PAYGATE_FINALITY_ETH,
    BNB: env.PAYGATE_FINALITY_BNB,
  };
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
    evm: {
      ethereum: { live: env.PAYGATE_ETH_RPC_URL, test: env.PAYGATE_ETH_TEST_RPC_URL },
      bsc: { live: env.PAYGATE_BSC_RPC_URL, test: env.PAYGATE_BSC_TEST_RPC_URL },
    },
    tron: { live: env.PAYGATE_TRON_RPC_URL, test: env.PAYGATE_TRON_TEST_RPC_URL },
    tronApiKey: env.PAYGATE_TRON_API_KEY,
    testChainIds: { ethereum: env.PAYGATE_ETH_TEST_CHAIN_ID, bsc: env.PAYGATE_BSC_TEST_CHAIN_ID },
    evmFinality: {
      ethereum: { depth: finalities.ETH, finalizedTag: env.PAYGATE_ETH_FINALIZED_TAG },
      bsc: { depth: finalities.BNB, finalizedTag: env.PAYGATE_BSC_FINALIZED_TAG },
    },
    utxoTestChains: { BTC: env.PAYGATE_BTC_TEST_CHAIN, LTC: env.PAYGATE_LTC_TEST_CHAIN },
    explorers: explorerSettings(env),
    confirmations,
    requiredConfirmations(currency, network) {
      const coin = typeof currency === "string" ? currency : currency.slug;
      if (network === undefined || network === defaultNetworkOf(coin)) return confirmations[coin];
      if (network === "tron") return env.PAYGATE_CONFIRMATIONS_TRON;
      const own = CHAINS[network].feeCoin;
      return own in confirmations ? confirmations[own as CryptoSlug] : defaultConfirmations(coin, network);
    },
    finalityConfirmations(currency, network) {
      const coin = typeof currency === "string" ? currency : currency.slug;
      // TRON: a solidified block (19 of 27 super representatives on it) is irreversible.
      if (network === "tron") return Math.max(TRON_SOLIDIFIED_BLOCKS, this.requiredConfirmations(currency, network));
      const chainCoin = network === undefined || network === defaultNetworkOf(coin) ? coin : CHAINS[network].feeCoin;
      const depth = chainCoin in finalities ? finalities[chainCoin as CryptoSlug] : finalities.ETH;
      return Math.max(depth, this.requiredConfirmations(currency, network));
    },
  };
}

/** Blocks after which a TRON block is solidified: 2/3 of the 27 super representatives, plus one. */
const TRON_SOLIDIFIED_BLOCKS = 19;

function coreNode(url: string | undefined, cookieFile: string | undefined, chain: CoreChain): CoreNode | undefined {
  return url === undefined ? undefined : { url, cookieFile, chain };
}
