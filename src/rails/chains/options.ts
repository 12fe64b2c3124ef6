// What the chain watchers are given (the nodes of each coin and mode, and their tuning): declared apart from
// the watchers, so that the chains' configuration (config.ts) builds it without importing them.
import type { EvmNetworkSlug, TestChainIds } from "../../core/networks.ts";
import type { CoreChain } from "./core-rpc.ts";
import type { EsploraOptions } from "./esplora.ts";
import type { EvmRpcOptions } from "./evm-rpc.ts";
import type { NodePoolOptions } from "./node-pool.ts";

/** A node, or several of one network read in that order (failover: node-pool.ts). */
export type NodeUrlList = string | readonly string[];

export interface NodeUrls {
  live?: NodeUrlList | undefined;
  test?: NodeUrlList | undefined;
}

/** An own Bitcoin Core / Litecoin Core node (core-rpc.ts). */
export interface CoreNode {
  url: string;
  cookieFile?: string | undefined;
  /** The chain it must be on: main for live, test (or signet, regtest) for test. */
  chain: CoreChain;
}

export interface ChainWatchersOptions {
  /** Longest wait for one answer of a node. */
  timeoutMs: number;
  /** Where several nodes serve a network: the lag that sets one aside (default per block time), probe interval and back-off. */
  nodePool?: { maxLagBlocks?: number } & Pick<NodePoolOptions, "probeIntervalMs" | "backoffMs">;
  esplora: { BTC: NodeUrls; LTC: NodeUrls };
  /** Own nodes: where one is set, it is used instead of Esplora for that coin and mode. */
  coreNodes?: {
    BTC?: { live?: CoreNode | undefined; test?: CoreNode | undefined };
    LTC?: { live?: CoreNode | undefined; test?: CoreNode | undefined };
  };
  /** The watch-only wallet on the own nodes. Default "paygate". */
  nodeWallet?: string;
  /** Each EVM network's nodes (core/networks.ts's EVM rows); a network left out has none. */
  evm: Partial<Record<EvmNetworkSlug, NodeUrls>>;
  /** TRON FullNodes' JSON-RPC (`…/jsonrpc`), live (mainnet) and test (Nile). */
  tron?: NodeUrls;
  /** TRON FullNodes' HTTP API (`/wallet/…`), live and test: what recording a TRON sweep reads (tron-http.ts). */
  tronHttp?: { live?: string | undefined; test?: string | undefined };
  /** A TronGrid API key, sent with every request to the TRON nodes. */
  tronApiKey?: string | undefined;
  /** Most blocks per eth_getLogs. Default 2000. */
  logsBlockRange?: number;
  /** The USDT contracts on Ethereum; pass the same as to HdWalletRails. Default: core/networks.ts's. */
  usdtContracts?: { live?: string; test?: string };
  /** Token contracts of other rows by `COIN:network` (e.g. `USDT:bsc`); pass the same as to HdWalletRails. */
  tokenContracts?: Partial<Record<string, { live?: string | undefined; test?: string | undefined }>>;
  /** Tuning of the Esplora clients (tests). */
  esploraTuning?: Pick<EsploraOptions, "pageSize" | "maxPages" | "sinceMarginMs" | "tipMaxAgeMs">;
  /** Chain ids the test-mode nodes must have instead of Sepolia's and BSC testnet's (local development chains). */
  testChainIds?: TestChainIds;
  /**
   * Per EVM chain: the finality depth (the block scan keeps at least that many blocks whole, so a
   * reorganisation within it is seen) and whether the node's `finalized` tag decides finality.
   */
  evmFinality?: Partial<Record<EvmNetworkSlug, { depth?: number; finalizedTag?: boolean }>>;
  /** Tuning of the JSON-RPC clients (tests); blockTimeSeconds replaces every EVM row's block time. */
  evmTuning?: Partial<
    Pick<
      EvmRpcOptions,
      "sinceMarginSeconds" | "now" | "blockTimeSeconds" | "headMaxAgeMs" | "scanMarginSeconds" | "scanWindowSeconds" | "scanLookbackSeconds"
    >
  >;
}
