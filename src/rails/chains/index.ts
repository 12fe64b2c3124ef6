// The ChainWatcher port over real nodes: each (currency, mode) goes to its chain's client.
//
//   BTC, LTC  → Esplora (esplora.ts): one receipt per output paying the address; or, where an own
//               node is configured, its Bitcoin Core / Litecoin Core JSON-RPC (core-rpc.ts): the
//               addresses in a watch-only wallet, one listsinceblock per pass for all of them.
//   ETH, BNB  → JSON-RPC (evm-rpc.ts) of Ethereum / BNB Smart Chain: each transfer to the address
//               found in the blocks (one scan per pass for every address, evm-scan.ts), and the
//               balance beyond them (transfers inside contract calls).
//   USDT      → JSON-RPC of Ethereum: Transfer logs of the USDT contract (networks.ts) to the address.
//   on tron   → TRON's Ethereum-compatible JSON-RPC (tron-rpc.ts): Transfer logs of the TRC-20
//               contract to the T-address, through the EVM client with addresses converted.
//
// Test mode uses each chain's test network (networks.ts). A currency and mode without a node
// rejects with ChainNotConfiguredError naming the variable to set. A JSON-RPC node must be on the
// mode's chain (eth_chainId; test mode may name another chain id for a local development chain).
import { cryptoBySlug, type CryptoCurrency, type CryptoSlug } from "../../core/money/currencies.ts";
import type { AddressBalances, AddressHoldings, AddressWatch, ObservedReceipt } from "../../core/ports.ts";
import type { PassChains } from "../../core/watching/watch-pass.ts";
import { CHAINS, COIN_NETWORKS, defaultNetworkOf, EVM_CHAINS, EVM_NETWORK_SLUGS, isEvmNetwork, type NetworkSlug } from "../../core/networks.ts";
import { buildCoinNetworkTable, rowKey, type CurrencyNetworks } from "../wallets/networks.ts";
import { CORE_NODE_VARIABLES, evmVariables, NODE_VARIABLES } from "./config.ts";
import { CoreRpcClient } from "./core-rpc.ts";
import { ChainNotConfiguredError } from "./errors.ts";
import { EsploraClient, esploraNetwork } from "./esplora.ts";
import { EvmRpcClient, type TokenContract } from "./evm-rpc.ts";
import { TronRpcClient, type TronToken, tronChain } from "./tron-rpc.ts";
import { type TronTokenRow, tronTokenContracts } from "../wallets/tron.ts";
import { TronHttpClient } from "./tron-http.ts";
import { hostOf } from "../http/outbound.ts";
import { fromBaseUnits } from "./units.ts";
import type { ChainWatchersOptions, NodeUrlList } from "./options.ts";
import type { NodeHealth } from "./node-pool.ts";

export { ChainNodeError, ChainNotConfiguredError } from "./errors.ts";
export { EsploraClient } from "./esplora.ts";
export { CoreRpcClient } from "./core-rpc.ts";
export { EvmRpcClient, TRANSFER_TOPIC } from "./evm-rpc.ts";
export { ChainEnvSchema, chainConfig, type ChainConfig, type ChainEnv } from "./config.ts";

/** A payment a watcher pass is about to read. */
export interface PassPayment {
  currency: CryptoCurrency;
  /** The network it is paid on; absent, the coin's default. */
  network?: NetworkSlug | undefined;
  isLive: boolean;
  address: string;
  since: Date;
  /**
   * The receipts recorded for it (the watch list's): ETH and BNB transfers among them (keyed by their
   * transaction hash) that the block scan does not reach, as after a restart, are looked up by hash.
   */
  receipts: readonly { key: string }[];
}

/** One configured node (ETH and USDT share one) with its start-up check (PaymentWatcher asks it when it starts). */
export interface ConfiguredNode {
  /** As the node's messages name it, e.g. "LTC test node (127.0.0.1:19443)". */
  name: string;
  /** The coins it reads in its mode, the network's own coin (the one its fees are paid in) first. */
  serves: { currency: CryptoCurrency; network: NetworkSlug; isLive: boolean }[];
  /** The chain check the first read makes (and, for an own node, its wallet): what it is on; else a ChainNodeError naming the variable. */
  check(): Promise<string>;
}

type Mode = "live" | "test";
/** A coin's node client, by kind. */
export type ChainClient = Client;
type Client =
  | { kind: "esplora"; client: EsploraClient }
  | { kind: "core"; client: CoreRpcClient }
  | { kind: "evm"; client: EvmRpcClient }
  | { kind: "tron"; client: TronRpcClient };

export class ChainWatchers implements PassChains, AddressBalances, AddressWatch {
  /** By `COIN:network:mode`. */
  private readonly clients = new Map<string, Client>();
  private readonly networks: ReadonlyMap<string, CurrencyNetworks>;
  /** TRON's TRC-20 tokens by coin. */
  private readonly tronTokens: ReadonlyMap<CryptoSlug, TronTokenRow>;
  /** TRON's HTTP API by mode (recording sweeps). */
  private readonly tronHttp = new Map<Mode, TronHttpClient>();

  constructor(options: ChainWatchersOptions) {
    for (const [mode, contract] of Object.entries(options.usdtContracts ?? {})) {
      if (contract !== undefined && !/^0x[0-9a-fA-F]{40}$/.test(contract))
        throw new RangeError(`usdtContracts.${mode} is not an EVM address: ${contract}`);
    }
    this.networks = buildCoinNetworkTable({ usdtContracts: options.usdtContracts ?? {}, tokenContracts: options.tokenContracts ?? {} });
    this.tronTokens = tronTokenContracts(options.tokenContracts ?? {});
    const { maxLagBlocks, ...pool } = options.nodePool ?? {};
    const poolTuning = { pool, ...(maxLagBlocks === undefined ? {} : { maxLagBlocks }) };
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
          this.clients.set(clientKey(slug, undefined, mode), { kind: "core", client });
          continue;
        }
        const urls = urlList(options.esplora[slug][mode]);
        if (urls === undefined) continue;
        const client = new EsploraClient({
          ...options.esploraTuning,
          baseUrl: urls,
          timeoutMs: options.timeoutMs,
          ...poolTuning,
          name: poolName(`${slug} ${mode} Esplora`, urls),
          network: esploraNetwork(slug, mode, NODE_VARIABLES[slug][mode]),
        });
        this.clients.set(clientKey(slug, undefined, mode), { kind: "esplora", client });
      }
      for (const chain of EVM_NETWORK_SLUGS) {
        const urls = urlList(options.evm[chain]?.[mode]);
        if (urls === undefined) continue;
        const { evm, [mode]: side } = EVM_CHAINS[chain];
        if (side.chainId === null) throw new Error(`${chain} has no chain id`);
        const override = mode === "test" ? options.testChainIds?.[chain] : undefined;
        const variables = evmVariables(chain);
        const client = new EvmRpcClient({
          blockTimeSeconds: evm.blockTimeSeconds,
          ...options.evmTuning,
          url: urls,
          timeoutMs: options.timeoutMs,
          ...poolTuning,
          ...(options.logsBlockRange === undefined ? {} : { maxBlockRange: options.logsBlockRange }),
          ...(options.evmFinality?.[chain]?.finalizedTag ? { finalizedTag: true } : {}),
          ...(options.evmFinality?.[chain]?.depth === undefined ? {} : { minWindowBlocks: options.evmFinality[chain]?.depth }),
          name: poolName(`${side.name} JSON-RPC`, urls),
          chain: {
            id: override ?? side.chainId,
            network: side.name,
            variable: variables.rpc[mode],
            ...(mode === "test" ? { overrideVariable: variables.testChainId, overridden: override !== undefined } : {}),
          },
        });
        // Every coin the table pays on this chain (its own coin and its tokens) is read through its node.
        for (const row of COIN_NETWORKS) {
          if (row.network === chain) this.clients.set(clientKey(row.coin, chain, mode), { kind: "evm", client });
        }
      }
      const tronUrls = urlList(options.tron?.[mode]);
      if (tronUrls !== undefined) {
        const client = new TronRpcClient({
          ...options.evmTuning,
          url: tronUrls,
          timeoutMs: options.timeoutMs,
          ...poolTuning,
          ...(options.logsBlockRange === undefined ? {} : { maxBlockRange: options.logsBlockRange }),
          apiKey: options.tronApiKey,
          name: poolName(`${CHAINS.tron[mode].name} JSON-RPC`, tronUrls),
          chain: tronChain(mode === "live", NODE_VARIABLES.tron[mode]),
        });
        for (const coin of this.tronTokens.keys()) this.clients.set(clientKey(coin, "tron", mode), { kind: "tron", client });
      }
      const tronHttp = options.tronHttp?.[mode];
      if (tronHttp !== undefined) {
        const name = `${CHAINS.tron[mode].name} HTTP API (${hostOf(tronHttp)})`;
        this.tronHttp.set(mode, new TronHttpClient({ url: tronHttp, timeoutMs: options.timeoutMs, apiKey: options.tronApiKey, name }));
      }
    }
  }

  /** The variable that names the node of this currency and mode. */
  nodeVariable(currency: CryptoCurrency, isLive: boolean, network: NetworkSlug = defaultNetworkOf(currency.slug)): string {
    const mode = isLive ? "live" : "test";
    if (isEvmNetwork(network)) return evmVariables(network).rpc[mode];
    if (network === "tron") return NODE_VARIABLES.tron[mode];
    const coin = currency.slug;
    if (coin !== "BTC" && coin !== "LTC") return `a ${network} node`;
    if (this.clients.get(clientKey(coin, network, mode))?.kind === "core") return CORE_NODE_VARIABLES[coin][mode].url;
    return NODE_VARIABLES[coin][mode];
  }

  /** The kind of node that reads this currency in that mode (the `backend` of the node metrics); undefined without one. */
  backendOf(currency: CryptoCurrency, isLive: boolean, network?: NetworkSlug): Client["kind"] | undefined {
    return this.clients.get(clientKey(currency.slug, network, isLive ? "live" : "test"))?.kind;
  }

  /**
   * The client that reads this currency in that mode, or undefined without one: the refund rails
   * (src/rails/refunds) ask it for a paid transaction's raw bytes, gas estimates and gas prices.
   */
  clientOf(currency: CryptoCurrency, isLive: boolean, network?: NetworkSlug): ChainClient | undefined {
    return this.clients.get(clientKey(currency.slug, network, isLive ? "live" : "test"));
  }

  /** The ERC-20/BEP-20 contract the watcher reads for the coin on an EVM network in that mode, or undefined (the chain's own coin). */
  evmToken(currency: CryptoCurrency, isLive: boolean, network: NetworkSlug): TokenContract | undefined {
    const row = this.networks.get(rowKey(currency.slug, network))?.[isLive ? "live" : "test"];
    return row?.family === "evm" ? row.token : undefined;
  }

  /** TRON's HTTP API in that mode, or undefined without one (TRON_HTTP_VARIABLES names its variable). */
  tronHttpOf(isLive: boolean): TronHttpClient | undefined {
    return this.tronHttp.get(isLive ? "live" : "test");
  }

  /** The TRC-20 contract the watcher reads for the coin in that mode (TRON's base58), or undefined. */
  tronToken(currency: CryptoCurrency, isLive: boolean): TronToken | undefined {
    const token = this.tronTokens.get(currency.slug);
    return token === undefined ? undefined : { contract: token[isLive ? "live" : "test"], decimals: token.decimals };
  }

  /**
   * Whether a node of the currency's network in that mode may be read now: false only while every one
   * of its nodes is set aside (initiate then refuses that network with 503). An own BTC/LTC node
   * (one, no pool) and a currency without a node answer true: the watcher and `supports` tell those.
   */
  async reachable(currency: CryptoCurrency, isLive: boolean, network?: NetworkSlug): Promise<boolean> {
    const entry = this.clients.get(clientKey(currency.slug, network, isLive ? "live" : "test"));
    return entry === undefined || entry.kind === "core" ? true : entry.client.pool.available();
  }

  /** Each network and mode's nodes with their health, in the configured order (hosts only, never URLs). */
  nodeHealth(): NetworkNodeHealth[] {
    const seen = new Set<Client["client"]>();
    const list: NetworkNodeHealth[] = [];
    for (const [key, entry] of this.clients) {
      if (seen.has(entry.client) || entry.kind === "core") continue;
      seen.add(entry.client);
      const [, network, mode] = key.split(":") as [CryptoSlug, NetworkSlug, Mode];
      list.push({ network, mode, backend: entry.kind, name: entry.client.name, nodes: entry.client.pool.health() });
    }
    return list;
  }

  /** Whether a node is configured for the currency's network in that mode. */
  supports(currency: CryptoCurrency, isLive: boolean, network?: NetworkSlug): boolean {
    return this.clients.has(clientKey(currency.slug, network, isLive ? "live" : "test"));
  }

  /** Each configured node once, with what it reads; a coin and mode set to `none` has none. */
  nodes(): ConfiguredNode[] {
    const nodes = new Map<Client["client"], ConfiguredNode>();
    for (const [key, { client }] of this.clients) {
      const [coin, network, mode] = key.split(":") as [CryptoSlug, NetworkSlug, Mode];
      const currency = cryptoBySlug(coin);
      if (currency === undefined) continue;
      const node = nodes.get(client) ?? { name: client.name, serves: [], check: () => client.checkNode() };
      node.serves.push({ currency, network, isLive: mode === "live" });
      nodes.set(client, node);
    }
    const native = (s: ConfiguredNode["serves"][number]) => (CHAINS[s.network].feeCoin === s.currency.slug ? 0 : 1);
    return [...nodes.values()].map((node) => ({ ...node, serves: node.serves.sort((a, b) => native(a) - native(b)) }));
  }

  /**
   * A watcher pass begins: the ETH and BNB payments of each node are scanned for together, with their
   * receipts recorded so far; an own BTC/LTC node learns the pass's addresses (read once for all).
   */
  beginPass(payments: readonly PassPayment[]): void {
    for (const [key, entry] of this.clients) {
      if (entry.kind !== "core") continue;
      entry.client.beginPass(payments.filter((p) => clientKey(p.currency.slug, p.network, p.isLive ? "live" : "test") === key));
    }
    const native = new Map<EvmRpcClient, PassPayment[]>();
    for (const [key, entry] of this.clients) {
      if (entry.kind === "evm" && !this.isToken(key)) native.set(entry.client, []);
    }
    for (const payment of payments) {
      const key = clientKey(payment.currency.slug, payment.network, payment.isLive ? "live" : "test");
      const entry = this.clients.get(key);
      if (entry?.kind === "evm" && !this.isToken(key)) native.get(entry.client)?.push(payment);
    }
    for (const [client, list] of native) client.beginPass(list);
  }

  /**
   * Initiate handed out `address` at `since`: an own BTC/LTC node imports it now, watched from then
   * (and reads its mempool for a payment already sent), not at the watcher's next pass. Other backends
   * need no telling. Never rejects.
   */
  async handedOut(currency: CryptoCurrency, isLive: boolean, address: string, network: NetworkSlug | undefined, since: Date): Promise<void> {
    const entry = this.clients.get(clientKey(currency.slug, network, isLive ? "live" : "test"));
    if (entry?.kind === "core") await entry.client.handedOut(address, since);
  }

  async receiptsTo(
    currency: CryptoCurrency,
    isLive: boolean,
    address: string,
    options: { since: Date; requiredConfirmations: number; network?: NetworkSlug; settled?: boolean; minedAt?: boolean },
  ): Promise<ObservedReceipt[]> {
    const mode: Mode = isLive ? "live" : "test";
    const on = options.network ?? defaultNetworkOf(currency.slug);
    const entry = this.clients.get(clientKey(currency.slug, on, mode));
    if (entry === undefined) {
      const where = on === defaultNetworkOf(currency.slug) ? "" : ` on ${on}`;
      throw new ChainNotConfiguredError(`no node configured for ${currency.slug}${where} ${mode} (set ${this.nodeVariable(currency, isLive, on)})`);
    }
    if (entry.kind === "esplora") return entry.client.receiptsTo(address, { since: options.since, settled: options.settled === true });
    if (entry.kind === "core") return entry.client.receiptsTo(address, { since: options.since });
    if (entry.kind === "tron") {
      const token = this.tronTokens.get(currency.slug);
      if (token === undefined) throw new Error(`${currency.slug} has no TRC-20 contract`);
      return entry.client.tokenReceipts({ contract: token[mode], decimals: token.decimals }, address, {
        since: options.since,
        ...(options.minedAt === true ? { minedAt: true } : {}),
      });
    }
    const network = this.networks.get(rowKey(currency.slug, on))?.[mode];
    if (network?.family === "evm" && network.token !== undefined) {
      return entry.client.tokenReceipts(network.token, address, { since: options.since, ...(options.minedAt === true ? { minedAt: true } : {}) });
    }
    return entry.client.nativeReceipts(address, options);
  }

  /**
   * What a handed-out address holds now: the coin paid to it and the network's fee coin. EVM: the
   * token's balanceOf and eth_getBalance; TRON: the same over its JSON-RPC; BTC/LTC: the own node's
   * watch-only wallet or Esplora (the coin is its own fee coin).
   */
  async holdings(currency: CryptoCurrency, isLive: boolean, address: string, network: NetworkSlug): Promise<AddressHoldings> {
    const mode: Mode = isLive ? "live" : "test";
    const entry = this.clients.get(clientKey(currency.slug, network, mode));
    if (entry === undefined) {
      const where = network === defaultNetworkOf(currency.slug) ? "" : ` on ${network}`;
      throw new ChainNotConfiguredError(
        `no node configured for ${currency.slug}${where} ${mode} (set ${this.nodeVariable(currency, isLive, network)})`,
      );
    }
    if (entry.kind === "esplora" || entry.kind === "core") {
      const held = await entry.client.balance(address);
      return { coin: held, feeCoin: held };
    }
    if (entry.kind === "tron") {
      const token = this.tronTokens.get(currency.slug);
      if (token === undefined) throw new Error(`${currency.slug} has no TRC-20 contract`);
      const held = await entry.client.holdings({ contract: token[mode], decimals: token.decimals }, address);
      return { coin: held.token, feeCoin: held.trx };
    }
    const row = this.networks.get(rowKey(currency.slug, network))?.[mode];
    if (row?.family !== "evm") throw new Error(`${currency.slug} on ${network} is not an EVM row`);
    const held = await entry.client.holdings(address, row.token);
    const native = fromBaseUnits(held.native, 18);
    return { coin: held.token === null || row.token === undefined ? native : fromBaseUnits(held.token, row.token.decimals), feeCoin: native };
  }

  /** Whether the client key `COIN:network:mode` is a token's (read from Transfer logs, not the block scan). */
  private isToken(key: string): boolean {
    const entry = this.networks.get(key.slice(0, key.lastIndexOf(":")));
    return entry?.live.family === "evm" && entry.live.token !== undefined;
  }
}

/** One network and mode's nodes (ChainWatchers.nodeHealth). */
export interface NetworkNodeHealth {
  network: NetworkSlug;
  mode: Mode;
  backend: Client["kind"];
  name: string;
  nodes: NodeHealth[];
}

/** A node variable's URLs as a list (one URL is a list of one); undefined without any. */
function urlList(urls: NodeUrlList | undefined): readonly string[] | undefined {
  const list = typeof urls === "string" ? [urls] : urls;
  return list === undefined || list.length === 0 ? undefined : list;
}

/** One node is named by its host, as before; several by the network (each node then by its place and host). */
function poolName(base: string, urls: readonly string[]): string {
  const [only] = urls;
  return urls.length === 1 && only !== undefined ? `${base} (${hostOf(only)})` : base;
}

/** `COIN:network:mode`; the network defaults to the coin's. */
function clientKey(coin: CryptoSlug, network: NetworkSlug | undefined, mode: Mode): string {
  return `${coin}:${network ?? defaultNetworkOf(coin)}:${mode}`;
}
