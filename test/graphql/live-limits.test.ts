// Live updates under attack (issue 23): failed authentications on /graphql/stream and on WebSocket
// subscriptions count against the address as REST's do; event streams and WebSockets are capped per
// address, per credential and in all (429 with Retry-After, or close code 4429), while a checkout's
// two tabs and a reconnect never meet a cap; a WebSocket holds a few subscriptions, each one a
// request of the rate limits; one change of a transaction costs one read however many follow it;
// a revoked key's streams end. Everything runs against the real app on 127.0.0.1, bounded in count.
import { type ClientRequest, type IncomingMessage, request } from "node:http";
import { print } from "graphql";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { Credentials } from "../../src/core/credentials.ts";
import { Decimal } from "../../src/core/money/amounts.ts";
import type { Stores } from "../../src/core/stores/index.ts";
import { LiveCredentials, TransactionFollowers, transactionUpdates } from "../../src/core/transactions/updates.ts";
import { DEFAULT_LIVE_LIMITS, type LiveLimits } from "../../src/edge/connection-limits.ts";
import { manualClock } from "../support/clock.ts";
import { startTestGateway, type TestGateway, type TestGatewayOptions } from "../support/gateway.ts";
import { TransactionUpdatedDocument } from "./generated/operations.ts";
import { initializeBody } from "../support/builders.ts";

const QUERY = print(TransactionUpdatedDocument);

const own: TestGateway[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  for (const stream of streams.splice(0)) stream.destroy();
  for (const g of own.splice(0).reverse()) await g.close();
});

async function gateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  // The limiter's windows start where this clock stands, and it never moves: no test straddles a window.
  const clock = manualClock(Date.UTC(2030, 0, 1, 12, 0, 0));
  const g = await startTestGateway({ ...options, rateLimits: { trustProxy: ["loopback"], clock, ...options.rateLimits } });
  own.push(g);
  return g;
}

const LIMITS: LiveLimits = { perAddress: 3, perCredential: 2, total: 5, subscriptionsPerSocket: 2 };

async function transaction(g: TestGateway, publicKey: string): Promise<{ id: string; clientSecret: string }> {
  const res = await g.post("/v1/transaction", initializeBody(), { authorization: `Bearer ${publicKey}` });
  expect(res.status).toBe(201);
  return { id: res.body.data.id, clientSecret: res.body.data.client_secret };
}

// ── Server-Sent Events, read raw ─────────────────────────────────────────────────────────────────

const streams: ClientRequest[] = [];

/**
 * One event stream (POST /graphql/stream) on a connection of its own: its status, and its first
 * event (or JSON body) once read. Closing it closes the connection, as a browser tab does.
 */
async function stream(g: TestGateway, id: string, credential: string | undefined, from?: string) {
  const url = new URL(`${g.url}/graphql/stream`);
  const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
  if (credential) headers.authorization = `Bearer ${credential}`;
  if (from) headers["x-forwarded-for"] = from;
  const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers, agent: false });
  streams.push(req);
  req.end(JSON.stringify({ query: QUERY, variables: { id } }));
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    req.once("response", resolve);
    req.once("error", reject);
  });
  req.on("error", () => {}); // closing it ourselves is not a failure
  let text = "";
  let ended = false;
  const arrived: (() => void)[] = [];
  res.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
    for (const wake of arrived.splice(0)) wake();
  });
  res.on("close", () => {
    ended = true;
    for (const wake of arrived.splice(0)) wake();
  });
  /** Reads until the first event's data (a stream) or the end (a JSON answer). */
  const first = async (): Promise<any> => {
    for (;;) {
      const match = /data: (.*)\n/.exec(text);
      if (match) return JSON.parse(match[1]!);
      if (ended) return JSON.parse(text);
      await new Promise<void>((resolve) => arrived.push(resolve));
    }
  };
  return { status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"] ?? null, first, close: () => req.destroy() };
}

// ── WebSockets (graphql-transport-ws), driven raw ────────────────────────────────────────────────

const sockets: WebSocket[] = [];

interface RawSocket {
  /** The next message of a type (any id), or the close. */
  next(type: string, id?: string): Promise<any>;
  subscribe(id: string, transactionId: string): void;
  complete(id: string): void;
  closed: Promise<{ code: number; reason: string }>;
}

/** A WebSocket to /graphql, acknowledged; or the upgrade's refusal (status, headers, body). */
async function socket(
  g: TestGateway,
  credential: string | undefined,
  from?: string,
): Promise<RawSocket | { status: number; retryAfter: string | undefined; body: any }> {
  const ws = new WebSocket(`${g.url.replace(/^http/, "ws")}/graphql`, "graphql-transport-ws", { headers: from ? { "x-forwarded-for": from } : {} });
  sockets.push(ws);
  const messages: any[] = [];
  const waiters: (() => void)[] = [];
  let closedWith: { code: number; reason: string } | null = null;
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code, reason) => {
      closedWith = { code, reason: String(reason) };
      resolve(closedWith);
      for (const wake of waiters.splice(0)) wake();
    }),
  );
  ws.on("message", (data) => {
    messages.push(JSON.parse(String(data)));
    for (const wake of waiters.splice(0)) wake();
  });
  const opened = await new Promise<true | { status: number; retryAfter: string | undefined; body: any }>((resolve, reject) => {
    ws.once("open", () => resolve(true));
    ws.once("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => {
        body += chunk;
      });
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"] as string | undefined, body: JSON.parse(body) }),
      );
    });
    ws.once("error", reject);
  });
  if (opened !== true) return opened;
  const raw: RawSocket = {
    async next(type, id) {
      const deadline = Date.now() + 5000;
      for (;;) {
        const index = messages.findIndex((m) => m.type === type && (id === undefined || m.id === id));
        if (index >= 0) return messages.splice(index, 1)[0];
        if (closedWith) return { type: "closed", ...(closedWith as object) };
        if (Date.now() > deadline) throw new Error(`no ${type} message within 5 s`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 100);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    subscribe: (id, transactionId) => ws.send(JSON.stringify({ id, type: "subscribe", payload: { query: QUERY, variables: { id: transactionId } } })),
    complete: (id) => ws.send(JSON.stringify({ id, type: "complete" })),
    closed,
  };
  ws.send(JSON.stringify({ type: "connection_init", payload: credential ? { authorization: `Bearer ${credential}` } : {} }));
  const ack = await raw.next("connection_ack");
  if (ack.type === "closed") return { ...raw, closed: Promise.resolve(ack) };
  return raw;
}

function isSocket(value: Awaited<ReturnType<typeof socket>>): value is RawSocket {
  return "subscribe" in value;
}

async function openSocket(g: TestGateway, credential: string | undefined, from?: string): Promise<RawSocket> {
  const opened = await socket(g, credential, from);
  if (!isSocket(opened)) throw new Error(`the upgrade was refused: ${JSON.stringify(opened)}`);
  return opened;
}

async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The stores, with one method of the transaction store counting its calls (the real queries still run). */
function countingCalls(stores: Stores, method: keyof Stores["transactions"]): { stores: Stores; calls: () => number } {
  let calls = 0;
  const transactions = new Proxy(stores.transactions, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== method || typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls++;
        return value.apply(target, args);
      };
    },
  });
  return { stores: { ...stores, transactions }, calls: () => calls };
}

// ─────────────────────────────────────────────────────────────────────────────────────────────────

describe("failed authentications on the live transports count against the address", () => {
  const FAILURES = { limit: 20, windowMs: 60_000 };

  it("refuses /graphql/stream with 429 after 20 wrong client secrets from one address, without a bucket per guess", async () => {
    const g = await gateway({ rateLimits: { policy: { authFailures: FAILURES } } });
    const keys = await g.merchant();
    const { id } = await transaction(g, keys.testPublicKey);
    const from = "203.0.113.40";
    const answers: number[] = [];
    for (let i = 0; i < 30; i++) {
      const guess = await stream(g, id, `${id}_secret_${String(i).padStart(32, "x")}`, from);
      const first = await guess.first();
      if (guess.status === 429) {
        expect(first.errors[0].extensions).toMatchObject({ reason: "too_many_failed_authentications", status: 429 });
        expect(first.errors[0].message).toBe("Too many failed authentications from this address (20 per minute); retry after 60 s");
      } else {
        expect(first.errors[0].extensions.reason).toBe("invalid_client_secret");
      }
      answers.push(guess.status);
    }
    expect(answers.filter((s) => s === 429)).toHaveLength(10);
    // Another address is not held back.
    const other = await stream(g, id, keys.testPublicKey, "203.0.113.41");
    expect(other.status).toBe(200);
    expect((await other.first()).data.transactionUpdated.id).toBe(id);
  });

  it("refuses WebSocket subscriptions after 20 wrong credentials on one socket, then the address's next upgrade", async () => {
    const g = await gateway({ rateLimits: { policy: { authFailures: FAILURES } } });
    const keys = await g.merchant();
    const { id } = await transaction(g, keys.testPublicKey);
    const from = "203.0.113.42";
    const ws = await openSocket(g, "pub_test_wrong", from);
    const reasons: string[] = [];
    for (let i = 0; i < 30; i++) {
      ws.subscribe(String(i), id);
      const answer = await Promise.race([ws.next("next", String(i)), ws.next("error", String(i))]);
      const error = answer.type === "next" ? answer.payload.errors[0] : answer.payload[0];
      reasons.push(error.extensions.reason);
    }
    expect(reasons.slice(0, 20).every((r) => r === "invalid_secret_key")).toBe(true);
    expect(reasons.slice(20).every((r) => r === "too_many_failed_authentications")).toBe(true);
    const refused = await socket(g, keys.testPublicKey, from);
    expect(isSocket(refused)).toBe(false);
    expect(refused).toMatchObject({ status: 429, body: { reason: "too_many_failed_authentications" } });
  });
});

describe("caps on live connections", () => {
  it("refuses a credential's stream over its cap with 429 and Retry-After, and takes one again once another closes", async () => {
    const g = await gateway({ live: LIMITS });
    const keys = await g.merchant();
    const { id, clientSecret } = await transaction(g, keys.testPublicKey);
    const tabs = [await stream(g, id, clientSecret, "198.51.100.1"), await stream(g, id, clientSecret, "198.51.100.2")];
    for (const tab of tabs) expect((await tab.first()).data.transactionUpdated.id).toBe(id);
    const third = await stream(g, id, clientSecret, "198.51.100.3");
    expect(third.status).toBe(429);
    expect(third.retryAfter).toBe("10");
    const body = await third.first();
    expect(body.errors[0].message).toBe(
      "Too many live connections: this credential has 2 live connections open, the most allowed (PAYGATE_LIVE_MAX_PER_CREDENTIAL); close one, or retry after 10 s",
    );
    expect(body.errors[0].extensions).toMatchObject({ code: "RATE_LIMITED", status: 429, reason: "too_many_live_connections" });
    tabs[0]!.close();
    await waitUntil(async () => (await stream(g, id, clientSecret, "198.51.100.3")).status === 200);
  });

  it("refuses an address over its cap on both transports (429 before the upgrade), and counts streams and sockets together", async () => {
    const g = await gateway({ live: LIMITS });
    const keys = await g.merchant();
    const a = await transaction(g, keys.testPublicKey);
    const b = await transaction(g, keys.testPublicKey);
    const from = "198.51.100.10";
    await openSocket(g, a.clientSecret, from);
    expect((await stream(g, b.id, b.clientSecret, from)).status).toBe(200);
    expect((await stream(g, a.id, keys.testPublicKey, from)).status).toBe(200);
    const overStream = await stream(g, b.id, keys.testPublicKey, from);
    expect(overStream.status).toBe(429);
    expect((await overStream.first()).errors[0].message).toContain(
      "this address has 3 live connections open, the most allowed (PAYGATE_LIVE_MAX_PER_ADDRESS)",
    );
    const overSocket = await socket(g, keys.testPublicKey, from);
    expect(overSocket).toMatchObject({ status: 429, retryAfter: "10", body: { code: "rate_limited", reason: "too_many_live_connections" } });
    // Refusals are logged once a minute per address, however many.
    const lines = g.logs.filter((line) => line.includes("live connection refused for 198.51.100.10"));
    expect(lines).toHaveLength(1);
    // The metrics show what is open and what was refused.
    const metrics = await (await fetch(`${g.url}/metrics`)).text();
    expect(metrics).toMatch(/^paygate_live_connections 3$/m);
    expect(metrics).toMatch(/^paygate_live_connections_refused_total\{cap="address"\} 2$/m);
  });

  it("closes a WebSocket whose credential is over its cap with code 4429", async () => {
    const g = await gateway({ live: LIMITS });
    const keys = await g.merchant();
    await openSocket(g, keys.testPublicKey, "198.51.100.20");
    await openSocket(g, keys.testPublicKey, "198.51.100.21");
    const third = await socket(g, keys.testPublicKey, "198.51.100.22");
    expect(isSocket(third)).toBe(true);
    expect(await (third as RawSocket).closed).toMatchObject({
      code: 4429,
      reason: "Too many live connections for this credential; retry after 10 s",
    });
  });

  it("keeps the service's ceiling: past it, every address is refused", async () => {
    const g = await gateway({ live: { ...LIMITS, perCredential: 100 } });
    const keys = await g.merchant();
    const { id } = await transaction(g, keys.testPublicKey);
    for (let i = 0; i < 5; i++) expect((await stream(g, id, keys.testPublicKey, `198.51.100.${30 + i}`)).status).toBe(200);
    const over = await stream(g, id, keys.testPublicKey, "198.51.100.99");
    expect(over.status).toBe(429);
    expect((await over.first()).errors[0].message).toContain(
      "the service has 5 live connections open, the most it holds (PAYGATE_LIVE_MAX_CONNECTIONS)",
    );
    expect((await fetch(`${g.url}/livez`)).status).toBe(200);
  });

  it("never refuses a checkout with the defaults: two tabs, a WebSocket and a reconnect", async () => {
    const g = await gateway({ live: DEFAULT_LIVE_LIMITS });
    const keys = await g.merchant();
    const { id, clientSecret } = await transaction(g, keys.testPublicKey);
    const from = "198.51.100.50";
    const tab1 = await stream(g, id, clientSecret, from);
    const tab2 = await stream(g, id, clientSecret, from);
    const ws = await openSocket(g, clientSecret, from);
    ws.subscribe("1", id);
    expect((await ws.next("next", "1")).payload.data.transactionUpdated.id).toBe(id);
    tab1.close();
    const reconnect = await stream(g, id, clientSecret, from);
    for (const s of [tab2, reconnect]) {
      expect(s.status).toBe(200);
      expect((await s.first()).data.transactionUpdated.id).toBe(id);
    }
  });
});

describe("subscriptions on one WebSocket", () => {
  it("holds at most the cap at once, refusing more with too_many_subscriptions until one completes", async () => {
    const g = await gateway({ live: LIMITS });
    const keys = await g.merchant();
    const { id } = await transaction(g, keys.testPublicKey);
    const ws = await openSocket(g, keys.testPublicKey, "198.51.100.60");
    ws.subscribe("a", id);
    ws.subscribe("b", id);
    await ws.next("next", "a");
    await ws.next("next", "b");
    ws.subscribe("c", id);
    const refused = await ws.next("error", "c");
    expect(refused.payload[0]).toMatchObject({
      message: "Too many subscriptions on this WebSocket: at most 2 at once (PAYGATE_LIVE_MAX_SUBSCRIPTIONS_PER_SOCKET); complete one first",
      extensions: { code: "RATE_LIMITED", status: 429, reason: "too_many_subscriptions" },
    });
    ws.complete("a"); // handled before the next message: its place is free
    ws.subscribe("d", id);
    expect((await ws.next("next", "d")).payload.data.transactionUpdated.id).toBe(id);
  });

  it("counts each subscription as a request of its key: past the limit, rate_limited", async () => {
    const g = await gateway({ live: { ...LIMITS, subscriptionsPerSocket: 100 }, rateLimits: { policy: { test: { limit: 4, windowMs: 60_000 } } } });
    const keys = await g.merchant();
    const { id } = await transaction(g, keys.testPublicKey); // the key's 1st request
    const ws = await openSocket(g, keys.testPublicKey, "198.51.100.61"); // the upgrade has no Authorization header: the address's
    for (const n of ["1", "2", "3"]) {
      ws.subscribe(n, id);
      expect((await ws.next("next", n)).payload.data.transactionUpdated.id).toBe(id);
    }
    ws.subscribe("4", id);
    const refused = await ws.next("error", "4");
    expect(refused.payload[0].extensions).toMatchObject({ code: "RATE_LIMITED", reason: "rate_limited" });
    expect(refused.payload[0].message).toBe("Too many requests: requests with this test API key are limited to 4 per minute; retry after 60 s");
  });
});

describe("one read per change", () => {
  it("reads a changed transaction once however many follow it, and hands each follower the change", async () => {
    const g = await gateway();
    const keys = await g.merchant();
    const { id } = await transaction(g, keys.testPublicKey);
    const { stores, calls: reads } = countingCalls(g.stores, "findFor");
    const credentials = new Credentials(g.stores.credentials, { secrets: g.secrets });
    const followers = new TransactionFollowers(g.changes);
    const live = new LiveCredentials(credentials);
    const subscribers = await Promise.all(
      Array.from({ length: 50 }, () => transactionUpdates({ stores, credentials }, followers, live, keys.testSecretKey, id)),
    );
    for (const s of subscribers) expect((await s.next()).value?.transaction.status).toBe("INITIATED");
    const pending = subscribers.map((s) => s.next());
    await new Promise((resolve) => setTimeout(resolve, 300)); // the listener's first resync, if any, is read and over
    const before = reads();
    const res = await g.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, { authorization: `Bearer ${keys.testSecretKey}` });
    expect(res.status).toBe(200);
    for (const next of await Promise.all(pending)) expect(next.value?.transaction.status).toBe("PENDING");
    expect(reads() - before).toBe(1);
    await Promise.all(subscribers.map((s) => s.return()));
    expect(followers.followed).toBe(0);
    expect(live.held).toBe(0);
  });
});

describe("receipts in live updates", () => {
  it("sends a receipt's new confirmation though the row shows nothing new, its receipts read once for every follower", async () => {
    const g = await gateway();
    const keys = await g.merchant();
    const { id } = await transaction(g, keys.testPublicKey);
    const initiated = await g.post(`/v1/transaction/${id}/pay`, { currency_id: "7" }, { authorization: `Bearer ${keys.testSecretKey}` });
    expect(initiated.status).toBe(200);
    const due = new Decimal(initiated.body.data.payment_amount);
    const { stores, calls: receiptReads } = countingCalls(g.stores, "receiptsOf");
    const credentials = new Credentials(g.stores.credentials, { secrets: g.secrets });
    const followers = new TransactionFollowers(g.changes);
    const subscribers = await Promise.all(
      Array.from({ length: 20 }, () =>
        transactionUpdates({ stores, credentials }, followers, new LiveCredentials(credentials), keys.testSecretKey, id),
      ),
    );
    for (const s of subscribers) expect((await s.next()).value?.receipts).toEqual([]);
    // Two outputs: the row shows the fewest confirmations of the two, so B's next one changes no column of it.
    const txHash = "cd".repeat(32);
    const half = due.div(2).toDecimalPlaces(8);
    const a = { key: `${txHash}:0`, txHash, amount: half, blockHeight: 900 };
    const b = { key: `${txHash}:1`, txHash, amount: due.minus(half), blockHeight: 898 };
    const apply = (bConfirmations: number) =>
      g.gateway.payments.applyReceipts(id, {
        receipts: [
          { ...a, confirmations: 1 },
          { ...b, confirmations: bConfirmations },
        ],
        requiredConfirmations: 6,
        source: "chain",
        complete: true,
      });
    let pending = subscribers.map((s) => s.next());
    await apply(3);
    for (const next of await Promise.all(pending)) expect(next.value?.receipts).toMatchObject([{ confirmations: 1 }, { confirmations: 3 }]);
    await new Promise((resolve) => setTimeout(resolve, 300)); // notifications of that write all read
    const before = receiptReads();
    pending = subscribers.map((s) => s.next());
    await apply(4);
    for (const next of await Promise.all(pending)) {
      expect(next.value?.transaction.confirmations).toBe(1);
      expect(next.value?.receipts).toMatchObject([
        { key: a.key, confirmations: 1, state: "SEEN" },
        { key: b.key, confirmations: 4, state: "SEEN", amount: due.minus(half).toFixed() },
      ]);
    }
    expect(receiptReads() - before).toBe(1);
    await Promise.all(subscribers.map((s) => s.return()));
  });
});

describe("revoked keys end their live updates", () => {
  it("ends a stream opened with a key rolled to expire now, on the instance that rolled it at once", async () => {
    const g = await gateway();
    const keys = await g.merchant();
    const { id } = await transaction(g, keys.testPublicKey);
    const ws = await openSocket(g, keys.testSecretKey, "198.51.100.70");
    ws.subscribe("1", id);
    expect((await ws.next("next", "1")).payload.data.transactionUpdated.customer.email).toBe("ada@example.com");
    await g.gateway.merchants.rollApiKey(g.gateway.access.operator(keys.id), { mode: "test", kind: "secret", oldExpires: "now" });
    expect(await ws.next("complete", "1")).toMatchObject({ type: "complete", id: "1" });
  });

  it("ends another instance's streams of that key at its next check, and keeps them while the key works", async () => {
    const g = await gateway();
    const keys = await g.merchant();
    const { id } = await transaction(g, keys.testPublicKey);
    const credentials = new Credentials(g.stores.credentials, { secrets: g.secrets, cacheMs: 0 });
    const live = new LiveCredentials(credentials, 50);
    const followers = new TransactionFollowers(g.changes);
    const updates = await transactionUpdates({ stores: g.stores, credentials }, followers, live, keys.testPublicKey, id);
    expect((await updates.next()).done).toBe(false);
    const ended = updates.next();
    await new Promise((resolve) => setTimeout(resolve, 200)); // several checks pass while the key works
    expect(live.held).toBe(1);
    await g.gateway.merchants.rollApiKey(g.gateway.access.operator(keys.id), { mode: "test", kind: "public", oldExpires: "now" });
    expect(await ended).toEqual({ done: true, value: undefined });
    expect(live.held).toBe(0);
    expect(followers.followed).toBe(0);
  });
});
