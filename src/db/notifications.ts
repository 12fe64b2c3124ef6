// Transaction changes between instances: PostgreSQL NOTIFY, sent inside the database transaction
// that changes a transaction (so what was rolled back is never announced), and one LISTEN per
// process, fanned out in memory (docs/graphql.md, Live updates). The same connection hears the outbox's
// notice that an attempt fell due (DELIVERIES_DUE_CHANNEL). PGlite has LISTEN/NOTIFY too, in-process.
import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { CHANGE_TOPICS, type ChangeTopic, type TransactionChange, type TransactionChanges } from "../core/stores/transaction-changes.ts";
import { Prisma } from "./generated/client.ts";

export const CHANGES_CHANNEL = "paygate_changes";
/**
 * Notified by the deliveries' triggers when a delivery becomes due for an attempt (written, or set back to
 * PENDING: migrations 20261127060000 and one_delivery_queue), with an empty payload: one notification per database transaction.
 */
export const DELIVERIES_DUE_CHANNEL = "paygate_deliveries_due";
const DELIVERIES_DUE: TransactionChange = { kind: "deliveries-due" };

/** Where notifications are heard: a PostgreSQL server (a connection of its own) or the embedded PGlite. */
export type NotificationSource = { kind: "postgres"; url: string } | { kind: "pglite"; pglite: PGlite };

/** One change as it travels: a few dozen bytes, far below NOTIFY's 8000-byte limit. */
interface Payload {
  id: string;
  event: boolean;
}

export function changePayload(transactionId: string, eventWritten: boolean): string {
  return JSON.stringify({ id: transactionId, event: eventWritten } satisfies Payload);
}

/** The statement that announces changes; run it inside the writing database transaction. */
export function notifySql(changes: { transactionId: string; eventWritten: boolean }[]): Prisma.Sql {
  const calls = changes.map((c) => Prisma.sql`pg_notify(${CHANGES_CHANNEL}, ${changePayload(c.transactionId, c.eventWritten)})`);
  return Prisma.sql`SELECT ${Prisma.join(calls)}`;
}

export function parsePayload(payload: string): TransactionChange | null {
  try {
    const parsed: unknown = JSON.parse(payload);
    if (typeof parsed !== "object" || parsed === null || !("id" in parsed) || typeof parsed.id !== "string") return null;
    return { kind: "changed", transactionId: parsed.id, eventWritten: "event" in parsed && parsed.event === true };
  } catch {
    return null;
  }
}

export interface ChangeFeedOptions {
  log?: (line: string) => void;
  /** First and longest wait before reconnecting a dropped listening connection (PostgreSQL). */
  retryMinMs?: number;
  retryMaxMs?: number;
}

/** The channel of each topic, in the order a session listens to them (see listenPostgres). */
const CHANNELS: readonly (readonly [ChangeTopic, string])[] = [
  ["deliveries-due", DELIVERIES_DUE_CHANNEL],
  ["changed", CHANGES_CHANNEL],
];

interface Subscription {
  listener: (change: TransactionChange) => void;
  topics: ReadonlySet<ChangeTopic>;
}

/** One connection's listening: the topics it LISTENs to (or has asked to), and how to ask for one more. */
interface Session {
  listening: Set<ChangeTopic>;
  listen(channel: string): Promise<void>;
}

/**
 * The process's one listener. It connects when the first subscriber arrives (a CLI command that
 * follows nothing opens no connection) and LISTENs only to the topics its subscribers hear: a
 * transaction's change costs the database a delivery to every session listening to it, so a process
 * whose only subscribers are dispatchers does not ask for them (issue 30). It announces `resync` each
 * time it starts listening (first time included: a subscriber that read before then re-reads), to the
 * subscribers of the topics it started on, and on PostgreSQL reconnects with exponential backoff when
 * its connection drops.
 */
export class ChangeFeed implements TransactionChanges {
  private readonly subscriptions = new Set<Subscription>();
  /** Every topic a subscriber has asked for; never narrowed (a session keeps what it listens to). */
  private readonly wanted = new Set<ChangeTopic>();
  private session: Session | null = null;
  private started: Promise<void> | null = null;
  private closed = false;
  private stopListening: (() => Promise<void>) | null = null;
  private wakeRetry: (() => void) | null = null;
  private readonly log: (line: string) => void;

  constructor(
    private readonly source: NotificationSource,
    private readonly options: ChangeFeedOptions = {},
  ) {
    this.log = options.log ?? (() => {});
  }

  subscribe(listener: (change: TransactionChange) => void, topics: readonly ChangeTopic[] = CHANGE_TOPICS): () => void {
    const subscription: Subscription = { listener, topics: new Set(topics) };
    this.subscriptions.add(subscription);
    for (const topic of topics) this.wanted.add(topic);
    if (!this.closed) {
      if (this.started === null) {
        this.started = this.source.kind === "postgres" ? this.listenPostgres(this.source.url) : this.listenPGlite(this.source.pglite);
      } else if (this.session) {
        void this.listenMore(this.session);
      }
    }
    return () => {
      this.subscriptions.delete(subscription);
    };
  }

  /** How many subscribers the process has (GraphQL subscriptions, event streams, dispatchers). */
  get listenerCount(): number {
    return this.subscriptions.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wakeRetry?.();
    await this.stopListening?.();
    await this.started;
    this.subscriptions.clear();
  }

  /** Hands `change` to the subscribers of `topics`. */
  private emit(change: TransactionChange, topics: readonly ChangeTopic[]): void {
    for (const { listener, topics: heard } of [...this.subscriptions]) {
      if (!topics.some((topic) => heard.has(topic))) continue;
      try {
        listener(change);
      } catch (error) {
        this.log(`change notifications: a listener failed (${(error as Error).message})`);
      }
    }
  }

  private onPayload = (payload: string): void => {
    const change = parsePayload(payload);
    if (change) this.emit(change, ["changed"]);
  };

  private onDeliveriesDue = (): void => {
    this.emit(DELIVERIES_DUE, ["deliveries-due"]);
  };

  /**
   * LISTENs to the wanted topics `session` does not listen to yet, in CHANNELS' order; the topics it
   * started on. A topic is marked before its LISTEN is sent, so two callers never send it twice.
   */
  private async listenWanted(session: Session): Promise<ChangeTopic[]> {
    const added: ChangeTopic[] = [];
    for (const [topic, channel] of CHANNELS) {
      if (!this.wanted.has(topic) || session.listening.has(topic)) continue;
      session.listening.add(topic);
      await session.listen(channel);
      added.push(topic);
    }
    return added;
  }

  /** A subscriber asked for a topic the live session does not listen to: it does now. */
  private async listenMore(session: Session): Promise<void> {
    try {
      const added = await this.listenWanted(session);
      if (added.length > 0 && this.session === session) this.emit({ kind: "resync" }, added);
    } catch {
      // The connection failed: the reconnection listens to every wanted topic, then announces resync.
    }
  }

  private async listenPGlite(pglite: PGlite): Promise<void> {
    if (pglite.closed) return;
    const unlistens: (() => Promise<void>)[] = [];
    const session: Session = {
      listening: new Set(),
      listen: async (channel) => {
        unlistens.push(await pglite.listen(channel, channel === CHANGES_CHANNEL ? this.onPayload : this.onDeliveriesDue));
      },
    };
    this.session = session;
    this.stopListening = async () => {
      this.session = null;
      if (!pglite.closed) await Promise.all(unlistens.map((unlisten) => unlisten()));
    };
    await this.listenWanted(session);
    if (this.closed) return this.stopListening();
    this.emit({ kind: "resync" }, CHANGE_TOPICS);
  }

  private async listenPostgres(url: string): Promise<void> {
    const minMs = this.options.retryMinMs ?? 100;
    const maxMs = this.options.retryMaxMs ?? 10_000;
    let failures = 0;
    let lostAt: number | null = null;
    while (!this.closed) {
      // A client of its own, not the pool's: LISTEN belongs to one session for as long as it lives.
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000, keepAlive: true });
      let ending: Promise<void> | null = null;
      const end = () => (ending ??= client.end().catch(() => {}));
      const dropped = new Promise<string>((resolve) => {
        client.on("error", (error) => resolve(error.message));
        client.on("end", () => resolve("connection ended"));
      });
      try {
        await client.connect();
        client.on("notification", (message) => {
          if (message.channel === CHANGES_CHANNEL && message.payload !== undefined) this.onPayload(message.payload);
          else if (message.channel === DELIVERIES_DUE_CHANNEL) this.onDeliveriesDue();
        });
        const session: Session = {
          listening: new Set(),
          listen: async (channel) => {
            await client.query(`LISTEN ${channel}`);
          },
        };
        this.session = session;
        // Changes last: an operator finds the session that hears them by its last statement, `LISTEN paygate_changes`.
        await this.listenWanted(session);
        this.stopListening = end;
        if (this.closed) break;
        if (lostAt !== null) this.log(`change notifications: listening again after ${((Date.now() - lostAt) / 1000).toFixed(1)} s`);
        failures = 0;
        lostAt = null;
        this.emit({ kind: "resync" }, CHANGE_TOPICS);
        const reason = await dropped;
        if (this.closed) break;
        lostAt = Date.now();
        this.log(`change notifications: connection lost (${reason}); reconnecting, subscribers re-read once back`);
      } catch (error) {
        if (this.closed) break;
        if (lostAt === null) {
          lostAt = Date.now();
          this.log(`change notifications: cannot listen (${(error as Error).message}); retrying`);
        }
      } finally {
        this.session = null;
        this.stopListening = null;
        await end();
      }
      failures++;
      await this.pause(Math.min(maxMs, minMs * 2 ** (failures - 1)));
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wakeRetry = null;
        resolve();
      }
      this.wakeRetry = done;
    });
  }
}

/** For a database opened without a notification source: nothing is ever announced. */
export const noChanges: TransactionChanges & { close(): Promise<void> } = {
  subscribe: () => () => {},
  close: async () => {},
};
