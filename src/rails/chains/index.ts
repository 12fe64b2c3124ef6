// The ChainWatcher port over real nodes: each (currency, mode) goes to its chain's client.
//
//   BTC, LTC  → Esplora (esplora.ts): one receipt per output paying the address; or, where an own
//               node is configured, its Bitcoin Core / Litecoin Core JSON-RPC (core-rpc.ts): the
//               addresses in a watch-only wallet, one listsinceblock per pass for all of them.
//   ETH, BNB  → JSON-RPC (evm-rpc.ts) of Ethereum / BNB Smart Chain: each transfer to the address
//               found in the blocks (one scan per pass for every address, evm-scan.ts), and the
//               balance beyond them (transfers inside contract calls).
//   USDT      → JSON-RPC of Ethereum: Transfer logs of the USDT contract (networks.ts) to the address.
//
// Test mode uses each chain's test network (networks.ts). A currency and mode without a node
// rejects with ChainNotConfiguredError naming the variable to set. A JSON-RPC node must be on the
// mode's chain (eth_chainId; test mode may name another chain id for a local development chain).
import type { CryptoCurrency, CryptoSlug } from "../../core/money/currencies.ts";
import type { ChainWatcher, ObservedReceipt } from "../../core/ports.ts";
import { buildNetworkTable, type CurrencyNetworks } from "../wallets/networks.ts";
import { CHAIN_ID_VARIABLES, CORE_NODE_VARIABLES, NODE_VARIABLES } from "./config.ts";
import { type CoreChain, CoreRpcClient } from "./core-rpc.ts";
import { ChainNotConfiguredError } from "./errors.ts";
import { EsploraClient, type EsploraOptions } from "./esplora.ts";
import { EvmRpcClient, type EvmRpcOptions } from "./evm-rpc.ts";
import { hostOf } from "../http/outbound.ts";

export { ChainNodeError, ChainNotConfiguredError } from "./errors.ts";
export { EsploraClient } from "./esplora.ts";
export { CoreRpcClient } from "./core-rpc.ts";
export { EvmRpcClient, TRANSFER_TOPIC } from "./evm-rpc.ts";
export { ChainEnvSchema, chainConfig, type ChainConfig, type ChainEnv } from "./config.ts";

/** Nominal seconds between blocks: only a first guess, checked against block timestamps. */
export const BLOCK_TIME_SECONDS = { ethereum: 12, bsc: 0.75 } as const;

export interface NodeUrls {
  live?: string | undefined;
  test?: string | undefined;
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
  esplora: { BTC: NodeUrls; LTC: NodeUrls };
  /** Own nodes: where one is set, it is used instead of Esplora for that coin and mode. */
  coreNodes?: {
    BTC?: { live?: CoreNode | undefined; test?: CoreNode | undefined };
    LTC?: { live?: CoreNode | undefined; test?: CoreNode | undefined };
  };
  /** The watch-only wallet on the own nodes. Default "paygate". */
  nodeWallet?: string;
  evm: { ethereum: NodeUrls; bsc: NodeUrls };
  /** Most blocks per eth_getLogs. Default 2000. */
  logsBlockRange?: number;
  /** The USDT contracts; pass the same as to HdWalletRails. Default: networks.ts's. */
  usdtContracts?: { live?: string; test?: string };
  /** Tuning of the Esplora clients (tests). */
  esploraTuning?: Pick<EsploraOptions, "pageSize" | "maxPages" | "sinceMarginMs" | "tipMaxAgeMs">;
  /** Chain ids the test-mode nodes must have instead of Sepolia's and BSC testnet's (local development chains). */
  testChainIds?: { ethereum?: number | undefined; bsc?: number | undefined };
  /** Tuning of the JSON-RPC clients (tests); blockTimeSeconds replaces BLOCK_TIME_SECONDS for both chains. */
  evmTuning?: Partial<
    Pick<
      EvmRpcOptions,
      "sinceMarginSeconds" | "now" | "blockTimeSeconds" | "headMaxAgeMs" | "scanMarginSeconds" | "scanWindowSeconds" | "scanLookbackSeconds"
    >
  >;
}

/** A payment a watcher pass is about to read. */
export interface PassPayment {
  currency: CryptoCurrency;
  isLive: boolean;
  address: string;
  since: Date;
  /**
   * The receipts recorded for it (the watch list's): ETH and BNB transfers among them (keyed by their
   * transaction hash) that the block scan does not reach, as after a restart, are looked up by hash.
   */
  receipts: readonly { key: string }[];
}

type Mode = "live" | "test";
type Client = { kind: "esplora"; client: EsploraClient } | { kind: "core"; client: CoreRpcClient } | { kind: "evm"; client: EvmRpcClient };

export class ChainWatchers implements ChainWatcher {
  private readonly clients = new Map<string, Client>();
  private readonly networks: Readonly<Record<CryptoSlug, CurrencyNetworks>>;

  constructor(options: ChainWatchersOptions) {
    for (const [mode, contract] of Object.entries(options.usdtContracts ?? {})) {
      if (contract !== undefined && !/^0x[0-9a-fA-F]{40}$/.test(contract))
        throw new RangeError(`usdtContracts.${mode} is not an EVM address: ${contract}`);
    }
    this.networks = buildNetworkTable({ usdtContracts: options.usdtContracts ?? {} });
    for (const mode of ["live", "test"] as const) {
      for (const slug of ["BTC", "LTC"] as const) {
        const node = options.coreNodes?.[slug]?.[mode];
        if (node !== undefined) {
          const client = new CoreRpcClient({
            ...node,
            wallet: options.nodeWallet ?? "paygate",
            timeoutMs: options.timeoutMs,
            name: `${slug} ${mode} node (${hostOf(node.url)})`,
            variables: CORE_NODE_VARIABLES[slug][mode],
          });
          this.clients.set(`${slug}:${mode}`, { kind: "core", client });
          continue;
        }
        const url = options.esplora[slug][mode];
        if (url === undefined) continue;
        const client = new EsploraClient({
          ...options.esploraTuning,
          baseUrl: url,
          timeoutMs: options.timeoutMs,
          name: `${slug} ${mode} Esplora (${hostOf(url)})`,
        });
        this.clients.set(`${slug}:${mode}`, { kind: "esplora", client });
      }
      for (const chain of ["ethereum", "bsc"] as const) {
        const url = options.evm[chain][mode];
        if (url === undefined) continue;
        const network = chain === "ethereum" ? this.networks.ETH[mode] : this.networks.BNB[mode];
        if (network.family !== "evm") throw new Error(`${network.name} is not an EVM network`);
        const override = mode === "test" ? options.testChainIds?.[chain] : undefined;
        const client = new EvmRpcClient({
          blockTimeSeconds: BLOCK_TIME_SECONDS[chain],
          ...options.evmTuning,
          url,
          timeoutMs: options.timeoutMs,
          ...(options.logsBlockRange === undefined ? {} : { maxBlockRange: options.logsBlockRange }),
          name: `${network.name} JSON-RPC (${hostOf(url)})`,
          chain: {
            id: override ?? network.chainId,
            network: network.name,
            variable: NODE_VARIABLES[chain][mode],
            ...(mode === "test" ? { overrideVariable: CHAIN_ID_VARIABLES[chain], overridden: override !== undefined } : {}),
          },
        });
        for (const slug of chain === "ethereum" ? (["ETH", "USDT"] as const) : (["BNB"] as const)) {
          this.clients.set(`${slug}:${mode}`, { kind: "evm", client });
        }
      }
    }
  }

  /** The variable that names the node of this currency and mode. */
  nodeVariable(currency: CryptoCurrency, isLive: boolean): string {
    const mode = isLive ? "live" : "test";
    const chain = currency.slug === "ETH" || currency.slug === "USDT" ? "ethereum" : currency.slug === "BNB" ? "bsc" : currency.slug;
    if ((chain === "BTC" || chain === "LTC") && this.clients.get(`${chain}:${mode}`)?.kind === "core") return CORE_NODE_VARIABLES[chain][mode].url;
    return NODE_VARIABLES[chain][mode];
  }

  /** Whether a node is configured for the currency's network in that mode. */
  supports(currency: CryptoCurrency, isLive: boolean): boolean {
    return this.clients.has(`${currency.slug}:${isLive ? "live" : "test"}`);
  }

  /**
   * A watcher pass begins: the ETH and BNB payments of each node are scanned for together, with their
   * receipts recorded so far; an own BTC/LTC node learns the pass's addresses (read once for all).
   */
  beginPass(payments: readonly PassPayment[]): void {
    for (const [key, entry] of this.clients) {
      if (entry.kind !== "core") continue;
      const [slug, mode] = key.split(":");
      entry.client.beginPass(payments.filter((p) => p.currency.slug === slug && (p.isLive ? "live" : "test") === mode).map((p) => p.address));
    }
    const native = new Map<EvmRpcClient, PassPayment[]>();
    for (const [key, entry] of this.clients) {
      if (entry.kind === "evm" && !key.startsWith("USDT:")) native.set(entry.client, []);
    }
    for (const payment of payments) {
      if (payment.currency.slug !== "ETH" && payment.currency.slug !== "BNB") continue;
      const entry = this.clients.get(`${payment.currency.slug}:${payment.isLive ? "live" : "test"}`);
      if (entry?.kind === "evm") native.get(entry.client)?.push(payment);
    }
    for (const [client, list] of native) client.beginPass(list);
  }

  async receiptsTo(
    currency: CryptoCurrency,
    isLive: boolean,
    address: string,
    options: { since: Date; requiredConfirmations: number },
  ): Promise<ObservedReceipt[]> {
    const mode: Mode = isLive ? "live" : "test";
    const entry = this.clients.get(`${currency.slug}:${mode}`);
    if (entry === undefined) {
      throw new ChainNotConfiguredError(`no node configured for ${currency.slug} ${mode} (set ${this.nodeVariable(currency, isLive)})`);
    }
    if (entry.kind === "esplora" || entry.kind === "core") return entry.client.receiptsTo(address, { since: options.since });
    const network = this.networks[currency.slug][mode];
    if (network.family === "evm" && network.token !== undefined) {
      return entry.client.tokenReceipts(network.token, address, { since: options.since });
    }
    return entry.client.nativeReceipts(address, options);
  }
}
