// Watches the payment addresses of open transactions through the chain nodes and feeds what it sees
// to the core (applyReceipts), which records it and moves the transaction on. It also keeps an eye
// on recently abandoned addresses, so that a late payment is recorded rather than lost. Instances on
// one PostgreSQL database share the addresses, each reading its part (src/core/transactions/watch-shares.ts).
import type { PaymentGateway } from "../core/gateway.ts";
import { cryptoById, type CryptoCurrency } from "../core/money/currencies.ts";
import { defaultNetworkOf, networkOrDefault, type NetworkSlug } from "../core/networks.ts";
import type { ChainWatcher, ObservedReceipt } from "../core/ports.ts";
import type { WatchedAddress } from "../core/stores/transactions.ts";
import { counts, isFinal } from "../core/transactions/lifecycle.ts";
import { requiredConfirmationsOf } from "../core/policies.ts";
import { ChainNodeError } from "../rails/chains/errors.ts";
import type { ConfiguredNode } from "../rails/chains/index.ts";
import type { ChainNodeLabels, WatcherMetrics } from "../observability/hooks.ts";
import { wholeWatchList, type WatchShare, type WatchShares } from "../core/transactions/watch-shares.ts";
import { type LineLog, Ticker } from "./ticker.ts";

export interface WatchSettings {
  intervalMs: number;
  /** Node requests under way at once. */
  concurrency: number;
  /** How long after it was abandoned an address is still watched for late payments. */
  lateGraceMs: number;
  /** On the payment's network (core/networks.ts; absent: the coin's default). */
  requiredConfirmations(currency: CryptoCurrency, network?: NetworkSlug): number;
  /**
   * Confirmations after which a SUCCESSFUL transaction's receipts are final and it leaves the watch
   * list (src/core/transactions/lifecycle.ts); none: final once counted.
   */
  finalityConfirmations?(currency: CryptoCurrency, network?: NetworkSlug): number;
  /** The longest a SUCCESSFUL transaction is watched for its finality after its window closed. Default 7 days. */
  finalityWatchMs?: number;
  /** Milliseconds since the epoch (tests). Default Date.now. */
  now?: () => number;
}

/** While a node keeps failing, its failure is said again at most this often. */
const NODE_LOG_INTERVAL_MS = 60_000;

/**
 * A chain watcher that may say which networks it has a node for, which variable names each node, and
 * want the pass's addresses first (to read each new block once for all of them, not once per address),
 * with the receipts recorded for each: a receipt missing from a read is recorded as dropped, so one the
 * chain still holds must be found even where the watcher's scan does not reach (after a restart).
 */
export type ConfiguredChains = ChainWatcher & {
  supports?(currency: CryptoCurrency, isLive: boolean, network?: NetworkSlug): boolean;
  nodeVariable?(currency: CryptoCurrency, isLive: boolean, network?: NetworkSlug): string;
  /** The kind of node that reads the currency in that mode (esplora, core, evm): the metrics' `backend`. */
  backendOf?(currency: CryptoCurrency, isLive: boolean, network?: NetworkSlug): string | undefined;
  /** Each configured node once, with the coins it reads and its start-up check (checked when the watcher starts). */
  nodes?(): readonly ConfiguredNode[];
  beginPass?(
    payments: readonly {
      currency: CryptoCurrency;
      network: NetworkSlug;
      isLive: boolean;
      address: string;
      since: Date;
      /** What an EVM client needs of the receipts recorded (their keys). */
      receipts: readonly { key: string }[];
    }[],
  ): void;
};

export interface WatchReport {
  /** This instance's part of the watch list at this pass; null when it had none (no pass was made). */
  share: WatchShare | null;
  watched: number;
  changed: number;
  failed: number;
}

/** How long after its window closed a SUCCESSFUL transaction is at most watched for its finality (a node that never tells). */
const FINALITY_WATCH_MS = 7 * 24 * 3_600_000;

/** The most addresses one pass of one instance looks at; the oldest deadlines first. */
const MAX_PER_PASS = 10_000;

export class PaymentWatcher extends Ticker {
  /** Failing nodes (by the variable that names them): the networks said, since when, when it was last said, and the failed reads since. */
  private readonly failing = new Map<string, { network: string; since: number; saidAt: number; unsaid: number }>();
  /**
   * SUCCESSFUL transactions whose counted receipts one read did not show (transaction id → their keys):
   * recorded gone, a reversal, only when the next read agrees. A node behind a load balancer, or a
   * read racing the node's mempool, can miss a transaction for a moment (an own node's wallet lagging
   * its mempool is handled in core-rpc.ts, checkMempool); a reversal is told once.
   */
  private readonly absentOnce = new Map<string, string>();

  constructor(
    private readonly gateway: PaymentGateway,
    private readonly chains: ConfiguredChains,
    private readonly settings: WatchSettings,
    log: LineLog = () => {},
    /** Several instances on one database: each reads its share of the addresses. */
    private readonly shares: WatchShares = wholeWatchList,
    /** Pass durations and addresses per pass (GET /metrics). */
    private readonly metrics?: WatcherMetrics,
  ) {
    super("payment watcher", settings.intervalMs, log);
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
    const rows = await this.gateway.watchList(this.settings.lateGraceMs, MAX_PER_PASS, share, this.settings.finalityWatchMs ?? FINALITY_WATCH_MS);
    const report: WatchReport = { share, watched: 0, changed: 0, failed: 0 };
    /** By node (the variable that names it: ETH and USDT share one), what failed; by network, what was read. */
    const failures = new Map<string, NodeFailure>();
    const answered = new Map<string, { node: string; labels: ChainNodeLabels }>();
    let storeError: unknown = null;
    const queue = rows.flatMap((row) => {
      const currency = row.paymentCurrencyId === null ? undefined : cryptoById(row.paymentCurrencyId);
      if (!currency || row.paymentAddress === null || row.initiatedAt === null) return [];
      const network = networkOrDefault(currency.slug, row.paymentNetwork);
      if (this.chains.supports && !this.chains.supports(currency, row.isLive, network)) return [];
      return [{ ...row, currency, network, address: row.paymentAddress, since: row.initiatedAt }];
    });
    this.chains.beginPass?.([...queue]);
    const work = async () => {
      for (let item = queue.shift(); item; item = queue.shift()) {
        report.watched++;
        // The transaction's own confirmations for its coin (initialize's policy), else the operator's.
        const required = requiredConfirmationsOf(item, item.currency.slug, this.settings.requiredConfirmations(item.currency, item.network));
        const { network, labels, variable, node } = this.describeRead(item.currency, item.network, item.isLive);
        let observed: ObservedReceipt[];
        try {
          observed = await this.chains.receiptsTo(item.currency, item.isLive, item.address, {
            since: item.since,
            requiredConfirmations: required,
            network: item.network,
            ...(item.status === "SUCCESSFUL" ? { settled: true } : {}),
          });
        } catch (error) {
          // Nothing is recorded for this address: the next pass reads it again.
          report.failed++;
          const failure = failures.get(node) ?? { message: (error as Error).message, variable, networks: new Set<string>(), errors: new Map() };
          failure.networks.add(network);
          if (!failure.errors.has(error)) failure.errors.set(error, labels);
          failures.set(node, failure);
          continue;
        }
        answered.set(network, { node, labels });
        const finality = Math.max(required, this.settings.finalityConfirmations?.(item.currency, item.network) ?? required);
        if (sameView(item, observed, required, finality)) continue;
        if (this.awaitsSecondRead(item, observed)) continue;
        try {
          const recorded = await this.gateway.applyReceipts(item.id, {
            receipts: observed,
            requiredConfirmations: required,
            finalityConfirmations: finality,
            source: "chain",
            complete: true,
          });
          report.changed++;
          if (recorded.reversedAt !== null && item.reversedAt === null) {
            this.metrics?.paymentReversed?.(item.currency.slug);
            this.log(`payment watcher: ${network}: the payment of transaction ${item.id} left the chain after it succeeded (payment.reversed)`);
          }
        } catch (error) {
          // The database, not the node: the pass goes on, and the ticker says it once at the end.
          report.failed++;
          storeError ??= error;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, this.settings.concurrency) }, work));
    this.reportNodes(failures, answered);
    this.metrics?.watchPass(report, (performance.now() - started) / 1000);
    if (storeError !== null) throw storeError;
    return report;
  }

  /** Whether counted receipts of a SUCCESSFUL transaction are missing from this read for the first time (then nothing is recorded yet). */
  private awaitsSecondRead(item: WatchedAddress, observed: ObservedReceipt[]): boolean {
    const seen = new Set(observed.map((o) => o.key));
    const gone = item.status === "SUCCESSFUL" ? item.receipts.filter((r) => r.status === "CONFIRMED" && !seen.has(r.key)).map((r) => r.key) : [];
    const key = gone.sort().join(" ");
    if (key === "" || this.absentOnce.get(item.id) === key) {
      this.absentOnce.delete(item.id);
      return false;
    }
    this.absentOnce.set(item.id, key);
    return true;
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

/**
 * Whether the node shows what is already recorded: same receipts and amounts, the confirmed ones
 * still confirmed, and the others with the same confirmations (a checkout shows their count).
 */
function sameView(watched: WatchedAddress, observed: ObservedReceipt[], required: number, finality: number): boolean {
  const stored = watched.receipts;
  if (stored.length !== observed.length) return false;
  // A SUCCESSFUL transaction whose receipts all reached finality: recorded, so that it leaves the list.
  if (watched.status === "SUCCESSFUL" && observed.every((o) => isFinal(o, finality))) return false;
  const byKey = new Map(stored.map((s) => [s.key, s]));
  return observed.every((o) => {
    const s = byKey.get(o.key);
    if (s === undefined || !o.amount.eq(s.amount.toString())) return false;
    if (s.replaceable !== (o.confirmations === 0 && o.replaceable === true)) return false;
    // Until final, a SUCCESSFUL transaction's receipts show their depth block by block (a write per block, not per pass).
    if (watched.status === "SUCCESSFUL" && s.confirmations !== o.confirmations) return false;
    return counts(o, required) ? s.status === "CONFIRMED" : s.status === "SEEN" && s.confirmations === o.confirmations;
  });
}
