// Hits counted ahead (src/core/rate-limit-leads.ts): a busy bucket counts a few hits more in the
// statement of the request in hand and gives them to its next requests without a statement; a quiet
// one never does. Every number goes to one request at most across instances, so a window never lets
// in more than its limit; numbers held from an ended window are never used; an address's failed
// authentications are as read at most READ_FRESH_MS before, this instance's own at once.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { LEAD_AT_MOST, PACE_SPAN_MS, READ_FRESH_MS } from "../../src/core/rate-limit-leads.ts";
import { RateLimiter, type RateLimitPolicy } from "../../src/core/rate-limits.ts";
import { rateLimitCounters } from "../../src/db/stores/rate-limit-counters.ts";
import { manualClock } from "../support/clock.ts";
import { countedClient as counted } from "../support/counted-client.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

const clock = manualClock(Date.UTC(2031, 0, 1, 12, 0, 0));
beforeEach(() => clock.nextMinute());

const policy = (live: number, authFailures = 1_000_000): RateLimitPolicy => ({
  live: { limit: live, windowMs: 1000 },
  test: null,
  authFailures: { limit: authFailures, windowMs: 60_000 },
});

/** One instance's limiter on the test database, its statements counted. */
function instance(p: RateLimitPolicy, countWaitMs?: number) {
  const { client, state } = counted(t.db);
  return { limiter: new RateLimiter(rateLimitCounters(client, { countWaitMs }), p, clock, countWaitMs), state };
}

let keys = 0;
/** A live key of its own, so that each test's buckets are fresh. */
const liveKey = () => `sec_live_leads${++keys}${Date.now()}`;

/** The hits stored for the key's bucket in the window under way. */
async function stored(limiter: RateLimiter, key: string): Promise<number> {
  const bucket = limiter.bucketOf(key, "192.0.2.1");
  const start = new Date(clock.now().getTime() - (clock.now().getTime() % 1000));
  const rows = await t.db.$queryRaw<{ hits: number }[]>`SELECT hits FROM rate_limit_counters WHERE key = ${bucket?.key} AND window_start = ${start}`;
  return Number(rows[0]?.hits ?? 0);
}

/** `n` requests one after another, each its own answer's hit number. */
async function oneByOne(limiter: RateLimiter, key: string, n: number, from = "192.0.2.1"): Promise<number[]> {
  const hits: number[] = [];
  for (let i = 0; i < n; i++) hits.push((await limiter.admit(key, from)).usage?.hits ?? -1);
  return hits;
}

describe("hits counted ahead", () => {
  it("never counts ahead for a quiet bucket: each request is a statement, and the stored count is the requests'", async () => {
    const { limiter, state } = instance(policy(1_000));
    const key = liveKey();
    const hits: number[] = [];
    for (let i = 0; i < 5; i++) {
      hits.push(...(await oneByOne(limiter, key, 1)));
      clock.advance(2 * PACE_SPAN_MS); // one request a span at most: never busy
    }
    expect(hits).toEqual([1, 2, 3, 4, 5]);
    expect(state.statements).toBe(5);
    expect(await stored(limiter, key)).toBe(5);
  });

  it("counts what the last span brought ahead for a busy bucket and gives it out without statements, in order", async () => {
    const { limiter, state } = instance(policy(1_000)); // a lead of at most 1000 / 16 = 62
    const key = liveKey();
    expect(await oneByOne(limiter, key, 10)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]); // the first span: no pace yet
    expect(state.statements).toBe(10);
    clock.advance(PACE_SPAN_MS);
    // The last span brought 10: the next statement counts its own hit and 10 ahead.
    expect(await oneByOne(limiter, key, 1)).toEqual([11]);
    expect(await stored(limiter, key)).toBe(21);
    expect(await oneByOne(limiter, key, 10)).toEqual([12, 13, 14, 15, 16, 17, 18, 19, 20, 21]);
    expect(state.statements).toBe(11);
    const admission = await limiter.admit(key, "192.0.2.1");
    expect(admission.usage).toMatchObject({ hits: 22, limit: 1_000 });
    expect(state.statements).toBe(12);
  });

  it("counts ahead at most a sixteenth of the limit, at most LEAD_AT_MOST, and none under a limit of 16", async () => {
    for (const [limit, lead] of [
      [15, 0],
      [160, 10],
      [100_000, LEAD_AT_MOST],
    ] as const) {
      clock.nextMinute();
      const { limiter } = instance(policy(limit));
      const key = liveKey();
      await oneByOne(limiter, key, 12);
      clock.advance(PACE_SPAN_MS);
      await oneByOne(limiter, key, 1);
      expect(await stored(limiter, key)).toBe(13 + Math.min(lead, 12));
    }
    // A span of 100 requests on the large limit: 64 ahead, not 100.
    clock.nextMinute();
    const { limiter } = instance(policy(100_000));
    const key = liveKey();
    await oneByOne(limiter, key, 100);
    clock.advance(PACE_SPAN_MS);
    await oneByOne(limiter, key, 1);
    expect(await stored(limiter, key)).toBe(101 + LEAD_AT_MOST);
  });

  it("counts requests that arrive while the bucket's statement is under way by the next one together, and none ahead", async () => {
    const { limiter, state } = instance(policy(1_000));
    const key = liveKey();
    const admissions = await Promise.all(Array.from({ length: 20 }, () => limiter.admit(key, "192.0.2.1")));
    expect(admissions.map((a) => a.usage?.hits).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(state.statements).toBe(2);
    expect(await stored(limiter, key)).toBe(20);
  });

  it("gives up waiting for the bucket's statement that never ends with database_unavailable, and fails with a statement that failed", async () => {
    const { limiter, state } = instance(policy(1_000), 300);
    const key = liveKey();
    state.hanging = true;
    const first = limiter.admit(key, "192.0.2.1"); // its statement never returns
    const waited = await Promise.allSettled(Array.from({ length: 3 }, () => limiter.admit(key, "192.0.2.1")));
    expect(waited.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(waited[2]).toMatchObject({ reason: { code: "database_unavailable", reason: "database_unreachable" } });
    expect(state.statements).toBe(1);
    void first;

    // A statement that fails fails the requests that waited for it, with its error, rather than each in turn.
    clock.advance(1000);
    const other = instance(policy(1_000), 300);
    other.state.failing = true;
    const failed = await Promise.allSettled(Array.from({ length: 4 }, () => other.limiter.admit(key, "192.0.2.1")));
    expect(failed.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected", "rejected"]);
    expect(failed[3]).toMatchObject({ reason: { message: "the database went away" } });
    expect(other.state.statements).toBe(1);
    other.state.failing = false;
    expect(await oneByOne(other.limiter, key, 1)).toEqual([1]);
  });

  it("never uses a number held from a window that ended", async () => {
    const { limiter, state } = instance(policy(1_000));
    const key = liveKey();
    await oneByOne(limiter, key, 10);
    clock.advance(PACE_SPAN_MS);
    await oneByOne(limiter, key, 1); // 10 held: 12 to 21
    clock.advance(1000); // the next window (the pace is gone with the span too)
    const statements = state.statements;
    expect(await oneByOne(limiter, key, 1)).toEqual([1]);
    expect(state.statements).toBe(statements + 1);
  });

  it("never lets two instances together in past the limit, and gives each number once", async () => {
    const limit = 320; // leads of up to 20
    const a = instance(policy(limit));
    const b = instance(policy(limit));
    const key = liveKey();
    // Both busy: each has a pace of 30 before the race.
    await oneByOne(a.limiter, key, 30);
    await oneByOne(b.limiter, key, 30);
    clock.advance(PACE_SPAN_MS);
    const race = async (limiter: RateLimiter) => {
      const hits: number[] = [];
      for (let i = 0; i < 40; i++) {
        const round = await Promise.all(Array.from({ length: 5 }, () => limiter.admit(key, "192.0.2.1")));
        hits.push(...round.map((r) => r.usage?.hits ?? -1));
      }
      return hits;
    };
    const [fromA, fromB] = await Promise.all([race(a.limiter), race(b.limiter)]);
    const all = [...fromA, ...fromB];
    expect(new Set(all).size).toBe(all.length);
    const admitted = all.filter((n) => n <= limit).length + 60;
    expect(admitted).toBeLessThanOrEqual(limit);
    // What a lead can leave unused: one lead per instance at most.
    expect(admitted).toBeGreaterThanOrEqual(limit - 2 * (limit / 16));
    expect(a.state.statements + b.state.statements).toBeLessThan(60 + 400 / 2);
  });

  it("reads an address's failed authentications again once the last read is older than READ_FRESH_MS, and counts its own at once", async () => {
    const { limiter, state } = instance(policy(1_000, 3));
    const key = liveKey();
    const from = "198.51.100.9";
    await oneByOne(limiter, key, 10, from);
    clock.advance(PACE_SPAN_MS);
    await oneByOne(limiter, key, 1, from); // 10 held, failures read as 0
    let statements = state.statements;
    expect((await limiter.admit(key, from)).failures?.hits).toBe(0);
    expect(state.statements).toBe(statements);

    // Another instance records two failures of the address: this one sees them once its read is old.
    const other = instance(policy(1_000, 3)).limiter;
    await other.recordAuthFailure(from);
    await other.recordAuthFailure(from);
    expect((await limiter.admit(key, from)).failures?.hits).toBe(0);
    clock.advance(READ_FRESH_MS + 1);
    statements = state.statements;
    const read = await limiter.admit(key, from);
    expect(read.failures?.hits).toBe(2);
    expect(state.statements).toBe(statements + 1);
    expect(RateLimiter.blocked(read.failures ?? { hits: 0, limit: 3, windowMs: 0, resetMs: 0 })).toBe(false);

    // Its own failure counts at once: the next request, from numbers held, is blocked.
    await oneByOne(limiter, key, 8, from);
    clock.advance(PACE_SPAN_MS);
    await oneByOne(limiter, key, 1, from);
    await limiter.recordAuthFailure(from);
    statements = state.statements;
    const blocked = await limiter.admit(key, from);
    expect(state.statements).toBe(statements);
    expect(blocked.failures?.hits).toBe(3);
    expect(RateLimiter.blocked(blocked.failures ?? { hits: 0, limit: 3, windowMs: 0, resetMs: 0 })).toBe(true);
  });
});

describe("the counters, several hits at once", () => {
  const window = (key: string) => ({ key, start: new Date(Date.UTC(2031, 5, 1)), end: new Date(Date.UTC(2031, 5, 1, 0, 0, 1)) });

  it("adds a request's hits and returns the last of its numbers, alone and grouped", async () => {
    const counters = rateLimitCounters(t.db);
    expect(await counters.count(window("key:several"), null, null, 5)).toEqual({ hits: 5, read: 0 });
    const grouped = await Promise.all([1, 3, 1, 4].map((n) => counters.count(window("key:several"), null, null, n)));
    expect(grouped.map((r) => r.hits).sort((a, b) => a - b)).toEqual([6, 9, 10, 14]);
    expect(await counters.count(null, window("key:several"))).toEqual({ hits: 0, read: 14 });
  });

  it("refuses fewer than one hit, or more than one beside a next counter, and changes nothing", async () => {
    const counters = rateLimitCounters(t.db);
    await expect(counters.count(window("key:refused"), null, null, 0)).rejects.toThrow(
      "A request adds one hit or more, and exactly one beside a next counter",
    );
    await expect(counters.count(window("key:refused"), null, { window: window("signin:refused"), ifHitsAtMost: 5 }, 2)).rejects.toThrow(
      "A request adds one hit or more, and exactly one beside a next counter",
    );
    expect(await counters.count(null, window("key:refused"))).toEqual({ hits: 0, read: 0 });
    expect(await counters.count(null, window("signin:refused"))).toEqual({ hits: 0, read: 0 });
  });
});
