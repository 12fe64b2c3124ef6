// What one process remembers between a payment's initialize and its initiate, so that the initiate of a
// transaction this process initialized is one statement (the move) where it was two (the read, then the
// move): the transaction's row as initialize wrote it, the merchant's pricing and default network as
// last read, and indexes of the wallet leased a few at a time (issue 47: each round trip costs both
// processes a socket write and a statement's start and commit, more than the work in it).
//
// Nothing here decides anything the database does not check again. The move is conditional on the
// transaction being INITIATED, on the lease's token and on the wallet still being the merchant's for
// the coin, so a remembered row or lease that went stale fails the move as it would have failed the
// read. The pricing and default network are remembered as long as the caller's key is (the credential
// cache's PAYGATE_CREDENTIAL_CACHE_MS): a change made in this process is forgotten at once, one made
// elsewhere applies here within that time. With that time 0 (the default in tests) nothing is remembered.
import { LRUCache } from "lru-cache";
import type { MerchantPricingRow } from "../../core/stores/merchants.ts";
import { TRANSACTION_COLUMNS } from "../../core/records/transactions.ts";
import type { IndexLease } from "../../core/stores/transactions.ts";
import { Prisma, type Transaction } from "../generated/client.ts";

/** The merchant's settings initiate reads with its transaction, for one coin and mode. */
export interface InitiateSettings {
  pricing: MerchantPricingRow | null;
  defaultNetwork: string | null;
}

/** A lease kept for this process's next initiates, with when it runs out. */
export interface PooledLease {
  lease: IndexLease;
  until: Date;
}

/** Initialized rows remembered at most (about 0.5 KB each as text), and for how long: an initiate usually follows within minutes. */
const ROWS = 20_000;
const ROWS_MS = 15 * 60_000;

/**
 * A row is remembered as the JSON text of its values in the order of TRANSACTION_COLUMNS: one string,
 * where the row itself is some twenty objects (its decimals, dates and strings) that the garbage collector
 * marks and moves while the row waits for its initiate; under initialize's load they filled the old generation
 * (docs/benchmarks.md, issue 47). A column of Prisma's model missing from the list, or a Decimal or
 * DateTime column not read back into its type below, fails to compile.
 */
const DECIMALS = [
  "initializedAmount",
  "paymentAmount",
  "amountPaid",
  "amountUnconfirmed",
  "quoteRate",
  "quoteMarketRate",
  "quoteSpreadPercent",
  "policyUnderpaymentTolerance",
  "policyLatePaymentPercent",
] as const satisfies readonly ColumnsOf<Prisma.Decimal>[];
const DATES = [
  "quotedAt",
  "initiatedAt",
  "expiresAt",
  "reversedAt",
  "finalAt",
  "createdAt",
  "updatedAt",
] as const satisfies readonly ColumnsOf<Date>[];
const DECIMAL_COLUMNS = new Set<string>(DECIMALS);
const DATE_COLUMNS = new Set<string>(DATES);

type ColumnsOf<V> = { [K in keyof Transaction]-?: NonNullable<Transaction[K]> extends V ? K : never }[keyof Transaction];
// Each holds when its set is complete: a new column of the kind, left out, makes it a type error.
type Unlisted =
  | Exclude<keyof Transaction, (typeof TRANSACTION_COLUMNS)[number]>
  | Exclude<ColumnsOf<Prisma.Decimal>, (typeof DECIMALS)[number]>
  | Exclude<ColumnsOf<Date>, (typeof DATES)[number]>;
const everyColumnListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyColumnListed;

/** The row as remembered: JSON keeps a Decimal's exact digits (its string) and a Date's milliseconds (ISO 8601). */
export function rowText(row: Transaction): string {
  return JSON.stringify(TRANSACTION_COLUMNS.map((column) => row[column]));
}

/** The row again, with its decimals and dates as Prisma gives them. */
export function rowOfText(text: string): Transaction {
  const values = JSON.parse(text) as unknown[];
  const row: Record<string, unknown> = {};
  TRANSACTION_COLUMNS.forEach((column, i) => {
    const value = values[i];
    if (typeof value === "string" && DECIMAL_COLUMNS.has(column)) row[column] = new Prisma.Decimal(value);
    else if (typeof value === "string" && DATE_COLUMNS.has(column)) row[column] = new Date(value);
    else row[column] = value;
  });
  return row as unknown as Transaction;
}

const lentKey = (lease: IndexLease) => `${lease.walletId}:${lease.slot}:${lease.token}`;
const settingsKey = (merchantId: number, currencyId: number, isLive: boolean) => `${merchantId}:${currencyId}:${isLive}`;

export class InitiateMemory {
  private readonly rows: LRUCache<string, string>;
  /**
   * The settings as last read, and when: used for the settings' time, and kept past it as a guess of
   * the default network (which pool a read may take its lease from).
   */
  private readonly settings: LRUCache<string, InitiateSettings & { merchantId: number; readAt: number }>;
  private readonly settingsMs: number;
  private readonly now: () => number;
  private readonly pools = new Map<string, PooledLease[]>();
  /** Leases taken from a pool and not yet used or given back, by slot and token: a given-back one returns to its pool. */
  private readonly lent: LRUCache<string, { key: string; until: Date }>;

  /** `now`: the gateway's clock in milliseconds, by which what is remembered runs out (a test moves it). */
  constructor(settingsMs: number, now: () => number = () => performance.now()) {
    const perf = { now };
    this.settingsMs = settingsMs;
    this.now = now;
    this.rows = new LRUCache({ max: ROWS, ttl: ROWS_MS, perf });
    this.settings = new LRUCache({ max: 10_000, ttl: ROWS_MS, perf });
    this.lent = new LRUCache({ max: 10_000, ttl: 10 * 60_000, perf });
  }

  rememberInitialized(row: Transaction): void {
    this.rows.set(row.id, rowText(row));
  }

  /** The row this process initialized, if it is the merchant's in the mode (else the read answers). */
  initialized(id: string, merchantId: number, isLive: boolean): Transaction | null {
    const text = this.rows.get(id);
    const row = text === undefined ? null : rowOfText(text);
    return row && row.merchantId === merchantId && row.isLive === isLive ? row : null;
  }

  /** After a move, whatever its outcome: the row is no longer INITIATED, or the read must say why. */
  forgetTransaction(id: string): void {
    this.rows.delete(id);
  }

  /** The settings as last read, while within the settings' time; else null (the read answers). */
  settingsFor(merchantId: number, currencyId: number, isLive: boolean): InitiateSettings | null {
    const entry = this.settings.get(settingsKey(merchantId, currencyId, isLive));
    if (!entry || this.now() - entry.readAt >= this.settingsMs) return null;
    return { pricing: entry.pricing, defaultNetwork: entry.defaultNetwork };
  }

  rememberSettings(merchantId: number, currencyId: number, isLive: boolean, settings: InitiateSettings): void {
    // spread: once per merchant, coin and mode within the settings' time, not per request.
    this.settings.set(settingsKey(merchantId, currencyId, isLive), { ...settings, merchantId, readAt: this.now() });
  }

  /**
   * The default network last read, though its time is over (undefined if none was read): a guess, good
   * enough to take a pooled lease for the read, which returns the true one; the initiate releases a lease
   * of the wrong wallet and leases again (core/transactions/initiate.ts).
   */
  lastDefaultNetwork(merchantId: number, currencyId: number, isLive: boolean): string | null | undefined {
    return this.settings.get(settingsKey(merchantId, currencyId, isLive))?.defaultNetwork;
  }

  /**
   * A lease of the wallet's pool (`key`: the merchant, coin, network and mode, index-leases.ts) with at least
   * `leftMs` to run at `now`, lowest index first; null if none is pooled.
   */
  takeLease(key: string, now: Date, leftMs: number): IndexLease | null {
    const pool = this.pools.get(key);
    while (pool && pool.length > 0) {
      const next = pool.shift();
      if (next && next.until.getTime() - now.getTime() >= leftMs) {
        this.lent.set(lentKey(next.lease), { key, until: next.until });
        return next.lease;
      }
      // Too close to its end: left to run out (the slot frees itself), never handed to a payment.
    }
    return null;
  }

  pooledCount(key: string): number {
    return this.pools.get(key)?.length ?? 0;
  }

  /** A lease taken from a pool and not used: back to it (true), else false (it was not pooled: the caller frees it). */
  returnLease(lease: IndexLease): boolean {
    const lent = this.lent.get(lentKey(lease));
    if (!lent) return false;
    this.lent.delete(lentKey(lease));
    this.poolLeases(lent.key, [{ lease, until: lent.until }]);
    return true;
  }

  /** A lease used by a move: no longer lent. */
  used(lease: IndexLease): void {
    this.lent.delete(lentKey(lease));
  }

  poolLeases(key: string, leases: PooledLease[]): void {
    if (leases.length === 0) return;
    const pool = [...(this.pools.get(key) ?? []), ...leases].sort((a, b) => a.lease.index - b.lease.index);
    this.pools.set(key, pool);
  }

  /** The pooled leases of a wallet, removed (one of them was found lost, or the wallet is no longer the merchant's). */
  drainWallet(walletId: number): IndexLease[] {
    const drained: IndexLease[] = [];
    // A pool may hold two wallets' leases for a while: the old one's, and the new one's leased after a change elsewhere.
    for (const [key, pool] of this.pools) {
      const kept = pool.filter((pooled) => pooled.lease.walletId !== walletId);
      drained.push(...pool.filter((pooled) => pooled.lease.walletId === walletId).map((pooled) => pooled.lease));
      if (kept.length === 0) this.pools.delete(key);
      else this.pools.set(key, kept);
    }
    return drained;
  }

  /** The merchant's settings or wallets changed in this process: forgotten, and its pooled leases handed back to be released. */
  forgetMerchant(merchantId: number): IndexLease[] {
    for (const [key, entry] of this.settings.entries()) if (entry.merchantId === merchantId) this.settings.delete(key);
    const drained: IndexLease[] = [];
    for (const [key, pool] of this.pools) {
      if (!key.startsWith(`${merchantId}:`)) continue;
      drained.push(...pool.map((pooled) => pooled.lease));
      this.pools.delete(key);
    }
    return drained;
  }
}
