// The live event stream (GET /v1/events/stream, `paygate listen`; issue 27): each new event of the
// secret key's merchant and mode as any instance writes it. The process listens once (the database's
// change notifications, TransactionChanges) and wakes every open stream; each stream reads its own
// merchant's events after its cursor (seq), oldest first, so a resumed stream (Last-Event-ID,
// `starting_after`) first catches up on what it missed.
import { z } from "zod";
import type { CoreDeps } from "../deps.ts";
import { errors } from "../errors.ts";
import { parseListQuery, single } from "../lists.ts";
import type { Caller } from "../credentials.ts";
import type { WebhookEvent } from "../records/rows.ts";
import type { TransactionChange, TransactionChanges } from "../stores/transaction-changes.ts";
import { isEventId } from "./list.ts";
import { EVENT_TYPES } from "./payment-events.ts";

/** Events read per query while catching up: a long backlog is sent in batches of this many. */
const BATCH = 100;
/** Ids of the events a stream sent lately, to send none twice when a late commit is read by its transaction. */
const REMEMBERED = 1_000;
/** Transactions whose notifications are waiting to be read, per stream; past it the stream reads by cursor only. */
const PENDING_TRANSACTIONS = 256;

const eventTypes = single.transform((text, ctx) => {
  const names = text
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
  const unknown = names.filter((name) => !(EVENT_TYPES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    ctx.addIssue({ code: "custom", message: `names no event type: ${unknown.join(", ")}; use ${EVENT_TYPES.join(", ")}` });
    return z.NEVER;
  }
  return names;
});

export const EventStreamParams = z.object({
  starting_after: single.regex(/^evt_[0-9A-Za-z]{1,64}$/, "must be the id (evt_…) of the last event received").optional(),
  types: eventTypes.optional(),
});

/** The stream's cursor: the event named by Last-Event-ID (what an EventSource resends) or `starting_after`. */
export interface EventStreamRequest {
  params: Record<string, unknown>;
  lastEventId?: string;
}

export interface EventStream extends AsyncIterableIterator<WebhookEvent> {
  merchantId: number;
  isLive: boolean;
  return(): Promise<IteratorResult<WebhookEvent>>;
}

/** The open streams of this process, woken by each change any instance commits. */
export class EventStreams {
  private readonly open = new Set<StreamState>();
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly changes: TransactionChanges) {}

  /** Streams open in this process now. */
  get count(): number {
    return this.open.size;
  }

  add(stream: StreamState): () => void {
    this.unsubscribe ??= this.changes.subscribe(this.onChange, ["changed"]);
    this.open.add(stream);
    return () => {
      this.open.delete(stream);
    };
  }

  private readonly onChange = (change: TransactionChange): void => {
    if (change.kind === "changed" && !change.eventWritten) return;
    for (const stream of this.open) stream.wake(change.kind === "changed" ? change.transactionId : null);
  };
}

/** Who checks a held key again (src/core/transactions/updates.ts, LiveCredentials). */
type KeyHolder = { hold(token: string, caller: Caller, end: () => void): () => void };

/**
 * Authenticates the secret key and finds the cursor, then streams the key's merchant's events of its
 * mode: first those after the cursor (none without one), then each new one. Never ends by itself
 * unless the key stops authenticating; the consumer calls `return()`.
 */
export async function openEventStream(
  deps: Pick<CoreDeps, "stores" | "credentials">,
  streams: EventStreams,
  keys: KeyHolder,
  bearerToken: string | undefined,
  request: EventStreamRequest,
): Promise<EventStream> {
  const caller = await deps.credentials.authenticateSecret(bearerToken);
  const query = parseListQuery(EventStreamParams, request.params);
  const lastEventId = request.lastEventId?.trim() || undefined;
  if (lastEventId !== undefined && !isEventId(lastEventId)) {
    throw errors.badRequest("Last-Event-ID must be the id (evt_…) of the last event received", "invalid_last_event_id");
  }
  // Last-Event-ID wins: it is what a reconnecting client last saw, later than the URL it first opened.
  const cursorId = lastEventId ?? query.starting_after;
  const store = deps.stores.webhookEvents;
  const { id: merchantId } = caller.merchant;
  let cursor: bigint;
  if (cursorId !== undefined) {
    const event = await store.findFor(cursorId, merchantId, caller.isLive);
    if (!event) throw errors.unknownCursor(lastEventId !== undefined ? "Last-Event-ID" : "starting_after", cursorId);
    cursor = event.seq;
  } else {
    const [newest] = await store.page({ merchantId, isLive: caller.isLive, type: null, transactionId: null, afterSeq: null, limit: 1 });
    cursor = newest?.seq ?? 0n;
  }
  const types = query.types && query.types.length > 0 ? new Set<string>(query.types) : null;
  const state = new StreamState(deps, caller, cursor, types);
  const remove = streams.add(state);
  const release = bearerToken === undefined ? () => {} : keys.hold(bearerToken, caller, () => void state.return());
  state.onEnd(() => {
    remove();
    release();
  });
  return state;
}

/**
 * One stream: a hand-written iterator (as UpdateStream in updates.ts) so that `return()` ends a
 * pending `next()` at once. Reads by cursor (seq); a transaction named by a notification is also
 * read by itself, because on PostgreSQL an event with a lower seq can commit after a higher one.
 */
class StreamState implements EventStream {
  readonly merchantId: number;
  readonly isLive: boolean;
  private closed = false;
  private dirty = true;
  private readonly pendingTransactions = new Set<string>();
  private readonly sent = new Set<string>();
  private readonly queue: WebhookEvent[] = [];
  private waiting: (() => void) | null = null;
  private ended: (() => void) | null = null;
  private readonly floor: bigint;

  constructor(
    private readonly deps: Pick<CoreDeps, "stores">,
    caller: Caller,
    private cursor: bigint,
    private readonly types: ReadonlySet<string> | null,
  ) {
    this.merchantId = caller.merchant.id;
    this.isLive = caller.isLive;
    this.floor = cursor;
  }

  onEnd(ended: () => void): void {
    this.ended = ended;
  }

  /** A change was committed: `transactionId` wrote an event (null: re-read, notifications may have been missed). */
  wake(transactionId: string | null): void {
    if (transactionId !== null && this.pendingTransactions.size < PENDING_TRANSACTIONS) this.pendingTransactions.add(transactionId);
    this.dirty = true;
    this.waiting?.();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<WebhookEvent>> {
    while (!this.closed) {
      const event = this.queue.shift();
      if (event) return { done: false, value: event };
      if (this.dirty) {
        this.dirty = false;
        await this.read();
        continue;
      }
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
      });
      this.waiting = null;
    }
    return { done: true, value: undefined };
  }

  async return(): Promise<IteratorResult<WebhookEvent>> {
    if (!this.closed) {
      this.closed = true;
      this.waiting?.();
      this.ended?.();
    }
    return { done: true, value: undefined };
  }

  private async read(): Promise<void> {
    const store = this.deps.stores.webhookEvents;
    const found: WebhookEvent[] = await store.since({ merchantId: this.merchantId, isLive: this.isLive, afterSeq: this.cursor, limit: BATCH });
    if (found.length === BATCH) this.dirty = true; // more to catch up on
    const last = found.at(-1);
    if (last) this.cursor = last.seq;
    const transactions = [...this.pendingTransactions];
    this.pendingTransactions.clear();
    for (const transactionId of transactions) {
      const recent = await store.page({
        merchantId: this.merchantId,
        isLive: this.isLive,
        type: null,
        transactionId,
        afterSeq: null,
        limit: 10,
      });
      found.push(...recent.filter((e) => e.seq > this.floor));
    }
    found.sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0));
    for (const event of found) {
      if (this.sent.has(event.id)) continue;
      this.remember(event.id);
      if (this.types === null || this.types.has(event.type)) this.queue.push(event);
    }
  }

  private remember(id: string): void {
    this.sent.add(id);
    if (this.sent.size > REMEMBERED) {
      const oldest = this.sent.values().next().value;
      if (oldest !== undefined) this.sent.delete(oldest);
    }
  }
}
