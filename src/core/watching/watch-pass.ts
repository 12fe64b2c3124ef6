// One pass of the payment watcher (issue 45), as a use case: read each watched address's receipts
// from its chain node, leave alone what the store already shows (sameView), wait for a second read
// before counted receipts of a SUCCESSFUL transaction are taken for gone, and record the rest through
// the lifecycle (applyReceipts), which moves the transaction on. The job (src/jobs/payment-watcher.ts)
// only schedules passes, picks the instance's share and says what the nodes did (logs, metrics).
import { cryptoById, type CryptoCurrency } from "../money/currencies.ts";
import { networkOrDefault, type NetworkSlug } from "../networks.ts";
import type { ChainWatcher, ObservedReceipt } from "../ports.ts";
import type { WatchedAddress, WatchShare } from "../stores/transactions.ts";
import { counts, isFinal, type ReceiptUpdate } from "../transactions/lifecycle.ts";
import { requiredConfirmationsOf } from "../policies.ts";
import type { TransactionRecord } from "../records/transactions.ts";

/** An address a pass reads, as the chains are told of it before the reads (beginPass). */
export interface PassAddress {
  currency: CryptoCurrency;
  network: NetworkSlug;
  isLive: boolean;
  address: string;
  since: Date;
  /** What an EVM client needs of the receipts recorded (their keys). */
  receipts: readonly { key: string }[];
}

/**
 * The chain side of a pass (src/rails/chains implements it): the receipts at an address, whether a node
 * reads the coin on that network in that mode, and the pass's addresses first (to read each new block
 * once for all of them, not once per address) with the receipts recorded for each: a receipt missing
 * from a read is recorded as dropped, so one the chain still holds must be found even where the
 * watcher's scan does not reach (after a restart).
 */
export interface PassChains extends ChainWatcher {
  supports?(currency: CryptoCurrency, isLive: boolean, network?: NetworkSlug): boolean;
  beginPass?(payments: readonly PassAddress[]): void;
}

/** The payments' side of a pass: the watch list, and recording a read (watchList and applyReceipts in watched-payments.ts). */
export interface WatchedPayments {
  watchList(lateGraceMs: number, limit: number, share: WatchShare, finalityWatchMs: number): Promise<WatchedAddress[]>;
  applyReceipts(transactionId: string, update: ReceiptUpdate): Promise<TransactionRecord>;
  /**
   * A payment on a shared own address (TRON own-address mode): of the read, the receipts that are its
   * own; the rest are recorded as unmatched receipts (core/own-addresses/matching.ts). Absent: all are.
   */
  ownReceipts?(row: WatchedAddress, observed: ObservedReceipt[]): Promise<ObservedReceipt[]>;
}

export interface WatchPassSettings {
  /** Node requests under way at once. */
  concurrency: number;
  /** How long after it was abandoned an address is still watched for late payments. */
  lateGraceMs: number;
  /** On the payment's network (core/networks.ts; absent: the coin's default). */
  requiredConfirmations(currency: CryptoCurrency, network?: NetworkSlug): number;
  /**
   * Confirmations after which a SUCCESSFUL transaction's receipts are final and it leaves the watch
   * list (lifecycle.ts); none: final once counted.
   */
  finalityConfirmations?(currency: CryptoCurrency, network?: NetworkSlug): number;
  /** The longest a SUCCESSFUL transaction is watched for its finality after its window closed. Default 7 days. */
  finalityWatchMs?: number;
}

/** How long after its window closed a SUCCESSFUL transaction is at most watched for its finality (a node that never tells). */
export const FINALITY_WATCH_MS = 7 * 24 * 3_600_000;

/** One address's read, as a pass tells its observer. */
export interface PassRead {
  transactionId: string;
  currency: CryptoCurrency;
  network: NetworkSlug;
  isLive: boolean;
}

/** What the job hears of a pass, read by read (its logs and metrics). */
export interface PassObserver {
  /** The node did not answer for this address: nothing is recorded for it, and the next pass reads it again. */
  readFailed?(read: PassRead, error: unknown): void;
  answered?(read: PassRead): void;
  /** The payment left the chain after it succeeded (payment.reversed). */
  reversed?(read: PassRead): void;
}

export interface PassOutcome {
  watched: number;
  /** Addresses whose read was recorded. */
  changed: number;
  /** Reads the node failed, and records the store failed. */
  failed: number;
  /** The first error of the store (not of a node): the pass went on, and the job says it once. */
  storeError: { error: unknown } | null;
}

export class WatchPass {
  /**
   * SUCCESSFUL transactions whose counted receipts one read did not show (transaction id → their keys):
   * recorded gone, a reversal, only when the next read agrees. A node behind a load balancer, or a
   * read racing the node's mempool, can miss a transaction for a moment (an own node's wallet lagging
   * its mempool is handled in core-rpc.ts, checkMempool); a reversal is told once.
   */
  private readonly absentOnce = new Map<string, string>();

  constructor(
    private readonly payments: WatchedPayments,
    private readonly chains: PassChains,
    private readonly settings: WatchPassSettings,
  ) {}

  /** Reads and records `share`'s part of the watch list, at most `limit` addresses (the oldest deadlines first). */
  async run(share: WatchShare, limit: number, observer: PassObserver = {}): Promise<PassOutcome> {
    const { lateGraceMs, finalityWatchMs = FINALITY_WATCH_MS } = this.settings;
    const rows = await this.payments.watchList(lateGraceMs, limit, share, finalityWatchMs);
    const outcome: PassOutcome = { watched: 0, changed: 0, failed: 0, storeError: null };
    const queue = rows.flatMap((row) => {
      const currency = row.paymentCurrencyId === null ? undefined : cryptoById(row.paymentCurrencyId);
      if (!currency || row.paymentAddress === null || row.initiatedAt === null) return [];
      const network = networkOrDefault(currency.slug, row.paymentNetwork);
      if (this.chains.supports && !this.chains.supports(currency, row.isLive, network)) return [];
      return [{ row, currency, network, isLive: row.isLive, address: row.paymentAddress, since: row.initiatedAt, receipts: row.receipts }];
    });
    this.chains.beginPass?.([...queue]);
    const work = async () => {
      for (let item = queue.shift(); item; item = queue.shift()) {
        outcome.watched++;
        const read: PassRead = { transactionId: item.row.id, currency: item.currency, network: item.network, isLive: item.isLive };
        const recorded = await this.watch(item.row, read, item.address, item.since, observer);
        if (recorded === "read_failed") outcome.failed++;
        else if (recorded === "recorded") outcome.changed++;
        else if (recorded !== "unchanged") {
          outcome.failed++;
          outcome.storeError ??= recorded;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, this.settings.concurrency) }, work));
    return outcome;
  }

  /** One address: read, compare, record. A store error is returned (the pass goes on), not thrown. */
  private async watch(
    row: WatchedAddress,
    read: PassRead,
    address: string,
    since: Date,
    observer: PassObserver,
  ): Promise<"read_failed" | "unchanged" | "recorded" | { error: unknown }> {
    // The transaction's own confirmations for its coin (initialize's policy), else the operator's.
    const required = requiredConfirmationsOf(row, read.currency.slug, this.settings.requiredConfirmations(read.currency, read.network));
    let observed: ObservedReceipt[];
    try {
      observed = await this.chains.receiptsTo(read.currency, read.isLive, address, {
        since,
        requiredConfirmations: required,
        network: read.network,
        ...(row.status === "SUCCESSFUL" ? { settled: true } : {}),
      });
    } catch (error) {
      observer.readFailed?.(read, error);
      return "read_failed";
    }
    observer.answered?.(read);
    if (row.ownAddressIndex != null && this.payments.ownReceipts) {
      try {
        observed = await this.payments.ownReceipts(row, observed);
      } catch (error) {
        return { error };
      }
    }
    const finality = Math.max(required, this.settings.finalityConfirmations?.(read.currency, read.network) ?? required);
    // The second read first: a read that shows everything again forgets an earlier miss, so one missing
    // at reads one and three (not two) waits for read four to agree.
    if (awaitsSecondRead(this.absentOnce, row, observed)) return "unchanged";
    if (sameView(row, observed, required, finality)) return "unchanged";
    try {
      const recorded = await this.payments.applyReceipts(row.id, {
        receipts: observed,
        requiredConfirmations: required,
        finalityConfirmations: finality,
        source: "chain",
        complete: true,
      });
      if (recorded.reversedAt !== null && row.reversedAt === null) observer.reversed?.(read);
      return "recorded";
    } catch (error) {
      return { error };
    }
  }
}

/**
 * Whether counted receipts of a SUCCESSFUL transaction are missing from this read for the first time
 * (then nothing is recorded yet); `absentOnce` remembers, by transaction, the keys missing at the last read.
 */
export function awaitsSecondRead(absentOnce: Map<string, string>, item: WatchedAddress, observed: readonly ObservedReceipt[]): boolean {
  const seen = new Set(observed.map((o) => o.key));
  const gone = item.status === "SUCCESSFUL" ? item.receipts.filter((r) => r.status === "CONFIRMED" && !seen.has(r.key)).map((r) => r.key) : [];
  const key = gone.sort().join(" ");
  if (key === "" || absentOnce.get(item.id) === key) {
    absentOnce.delete(item.id);
    return false;
  }
  absentOnce.set(item.id, key);
  return true;
}

/**
 * Whether the node shows what is already recorded: same receipts and amounts, the confirmed ones
 * still confirmed, and the others with the same confirmations (a checkout shows their count).
 */
export function sameView(watched: WatchedAddress, observed: readonly ObservedReceipt[], required: number, finality: number): boolean {
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
