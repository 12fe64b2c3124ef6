// Live updates of one transaction (GraphQL `transactionUpdated`): its state now, then again after
// each change any instance commits. The process listens once (TransactionChanges); a map of
// transaction id → followers fans each notification out, so a subscriber costs no connection.
import type { CoreDeps } from "../deps.ts";
import { errors, isDatabaseOutage } from "../errors.ts";
import type { TransactionChange, TransactionChanges } from "../stores.ts";
import { findTransactionFor, type TransactionRecord } from "./record.ts";
import type { Caller } from "../merchants/credentials.ts";
import { retrieveTransaction } from "./retrieve.ts";

/** One state of a followed transaction, with the caller it is shown to. */
export interface TransactionUpdate {
  transaction: TransactionRecord;
  caller: Caller;
}

/** Longest wait before re-reading after the database failed a read (it also announces `resync` when back). */
const RETRY_MAX_MS = 5_000;

/** Who follows which transaction, in this process. */
export class TransactionFollowers {
  private readonly byId = new Map<string, Set<() => void>>();
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly changes: TransactionChanges) {}

  /** Calls `wake` after each change of the transaction (and after a resync) until the returned function is called. */
  follow(transactionId: string, wake: () => void): () => void {
    this.unsubscribe ??= this.changes.subscribe(this.onChange);
    const id = transactionId.toLowerCase();
    let set = this.byId.get(id);
    if (!set) {
      set = new Set();
      this.byId.set(id, set);
    }
    set.add(wake);
    return () => {
      set.delete(wake);
      if (set.size === 0 && this.byId.get(id) === set) this.byId.delete(id);
    };
  }

  /** Transactions followed now (for tests and metrics). */
  get followed(): number {
    return this.byId.size;
  }

  private readonly onChange = (change: TransactionChange): void => {
    if (change.kind === "resync") {
      for (const set of this.byId.values()) for (const wake of [...set]) wake();
      return;
    }
    for (const wake of [...(this.byId.get(change.transactionId) ?? [])]) wake();
  };
}

/**
 * Authorizes once, as a read of the transaction (another merchant's or mode's transaction, or an
 * id of no transaction, is not found), then streams it: first its state now, then after each
 * change. Notifications that arrive while a read is under way coalesce into one more read, and a
 * read that shows nothing new (a resync, a receipt's confirmation count) yields nothing. Never
 * ends by itself (an abandoned transaction can still receive a late payment): the consumer calls
 * `return()`.
 */
export async function transactionUpdates(
  deps: Pick<CoreDeps, "stores" | "credentials">,
  followers: TransactionFollowers,
  bearerToken: string | undefined,
  id: string,
): Promise<AsyncIterableIterator<TransactionUpdate> & { return(): Promise<IteratorResult<TransactionUpdate>> }> {
  const { transaction, caller } = await retrieveTransaction(deps, bearerToken, id);
  if (!transaction) throw errors.transactionNotFound(id);
  const stream = new UpdateStream(
    async () => {
      const current = await findTransactionFor(deps.stores.transactions, transaction.id, caller.merchant.id, caller.isLive);
      return current && { transaction: current, caller };
    },
    (wake) => followers.follow(transaction.id, wake),
  );
  stream.seed({ transaction, caller });
  return stream;
}

/**
 * What a subscriber can see of a transaction: a read that changes none of it is not sent again. The
 * whole row but its bookkeeping, so that a column added later (confirmations, say) counts by itself.
 */
export function visibleState(t: TransactionRecord): string {
  const { updatedAt: _updatedAt, clientSecretEnc: _sealed, ...shown } = t;
  return JSON.stringify(shown);
}

/**
 * A hand-written iterator rather than an async generator: a generator's `return()` waits behind a
 * pending `next()`, so a client that leaves while nothing changes would stay followed until the
 * next change. Here `return()` stops following at once and ends the pending `next()`.
 */
class UpdateStream implements AsyncIterableIterator<TransactionUpdate> {
  private closed = false;
  private dirty = false;
  private waiting: (() => void) | null = null;
  private seeded: TransactionUpdate | null = null;
  private lastSent: string | null = null;
  private readonly unfollow: () => void;

  constructor(
    private readonly read: () => Promise<TransactionUpdate | null>,
    follow: (wake: () => void) => () => void,
  ) {
    // Followed before the first state is sent, so no change between the two is missed.
    this.unfollow = follow(this.wake);
  }

  seed(first: TransactionUpdate): void {
    this.seeded = first;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<TransactionUpdate>> {
    if (this.seeded) {
      const first = this.seeded;
      this.seeded = null;
      this.lastSent = visibleState(first.transaction);
      return { done: false, value: first };
    }
    let failures = 0;
    for (;;) {
      if (this.closed) return { done: true, value: undefined };
      if (!this.dirty) {
        await new Promise<void>((resolve) => {
          this.waiting = resolve;
        });
        continue;
      }
      this.dirty = false;
      let current: TransactionUpdate | null;
      try {
        current = await this.read();
      } catch (error) {
        if (!isDatabaseOutage(error)) {
          await this.return();
          throw error;
        }
        // The database is away: try again later (or sooner, when the listener is back and resyncs).
        failures++;
        this.dirty = true;
        await this.sleep(Math.min(RETRY_MAX_MS, 100 * 2 ** failures));
        continue;
      }
      failures = 0;
      if (this.closed || current === null) return this.return();
      const state = visibleState(current.transaction);
      if (state === this.lastSent) continue;
      this.lastSent = state;
      return { done: false, value: current };
    }
  }

  async return(): Promise<IteratorResult<TransactionUpdate>> {
    if (!this.closed) {
      this.closed = true;
      this.unfollow();
      this.release();
    }
    return { done: true, value: undefined };
  }

  private readonly wake = (): void => {
    this.dirty = true;
    this.release();
  };

  private release(): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting = null;
        resolve();
      }, ms);
      this.waiting = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
