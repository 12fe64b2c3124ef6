// The rate-limit counters as a group commit: concurrent requests are written together, each still
// gets its own exact total in arrival order, the failures' read sees its counter, a next counter
// counts only the requests their own counter let in, and a failed statement fails only the
// requests it carried.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CounterWindow } from "../../src/core/rate-limits.ts";
import { rateLimitCounters } from "../../src/db/stores/rate-limit-counters.ts";
import { countedClient as counted } from "../support/counted-client.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

const windowOf = (key: string, start = new Date("2026-11-24T06:00:00.000Z")): CounterWindow => ({
  key,
  start,
  end: new Date(start.getTime() + 1000),
});

describe("rate-limit counters", () => {
  it("gives 60 concurrent hits of one counter the totals 1 to 60, in far fewer statements", async () => {
    const { client, state } = counted(t.db);
    const counters = rateLimitCounters(client);
    const results = await Promise.all(Array.from({ length: 60 }, () => counters.count(windowOf("key:one"), null)));
    expect(results.map((r) => r.hits)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(results.every((r) => r.read === 0)).toBe(true);
    // The first request is written at once, the 59 that came meanwhile by the next statement.
    expect(state.statements).toBe(2);
    const [row] = await t.db.$queryRaw<{ hits: number }[]>`SELECT hits FROM rate_limit_counters WHERE key = 'key:one'`;
    expect(Number(row?.hits)).toBe(60);
  });

  it("keeps each counter's totals apart, and reads the failures' counter beside them", async () => {
    const counters = rateLimitCounters(t.db);
    const failures = windowOf("fail:192.0.2.7");
    for (let i = 0; i < 3; i++) await counters.count(failures, null);
    const asked = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? "key:a" : "key:b"));
    const results = await Promise.all(asked.map((key) => counters.count(windowOf(key), failures)));
    const totals = (key: string) => results.filter((_, i) => asked[i] === key).map((r) => r.hits);
    expect(totals("key:a")).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(totals("key:b")).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(results.every((r) => r.read === 3)).toBe(true);
    // Another window of the same key is another counter.
    expect(await counters.count(windowOf("key:a", new Date("2026-11-24T06:00:01.000Z")), null)).toEqual({ hits: 1, read: 0 });
    expect(await counters.count(null, failures)).toEqual({ hits: 0, read: 3 });
  });

  it("counts a next counter in the same statement only for the requests their own counter let in", async () => {
    const { client, state } = counted(t.db);
    const counters = rateLimitCounters(client);
    const email = windowOf("signin:email:one");
    // Four addresses, 10 requests each at once; each address lets in its first 6, so the e-mail counts 24.
    const addresses = ["signin:addr:a", "signin:addr:b", "signin:addr:c", "signin:addr:d"];
    const asked = Array.from({ length: 40 }, (_, i) => addresses[i % 4] as string);
    const results = await Promise.all(asked.map((key) => counters.count(windowOf(key), null, { window: email, ifHitsAtMost: 6 })));
    for (const key of addresses) {
      expect(results.filter((_, i) => asked[i] === key).map((r) => r.hits)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    }
    const admitted = results.filter((r) => r.hits <= 6);
    expect(admitted.map((r) => r.next).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    expect(results.filter((r) => r.hits > 6).every((r) => r.next === 24)).toBe(true);
    expect(state.statements).toBe(2);
    const [row] = await t.db.$queryRaw<{ hits: number }[]>`SELECT hits FROM rate_limit_counters WHERE key = 'signin:email:one'`;
    expect(Number(row?.hits)).toBe(24);

    // Alone (the plainest statement): counted within the limit, read as it is beyond it.
    expect(await counters.count(windowOf("signin:addr:e"), null, { window: email, ifHitsAtMost: 1 })).toEqual({ hits: 1, read: 0, next: 25 });
    expect(await counters.count(windowOf("signin:addr:e"), null, { window: email, ifHitsAtMost: 1 })).toEqual({ hits: 2, read: 0, next: 25 });
    // Given back, never below zero.
    await counters.giveBack(email);
    expect(await counters.count(windowOf("signin:addr:f"), null, { window: email, ifHitsAtMost: 1 })).toEqual({ hits: 1, read: 0, next: 25 });
    const fresh = windowOf("signin:email:two");
    await counters.giveBack(fresh);
    expect(await counters.count(fresh, null)).toEqual({ hits: 1, read: 0 });
    await counters.giveBack(fresh);
    await counters.giveBack(fresh);
    expect(await counters.count(fresh, null)).toEqual({ hits: 1, read: 0 });
  });

  it("fails the requests of a failed statement only, and counts on afterwards", async () => {
    const { client, state } = counted(t.db);
    const counters = rateLimitCounters(client);
    state.failing = true;
    const failed = await Promise.allSettled(Array.from({ length: 5 }, () => counters.count(windowOf("key:outage"), null)));
    expect(failed.map((r) => r.status)).toEqual(Array(5).fill("rejected"));
    expect(failed[0]).toMatchObject({ reason: { message: "the database went away" } });
    state.failing = false;
    expect(await counters.count(windowOf("key:outage"), null)).toEqual({ hits: 1, read: 0 });
  });

  it("gives up waiting behind a statement that never ends, with database_unavailable", async () => {
    const { client, state } = counted(t.db);
    const counters = rateLimitCounters(client, { countWaitMs: 100 });
    state.hanging = true;
    void counters.count(windowOf("key:hung"), null); // its statement never returns
    const started = Date.now();
    const waited = await Promise.allSettled(Array.from({ length: 3 }, () => counters.count(windowOf("key:hung"), null)));
    expect(waited.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(waited[0]).toMatchObject({ reason: { code: "database_unavailable", reason: "database_unreachable" } });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(state.statements).toBe(1);
  });
});
