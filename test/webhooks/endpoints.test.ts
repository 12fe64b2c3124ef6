// Webhook endpoints (issue 27) over the real REST API, a real dispatcher and real HTTP receivers: each
// endpoint gets only the events its filter names, signed with its own secret; a failing receiver holds
// back no other; an endpoint failing for the configured time is disabled (one log line, the API says
// so), and re-enabling it redelivers what it missed or not, as its merchant chooses.
import type { ServerResponse } from "node:http";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../../src/core/events/payment-events.ts";
import { initializeBody } from "../support/builders.ts";
import { manualClock } from "../support/clock.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { useRecordingServers, type RecordingServer } from "../support/recording-server.ts";

let t: TestGateway;
const serve = useRecordingServers();

beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

const HOUR = 3_600_000;
const ok = (res: ServerResponse) => res.writeHead(200).end("ok");
const broken = (res: ServerResponse) => res.writeHead(500).end("down");

async function call(method: string, path: string, key: string, body?: unknown) {
  const response = await fetch(t.url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

async function pay(keys: { testPublicKey: string; testSecretKey: string }): Promise<string> {
  const res = await t.post("/v1/transaction", initializeBody({ amount: "25" }), { authorization: `Bearer ${keys.testPublicKey}` });
  expect(res.status).toBe(201);
  const id: string = res.body.data.id;
  expect((await call("POST", `/v1/transaction/${id}/pay`, keys.testSecretKey, { currency_id: "6" })).status).toBe(200);
  return id;
}

/** The event types a receiver got, each verified with `secret` (a wrong secret throws). */
function received(server: RecordingServer, secret: string): string[] {
  const webhook = new Webhook(secret);
  return server.requests.map((r) => (webhook.verify(r.body, r.headers as Record<string, string>) as { event: string }).event);
}

describe("endpoints with filters", () => {
  it("gives each endpoint only the events its filter names, signed with its own secret", async () => {
    const primary = await serve(ok, "/primary");
    const keys = await t.merchant({ name: "Two Receivers Ltd", testWebhookUrl: primary.url });
    const shop = await serve(ok, "/shop");
    const books = await serve(ok, "/books");
    const a = await call("POST", "/v1/webhook_endpoints", keys.testSecretKey, {
      url: shop.url,
      enabled_events: ["payment.initiated"],
      description: "Shop",
    });
    expect(a.status).toBe(201);
    expect(a.body.data).toMatchObject({
      object: "webhook_endpoint",
      mode: "test",
      url: shop.url,
      enabled_events: ["payment.initiated"],
      status: "enabled",
      primary: false,
      description: "Shop",
    });
    expect(a.body.data.id).toMatch(/^we_/);
    expect(a.body.data.secret).toMatch(/^whsec_/);
    const b = await call("POST", "/v1/webhook_endpoints", keys.testSecretKey, {
      url: books.url,
      enabled_events: ["payment.pending", "payment.received"],
    });
    expect(b.status).toBe(201);
    expect(b.body.data.secret).not.toBe(a.body.data.secret);

    // The list: the merchant's URL first (as its first endpoint, every event), and no secret shown again.
    const list = await call("GET", "/v1/webhook_endpoints", keys.testSecretKey);
    expect(list.body.data.map((e: { url: string; primary: boolean; enabled_events: string[] }) => [e.url, e.primary, e.enabled_events])).toEqual([
      [primary.url, true, ["*"]],
      [shop.url, false, ["payment.initiated"]],
      [books.url, false, ["payment.pending", "payment.received"]],
    ]);
    expect(list.body.data.some((e: object) => "secret" in e)).toBe(false);

    await pay(keys);
    await t.dispatcher().drain();
    expect(received(shop, a.body.data.secret)).toEqual(["payment.initiated"]);
    expect(received(books, b.body.data.secret)).toEqual(["payment.pending"]);
    expect(received(primary, keys.webhookSecret).sort()).toEqual(["payment.initiated", "payment.pending"]);
    // The same event id goes to every endpoint (webhook-id), so a receiver behind two endpoints can deduplicate.
    expect(shop.requests[0]?.headers["webhook-id"]).toBe(
      primary.requests.find((r) => JSON.parse(r.body).event === "payment.initiated")?.headers["webhook-id"],
    );
  });

  it("keeps a failing endpoint's retries from delaying any other endpoint's deliveries", async () => {
    const keys = await t.merchant({ name: "One Bad Receiver Ltd" });
    const failing = await serve(broken, "/failing");
    const healthy = await serve(ok, "/healthy");
    const f = await call("POST", "/v1/webhook_endpoints", keys.testSecretKey, { url: failing.url, enabled_events: ["*"] });
    const h = await call("POST", "/v1/webhook_endpoints", keys.testSecretKey, { url: healthy.url, enabled_events: ["*"] });
    expect([f.status, h.status]).toEqual([201, 201]);
    await pay(keys);
    const clock = manualClock();
    const dispatcher = t.dispatcher({ retryScheduleMs: [HOUR] }, { clock, random: () => 0.5 });
    await dispatcher.drain();
    // The healthy one has both events at once; the failing one its first (500), the second waiting behind it.
    expect(received(healthy, h.body.data.secret)).toEqual(["payment.initiated", "payment.pending"]);
    expect(received(failing, f.body.data.secret)).toEqual(["payment.initiated"]);
    const log = await call("GET", `/v1/webhook_endpoints/${f.body.data.id}/deliveries?status=failed`, keys.testSecretKey);
    expect(log.status).toBe(200);
    expect(log.body.data).toEqual([
      expect.objectContaining({
        object: "webhook_delivery",
        event: expect.objectContaining({ type: "payment.initiated" }),
        status: "failed",
        status_code: 500,
        attempts: 1,
      }),
    ]);
    expect(log.body.data[0].next_attempt_at).toBe(new Date(clock.now().getTime() + HOUR).toISOString());
    const good = await call("GET", `/v1/webhook_endpoints/${h.body.data.id}/deliveries`, keys.testSecretKey);
    expect(
      good.body.data.map((d: { event: { type: string }; status: string; status_code: number }) => [d.event.type, d.status, d.status_code]),
    ).toEqual([
      ["payment.pending", "succeeded", 200],
      ["payment.initiated", "succeeded", 200],
    ]);
    expect(good.body.data[0].latency_ms).toEqual(expect.any(Number));
  });
});

describe("receivers that fail or ask for time", () => {
  it("disables an endpoint whose every attempt failed for the configured time, says so once, and redelivers what it missed when re-enabled so", async () => {
    const keys = await t.merchant({ name: "Gone Away Ltd", testWebhookUrl: (await serve(ok, "/first")).url });
    let down = true;
    const receiver = await serve((res) => (down ? broken(res) : ok(res)), "/away");
    const created = await call("POST", "/v1/webhook_endpoints", keys.testSecretKey, { url: receiver.url, enabled_events: ["*"] });
    const id: string = created.body.data.id;
    await pay(keys);
    const clock = manualClock();
    const dispatcher = t.dispatcher({ retryScheduleMs: [HOUR, HOUR, HOUR, HOUR, HOUR], disableAfterMs: 3 * HOUR }, { clock, random: () => 0.5 });
    await dispatcher.drain(); // failing since now
    for (let i = 0; i < 3; i++) {
      clock.advance(HOUR);
      await dispatcher.drain();
    }
    const endpoint = await call("GET", `/v1/webhook_endpoints/${id}`, keys.testSecretKey);
    expect(endpoint.body.data).toMatchObject({ status: "disabled", disabled_reason: "failing" });
    const lines = t.logs.filter((line) => line.includes(`endpoint ${id}`) && line.includes("disabled"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("PAYGATE_WEBHOOK_DISABLE_AFTER_HOURS=3");

    // Disabled, it gets nothing: neither its retries nor a new event.
    const attemptsWhenDisabled = receiver.requests.length;
    await pay(keys);
    clock.advance(HOUR);
    await dispatcher.drain();
    expect(receiver.requests).toHaveLength(attemptsWhenDisabled);

    // Re-enabled with its missed deliveries: both transactions' events arrive, in order per transaction.
    down = false;
    const enabled = await call("POST", `/v1/webhook_endpoints/${id}`, keys.testSecretKey, { disabled: false, redeliver_missed: true });
    expect(enabled.status).toBe(200);
    expect(enabled.body.data).toMatchObject({ status: "enabled", disabled_reason: null, failing_since: null });
    expect(enabled.body.meta.redelivered).toBe(4);
    await dispatcher.drain();
    // Signed at the test clock's time, hours ahead: read, not verified (the other tests verify).
    const after = receiver.requests.slice(attemptsWhenDisabled).map((r) => JSON.parse(r.body).event);
    expect(after.sort()).toEqual(["payment.initiated", "payment.initiated", "payment.pending", "payment.pending"]);
  });

  it("re-enabled without redelivery, sends only what comes after (the mode's first endpoint)", async () => {
    const keys = await t.merchant({ name: "Fresh Start Ltd" });
    const receiver = await serve(ok, "/fresh");
    const created = await call("POST", "/v1/webhook_endpoints", keys.testSecretKey, { url: receiver.url, enabled_events: ["payment.initiated"] });
    const id: string = created.body.data.id;
    expect((await call("POST", `/v1/webhook_endpoints/${id}`, keys.testSecretKey, { disabled: true })).body.data).toMatchObject({
      status: "disabled",
      disabled_reason: "manual",
    });
    await pay(keys);
    await t.dispatcher().drain();
    expect(receiver.requests).toHaveLength(0);
    const enabled = await call("POST", `/v1/webhook_endpoints/${id}`, keys.testSecretKey, { disabled: false, redeliver_missed: false });
    expect(enabled.body).toMatchObject({ data: { status: "enabled" }, meta: { redelivered: 0 } });
    await t.dispatcher().drain();
    expect(receiver.requests).toHaveLength(0);
    await pay(keys);
    await t.dispatcher().drain();
    expect(received(receiver, created.body.data.secret)).toEqual(["payment.initiated"]);
  });

  it("bounds a hostile Retry-After per delivery: huge, negative, a past date", async () => {
    const keys = await t.merchant({ name: "Hostile Receivers Ltd", testWebhookUrl: (await serve(ok, "/first")).url });
    const answers = ["99999999999999999999", "-5", "Thu, 01 Jan 1970 00:00:00 GMT"];
    const made: { id: string; retryAfter: string }[] = [];
    for (const retryAfter of answers) {
      const server = await serve((res) => res.writeHead(429, { "retry-after": retryAfter }).end("slow down"), "/hostile");
      const res = await call("POST", "/v1/webhook_endpoints", keys.testSecretKey, { url: server.url, enabled_events: ["payment.initiated"] });
      made.push({ id: res.body.data.id, retryAfter });
    }
    const res = await t.post("/v1/transaction", initializeBody({ amount: "25" }), { authorization: `Bearer ${keys.testPublicKey}` });
    expect(res.status).toBe(201);
    const clock = manualClock();
    await t.dispatcher({ retryScheduleMs: [60_000] }, { clock, random: () => 0.5 }).drain();
    const now = clock.now().getTime();
    const next = async (endpointId: string) => await t.db.webhookDelivery.findFirstOrThrow({ where: { endpointId }, include: { attempts: true } });
    const huge = await next(made[0]!.id);
    expect(huge).toMatchObject({ state: "PENDING", attemptCount: 1, nextAttemptAt: new Date(now + 24 * HOUR) });
    expect(huge.attempts[0]).toMatchObject({ statusCode: 429, retryAfter: "99999999999999999999", eventId: huge.eventId });
    // Not a time (negative) and a time already past: the schedule's retry, never sooner.
    expect(await next(made[1]!.id)).toMatchObject({ state: "PENDING", nextAttemptAt: new Date(now + 60_000) });
    expect(await next(made[2]!.id)).toMatchObject({ state: "PENDING", nextAttemptAt: new Date(now + 60_000) });
  });
});

describe("redelivery from the delivery log", () => {
  it("redelivers one delivery, and every failed one since a time", async () => {
    const keys = await t.merchant({ name: "Second Chance Ltd" });
    let down = true;
    const receiver = await serve((res) => (down ? broken(res) : ok(res)), "/again");
    const created = await call("POST", "/v1/webhook_endpoints", keys.testSecretKey, { url: receiver.url, enabled_events: ["payment.initiated"] });
    const second = await call("POST", "/v1/webhook_endpoints", keys.testSecretKey, { url: receiver.url, enabled_events: ["payment.initiated"] });
    const endpointId: string = second.body.data.id;
    const since = new Date(Date.now() - 1000).toISOString();
    for (let i = 0; i < 2; i++) {
      const res = await t.post("/v1/transaction", initializeBody({ amount: "25" }), { authorization: `Bearer ${keys.testPublicKey}` });
      expect(res.status).toBe(201);
    }
    const clock = manualClock(); // once the events are written, so they are due
    // No retries: they fail for good at once.
    await t.dispatcher({ retryScheduleMs: [] }, { clock }).drain();
    const failed = await call("GET", `/v1/webhook_endpoints/${endpointId}/deliveries?status=failed&limit=1`, keys.testSecretKey);
    expect(failed.body).toMatchObject({ has_more: true, data: [{ status: "failed", attempts: 1, next_attempt_at: null }] });
    const page2 = await call(
      "GET",
      `/v1/webhook_endpoints/${endpointId}/deliveries?status=failed&limit=1&starting_after=${failed.body.data[0].id}`,
      keys.testSecretKey,
    );
    expect(page2.body).toMatchObject({ has_more: false, data: [{ status: "failed" }] });
    expect(page2.body.data[0].id).not.toBe(failed.body.data[0].id);

    down = false;
    const one = await call("POST", `/v1/webhook_deliveries/${failed.body.data[0].id}/redeliver`, keys.testSecretKey, {});
    expect(one.status).toBe(202);
    expect(one.body.data).toMatchObject({ id: failed.body.data[0].id, status: "pending", attempts: 0 });
    // Queued due now (the service's clock).
    await t.dispatcher({ retryScheduleMs: [] }).drain();
    expect((await call("GET", `/v1/webhook_endpoints/${endpointId}/deliveries?status=succeeded`, keys.testSecretKey)).body.data).toHaveLength(1);

    const all = await call("POST", `/v1/webhook_endpoints/${created.body.data.id}/redeliver_failed`, keys.testSecretKey, { since });
    expect(all).toMatchObject({ status: 202, body: { data: { queued: 2 } } });
    await t.dispatcher({ retryScheduleMs: [] }).drain();
    const log = await call("GET", `/v1/webhook_endpoints/${created.body.data.id}/deliveries`, keys.testSecretKey);
    expect(log.body.data.map((d: { status: string }) => d.status)).toEqual(["succeeded", "succeeded"]);
  });
});

describe("the mode's first endpoint is the merchant's webhook URL", () => {
  it("is made by the first endpoint created, follows the merchant's settings, and deleting it removes the URL", async () => {
    const keys = await t.merchant({ name: "First Endpoint Ltd" });
    const server = await serve(ok, "/first");
    const created = await call("POST", "/v1/webhook_endpoints", keys.testSecretKey, { url: server.url, enabled_events: ["*"] });
    // Test mode's own secret: the merchant's (keys.webhookSecret) signs live deliveries (issue 41).
    expect(created.body.data).toMatchObject({ primary: true, url: server.url, secret: expect.stringMatching(/^whsec_/) });
    expect(created.body.data.secret).not.toBe(keys.webhookSecret);
    expect((await t.gateway.merchants.settings(t.gateway.access.operator(keys.id))).webhookUrls.test).toBe(server.url);

    await t.gateway.operator.updateMerchant(keys.id, { testWebhookUrl: `${server.url}/v2` });
    expect((await call("GET", `/v1/webhook_endpoints/${created.body.data.id}`, keys.testSecretKey)).body.data.url).toBe(`${server.url}/v2`);

    const rotated = await call("POST", `/v1/webhook_endpoints/${created.body.data.id}/rotate_secret`, keys.testSecretKey, {});
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(keys.webhookSecret);
    expect(rotated.body.data.previous_secret_expires_at).not.toBeNull();

    const deleted = await call("DELETE", `/v1/webhook_endpoints/${created.body.data.id}`, keys.testSecretKey);
    expect(deleted.body.data).toEqual({ id: created.body.data.id, object: "webhook_endpoint", deleted: true });
    expect((await t.gateway.merchants.settings(t.gateway.access.operator(keys.id))).webhookUrls.test).toBeNull();
    expect((await call("GET", "/v1/webhook_endpoints", keys.testSecretKey)).body.data).toEqual([]);
  });

  it("rotates another endpoint's secret with the 24-hour overlap: deliveries carry both signatures", async () => {
    const keys = await t.merchant({ name: "Rotating Ltd", testWebhookUrl: (await serve(ok, "/p")).url });
    const server = await serve(ok, "/rotating");
    const created = await call("POST", "/v1/webhook_endpoints", keys.testSecretKey, { url: server.url, enabled_events: ["*"] });
    const rotated = await call("POST", `/v1/webhook_endpoints/${created.body.data.id}/rotate_secret`, keys.testSecretKey, {});
    expect(rotated.status).toBe(200);
    await t.post("/v1/transaction", initializeBody({ amount: "25" }), { authorization: `Bearer ${keys.testPublicKey}` });
    await t.dispatcher().drain();
    expect(received(server, created.body.data.secret)).toEqual(["payment.initiated"]);
    expect(received(server, rotated.body.data.secret)).toEqual(["payment.initiated"]);
    expect(String(server.requests[0]?.headers["webhook-signature"]).split(" ")).toHaveLength(2);
  });

  it("shows until when the previous secret signs by the service's clock, and null once the 24 hours are past", async () => {
    const clock = manualClock();
    const own = await startTestGateway({ clock });
    try {
      const keys = await own.merchant({ name: "Overlap Ltd", testWebhookUrl: (await serve(ok, "/p")).url });
      const owner = await own.gateway.access.key(keys.testSecretKey);
      const created = await own.gateway.webhooks.createEndpoint(owner, { url: (await serve(ok, "/overlap")).url, enabled_events: ["*"] });
      expect(created.previousSecretExpiresAt).toBeNull();
      const rotated = await own.gateway.webhooks.rotateEndpointSecret(owner, created.id);
      expect(rotated.previousSecretExpiresAt).toEqual(new Date(clock.now().getTime() + 24 * HOUR));
      clock.advance(24 * HOUR - 1);
      expect((await own.gateway.webhooks.retrieveEndpoint(owner, created.id)).previousSecretExpiresAt).toEqual(rotated.previousSecretExpiresAt);
      clock.advance(1);
      expect((await own.gateway.webhooks.retrieveEndpoint(owner, created.id)).previousSecretExpiresAt).toBeNull();
      expect((await own.gateway.webhooks.listEndpoints(owner)).find((e) => e.id === created.id)?.previousSecretExpiresAt).toBeNull();
    } finally {
      await own.close();
    }
  });
});

describe("bad input: a clear 4xx and nothing changed", () => {
  it("refuses a bad URL, an unknown event, an empty filter, unknown fields, over the limit, another merchant's or mode's endpoint", async () => {
    const keys = await t.merchant({ name: "Careful Ltd" });
    const other = await t.merchant({ name: "Someone Else Ltd" });
    const server = await serve(ok, "/careful");
    const first = await call("POST", "/v1/webhook_endpoints", keys.testSecretKey, { url: server.url, enabled_events: ["*"] });
    expect(first.status).toBe(201);
    const before = await call("GET", "/v1/webhook_endpoints", keys.testSecretKey);

    const cases: [unknown, string][] = [
      [{ url: "not a url", enabled_events: ["*"] }, "url 'not a url' is refused: webhook URL is not a valid absolute URL"],
      [{ url: "ftp://example.com/x", enabled_events: ["*"] }, "webhook URLs must use http or https"],
      [
        { url: "https://example.com/hook", enabled_events: ["payment.initiated", "payment.bogus", "charge.succeeded"] },
        "enabled_events names no event type: payment.bogus, charge.succeeded",
      ],
      [{ url: "https://example.com/hook", enabled_events: [] }, 'enabled_events must name at least one event type, or "*"'],
      [{ url: "https://example.com/hook" }, "enabled_events must be a list of event types"],
      [{ enabled_events: ["*"] }, "url is required"],
      [{ url: "https://example.com/hook", enabled_events: ["*"], secret: "whsec_mine" }, "body has unknown field(s): secret"],
    ];
    for (const [body, message] of cases) {
      const res = await call("POST", "/v1/webhook_endpoints", keys.testSecretKey, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toContain(message);
    }
    // The refusal names every event type a filter may use, refunds' included.
    const unknown = await call("POST", "/v1/webhook_endpoints", keys.testSecretKey, { url: "https://example.com/hook", enabled_events: ["nope"] });
    for (const type of EVENT_TYPES) expect(unknown.body.message).toContain(type);
    // A live endpoint must be https on a public host.
    const live = await call("POST", "/v1/webhook_endpoints", keys.liveSecretKey, { url: "http://example.com/hook", enabled_events: ["*"] });
    expect(live).toMatchObject({ status: 400, body: { message: expect.stringContaining("live-mode webhook URLs must use https") } });

    // Another merchant's endpoint, and this merchant's in the other mode: not found, unchanged.
    const id: string = first.body.data.id;
    for (const [method, path, body] of [
      ["GET", `/v1/webhook_endpoints/${id}`, undefined],
      ["POST", `/v1/webhook_endpoints/${id}`, { description: "mine now" }],
      ["DELETE", `/v1/webhook_endpoints/${id}`, undefined],
      ["POST", `/v1/webhook_endpoints/${id}/rotate_secret`, {}],
      ["GET", `/v1/webhook_endpoints/${id}/deliveries`, undefined],
      ["POST", `/v1/webhook_endpoints/${id}/redeliver_failed`, { since: "2026-01-01T00:00:00Z" }],
    ] as const) {
      for (const key of [other.testSecretKey, keys.liveSecretKey]) {
        const res = await call(method, path, key, body);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body.message).toBe(`No webhook endpoint with id '${id}'`);
      }
    }
    const noDelivery = await call("POST", "/v1/webhook_deliveries/wd_nosuchdelivery/redeliver", keys.testSecretKey, {});
    expect(noDelivery).toMatchObject({ status: 404, body: { message: "No webhook delivery with id 'wd_nosuchdelivery'" } });
    // A public key is not enough.
    expect((await call("GET", "/v1/webhook_endpoints", keys.testPublicKey)).status).toBe(401);

    // Bad updates and list parameters.
    const badUpdate = await call("POST", `/v1/webhook_endpoints/${id}`, keys.testSecretKey, { enabled_events: ["payment.nope"] });
    expect(badUpdate).toMatchObject({ status: 400, body: { message: expect.stringContaining("enabled_events names no event type: payment.nope") } });
    const lone = await call("POST", `/v1/webhook_endpoints/${id}`, keys.testSecretKey, { redeliver_missed: true });
    expect(lone).toMatchObject({ status: 400, body: { message: expect.stringContaining("redeliver_missed only goes with disabled: false") } });
    const badStatus = await call("GET", `/v1/webhook_endpoints/${id}/deliveries?status=broken`, keys.testSecretKey);
    expect(badStatus).toMatchObject({ status: 400, body: { message: expect.stringContaining("status must be one of failed, succeeded, pending") } });
    const badSince = await call("POST", `/v1/webhook_endpoints/${id}/redeliver_failed`, keys.testSecretKey, { since: "yesterday" });
    expect(badSince).toMatchObject({ status: 400, body: { message: expect.stringContaining("since must be an ISO 8601 time") } });

    expect(await call("GET", "/v1/webhook_endpoints", keys.testSecretKey)).toEqual(before);
  });

  it("refuses more endpoints than PAYGATE_WEBHOOK_ENDPOINTS_MAX per mode, and counts each mode apart", async () => {
    const keys = await t.merchant({ name: "Many Receivers Ltd" });
    for (let i = 0; i < 16; i++) {
      const res = await call("POST", "/v1/webhook_endpoints", keys.testSecretKey, { url: `https://hooks${i}.example.com/in`, enabled_events: ["*"] });
      expect(res.status).toBe(201);
    }
    const over = await call("POST", "/v1/webhook_endpoints", keys.testSecretKey, { url: "https://hooks16.example.com/in", enabled_events: ["*"] });
    expect(over.status).toBe(409);
    expect(over.body.message).toBe(
      "This merchant already has 16 test-mode webhook endpoints, the most allowed (PAYGATE_WEBHOOK_ENDPOINTS_MAX); delete one first",
    );
    expect((await call("GET", "/v1/webhook_endpoints", keys.testSecretKey)).body.data).toHaveLength(16);
    expect(
      (await call("POST", "/v1/webhook_endpoints", keys.liveSecretKey, { url: "https://live.example.com/in", enabled_events: ["*"] })).status,
    ).toBe(201);
  });
});
