// Rate limits over HTTP (docs/rest-api.md, Rate limits): per API key (live and test apart, REST and GraphQL
// together), per client address without a key, and per address for failed authentications; the
// RateLimit headers, 429 with Retry-After in the one error shape, counters shared by two instances
// on one database, and a failing counter store that lets requests through.
//
// The limiter runs on a clock of the test's, moved to the start of the next minute before each
// test, so every test starts in fresh windows of one shared gateway (each with its own
// merchants and addresses), no test waits, and none depends on where a real second or minute
// begins. What needs another setting (trust proxy off, a failing store) gets a gateway of its own.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { errors } from "../../src/core/errors.ts";
import { addressBucket, type RateLimitPolicy } from "../../src/core/rate-limits.ts";
import { rateLimitCounters } from "../../src/db/stores/rate-limit-counters.ts";
import { startTestGateway, type TestGateway, type TestRateLimits } from "../support/gateway.ts";
import { snapshotStore } from "../support/snapshot.ts";
import { manualClock } from "../support/clock.ts";
import { initializeBody } from "../support/builders.ts";

const POLICY: RateLimitPolicy = {
  live: { limit: 2, windowMs: 1000 },
  test: { limit: 3, windowMs: 1000 },
  authFailures: { limit: 3, windowMs: 60_000 },
};
const clock = manualClock(Date.UTC(2030, 0, 1, 12, 0, 0));
let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ rateLimits: { policy: POLICY, clock, trustProxy: ["loopback"] } });
});
afterAll(() => t.close());
beforeEach(() => clock.nextMinute());

const own: TestGateway[] = [];
afterEach(async () => {
  // Second instances first: they borrow another gateway's database.
  for (const g of own.reverse()) await g.close();
  own.length = 0;
});

async function gateway(limits: TestRateLimits & { sameDatabaseAs?: TestGateway }) {
  const { sameDatabaseAs, ...rest } = limits;
  const g = await startTestGateway({ rateLimits: { policy: POLICY, clock, trustProxy: ["loopback"], ...rest }, sameDatabaseAs });
  own.push(g);
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

const order = initializeBody({ amount: "10" });
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
const testKeyRefusal = "Too many requests: requests with this test API key are limited to 3 per second; retry after 1 s";

describe("per API key", () => {
  it("sends the draft-6 RateLimit headers of the key's bucket on a normal request", async () => {
    const keys = await t.merchant();
    const res = await initialize(t, keys.testPublicKey);
    expect(res.status).toBe(201);
    expect(res.headers.get("ratelimit-limit")).toBe("3");
    expect(res.headers.get("ratelimit-remaining")).toBe("2");
    expect(res.headers.get("ratelimit-reset")).toBe("1");
    expect(res.headers.get("ratelimit-policy")).toBe("3;w=1");
    expect(res.headers.get("retry-after")).toBeNull();
    expect(res.headers.get("x-ratelimit-limit")).toBeNull(); // no legacy headers
  });

  it("refuses the request over the limit with 429, Retry-After and the error body, changing nothing; the next window lets it in", async () => {
    const keys = await t.merchant();
    for (let i = 0; i < 3; i++) expect((await initialize(t, keys.testPublicKey)).status).toBe(201);
    const before = await snapshotStore(t.db);

    const refused = await initialize(t, keys.testPublicKey);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(limitedBody(testKeyRefusal));
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    expect(refused.headers.get("ratelimit-limit")).toBe("3");
    expect(await snapshotStore(t.db)).toEqual(before);

    clock.advance(1000);
    const next = await initialize(t, keys.testPublicKey);
    expect(next.status).toBe(201);
    expect(next.headers.get("ratelimit-remaining")).toBe("2");
  });

  it("gives live keys and test keys their own limits", async () => {
    const keys = await t.merchant({ kyb: "VERIFIED" });
    const live = await initialize(t, keys.livePublicKey);
    expect(live.status).toBe(201);
    expect(live.headers.get("ratelimit-limit")).toBe("2");
    const test = await initialize(t, keys.testPublicKey);
    expect(test.status).toBe(201);
    expect(test.headers.get("ratelimit-limit")).toBe("3");

    expect((await initialize(t, keys.livePublicKey)).status).toBe(201);
    const liveRefused = await initialize(t, keys.livePublicKey);
    expect(liveRefused.status).toBe(429);
    expect(liveRefused.body).toEqual(limitedBody("Too many requests: requests with this live API key are limited to 2 per second; retry after 1 s"));
    for (let i = 0; i < 2; i++) expect((await initialize(t, keys.testPublicKey)).status).toBe(201);
    const testRefused = await initialize(t, keys.testPublicKey);
    expect(testRefused.status).toBe(429);
    expect(testRefused.body.message).toBe(testKeyRefusal);
  });

  it("counts each key in its own bucket, REST and GraphQL together; GraphQL is refused with HTTP 429 too", async () => {
    const a = await t.merchant({ name: "A" });
    const b = await t.merchant({ name: "B" });
    expect((await initialize(t, a.testPublicKey)).status).toBe(201);
    expect((await graphqlInitialize(t, a.testPublicKey)).status).toBe(200);
    expect((await retrieve(t, a.testPublicKey)).status).toBe(404); // any request counts, whatever its answer
    const graphqlRefused = await graphqlInitialize(t, a.testPublicKey);
    expect(graphqlRefused.status).toBe(429);
    expect(graphqlRefused.headers.get("retry-after")).toBe("1");
    expect(graphqlRefused.body).toEqual({
      errors: [{ message: testKeyRefusal, extensions: { code: "RATE_LIMITED", status: 429, reason: "rate_limited", errors: [] } }],
    });
    expect((await initialize(t, a.testPublicKey)).status).toBe(429);
    // Another merchant's key, and the same merchant's secret key, have buckets of their own.
    expect((await initialize(t, b.testPublicKey)).status).toBe(201);
    const secret = await retrieve(t, a.testSecretKey);
    expect(secret.status).toBe(404);
    expect(secret.headers.get("ratelimit-remaining")).toBe("2");
  });

  it("lets a checkout page read the 429: CORS headers, with Retry-After and the RateLimit headers exposed", async () => {
    const keys = await t.merchant();
    const fromPage = () =>
      fetch(`${t.url}/v1/transaction`, {
        method: "POST",
        headers: { origin: "https://shop.example.com", "content-type": "application/json", authorization: `Bearer ${keys.testPublicKey}` },
        body: JSON.stringify(order),
      });
    for (let i = 0; i < 3; i++) expect((await fromPage()).status).toBe(201);
    const refused = await fromPage();
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual(limitedBody(testKeyRefusal));
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    const exposed = (refused.headers.get("access-control-expose-headers") ?? "").toLowerCase().split(",");
    expect(exposed).toEqual(expect.arrayContaining(["retry-after", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "ratelimit-policy"]));
  });

  it("is shared by two instances on one database", async () => {
    const second = await gateway({ sameDatabaseAs: t });
    const keys = await t.merchant();
    expect((await initialize(t, keys.testPublicKey)).status).toBe(201);
    expect((await initialize(second, keys.testPublicKey)).status).toBe(201);
    const third = await initialize(t, keys.testPublicKey);
    expect(third.status).toBe(201);
    expect(third.headers.get("ratelimit-remaining")).toBe("0");
    const refused = await initialize(second, keys.testPublicKey);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(limitedBody(testKeyRefusal));
    expect(await t.db.transaction.count({ where: { merchantId: keys.id } })).toBe(3);
  });

  it("keeps only a digest of the key in the counters, never the key", async () => {
    const keys = await t.merchant();
    await initialize(t, keys.testPublicKey);
    const rows = await t.db.rateLimitCounter.findMany({ where: { windowStart: clock.now() } });
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.key).toMatch(/^(key:[0-9a-f]{32}|addr:\S+|fail:\S+)$/);
    expect(rows.filter((row) => row.key.startsWith("key:"))).toHaveLength(1);
    expect(JSON.stringify(await t.db.rateLimitCounter.findMany())).not.toContain(keys.testPublicKey.slice(9));
  });
});

describe("without an API key", () => {
  it("counts requests per client address at the live limit (a key in the body, a payment link)", async () => {
    const keys = await t.merchant();
    const bodyKey = (from: string) => call(t, "/v1/transaction", { body: { ...order, public_key: keys.testPublicKey }, from });
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
    expect((await call(t, "/v1/transaction", { body: order, from: "2001:db8:1:2::1" })).status).toBe(400); // no credential
    expect((await call(t, "/v1/transaction", { body: order, from: "2001:db8:1:2::2" })).status).toBe(400);
    const refused = await call(t, "/v1/transaction", { body: order, from: "2001:db8:1:2:ffff::9" });
    expect(refused.status).toBe(429);
    expect(refused.body.message).toBe(
      "Too many requests: requests without an API key from this address are limited to 2 per second; retry after 1 s",
    );
    expect((await call(t, "/v1/transaction", { body: order, from: "2001:db8:1:3::1" })).status).toBe(400);
  });

  it("never limits the probes, /metrics and the API reference", async () => {
    for (const path of ["/livez", "/readyz", "/healthz", "/metrics", "/openapi.json", "/docs/"]) {
      for (let i = 0; i < 3; i++) {
        const res = await fetch(t.url + path);
        await res.arrayBuffer();
        expect(res.status, path).toBe(200);
        expect(res.headers.get("ratelimit-limit"), path).toBeNull();
      }
    }
  });
});

describe("failed authentications per address", () => {
  it("refuses an address with 429 before authentication once it has failed too often, while other addresses go on", async () => {
    const keys = await t.merchant();
    const attacker = "203.0.113.17";
    const unknownSecret = await retrieve(t, "sec_test_guessed0000000000000000000000000000", attacker);
    expect(unknownSecret.status).toBe(401);
    expect(unknownSecret.body.message).toBe("Invalid Secret Key");
    const unknownPublic = await initialize(t, "pub_test_guessed00000000000000000000000", attacker);
    expect(unknownPublic.status).toBe(404);
    expect(unknownPublic.body.message).toBe("Invalid Public Key");
    const graphql = await call(t, "/graphql", {
      key: "sec_test_guessed1",
      from: attacker,
      body: { query: '{ transaction(id: "00000000-0000-4000-8000-000000000000") { id } }' },
    });
    expect(graphql.body.errors[0].extensions.reason).toBe("invalid_secret_key");

    // The fourth request is refused whatever it carries, a valid key included, and reaches nothing.
    const before = await snapshotStore(t.db);
    const refused = await initialize(t, keys.testPublicKey, attacker);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(
      limitedBody("Too many failed authentications from this address (3 per minute); retry after 60 s", "too_many_failed_authentications"),
    );
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(refused.headers.get("ratelimit-limit")).toBe("3");
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    expect(await snapshotStore(t.db)).toEqual(before);

    expect((await initialize(t, keys.testPublicKey, "198.51.100.19")).status).toBe(201);
    clock.advance(60_000);
    expect((await initialize(t, keys.testPublicKey, attacker)).status).toBe(201);
  });

  it("counts only failed authentications: successes, other errors and an inactive merchant's real key do not", async () => {
    const keys = await t.merchant();
    const inactive = await t.merchant({ name: "Closed", active: false });
    const from = "203.0.113.18";
    for (let i = 0; i < 3; i++) {
      expect((await initialize(t, keys.testPublicKey, from)).status).toBe(201);
      expect((await retrieve(t, keys.testSecretKey, from)).status).toBe(404); // transaction_not_found
      const res = await initialize(t, inactive.testPublicKey, from);
      expect(res.status).toBe(404);
      expect(res.body.reason).toBe("merchant_inactive");
      clock.advance(1000); // within the minute of the failures, past each key's second
    }
    for (let i = 0; i < 2; i++) expect((await retrieve(t, "sec_test_wrong", from)).status).toBe(401);
    expect((await initialize(t, keys.testPublicKey, from)).status).toBe(201);
    expect((await retrieve(t, "sec_test_wrong", from)).status).toBe(401);
    const refused = await initialize(t, keys.testPublicKey, from);
    expect(refused.status).toBe(429);
    expect(refused.body.reason).toBe("too_many_failed_authentications");
  });

  it("counts a wrong client secret as a failed authentication", async () => {
    const keys = await t.merchant();
    const id = (await initialize(t, keys.testPublicKey)).body.data.id as string;
    const from = "203.0.113.19";
    for (let i = 0; i < 3; i++) {
      const wrong = await call(t, `/v1/transaction/${id}`, { method: "GET", key: `${id}_secret_${"x".repeat(31)}${i}`, from });
      expect(wrong.status).toBe(401);
      expect(wrong.body.message).toBe("Invalid client secret: use the client_secret that initialize returned for this transaction");
    }
    const refused = await call(t, `/v1/transaction/${id}`, { method: "GET", key: keys.testSecretKey, from });
    expect(refused.status).toBe(429);
    expect(refused.body.reason).toBe("too_many_failed_authentications");
  });

  it("ignores X-Forwarded-For unless PAYGATE_TRUST_PROXY trusts the proxy: a client cannot pick its address", async () => {
    const g = await gateway({ trustProxy: false });
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
    giveBack: () => Promise.reject(error()),
    prune: () => Promise.reject(error()),
  });

  it("lets requests through, unlimited, when the database does not answer for the counters (the outage is logged elsewhere, once)", async () => {
    const g = await gateway({ counters: failing(() => errors.databaseUnavailable("database_unreachable")) });
    const keys = await g.merchant();
    for (let i = 0; i < 5; i++) {
      const res = await initialize(g, keys.testPublicKey);
      expect(res.status).toBe(201);
      expect(res.headers.get("ratelimit-limit")).toBeNull();
    }
    for (let i = 0; i < 5; i++) expect((await retrieve(g, "sec_test_wrong")).status).toBe(401);
    expect(await g.db.transaction.count()).toBe(5);
    expect(g.logs.filter((line) => line.includes("rate"))).toEqual([]);
  });

  it("lets requests through and logs an unexpected failure of the store", async () => {
    const g = await gateway({ counters: failing(() => new Error("counters broke")) });
    const keys = await g.merchant();
    for (let i = 0; i < 4; i++) expect((await initialize(g, keys.testPublicKey)).status).toBe(201);
    const lines = g.logs.map((line) => JSON.parse(line) as { level: string; msg: string; err?: { message: string } });
    const failures = lines.filter((line) => line.err?.message === "counters broke");
    expect(failures).toHaveLength(4);
    expect(failures[0]?.level).toBe("error");
    expect(failures[0]?.msg).toBe("the rate-limit counters failed; the request went through without the rate limits");
  });
});

describe("the counters", () => {
  it("counts atomically under concurrent hits, reads another counter in the same statement, and prunes ended windows", async () => {
    const counters = rateLimitCounters(t.db);
    const start = new Date(Date.UTC(2029, 0, 1)); // before every window of the other tests
    const end = new Date(start.getTime() + 1000);
    const window = (key: string, from = start, to = end) => ({ key, start: from, end: to });
    const totals = await Promise.all(Array.from({ length: 20 }, () => counters.count(window("key:concurrent"), null)));
    expect(totals.map((total) => total.hits).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
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
    const g = await gateway({});
    const keys = await g.merchant();
    const keyRows = () => g.db.rateLimitCounter.count({ where: { key: { startsWith: "key:" } } });
    expect((await initialize(g, keys.testPublicKey)).status).toBe(201); // the instance's first prune: nothing had ended
    for (let i = 0; i < 2; i++) {
      clock.advance(1000);
      expect((await initialize(g, keys.testPublicKey)).status).toBe(201);
    }
    expect(await keyRows()).toBe(3);
    clock.advance(60_000);
    expect((await initialize(g, keys.testPublicKey)).status).toBe(201);
    await expect.poll(keyRows).toBe(1);
  });

  it("lives in an UNLOGGED table on PostgreSQL", async () => {
    const rows = await t.db.$queryRaw<{ relpersistence: string }[]>`SELECT relpersistence FROM pg_class WHERE relname = 'rate_limit_counters'`;
    expect(rows).toEqual([{ relpersistence: "u" }]);
  });

  it("counts 429s in the metrics, by bucket", async () => {
    const count = async (bucket: string) => {
      const match = new RegExp(`paygate_rate_limited_requests_total\\{bucket="${bucket}"\\} (\\d+)`).exec(await t.metrics.render());
      return Number(match?.[1]);
    };
    const [testBefore, failuresBefore] = [await count("test_key"), await count("auth_failures")];
    const keys = await t.merchant();
    for (let i = 0; i < 3; i++) await initialize(t, keys.testPublicKey);
    expect((await initialize(t, keys.testPublicKey)).status).toBe(429);
    expect(await count("test_key")).toBe(testBefore + 1);
    expect(await count("auth_failures")).toBe(failuresBefore);
  });
});

describe("WebSocket upgrades (subscriptions)", () => {
  /** Opens a graphql-ws socket to /graphql; resolves with the upgrade's answer: 101, or the refusal's status, headers and body. */
  function upgrade(g: TestGateway, from: string): Promise<{ status: number; retryAfter?: string; body?: string }> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(`${g.url.replace("http", "ws")}/graphql`, "graphql-transport-ws", { headers: { "x-forwarded-for": from } });
      socket.on("open", () => {
        socket.close();
        resolve({ status: 101 });
      });
      socket.on("unexpected-response", (_req, res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"], body }));
      });
      socket.on("error", (error) => {
        if (!String(error.message).includes("Unexpected server response")) reject(error);
      });
    });
  }

  it("counts each upgrade against its client's bucket and refuses the one over the limit with 429 and the error body", async () => {
    // Without a key, an address gets the live limit: 2 a second here.
    expect((await upgrade(t, "203.0.113.77")).status).toBe(101);
    expect((await upgrade(t, "203.0.113.77")).status).toBe(101);
    const refused = await upgrade(t, "203.0.113.77");
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(refused.body ?? "{}")).toMatchObject({ status: "error", code: "rate_limited", reason: "rate_limited" });
    expect(JSON.parse(refused.body ?? "{}").message).toMatch(/^Too many requests/);
    // Another address is not held back, and the next window lets this one in again.
    expect((await upgrade(t, "203.0.113.78")).status).toBe(101);
    clock.advance(1000);
    expect((await upgrade(t, "203.0.113.77")).status).toBe(101);
  });
});
