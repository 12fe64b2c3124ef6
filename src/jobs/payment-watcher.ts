// Watches the payment addresses of open transactions through the chain nodes and feeds what it sees
// to the core (applyReceipts), which records it and moves the transaction on. It also keeps an eye
// on recently abandoned addresses, so that a late payment is recorded rather than lost. Instances on
// one PostgreSQL database share the addresses, each reading its part (src/jobs/watch-shares.ts).
import type { PaymentGateway } from "../core/gateway.ts";
import { cryptoById, type CryptoCurrency } from "../core/money/currencies.ts";
import type { ChainWatcher, ObservedReceipt } from "../core/ports.ts";
import type { WatchedAddress } from "../core/stores.ts";
import type { WatcherMetrics } from "../observability/hooks.ts";
import { wholeWatchList, type WatchShare, type WatchShares } from "./watch-shares.ts";
import { Ticker } from "./ticker.ts";

export interface WatchSettings {
  intervalMs: number;
  /** Node requests under way at once. */
  concurrency: number;
  /** How long after it was abandoned an address is still watched for late payments. */
  lateGraceMs: number;
  requiredConfirmations(currency: CryptoCurrency): number;
}

/**
 * A chain watcher that may say which networks it has a node for, which variable names each node, and
 * want the pass's addresses first (to read each new block once for all of them, not once per address),
 * with the receipts recorded for each: a receipt missing from a read is recorded as dropped, so one the
 * chain still holds must be found even where the watcher's scan does not reach (after a restart).
 */
export type ConfiguredChains = ChainWatcher & {
  supports?(currency: CryptoCurrency, isLive: boolean): boolean;
  nodeVariable?(currency: CryptoCurrency, isLive: boolean): string;
  beginPass?(
    payments: readonly { currency: CryptoCurrency; isLive: boolean; address: string; since: Date; receipts: WatchedAddress["receipts"] }[],
  ): void;
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
  /** Networks whose node failed at the last pass: said once, then quiet until it answers again. */
  private readonly unreachable = new Set<string>();

  constructor(
    private readonly gateway: PaymentGateway,
    private readonly chains: ConfiguredChains,
    private readonly settings: WatchSettings,
    log: (line: string) => void = () => {},
    /** Several instances on one database: each reads its share of the addresses. */
    private readonly shares: WatchShares = wholeWatchList,
    /** Pass durations and addresses per pass (GET /metrics). */
    private readonly metrics?: WatcherMetrics,
  ) {
    super("payment watcher", settings.intervalMs, log);
  }

  override async stop(): Promise<void> {
    await super.stop();
    await this.shares.release();
  }

  async tick(): Promise<WatchReport> {
    const share = await this.shares.current();
    if (share === null) return { share, watched: 0, changed: 0, failed: 0 };
    const started = performance.now();
    const rows = await this.gateway.watchList(this.settings.lateGraceMs, MAX_PER_PASS, share);
    const report: WatchReport = { share, watched: 0, changed: 0, failed: 0 };
    const failures = new Map<string, { message: string; variable: string | undefined }>();
    const answered = new Set<string>();
    const queue = rows.flatMap((row) => {
      const currency = row.paymentCurrencyId === null ? undefined : cryptoById(row.paymentCurrencyId);
      if (!currency || row.paymentAddress === null || row.initiatedAt === null) return [];
      if (this.chains.supports && !this.chains.supports(currency, row.isLive)) return [];
      return [{ ...row, currency, address: row.paymentAddress, since: row.initiatedAt }];
    });
    this.chains.beginPass?.([...queue]);
    const work = async () => {
      for (let item = queue.shift(); item; item = queue.shift()) {
        report.watched++;
        const required = this.settings.requiredConfirmations(item.currency);
        const network = `${item.currency.slug} ${item.isLive ? "live" : "test"}`;
        try {
          const observed = await this.chains.receiptsTo(item.currency, item.isLive, item.address, {
            since: item.since,
            requiredConfirmations: required,
          });
          answered.add(network);
          if (sameView(item.receipts, observed, required)) continue;
          await this.gateway.applyReceipts(item.id, { receipts: observed, requiredConfirmations: required, source: "chain", complete: true });
          report.changed++;
        } catch (error) {
          report.failed++;
          failures.set(network, { message: (error as Error).message, variable: this.chains.nodeVariable?.(item.currency, item.isLive) });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, this.settings.concurrency) }, work));
    this.reportNodes(failures, answered);
    this.metrics?.watchPass(report, (performance.now() - started) / 1000);
    return report;
  }

  /**
   * A node that fails is said once, with what to do about it; the passes after it stay quiet until
   * the node answers again (an offline machine would otherwise log the same failure every pass).
   */
  private reportNodes(failures: Map<string, { message: string; variable: string | undefined }>, answered: Set<string>): void {
    const seconds = Math.round(this.settings.intervalMs / 1000);
    for (const [network, { message, variable }] of failures) {
      if (this.unreachable.has(network)) continue;
      this.unreachable.add(network);
      const remedy = variable ? ` (set ${variable} to a node this machine can reach, or to none to stop watching ${network})` : "";
      this.log(
        `payment watcher: ${network}: ${message}; the addresses are read again every ${seconds} s, with no further message until the node answers${remedy}`,
      );
    }
    for (const network of answered) {
      if (!failures.has(network) && this.unreachable.delete(network)) this.log(`payment watcher: ${network}: the node answers again`);
    }
  }
}

/**
 * Whether the node shows what is already recorded: same receipts and amounts, the confirmed ones
 * still confirmed, and the others with the same confirmations (a checkout shows their count).
 */
function sameView(stored: WatchedAddress["receipts"], observed: ObservedReceipt[], required: number): boolean {
  if (stored.length !== observed.length) return false;
  const byKey = new Map(stored.map((s) => [s.key, s]));
  return observed.every((o) => {
    const s = byKey.get(o.key);
    if (s === undefined || !o.amount.eq(s.amount.toString())) return false;
    return o.confirmations >= required ? s.status === "CONFIRMED" : s.status === "SEEN" && s.confirmations === o.confirmations;
  });
}
