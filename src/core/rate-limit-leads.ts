// Hits counted ahead (issue 47). Every request counts against its bucket's counter, which every
// instance shares, with a statement. A bucket that is busy on this instance counts, in the statement
// of the request in hand, a few hits more (its lead) and gives them to its next requests here, in
// order, without a statement each; requests that arrive while the bucket's statement is under way
// wait for it and are counted by the next one together.
//
// What holds as before: every hit number of a window goes to one request at most, on one instance,
// so a window never lets in more than its limit; and a quiet bucket (a test's, a merchant's
// occasional call) takes no lead, so each of its requests is counted by a statement of its own.
// What changes for a busy bucket:
// - hits counted ahead and not given before the window ends stay counted: at most a lead per instance
//   and window (a sixteenth of the limit, at most LEAD_AT_MOST) can be lost to the limit;
// - RateLimit-Remaining is exact on one instance; across instances, as of the last statement;
// - an address's failed authentications are as read at most READ_FRESH_MS before (this instance's
//   own failures count at once).
import { LRUCache } from "lru-cache";

/** A counter in one window (rate-limits.ts' CounterWindow, as far as the leads need it). */
interface CounterWindow {
  key: string;
  start: Date;
}

/** The most hits a bucket counts ahead in one statement. */
export const LEAD_AT_MOST = 64;
/** A lead is at most this fraction of the limit: 1/16 (no lead under a limit of 16). */
const LEAD_SHARE = 16;
/** The span over which a bucket's pace is counted: a lead is what the last span brought. */
export const PACE_SPAN_MS = 50;
/** How old a read of an address's failed authentications may be for a request counted ahead. */
export const READ_FRESH_MS = 1000;
/** Buckets and addresses remembered, each: the cap on this process's memory for them. */
const REMEMBERED = 10_000;

/** The hit numbers `next`..`top` of the window starting at `start`, counted and not yet given. */
interface Held {
  start: number;
  next: number;
  top: number;
}

/** Requests of a bucket in the current span, and in the span before. */
interface Pace {
  since: number;
  count: number;
  previous: number;
}

/** A counter's total as a statement returned it. */
interface Read {
  start: number;
  hits: number;
  at: number;
}

export class HitLeads {
  private readonly held = new LRUCache<string, Held>({ max: REMEMBERED });
  private readonly pace = new LRUCache<string, Pace>({ max: REMEMBERED });
  private readonly reads = new LRUCache<string, Read>({ max: REMEMBERED });
  /** Each bucket's statement under way: at most one per request in flight, deleted as it ends. */
  private readonly underway = new Map<string, Promise<unknown>>();
  /** Requests of each bucket waiting for a number: at most one per request in flight, deleted at zero. */
  private readonly waiting = new Map<string, number>();

  /** Notes one request of the bucket, for its pace. */
  arrived(bucketKey: string, now: number): void {
    const pace = this.pace.get(bucketKey);
    if (!pace || now - pace.since >= 2 * PACE_SPAN_MS) this.pace.set(bucketKey, { since: now, count: 1, previous: 0 });
    else if (now - pace.since >= PACE_SPAN_MS) this.pace.set(bucketKey, { since: now, count: 1, previous: pace.count });
    else pace.count += 1;
  }

  /**
   * The next hit number held for the window, with the read counter's total when a fresh read of it
   * is known (0 without a read counter); null when either is missing.
   */
  take(hit: CounterWindow, read: CounterWindow | null, now: number): { hits: number; read: number } | null {
    const held = this.heldFor(hit);
    if (!held) return null;
    const readHits = this.freshRead(read, now);
    if (readHits === null) return null;
    const hits = held.next;
    held.next += 1;
    return { hits, read: readHits };
  }

  /** The bucket's statement under way (its lead may serve the request), or null. */
  statementUnderway(bucketKey: string): Promise<unknown> | null {
    return this.underway.get(bucketKey) ?? null;
  }

  /** A request starts or stops waiting for a number. */
  waits(bucketKey: string, delta: 1 | -1): void {
    const n = (this.waiting.get(bucketKey) ?? 0) + delta;
    if (n > 0) this.waiting.set(bucketKey, n);
    else this.waiting.delete(bucketKey);
  }

  /**
   * How many hits to count beyond the request's own: the requests waiting for one, or, for a busy
   * bucket, what its last span brought, within a sixteenth of the limit and a quarter of what the
   * window has left as far as this instance knows. None while numbers are still held (the request
   * counts only because its address's read was old).
   */
  lead(hit: CounterWindow, rule: { limit: number }): number {
    if (this.heldFor(hit)) return 0;
    const held = this.held.get(hit.key);
    const known = held && held.start === hit.start.getTime() ? held.top : 0;
    const pace = this.pace.get(hit.key)?.previous ?? 0;
    const ahead = Math.min(pace, LEAD_AT_MOST, Math.floor(rule.limit / LEAD_SHARE), Math.floor(Math.max(0, rule.limit - known) / 4));
    return Math.max(this.waiting.get(hit.key) ?? 0, ahead);
  }

  /** Marks the bucket's statement under way until it ends. */
  counting(bucketKey: string, statement: Promise<unknown>): void {
    this.underway.set(bucketKey, statement);
    const done = () => {
      if (this.underway.get(bucketKey) === statement) this.underway.delete(bucketKey);
    };
    statement.then(done, done);
  }

  /** A statement counted `1 + lead` hits, up to `top`: the request in hand has the first number, which is returned; the rest are held. */
  counted(hit: CounterWindow, top: number, lead: number, read: CounterWindow | null, readHits: number, now: number): number {
    if (lead > 0) this.held.set(hit.key, { start: hit.start.getTime(), next: top - lead + 1, top });
    this.remember(read, readHits, now);
    return top - lead;
  }

  /** A counter's total, as a statement returned it. */
  remember(read: CounterWindow | null, hits: number, now: number): void {
    if (read) this.reads.set(read.key, { start: read.start.getTime(), hits, at: now });
  }

  private heldFor(hit: CounterWindow): Held | null {
    const held = this.held.get(hit.key);
    return held && held.start === hit.start.getTime() && held.next <= held.top ? held : null;
  }

  private freshRead(read: CounterWindow | null, now: number): number | null {
    if (!read) return 0;
    const known = this.reads.get(read.key);
    if (!known || known.start !== read.start.getTime() || now - known.at > READ_FRESH_MS) return null;
    return known.hits;
  }
}
