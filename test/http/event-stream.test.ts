// GET /v1/events/stream (issue 27): each new event of the key's merchant and mode, as written on any
// instance, with its exact signed body; resumed with Last-Event-ID or starting_after; a heartbeat;
// capped per key (429) and per instance (503).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { ConfigError } from "../../src/env.ts";
import type { NewMerchant } from "../../src/core/merchants/merchants.ts";
import { initializeBody } from "../support/builders.ts";
import { openEventStream, type StreamClient } from "../support/event-stream.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
let second: TestGateway;
let keys: NewMerchant;
let other: NewMerchant;
const open: StreamClient[] = [];

beforeAll(async () => {
  t = await startTestGateway({ eventStreams: { perKey: 2, heartbeatMs: 200 } });
  second = await startTestGateway({ sameDatabaseAs: t });
  keys = await t.merchant({ name: "Stream Shop" });
  other = await t.merchant({ name: "Other Shop" });
});
afterAll(async () => {
  for (const s of open) s.close();
  await second?.close();
  await t?.close();
});

async function stream(url: string, key: string | undefined, options?: Parameters<typeof openEventStream>[2]): Promise<StreamClient> {
  const client = await openEventStream(url, key, options);
  open.push(client);
  return client;
}

/** Initialize and initiate one transaction of `merchant` (its test mode): writes its payment.initiated event. */
async function pay(merchant: NewMerchant, via = t): Promise<string> {
  const initialized = await via.post("/v1/transaction", initializeBody({ amount: "12" }), { authorization: `Bearer ${merchant.testPublicKey}` });
  expect(initialized.status).toBe(201);
  const id = initialized.body.data.id as string;
  const paid = await via.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, { authorization: `Bearer ${merchant.testSecretKey}` });
  expect(paid.status).toBe(200);
  return id;
}

describe("GET /v1/events/stream", () => {
  it("sends each new event of the key's merchant and mode as GET /v1/events/:id shows it, with the exact signed body", async () => {
    const s = await stream(t.url, keys.testSecretKey);
    expect(s.status).toBe(200);
    expect(s.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const otherStream = await stream(t.url, other.testSecretKey);
    const transactionId = await pay(keys);
    await s.waitFor(1);
    const [message] = s.events;
    const data = JSON.parse(message?.data ?? "{}");
    expect(message?.event).toBe("payment.initiated");
    expect(message?.id).toBe(data.id);
    expect(data.transaction).toBe(transactionId);
    const fetched = await fetch(`${t.url}/v1/events/${data.id}`, { headers: { authorization: `Bearer ${keys.testSecretKey}` } });
    const { data: event } = (await fetched.json()) as { data: Record<string, unknown> & { data: unknown } };
    const { body, ...shown } = data;
    expect(shown).toEqual({ ...event, delivery: shown.delivery });
    expect(JSON.parse(body)).toEqual(event.data);
    const stored = await t.stores.webhookEvents.findFor(data.id, keys.id, false);
    expect(body).toBe(stored?.body);
    // Another merchant's stream saw nothing of it.
    expect(otherStream.events).toEqual([]);
    s.close();
    otherStream.close();
  });

  it("sends the events written on another instance of the same database", async () => {
    const s = await stream(t.url, keys.testSecretKey);
    const transactionId = await pay(keys, second);
    await s.waitFor(1);
    expect(JSON.parse(s.events[0]?.data ?? "{}").transaction).toBe(transactionId);
    s.close();
  });

  it("resumes after Last-Event-ID or starting_after with what was written meanwhile, and filters by types", async () => {
    const first = await stream(t.url, keys.testSecretKey);
    await pay(keys);
    await first.waitFor(2); // an initiate writes payment.initiated, then (test mode) payment.pending
    const cursor = first.events[1]?.id ?? "";
    first.close();
    const missed = [await pay(keys), await pay(keys)];
    const expected = missed.flatMap((id) => [
      ["payment.initiated", id],
      ["payment.pending", id],
    ]);
    const resumed = await stream(t.url, keys.testSecretKey, { lastEventId: cursor });
    await resumed.waitFor(4);
    expect(resumed.events.map((e) => [e.event, JSON.parse(e.data).transaction])).toEqual(expected);
    const byQuery = await stream(t.url, keys.testSecretKey, { query: { starting_after: cursor } });
    await byQuery.waitFor(4);
    expect(byQuery.events.map((e) => e.id)).toEqual(resumed.events.map((e) => e.id));
    resumed.close();
    byQuery.close();
    const filtered = await stream(t.url, keys.testSecretKey, { query: { starting_after: cursor, types: "payment.pending" } });
    await filtered.waitFor(2);
    expect(filtered.events.map((e) => [e.event, JSON.parse(e.data).transaction])).toEqual(expected.filter(([type]) => type === "payment.pending"));
    filtered.close();
  });

  it("sends a heartbeat comment while idle", async () => {
    const s = await stream(t.url, keys.testSecretKey);
    expect(s.status).toBe(200);
    await s.waitFor(3, { comments: true });
    expect(s.comments.filter((c) => c.trim() === "heartbeat").length).toBeGreaterThanOrEqual(2);
    s.close();
  });

  it("refuses a missing or public key, an unknown cursor or type", async () => {
    const none = await stream(t.url, undefined);
    expect(none.status).toBe(401);
    expect(none.error?.message).toMatch(/secret key/);
    const publicKey = await stream(t.url, keys.testPublicKey);
    expect(publicKey.status).toBe(401);
    expect(publicKey.error?.reason).toBe("invalid_secret_key");
    const unknown = await stream(t.url, keys.testSecretKey, { lastEventId: "evt_doesnotexist" });
    expect(unknown.status).toBe(400);
    expect(unknown.error?.message).toMatch(/Last-Event-ID names no object/);
    const malformed = await stream(t.url, keys.testSecretKey, { lastEventId: "42" });
    expect(malformed.status).toBe(400);
    expect(malformed.error?.reason).toBe("invalid_last_event_id");
    const badType = await stream(t.url, keys.testSecretKey, { query: { types: "payment.initiated,payment.nope" } });
    expect(badType.status).toBe(400);
    expect(badType.error?.message).toMatch(/types names no event type: payment\.nope/);
  });

  it("caps open streams per key with 429 and a message naming the setting, freed when one closes", async () => {
    const a = await stream(t.url, other.testSecretKey);
    const b = await stream(t.url, other.testSecretKey);
    expect([a.status, b.status]).toEqual([200, 200]);
    const refused = await stream(t.url, other.testSecretKey);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("10");
    expect(refused.error?.reason).toBe("too_many_event_streams");
    expect(refused.error?.message).toMatch(/this secret key has 2 open.*PAYGATE_EVENT_STREAM_MAX_PER_KEY/);
    // Another key is not held back by this one's streams.
    const otherKey = await stream(t.url, keys.testSecretKey);
    expect(otherKey.status).toBe(200);
    otherKey.close();
    a.close();
    let again: StreamClient;
    do {
      again = await stream(t.url, other.testSecretKey);
      if (again.status === 429) await new Promise((resolve) => setTimeout(resolve, 50)); // the close reaches the server
    } while (again.status === 429);
    expect(again.status).toBe(200);
    again.close();
    b.close();
  });

  it("ends the streams of a key rolled with its old key ending now", async () => {
    const rolling = await t.merchant({ name: "Rolling Shop" });
    const s = await stream(t.url, rolling.testSecretKey);
    expect(s.status).toBe(200);
    await t.gateway.merchants.rollApiKey(t.gateway.access.operator(rolling.id), { mode: "test", kind: "secret", oldExpires: "now" });
    await s.ended;
    const again = await stream(t.url, rolling.testSecretKey);
    expect(again.status).toBe(401);
  });

  it("caps open streams per instance with 503", async () => {
    const small = await startTestGateway({ sameDatabaseAs: t, eventStreams: { total: 1 } });
    try {
      const held = await openEventStream(small.url, keys.testSecretKey);
      expect(held.status).toBe(200);
      const refused = await openEventStream(small.url, other.testSecretKey);
      expect(refused.status).toBe(503);
      expect(refused.error?.reason).toBe("event_streams_full");
      expect(refused.error?.message).toMatch(/PAYGATE_EVENT_STREAM_MAX_TOTAL/);
      held.close();
    } finally {
      await small.close();
    }
  });
});

describe("the event stream's configuration", () => {
  it("has the documented defaults and reads PAYGATE_EVENT_STREAM_*", () => {
    expect(loadConfig({}).eventStreams).toEqual({ perKey: 5, total: 1000, heartbeatMs: 15_000 });
    expect(
      loadConfig({ PAYGATE_EVENT_STREAM_MAX_PER_KEY: "2", PAYGATE_EVENT_STREAM_MAX_TOTAL: "50", PAYGATE_EVENT_STREAM_HEARTBEAT_SECONDS: "30" })
        .eventStreams,
    ).toEqual({ perKey: 2, total: 50, heartbeatMs: 30_000 });
  });

  it("refuses a cap of 0 or a heartbeat over 5 minutes, naming the variable", () => {
    for (const [name, value] of [
      ["PAYGATE_EVENT_STREAM_MAX_PER_KEY", "0"],
      ["PAYGATE_EVENT_STREAM_MAX_TOTAL", "0"],
      ["PAYGATE_EVENT_STREAM_HEARTBEAT_SECONDS", "301"],
    ] as const) {
      expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
      expect(() => loadConfig({ [name]: value })).toThrow(name);
    }
  });
});
