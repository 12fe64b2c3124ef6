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
//   PAYGATE_BTC_TEST_NODE_CHAIN    The chain the BTC test node is on: test (default), signet or regtest;
//                                  PAYGATE_LTC_TEST_NODE_CHAIN: test or regtest. Live nodes must be on main.
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
//   (0 accepts unconfirmed BTC, LTC and USDT payments; native ETH and BNB always need 1, as their
//   transfers are read from blocks.)
//
// The defaults are free public endpoints: they see which addresses the gateway watches, and they
// rate-limit. A node of your own, or a provider with a key, is better in production. A URL may
// carry a key in its path (Infura, Alchemy); messages name nodes by host only.
import { z } from "zod";
import type { CryptoCurrency, CryptoSlug } from "../../core/money/currencies.ts";
import type { ChainWatchersOptions, CoreNode } from "./index.ts";
import type { CoreChain } from "./core-rpc.ts";
import { CHAIN_IDS } from "../wallets/networks.ts";

const isNodeUrl = (v: string | undefined) => v === undefined || v.toLowerCase() === "none" || (/^https?:\/\/\S+$/.test(v) && URL.canParse(v));
const NODE_URL_MESSAGE = "must be an http:// or https:// URL, or none";
const orNone = (v: string | undefined) => (v === undefined || v.toLowerCase() === "none" ? undefined : v);

/** A node URL; `none` (any case) means no node. The default is applied before `none` is read. */
const nodeUrl = (fallback: string | undefined) =>
  fallback === undefined
    ? z.string().trim().optional().refine(isNodeUrl, NODE_URL_MESSAGE).transform(orNone)
    : z.string().trim().default(fallback).refine(isNodeUrl, NODE_URL_MESSAGE).transform(orNone);

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
const testNodeChain = (chains: readonly [CoreChain, ...CoreChain[]]) => z.enum(chains).default("test");

const confirmations = (fallback: number) => z.coerce.number().int().min(0).max(10_000).default(fallback);

export const DEFAULT_NODE_URLS = {
  PAYGATE_BTC_ESPLORA_URL: "https://blockstream.info/api",
  PAYGATE_BTC_TEST_ESPLORA_URL: "https://mempool.space/testnet4/api",
  PAYGATE_LTC_ESPLORA_URL: "https://litecoinspace.org/api",
  PAYGATE_ETH_RPC_URL: "https://ethereum-rpc.publicnode.com",
  PAYGATE_ETH_TEST_RPC_URL: "https://ethereum-sepolia-rpc.publicnode.com",
  PAYGATE_BSC_RPC_URL: "https://bsc-rpc.publicnode.com",
  PAYGATE_BSC_TEST_RPC_URL: "https://bsc-testnet-rpc.publicnode.com",
} as const;

/** The chain variables; merge its `.shape` into the service's environment schema. */
export const ChainEnvSchema = z.object({
  PAYGATE_BTC_ESPLORA_URL: nodeUrl(DEFAULT_NODE_URLS.PAYGATE_BTC_ESPLORA_URL),
  PAYGATE_BTC_TEST_ESPLORA_URL: nodeUrl(DEFAULT_NODE_URLS.PAYGATE_BTC_TEST_ESPLORA_URL),
  PAYGATE_LTC_ESPLORA_URL: nodeUrl(DEFAULT_NODE_URLS.PAYGATE_LTC_ESPLORA_URL),
  PAYGATE_LTC_TEST_ESPLORA_URL: nodeUrl(undefined),
  PAYGATE_ETH_RPC_URL: nodeUrl(DEFAULT_NODE_URLS.PAYGATE_ETH_RPC_URL),
  PAYGATE_ETH_TEST_RPC_URL: nodeUrl(DEFAULT_NODE_URLS.PAYGATE_ETH_TEST_RPC_URL),
  PAYGATE_BSC_RPC_URL: nodeUrl(DEFAULT_NODE_URLS.PAYGATE_BSC_RPC_URL),
  PAYGATE_BSC_TEST_RPC_URL: nodeUrl(DEFAULT_NODE_URLS.PAYGATE_BSC_TEST_RPC_URL),
  PAYGATE_ETH_TEST_CHAIN_ID: testChainId,
  PAYGATE_BSC_TEST_CHAIN_ID: testChainId,
  PAYGATE_BTC_NODE_URL: coreNodeUrl,
  PAYGATE_BTC_TEST_NODE_URL: coreNodeUrl,
  PAYGATE_LTC_NODE_URL: coreNodeUrl,
  PAYGATE_LTC_TEST_NODE_URL: coreNodeUrl,
  PAYGATE_BTC_NODE_COOKIE_FILE: cookieFile,
  PAYGATE_BTC_TEST_NODE_COOKIE_FILE: cookieFile,
  PAYGATE_LTC_NODE_COOKIE_FILE: cookieFile,
  PAYGATE_LTC_TEST_NODE_COOKIE_FILE: cookieFile,
  PAYGATE_BTC_TEST_NODE_CHAIN: testNodeChain(["test", "signet", "regtest"]),
  PAYGATE_LTC_TEST_NODE_CHAIN: testNodeChain(["test", "regtest"]),
  PAYGATE_NODE_WALLET: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, "must be 1 to 64 letters, digits, dots, dashes or underscores")
    .default("paygate"),
  PAYGATE_CHAIN_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  PAYGATE_EVM_LOGS_BLOCK_RANGE: z.coerce.number().int().min(1).max(1_000_000).default(2000),
  PAYGATE_CONFIRMATIONS_BTC: confirmations(2),
  PAYGATE_CONFIRMATIONS_LTC: confirmations(6),
  PAYGATE_CONFIRMATIONS_ETH: confirmations(12),
  PAYGATE_CONFIRMATIONS_BNB: confirmations(15),
});

export type ChainEnv = z.output<typeof ChainEnvSchema>;

/** The variable naming each node, for the "no node configured" message. */
export const NODE_VARIABLES = {
  BTC: { live: "PAYGATE_BTC_ESPLORA_URL", test: "PAYGATE_BTC_TEST_ESPLORA_URL" },
  LTC: { live: "PAYGATE_LTC_ESPLORA_URL", test: "PAYGATE_LTC_TEST_ESPLORA_URL" },
  ethereum: { live: "PAYGATE_ETH_RPC_URL", test: "PAYGATE_ETH_TEST_RPC_URL" },
  bsc: { live: "PAYGATE_BSC_RPC_URL", test: "PAYGATE_BSC_TEST_RPC_URL" },
} as const;

/** The variables of each own node (core-rpc.ts), per coin and mode. */
export const CORE_NODE_VARIABLES = {
  BTC: {
    live: { url: "PAYGATE_BTC_NODE_URL", cookieFile: "PAYGATE_BTC_NODE_COOKIE_FILE", wallet: "PAYGATE_NODE_WALLET" },
    test: {
      url: "PAYGATE_BTC_TEST_NODE_URL",
      cookieFile: "PAYGATE_BTC_TEST_NODE_COOKIE_FILE",
      wallet: "PAYGATE_NODE_WALLET",
      chain: "PAYGATE_BTC_TEST_NODE_CHAIN",
    },
  },
  LTC: {
    live: { url: "PAYGATE_LTC_NODE_URL", cookieFile: "PAYGATE_LTC_NODE_COOKIE_FILE", wallet: "PAYGATE_NODE_WALLET" },
    test: {
      url: "PAYGATE_LTC_TEST_NODE_URL",
      cookieFile: "PAYGATE_LTC_TEST_NODE_COOKIE_FILE",
      wallet: "PAYGATE_NODE_WALLET",
      chain: "PAYGATE_LTC_TEST_NODE_CHAIN",
    },
  },
} as const;

/** The variables that let test mode take a local chain id (ChainWatchersOptions.testChainIds). */
export const CHAIN_ID_VARIABLES = { ethereum: "PAYGATE_ETH_TEST_CHAIN_ID", bsc: "PAYGATE_BSC_TEST_CHAIN_ID" } as const;

export interface ChainConfig extends ChainWatchersOptions {
  /** Confirmations before a payment counts, per currency (USDT shares ETH's). */
  confirmations: Record<CryptoSlug, number>;
  requiredConfirmations(currency: CryptoCurrency | CryptoSlug): number;
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
  return {
    timeoutMs: env.PAYGATE_CHAIN_TIMEOUT_MS,
    logsBlockRange: env.PAYGATE_EVM_LOGS_BLOCK_RANGE,
    esplora: {
      BTC: { live: env.PAYGATE_BTC_ESPLORA_URL, test: env.PAYGATE_BTC_TEST_ESPLORA_URL },
      LTC: { live: env.PAYGATE_LTC_ESPLORA_URL, test: env.PAYGATE_LTC_TEST_ESPLORA_URL },
    },
    coreNodes: {
      BTC: {
        live: coreNode(env.PAYGATE_BTC_NODE_URL, env.PAYGATE_BTC_NODE_COOKIE_FILE, "main"),
        test: coreNode(env.PAYGATE_BTC_TEST_NODE_URL, env.PAYGATE_BTC_TEST_NODE_COOKIE_FILE, env.PAYGATE_BTC_TEST_NODE_CHAIN),
      },
      LTC: {
        live: coreNode(env.PAYGATE_LTC_NODE_URL, env.PAYGATE_LTC_NODE_COOKIE_FILE, "main"),
        test: coreNode(env.PAYGATE_LTC_TEST_NODE_URL, env.PAYGATE_LTC_TEST_NODE_COOKIE_FILE, env.PAYGATE_LTC_TEST_NODE_CHAIN),
      },
    },
    nodeWallet: env.PAYGATE_NODE_WALLET,
    evm: {
      ethereum: { live: env.PAYGATE_ETH_RPC_URL, test: env.PAYGATE_ETH_TEST_RPC_URL },
      bsc: { live: env.PAYGATE_BSC_RPC_URL, test: env.PAYGATE_BSC_TEST_RPC_URL },
    },
    testChainIds: { ethereum: env.PAYGATE_ETH_TEST_CHAIN_ID, bsc: env.PAYGATE_BSC_TEST_CHAIN_ID },
    confirmations,
    requiredConfirmations(currency) {
      return confirmations[typeof currency === "string" ? currency : currency.slug];
    },
  };
}

function coreNode(url: string | undefined, cookieFile: string | undefined, chain: CoreChain): CoreNode | undefined {
  return url === undefined ? undefined : { url, cookieFile, chain };
}
