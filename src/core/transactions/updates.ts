// Live updates of one transaction (GraphQL `transactionUpdated`): its state now, then again after
// each change any instance commits. The process listens once (TransactionChanges); per transaction,
// one shared read (the row, and its receipts once it has any) follows each change and its result is
// handed to every subscriber, so a change costs one read however many subscribers the transaction has.
import type { CoreDeps } from "../deps.ts";
import { errors, isDatabaseOutage, PaygateError } from "../errors.ts";
import type { Caller } from "../credentials.ts";
import type { TransactionChange, TransactionChanges } from "../stores/transaction-changes.ts";
import { receiptsOf, type TransactionReceipt } from "./receipts.ts";
import { findTransactionFor } from "./record.ts";
import type { TransactionRecord } from "../records/transactions.ts";
import { retrieveTransaction } from "./retrieve.ts";

/** One state of a followed transaction, with the caller it is shown to. */
export interface TransactionUpdate {
  transaction: TransactionRecord;
  /** Its receipts as read with it (first seen first), so a subscriber's reply reads nothing more. */
  receipts: TransactionReceipt[];
  caller: Caller;
}

/** A transaction as one shared read found it. */
interface ReadState {
  transaction: TransactionRecord;
  receipts: TransactionReceipt[];
}

/** Longest wait before re-reading after the database failed a read (it also announces `resync` when back). */
const RETRY_MAX_MS = 5_000;

/** How often the API keys that opened live updates are checked again: a revoked or expired key's streams end. */
export const CREDENTIAL_RECHECK_MS = 10_000;

/** What a shared read hands each subscriber of a transaction. */
interface Follower {
  /** The transaction now and its visible state (visibleState), or null: it is gone for this reader. */
  offer(read: ReadState | null, state: string | null): void;
  /** The read failed for another reason than an outage: the subscriber ends with it. */
  fail(error: unknown): void;
}

/** The followers of one transaction and the one read they share. */
class SharedTransaction {
  readonly followers = new Set<Follower>();
  private reading = false;
  private dirty = false;
  private failures = 0;

  constructor(private readonly read: () => Promise<ReadState | null>) {}

  /** A change: read once (a change during a read makes one more read after it). */
  refresh(): void {
    if (this.reading) {
      this.dirty = true;
      return;
    }
    void this.readLoop();
  }

  private async readLoop(): Promise<void> {
    this.reading = true;
    try {
      do {
        this.dirty = false;
        let current: ReadState | null;
        try {
          current = await this.read();
        } catch (error) {
          if (!isDatabaseOutage(error)) {
            for (const follower of [...this.followers]) follower.fail(error);
            return;
          }
          // The database is away: try again later (or sooner: the listener resyncs when it is back).
          this.failures++;
          this.dirty = true;
          await new Promise((resolve) => setTimeout(resolve, Math.min(RETRY_MAX_MS, 100 * 2 ** this.failures)));
          continue;
        }
        this.failures = 0;
        const state = current && visibleState(current.transaction, current.receipts);
        for (const follower of [...this.followers]) follower.offer(current, state);
      } while (this.dirty && this.followers.size > 0);
    } finally {
      this.reading = false;
    }
  }
}

/** Who follows which transaction, in this process; one shared read per transaction and change. */
export class TransactionFollowers {
  private readonly byId = new Map<string, SharedTransaction>();
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly changes: TransactionChanges) {}

  /**
   * Hands `follower` each state of the transaction after each change (and after a resync) until the
   * returned function is called. `read` reads it for every follower: all of a transaction's
   * followers reach it in the same merchant and mode, so the first one's read serves them all.
   */
  follow(transactionId: string, read: () => Promise<ReadState | null>, follower: Follower): () => void {
    this.unsubscribe ??= this.changes.subscribe(this.onChange, ["changed"]);
    const id = transactionId.toLowerCase();
    let shared = this.byId.get(id);
    if (!shared) {
      shared = new SharedTransaction(read);
      this.byId.set(id, shared);
    }
    shared.followers.add(follower);
    return () => {
      shared.followers.delete(follower);
      if (shared.followers.size === 0 && this.byId.get(id) === shared) this.byId.delete(id);
    };
  }

  /** Transactions followed now (for tests and metrics). */
  get followed(): number {
    return this.byId.size;
  }

  private readonly onChange = (change: TransactionChange): void => {
    if (change.kind === "resync") {
      for (const shared of this.byId.values()) shared.refresh();
      return;
    }
    if (change.kind === "changed") this.byId.get(change.transactionId)?.refresh();
  };
}

/**
 * The API keys that opened live updates, each re-checked every CREDENTIAL_RECHECK_MS (one check per
 * key, however many streams it opened) and at once when this process rolls it: the streams of a
 * key that no longer authenticates end. Client secrets are never revoked and are not followed.
 */
export class LiveCredentials {
  private readonly byToken = new Map<string, { ends: Set<() => void>; timer: ReturnType<typeof setInterval> }>();

  constructor(
    private readonly credentials: Pick<CoreDeps["credentials"], "authenticateReader">,
    private readonly recheckMs = CREDENTIAL_RECHECK_MS,
  ) {}

  /** Calls `end` once `token` stops authenticating, until the returned function is called. */
  hold(token: string, caller: Caller, end: () => void): () => void {
    if (caller.keyKind === "CLIENT_SECRET") return () => {};
    let entry = this.byToken.get(token);
    if (!entry) {
      const timer = setInterval(() => void this.recheck(token), this.recheckMs);
      timer.unref();
      entry = { ends: new Set(), timer };
      this.byToken.set(token, entry);
    }
    const held = entry;
    held.ends.add(end);
    return () => {
      held.ends.delete(end);
      if (held.ends.size === 0) this.forget(token);
    };
  }

  /** Checks every held key now (this process rolled a key: its streams end at once, not at the next check). */
  async recheckAll(): Promise<void> {
    await Promise.all([...this.byToken.keys()].map((token) => this.recheck(token)));
  }

  /** How many keys are held (for tests). */
  get held(): number {
    return this.byToken.size;
  }

  private async recheck(token: string): Promise<void> {
    try {
      await this.credentials.authenticateReader(token);
    } catch (error) {
      // Only a refusal ends the streams; an outage leaves them to the next check.
      if (!(error instanceof PaygateError) || error.code !== "unauthenticated") return;
      const entry = this.byToken.get(token);
      if (!entry) return;
      this.forget(token);
      for (const end of entry.ends) end();
    }
  }

  private forget(token: string): void {
    const entry = this.byToken.get(token);
    if (!entry) return;
    clearInterval(entry.timer);
    this.byToken.delete(token);
  }
}

/**
 * Authorizes once, as a read of the transaction (another merchant's or mode's transaction, or an
 * id of no transaction, is not found), then streams it: first its state now, then after each
 * change. A read that shows nothing new (a resync, a receipt's confirmation count) yields nothing.
 * Never ends by itself (an abandoned transaction can still receive a late payment) unless its key
 * stops authenticating: the consumer calls `return()`.
 */
export async function transactionUpdates(
  deps: Pick<CoreDeps, "stores" | "credentials">,
  followers: TransactionFollowers,
  liveCredentials: LiveCredentials,
  bearerToken: string | undefined,
  id: string,
): Promise<AsyncIterableIterator<TransactionUpdate> & { return(): Promise<IteratorResult<TransactionUpdate>> }> {
  const { transaction, caller } = await retrieveTransaction(deps, bearerToken, id);
  if (!transaction) throw errors.transactionNotFound(id);
  const merchant = transaction.merchant;
  const withReceipts = async (t: TransactionRecord): Promise<ReadState> => ({
    transaction: t,
    receipts: (await receiptsOf(deps.stores.transactions, [t])).get(t.id) ?? [],
  });
  const stream = new UpdateStream(caller, { ...(await withReceipts(transaction)), caller });
  const unfollow = followers.follow(
    transaction.id,
    async () => {
      const current = await findTransactionFor(deps.stores.transactions, transaction.id, merchant.id, transaction.isLive);
      return current && withReceipts(current);
    },
    stream,
  );
  const release = bearerToken === undefined ? () => {} : liveCredentials.hold(bearerToken, caller, () => void stream.return());
  stream.onEnd(() => {
    unfollow();
    release();
  });
  return stream;
}

/**
 * What a subscriber can see of a transaction: a read that changes none of it is not sent again. The
 * whole row but its bookkeeping, so that a column added later (confirmations, say) counts by itself,
 * and its receipts (one that gains a confirmation is news though the row is not).
 */
export function visibleState(t: TransactionRecord, receipts: readonly TransactionReceipt[]): string {
  const { updatedAt: _updatedAt, clientSecretEnc: _sealed, ...shown } = t;
  return JSON.stringify([shown, receipts.map(({ updatedAt: _at, ...receipt }) => receipt)]);
}

/**
 * A hand-written iterator rather than an async generator: a generator's `return()` waits behind a
 * pending `next()`, so a client that leaves while nothing changes would stay followed until the
 * next change. Here `return()` stops following at once and ends the pending `next()`.
 */
class UpdateStream implements AsyncIterableIterator<TransactionUpdate>, Follower {
  private closed = false;
  private failure: { error: unknown } | null = null;
  /** The newest state not yet sent; `null` once the transaction is gone, undefined when nothing waits. */
  private pending: (ReadState & { state: string }) | null | undefined;
  private lastSent: string | null = null;
  private waiting: (() => void) | null = null;
  private ended: (() => void) | null = null;

  constructor(
    private readonly caller: Caller,
    private seeded: TransactionUpdate | null,
  ) {}

  onEnd(ended: () => void): void {
    this.ended = ended;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  offer(read: ReadState | null, state: string | null): void {
    if (this.closed) return;
    if (read !== null && state !== null) {
      if (state === this.lastSent) return;
      this.pending = { ...read, state };
    } else {
      this.pending = null;
    }
    this.release();
  }

  fail(error: unknown): void {
    this.failure = { error };
    this.release();
  }

  async next(): Promise<IteratorResult<TransactionUpdate>> {
    if (this.seeded) {
      // Followed before the first state is sent, so a change between the two waits in `pending`.
      const first = this.seeded;
      this.seeded = null;
      this.lastSent = visibleState(first.transaction, first.receipts);
      if (this.pending?.state === this.lastSent) this.pending = undefined;
      return { done: false, value: first };
    }
    for (;;) {
      if (this.closed) return { done: true, value: undefined };
      if (this.failure) {
        const { error } = this.failure;
        await this.return();
        throw error;
      }
      if (this.pending === undefined) {
        await new Promise<void>((resolve) => {
          this.waiting = resolve;
        });
        continue;
      }
      const pending = this.pending;
      this.pending = undefined;
      if (pending === null) return this.return();
      if (pending.state === this.lastSent) continue;
      this.lastSent = pending.state;
      return { done: false, value: { transaction: pending.transaction, receipts: pending.receipts, caller: this.caller } };
    }
  }

  async return(): Promise<IteratorResult<TransactionUpdate>> {
    if (!this.closed) {
      this.closed = true;
      this.ended?.();
      this.release();
    }
    return { done: true, value: undefined };
  }

  private release(): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.();
  }
}
