// Rate limits over HTTP (README "Rate limits"): per API key (live and test apart, REST and GraphQL
// together), per client address without a key, and per address for failed authentications; the
// RateLimit headers, 429 with Retry-After in the one error shape, counters shared by two instances
// on one database, and a failing counter store that lets requests through.
//
// The limiter runs on a clock of the test's (at the start of a window, moved on to end it), so no
// test waits and none depends on where a real second or minute begins.
import { afterEach, describe, expect, it } from "vitest";
import { addressBucket, type RateLimitPolicy } from "../../src/core/rate-limits.ts";
import { errors } from "../../src/core/errors.ts";
import { rateLimitCounters } from "../../src/db/stores/rate-limit-counters.ts";
import { startTestGateway, type TestGateway, type TestRateLimits } from "../support/gateway.ts";
import { snapshotStore } from "../support/snapshot.ts";

const gateways: TestGateway[] = [];
afterEach(async () => {
  // Second instances first: they borrow the first one's database.
  for (const g of gateways.reverse()) await g.close();
  gateways.length = 0;
});

/** A clock at the start of a minute (so of every window up to a minute), moved by hand. */
function testClock() {
  let now = Date.UTC(2030, 0, 1, 12, 0, 0);
  return { now: () => new Date(now), advance: (ms: number) => void (now += ms) };
}

async function gateway(policy: Partial<RateLimitPolicy>, extra: Omit<TestRateLimits, "policy"> & { sameDatabaseAs?: TestGateway } = {}) {
  const { sameDatabaseAs, ...limits } = extra;
  const g = await startTestGateway({ rateLimits: { policy, trustProxy: ["loopback"], ...limits }, sameDatabaseAs });
  gateways.push(g);
  return g;
}

interface Call {
  method?: string;
  body?: unknown;
  key?: string;
  /** The client's address, as the proxy on loopback says in X-Forwarded-For. */
  from?: string;
}

async function call(g: TestGateway, path: string, { method = "POST", body, key, from }: Call = {}) {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (key) headers.authorization = `Bearer ${key}`;
  if (from) headers["x-forwarded-for"] = from;
  const res = await fetch(g.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

const order = { customer: { email: "ada@example.com" }, currency: "USD", amount: "10" };
const initialize = (g: TestGateway, key: string, from?: string) => call(g, "/v1/transaction", { body: order, key, from });
const graphqlInitialize = (g: TestGateway, key: string) =>
  call(g, "/graphql", {
    key,
    body: { query: 'mutation { initializeTransaction(input: {customer: {email: "a@b.co"}, currency: USD, amount: "1"}) { id } }' },
  });
const retrieve = (g: TestGateway, key: string, from?: string) =>
  call(g, "/v1/transaction/00000000-0000-4000-8000-000000000000", { method: "GET", key, from });

function limitedBody(message: string, reason = "rate_limited") {
  return { status: "error", message, code: "rate_limited", reason, errors: [] };
}

describe("per API key", () => {
  it("sends the draft-6 RateLimit headers of the key's bucket on a normal request", async () => {
    const g = await gateway({ test: { limit: 3, windowMs: 1000 } }, { clock: testClock() });
    const keys = await g.merchant();
    const res = await initialize(g, keys.testPublicKey);
    expect(res.status).toBe(201);
    expect(res.headers.get("ratelimit-limit")).toBe("3");
    expect(res.headers.get("ratelimit-remaining")).toBe("2");
    expect(res.headers.get("ratelimit-reset")).toBe("1");
    expect(res.headers.get("ratelimit-policy")).toBe("3;w=1");
    expect(res.headers.get("retry-after")).toBeNull();
    expect(res.headers.get("x-ratelimit-limit")).toBeNull(); // no legacy headers
  });

  it("refuses the request over the limit with 429, Retry-After and the error body, changing nothing; the next window lets it in", async () => {
    const clock = testClock();
    const g = await gateway({ test: { limit: 3, windowMs: 1000 } }, { clock });
    const keys = await g.merchant();
    for (let i = 0; i < 3; i++) expect((await initialize(g, keys.testPublicKey)).status).toBe(201);
    const before = await snapshotStore(g.db);

    const refused = await initialize(g, keys.testPublicKey);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(limitedBody("Too many requests: requests with this test API key are limited to 3 per second; retry after 1 s"));
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    expect(refused.headers.get("ratelimit-limit")).toBe("3");
    expect(await snapshotStore(g.db)).toEqual(before);
    expect(await g.db.transaction.count()).toBe(3);

    clock.advance(1000);
    const next = await initialize(g, keys.testPublicKey);
    expect(next.status).toBe(201);
    expect(next.headers.get("ratelimit-remaining")).toBe("2");
  });

  it("gives live keys and test keys their own limits", async () => {
    const g = await gateway({ live: { limit: 4, windowMs: 1000 }, test: { limit: 2, windowMs: 1000 } }, { clock: testClock() });
    const keys = await g.merchant({ kyb: "VERIFIED" });
    const live = await initialize(g, keys.livePublicKey);
    expect(live.status).toBe(201);
    expect(live.headers.get("ratelimit-limit")).toBe("4");
    const test = await initialize(g, keys.testPublicKey);
    expect(test.status).toBe(201);
    expect(test.headers.get("ratelimit-limit")).toBe("2");

    expect((await initialize(g, keys.testPublicKey)).status).toBe(201);
    const testRefused = await initialize(g, keys.testPublicKey);
    expect(testRefused.status).toBe(429);
    expect(testRefused.body.message).toBe("Too many requests: requests with this test API key are limited to 2 per second; retry after 1 s");
    for (let i = 0; i < 3; i++) expect((await initialize(g, keys.livePublicKey)).status).toBe(201);
    const liveRefused = await initialize(g, keys.livePublicKey);
    expect(liveRefused.status).toBe(429);
    expect(liveRefused.body).toEqual(limitedBody("Too many requests: requests with this live API key are limited to 4 per second; retry after 1 s"));
  });

  it("counts each key in its own bucket, REST and GraphQL together; GraphQL is refused with HTTP 429 too", async () => {
    const g = await gateway({ test: { limit: 3, windowMs: 60_000 } }, { clock: testClock() });
    const a = await g.merchant({ name: "A" });
    const b = await g.merchant({ name: "B" });
    expect((await initialize(g, a.testPublicKey)).status).toBe(201);
    expect((await graphqlInitialize(g, a.testPublicKey)).status).toBe(200);
    expect((await retrieve(g, a.testPublicKey)).status).toBe(404); // any request counts, whatever its answer
    const graphqlRefused = await graphqlInitialize(g, a.testPublicKey);
    expect(graphqlRefused.status).toBe(429);
    expect(graphqlRefused.headers.get("retry-after")).toBe("60");
    expect(graphqlRefused.body).toEqual({
      errors: [
        {
          message: "Too many requests: requests with this test API key are limited to 3 per minute; retry after 60 s",
          extensions: { code: "RATE_LIMITED", status: 429, reason: "rate_limited", errors: [] },
        },
      ],
    });
    expect((await initialize(g, a.testPublicKey)).status).toBe(429);
    // Another merchant's key, and the same merchant's secret key, have buckets of their own.
    expect((await initialize(g, b.testPublicKey)).status).toBe(201);
    const secret = await retrieve(g, a.testSecretKey);
    expect(secret.status).toBe(404);
    expect(secret.headers.get("ratelimit-remaining")).toBe("2");
  });

  it("lets a checkout page read the 429: CORS headers, with Retry-After and the RateLimit headers exposed", async () => {
    const g = await gateway({ test: { limit: 1, windowMs: 1000 } }, { clock: testClock() });
    const keys = await g.merchant();
    const fromPage = () =>
      fetch(`${g.url}/v1/transaction`, {
        method: "POST",
        headers: { origin: "https://shop.example.com", "content-type": "application/json", authorization: `Bearer ${keys.testPublicKey}` },
        body: JSON.stringify(order),
      });
    expect((await fromPage()).status).toBe(201);
    const refused = await fromPage();
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual(
      limitedBody("Too many requests: requests with this test API key are limited to 1 per second; retry after 1 s"),
    );
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    const exposed = (refused.headers.get("access-control-expose-headers") ?? "").toLowerCase().split(",");
    expect(exposed).toEqual(expect.arrayContaining(["retry-after", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "ratelimit-policy"]));
  });

  it("is shared by two instances on one database", async () => {
    const clock = testClock();
    const policy = { test: { limit: 3, windowMs: 1000 } };
    const first = await gateway(policy, { clock });
    const second = await gateway(policy, { clock, sameDatabaseAs: first });
    const keys = await first.merchant();
    expect((await initialize(first, keys.testPublicKey)).status).toBe(201);
    expect((await initialize(second, keys.testPublicKey)).status).toBe(201);
    const third = await initialize(first, keys.testPublicKey);
    expect(third.status).toBe(201);
    expect(third.headers.get("ratelimit-remaining")).toBe("0");
    const refused = await initialize(second, keys.testPublicKey);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(limitedBody("Too many requests: requests with this test API key are limited to 3 per second; retry after 1 s"));
    expect(await first.db.transaction.count()).toBe(3);
  });

  it("keeps only a digest of the key in the counters, never the key", async () => {
    const g = await gateway({ test: { limit: 10, windowMs: 1000 } }, { clock: testClock() });
    const keys = await g.merchant();
    await initialize(g, keys.testPublicKey);
    const rows = await g.db.rateLimitCounter.findMany();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.key).toMatch(/^key:[0-9a-f]{32}$/);
    expect(JSON.stringify(rows)).not.toContain(keys.testPublicKey);
    expect(rows[0]?.hits).toBe(1);
  });
});

describe("without an API key", () => {
  it("counts requests per client address at the live limit (a key in the body, a payment link)", async () => {
    const g = await gateway({ live: { limit: 2, windowMs: 1000 }, test: { limit: 100, windowMs: 1000 } }, { clock: testClock() });
    const keys = await g.merchant();
    const bodyKey = (from: string) => call(g, "/v1/transaction", { body: { ...order, public_key: keys.testPublicKey }, from });
    const first = await bodyKey("203.0.113.7");
    expect(first.status).toBe(201);
    expect(first.headers.get("ratelimit-limit")).toBe("2");
    expect((await bodyKey("203.0.113.7")).status).toBe(201);
    const refused = await bodyKey("203.0.113.7");
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(
      limitedBody("Too many requests: requests without an API key from this address are limited to 2 per second; retry after 1 s"),
    );
    expect((await bodyKey("198.51.100.9")).status).toBe(201);
  });

  it("counts an IPv6 client by its /64, and an IPv4-mapped address as the IPv4 one", async () => {
    expect(addressBucket("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressBucket("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(addressBucket("192.0.2.1")).toBe("192.0.2.1");
    const g = await gateway({ live: { limit: 1, windowMs: 1000 } }, { clock: testClock() });
    expect((await call(g, "/v1/transaction", { body: order, from: "2001:db8:1:2::1" })).status).toBe(400); // no credential
    const refused = await call(g, "/v1/transaction", { body: order, from: "2001:db8:1:2:ffff::9" });
    expect(refused.status).toBe(429);
    expect(refused.body.message).toBe(
      "Too many requests: requests without an API key from this address are limited to 1 per second; retry after 1 s",
    );
    expect((await call(g, "/v1/transaction", { body: order, from: "2001:db8:1:3::1" })).status).toBe(400);
  });

  it("never limits the probes, /metrics and the API reference", async () => {
    const g = await gateway({ live: { limit: 1, windowMs: 60_000 }, test: { limit: 1, windowMs: 60_000 } }, { clock: testClock() });
    for (const path of ["/livez", "/readyz", "/healthz", "/metrics", "/openapi.json", "/docs/"]) {
      for (let i = 0; i < 3; i++) {
        const res = await fetch(g.url + path);
        await res.arrayBuffer();
        expect(res.status, path).toBe(200);
        expect(res.headers.get("ratelimit-limit"), path).toBeNull();
      }
    }
  });
});

describe("failed authentications per address", () => {
  const policy = { authFailures: { limit: 3, windowMs: 60_000 } };

  it("refuses an address with 429 before authentication once it has failed too often, while other addresses go on", async () => {
    const clock = testClock();
    const g = await gateway(policy, { clock });
    const keys = await g.merchant();
    const attacker = "203.0.113.7";
    const unknownSecret = await retrieve(g, "sec_test_guessed0000000000000000000000000000", attacker);
    expect(unknownSecret.status).toBe(401);
    expect(unknownSecret.body.message).toBe("Invalid Secret Key");
    const unknownPublic = await initialize(g, "pub_test_guessed00000000000000000000000", attacker);
    expect(unknownPublic.status).toBe(404);
    expect(unknownPublic.body.message).toBe("Invalid Public Key");
    const graphql = await call(g, "/graphql", {
      key: "sec_test_guessed1",
      from: attacker,
      body: { query: '{ transaction(id: "00000000-0000-4000-8000-000000000000") { id } }' },
    });
    expect(graphql.body.errors[0].extensions.reason).toBe("invalid_secret_key");

    // The fourth request is refused whatever it carries, a valid key included, and reaches nothing.
    const before = await snapshotStore(g.db);
    const refused = await initialize(g, keys.testPublicKey, attacker);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(
      limitedBody("Too many failed authentications from this address (3 per minute); retry after 60 s", "too_many_failed_authentications"),
    );
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(refused.headers.get("ratelimit-limit")).toBe("3");
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    expect(await snapshotStore(g.db)).toEqual(before);

    const elsewhere = await initialize(g, keys.testPublicKey, "198.51.100.9");
    expect(elsewhere.status).toBe(201);
    clock.advance(60_000);
    expect((await initialize(g, keys.testPublicKey, attacker)).status).toBe(201);
  });

  it("counts only failed authentications: successes, other errors and an inactive merchant's real key do not", async () => {
    const g = await gateway(policy, { clock: testClock() });
    const keys = await g.merchant();
    const inactive = await g.merchant({ name: "Closed", active: false });
    const from = "203.0.113.8";
    for (let i = 0; i < 5; i++) expect((await initialize(g, keys.testPublicKey, from)).status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await retrieve(g, keys.testSecretKey, from)).status).toBe(404); // transaction_not_found
    for (let i = 0; i < 3; i++) {
      const res = await initialize(g, inactive.testPublicKey, from);
      expect(res.status).toBe(404);
      expect(res.body.reason).toBe("merchant_inactive");
    }
    for (let i = 0; i < 2; i++) expect((await retrieve(g, "sec_test_wrong", from)).status).toBe(401);
    expect((await initialize(g, keys.testPublicKey, from)).status).toBe(201);
    expect((await retrieve(g, "sec_test_wrong", from)).status).toBe(401);
    const refused = await initialize(g, keys.testPublicKey, from);
    expect(refused.status).toBe(429);
    expect(refused.body.reason).toBe("too_many_failed_authentications");
  });

  it("ignores X-Forwarded-For unless PAYGATE_TRUST_PROXY trusts the proxy: a client cannot pick its address", async () => {
    const g = await gateway(policy, { clock: testClock(), trustProxy: false });
    const keys = await g.merchant();
    for (let i = 0; i < 3; i++) expect((await retrieve(g, "sec_test_wrong", `203.0.113.${i + 1}`)).status).toBe(401);
    const refused = await initialize(g, keys.testPublicKey, "198.51.100.77");
    expect(refused.status).toBe(429);
    expect(refused.body.message).toBe("Too many failed authentications from this address (3 per minute); retry after 60 s");
  });
});

describe("a counter store that fails", () => {
  const failing = (error: () => Error) => () => ({
    count: () => Promise.reject(error()),
    prune: () => Promise.reject(error()),
  });

  it("lets requests through, unlimited, when the database does not answer for the counters (the outage is logged elsewhere, once)", async () => {
    const g = await gateway(
      { test: { limit: 1, windowMs: 60_000 }, authFailures: { limit: 1, windowMs: 60_000 } },
      { counters: failing(() => errors.databaseUnavailable("database_unreachable")) },
    );
    const keys = await g.merchant();
    for (let i = 0; i < 3; i++) {
      const res = await initialize(g, keys.testPublicKey);
      expect(res.status).toBe(201);
      expect(res.headers.get("ratelimit-limit")).toBeNull();
    }
    for (let i = 0; i < 3; i++) expect((await retrieve(g, "sec_test_wrong")).status).toBe(401);
    expect(await g.db.transaction.count()).toBe(3);
    expect(g.logs.filter((line) => line.includes("rate"))).toEqual([]);
  });

  it("lets requests through and logs an unexpected failure of the store", async () => {
    const g = await gateway({ test: { limit: 1, windowMs: 60_000 } }, { counters: failing(() => new Error("counters broke")) });
    const keys = await g.merchant();
    for (let i = 0; i < 2; i++) expect((await initialize(g, keys.testPublicKey)).status).toBe(201);
    const lines = g.logs.map((line) => JSON.parse(line) as { level: string; msg: string; err?: { message: string } });
    const failures = lines.filter((line) => line.err?.message === "counters broke");
    expect(failures.length).toBeGreaterThanOrEqual(2);
    expect(failures[0]?.level).toBe("error");
  });
});

describe("the counters", () => {
  it("counts atomically under concurrent hits, reads another counter in the same statement, and prunes ended windows", async () => {
    const g = await gateway({});
    const counters = rateLimitCounters(g.db);
    const start = new Date(Date.UTC(2030, 0, 1));
    const end = new Date(start.getTime() + 1000);
    const window = (key: string, from = start, to = end) => ({ key, start: from, end: to });
    const totals = await Promise.all(Array.from({ length: 20 }, () => counters.count(window("key:concurrent"), null)));
    expect(totals.map((t) => t.hits).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(await counters.count(null, window("key:concurrent"))).toEqual({ hits: 0, read: 20 });
    expect(await counters.count(window("fail:a"), window("key:concurrent"))).toEqual({ hits: 1, read: 20 });
    expect(await counters.count(window("key:concurrent"), window("key:unknown"))).toEqual({ hits: 21, read: 0 });
    expect(await counters.count(null, null)).toEqual({ hits: 0, read: 0 });
    await counters.count(window("key:later", end, new Date(end.getTime() + 1000)), null);
    expect(await counters.prune(end)).toBe(2);
    expect(await counters.count(null, window("key:concurrent"))).toEqual({ hits: 0, read: 0 });
    expect(await counters.count(null, window("key:later", end))).toEqual({ hits: 0, read: 1 });
  });

  it("deletes ended windows as requests come, once a minute per instance", async () => {
    const clock = testClock();
    const g = await gateway({ test: { limit: 10, windowMs: 1000 } }, { clock });
    const keys = await g.merchant();
    for (let i = 0; i < 3; i++) {
      expect((await initialize(g, keys.testPublicKey)).status).toBe(201);
      clock.advance(1000);
    }
    expect(await g.db.rateLimitCounter.count()).toBe(3); // pruned at the first request only: nothing had ended
    clock.advance(60_000);
    expect((await initialize(g, keys.testPublicKey)).status).toBe(201);
    await expect.poll(() => g.db.rateLimitCounter.count()).toBe(1);
  });

  it("lives in an UNLOGGED table on PostgreSQL", async () => {
    const g = await gateway({});
    const rows = await g.db.$queryRaw<{ relpersistence: string }[]>`SELECT relpersistence FROM pg_class WHERE relname = 'rate_limit_counters'`;
    expect(rows).toEqual([{ relpersistence: "u" }]);
  });

  it("counts 429s in the metrics, by bucket", async () => {
    const g = await gateway({ test: { limit: 1, windowMs: 60_000 } }, { clock: testClock() });
    const keys = await g.merchant();
    await initialize(g, keys.testPublicKey);
    expect((await initialize(g, keys.testPublicKey)).status).toBe(429);
    const exposition = await g.metrics.render();
    expect(exposition).toContain('paygate_rate_limited_requests_total{bucket="test_key"} 1');
    expect(exposition).toContain('paygate_rate_limited_requests_total{bucket="auth_failures"} 0');
  });
});
