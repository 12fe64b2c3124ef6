// Schedules the payment watcher's passes (src/core/watching/watch-pass.ts: the rules of a pass) and
// says what the chain nodes did: which failed and what to do about it, which answer again, and the
// metrics. Instances on one PostgreSQL database share the addresses, each reading its part
// (src/core/transactions/watch-shares.ts); a pass reads at most MAX_PER_PASS of them. After each pass it
// scans the own addresses of its share of the merchants (src/core/own-addresses/idle-scan.ts).
import type { CryptoCurrency } from "../core/money/currencies.ts";
import { defaultNetworkOf, type NetworkSlug } from "../core/networks.ts";
import { type PassChains, WatchPass, type WatchPassSettings, type WatchedPayments } from "../core/watching/watch-pass.ts";
import type { OwnAddressScanner } from "../core/own-addresses/idle-scan.ts";
import { ChainNodeError } from "../rails/chains/errors.ts";
import type { ConfiguredNode } from "../rails/chains/index.ts";
import type { ChainNodeLabels, WatcherMetrics } from "../observability/hooks.ts";
import { wholeWatchList, type WatchShare, type WatchShares } from "../core/transactions/watch-shares.ts";
import { type LineLog, Ticker } from "./ticker.ts";

export interface WatchSettings extends WatchPassSettings {
  intervalMs: number;
  /** Milliseconds since the epoch (tests). Default Date.now. */
  now?: () => number;
}

/** While a node keeps failing, its failure is said again at most this often. */
const NODE_LOG_INTERVAL_MS = 60_000;

/**
 * The chains of a pass (core/watching/watch-pass.ts), which may also say which variable names each
 * node and what kind of node it is (the log lines and metrics), and list the configured nodes.
 */
export type ConfiguredChains = PassChains & {
  nodeVariable?(currency: CryptoCurrency, isLive: boolean, network?: NetworkSlug): string;
  /** The kind of node that reads the currency in that mode (esplora, core, evm): the metrics' `backend`. */
  backendOf?(currency: CryptoCurrency, isLive: boolean, network?: NetworkSlug): string | undefined;
  /** Each configured node once, with the coins it reads and its start-up check (checked when the watcher starts). */
  nodes?(): readonly ConfiguredNode[];
};

export interface WatchReport {
  /** This instance's part of the watch list at this pass; null when it had none (no pass was made). */
  share: WatchShare | null;
  watched: number;
  changed: number;
  failed: number;
}

/** The most addresses one pass of one instance looks at; the oldest deadlines first. */
const MAX_PER_PASS = 10_000;

export class PaymentWatcher extends Ticker {
  /** Failing nodes (by the variable that names them): the networks said, since when, when it was last said, and the failed reads since. */
  private readonly failing = new Map<string, { network: string; since: number; saidAt: number; unsaid: number }>();
  /** The pass's rules; it keeps what one read saw missing until the next. */
  private readonly pass: WatchPass;

  constructor(
    /**
     * The watch list and the lifecycle's record of a read (the gateway's watchList and applyReceipts),
     * and the idle scan of own addresses where it is given (the gateway's scanOwnAddresses).
     */
    private readonly payments: WatchedPayments & Partial<OwnAddressScanner>,
    private readonly chains: ConfiguredChains,
    private readonly settings: WatchSettings,
    log: LineLog = () => {},
    /** Several instances on one database: each reads its share of the addresses. */
    private readonly shares: WatchShares = wholeWatchList,
    /** Pass durations and addresses per pass (GET /metrics). */
    private readonly metrics?: WatcherMetrics,
  ) {
    super("payment watcher", settings.intervalMs, log);
    this.pass = new WatchPass(payments, chains, settings);
  }

  /** Bumped by each start and stop: a start-up check's outcome is said only if no stop came since its start. */
  private checkRun = 0;
  private started = false;

  /** Starts the passes and, in the background (not waited for), checks every configured node once. */
  override start(): void {
    if (this.started) return;
    this.started = true;
    super.start();
    // Never an unhandled rejection: a check that cannot even be made is said, the passes go on.
    this.checkNodes(++this.checkRun).catch((error: unknown) =>
      this.log(`payment watcher: the nodes' start-up check failed: ${(error as Error).message}`),
    );
  }

  override async stop(): Promise<void> {
    this.started = false;
    this.checkRun++;
    await super.stop();
    await this.shares.release();
  }

  /**
   * Each configured node's start-up check (its chain; an own node's wallet), all at once, each request
   * bounded by the node timeout: a node on the wrong chain, without its wallet or unreachable is said
   * as soon as it is known, as a pass says a failing node (the passes then say it again at most once a
   * minute); a node that is fine in one line. A node that comes back is checked again at its next read
   * after a connection failure (the clients do it).
   */
  private async checkNodes(run: number): Promise<void> {
    await Promise.all(
      (this.chains.nodes?.() ?? []).map(async (node) => {
        const reads = node.serves.map((s) => this.describeRead(s.currency, s.network, s.isLive));
        const networks = reads.map((r) => r.network);
        const first = reads[0];
        if (first === undefined) return;
        let said: string;
        try {
          said = await node.check();
        } catch (error) {
          if (run !== this.checkRun) return;
          const failure = {
            message: (error as Error).message,
            variable: first.variable,
            networks: new Set(networks),
            errors: new Map([[error, first.labels]]),
          };
          this.reportNodes(new Map([[first.node, failure]]), new Map());
          return;
        }
        if (run === this.checkRun) this.log(`payment watcher: ${networks.join(", ")}: ${node.name} answers: ${said}`);
      }),
    );
  }

  /** How a read of the currency in that mode is named: in log lines ("USDT on bsc test"), by the variable of its node, in the metrics. */
  private describeRead(currency: CryptoCurrency, network: NetworkSlug, isLive: boolean): NodeRead {
    const onNetwork = network === defaultNetworkOf(currency.slug) ? "" : ` on ${network}`;
    const name = `${currency.slug}${onNetwork} ${isLive ? "live" : "test"}`;
    const labels = {
      coin: currency.slug,
      network,
      mode: isLive ? ("live" as const) : ("test" as const),
      backend: this.chains.backendOf?.(currency, isLive, network) ?? "unknown",
    };
    const variable = this.chains.nodeVariable?.(currency, isLive, network);
    return { network: name, labels, variable, node: variable ?? name };
  }

  async tick(): Promise<WatchReport> {
    const share = await this.shares.current();
    if (share === null) return { share, watched: 0, changed: 0, failed: 0 };
    const started = performance.now();
    /** By node (the variable that names it: ETH and USDT share one), what failed; by network, what was read. */
    const failures = new Map<string, NodeFailure>();
    const answered = new Map<string, { node: string; labels: ChainNodeLabels }>();
    const readFailed = (read: ChainRead, error: unknown) => {
      const { network, labels, variable, node } = this.describe(read);
      const failure = failures.get(node) ?? { message: (error as Error).message, variable, networks: new Set<string>(), errors: new Map() };
      failure.networks.add(network);
      if (!failure.errors.has(error)) failure.errors.set(error, labels);
      failures.set(node, failure);
    };
    const answer = (read: ChainRead) => {
      const { network, labels, node } = this.describe(read);
      answered.set(network, { node, labels });
    };
    const { storeError, ...counted } = await this.pass.run(share, MAX_PER_PASS, {
      readFailed,
      answered: answer,
      reversed: (read) => {
        this.metrics?.paymentReversed?.(read.currency.slug);
        this.log(
          `payment watcher: ${this.describe(read).network}: the payment of transaction ${read.transactionId} left the chain after it succeeded (payment.reversed)`,
        );
      },
    });
    // After the pass, in the same tick rather than on an interval of its own: it reads through the
    // same node clients, its failures are said with the pass's (one line per node), and a transfer to
    // an idle own address shows as soon as one to a watched address would. It costs k log reads per
    // setting per pass, as k watched payments would.
    let scanError: { error: unknown } | null = null;
    try {
      scanError = (await this.payments.scanOwnAddresses?.(this.chains, share, this.settings, { readFailed, answered: answer }))?.storeError ?? null;
    } catch (error) {
      scanError = { error }; // its list of settings could not be read: the pass's nodes are still said
    }
    const report: WatchReport = { share, ...counted };
    this.reportNodes(failures, answered);
    this.metrics?.watchPass(report, (performance.now() - started) / 1000);
    // The database, not the node: the pass and the scan went on, and the ticker says it once.
    const databaseError = storeError ?? scanError;
    if (databaseError !== null) throw databaseError.error;
    return report;
  }

  private describe(read: ChainRead): NodeRead {
    return this.describeRead(read.currency, read.network, read.isLive);
  }

  /**
   * A node that fails is said at once, with what to do about it (one line for the coins it serves:
   * ETH and USDT share one); while it keeps failing, again at most once a minute (an offline machine
   * would otherwise log the same failure every pass, or for every address); and once more when it
   * answers again. Each failed read is counted in the metrics,
   * once however many addresses waited on it (one listsinceblock, one block scan).
   */
  private reportNodes(failures: Map<string, NodeFailure>, answered: Map<string, { node: string; labels: ChainNodeLabels }>): void {
    const now = this.settings.now?.() ?? Date.now();
    const seconds = Math.round(this.settings.intervalMs / 1000);
    const failedNetworks = new Set<string>();
    for (const [node, { message, variable, networks, errors }] of failures) {
      for (const [error, labels] of errors) this.metrics?.chainNodeFailed(labels, error instanceof ChainNodeError ? error.reason : "other");
      for (const network of networks) failedNetworks.add(network);
      const network = [...networks].join(", ");
      const known = this.failing.get(node);
      if (known === undefined) {
        this.failing.set(node, { network, since: now, saidAt: now, unsaid: 0 });
        // A node on another chain is reachable: the variable must name one of the right chain.
        const wrongChain = [...errors.keys()].some((e) => e instanceof ChainNodeError && e.reason === "wrong_network");
        const target = wrongChain ? "a node on the right chain" : "a node this machine can reach";
        const remedy = variable ? ` (set ${variable} to ${target}, or to none to stop watching ${network})` : "";
        // warn: payments go unwatched while it lasts, and alerting on warnings must see it.
        this.log(
          `payment watcher: ${network}: ${message}; the addresses are read again every ${seconds} s, and this is said again at most once a minute while it lasts${remedy}`,
          "warn",
        );
      } else if (now - known.saidAt >= NODE_LOG_INTERVAL_MS) {
        const unsaid = known.unsaid + errors.size;
        this.log(
          `payment watcher: ${network}: still failing since ${new Date(known.since).toISOString()} (${unsaid} failed node read${unsaid === 1 ? "" : "s"} in the last ${Math.round((now - known.saidAt) / 1000)} s): ${message}`,
          "warn",
        );
        known.saidAt = now;
        known.unsaid = 0;
      } else {
        known.unsaid += errors.size;
      }
    }
    for (const [network, { node, labels }] of answered) {
      if (!failedNetworks.has(network)) this.metrics?.chainNodeAnswered(labels, new Date(now));
      const known = this.failing.get(node);
      if (known === undefined || failures.has(node)) continue;
      this.failing.delete(node);
      this.log(`payment watcher: ${known.network}: the node answers again (it failed for ${Math.round((now - known.since) / 1000)} s)`);
    }
  }
}

/** A read of a coin on a network in a mode: a payment's (the pass) or an own address's (the idle scan). */
interface ChainRead {
  currency: CryptoCurrency;
  network: NetworkSlug;
  isLive: boolean;
}

interface NodeRead {
  /** "ETH test", "USDT on bsc test". */
  network: string;
  labels: ChainNodeLabels;
  /** The variable that names the node, when the chains tell it. */
  variable: string | undefined;
  /** The node's key among the failing ones: its variable, else the read's name. */
  node: string;
}

interface NodeFailure {
  /** The first failure's message. */
  message: string;
  variable: string | undefined;
  /** The coins and modes read through the node that failed ("ETH test", "USDT test"). */
  networks: Set<string>;
  /** Each distinct error once, with the labels of the first read it failed: reads that share one request (a listsinceblock, a block scan) fail with the same error. */
  errors: Map<unknown, ChainNodeLabels>;
}
