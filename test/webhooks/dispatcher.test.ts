// The dispatcher against a real HTTP receiver: signatures a Standard Webhooks library accepts,
// retries on the schedule, recorded attempts, order within a transaction, skipped and failed events.
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { LOCAL_PRIVATE_TARGETS, startTestGateway, type TestGateway } from "../support/gateway.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { manualClock } from "../support/clock.ts";
import { initializeBody } from "../support/builders.ts";
import { countFirstDeliveries, firstDelivery, firstDeliveryOf, makeFirstDeliveriesDue } from "../support/first-delivery.ts";

let t: TestGateway;
let receiver: WebhookReceiver;

beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());
beforeEach(async () => {
  receiver = await startWebhookReceiver();
});
afterEach(() => receiver.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function merchantWithReceiver(url = receiver.url) {
  return t.merchant({ name: "Hooked Ltd", testWebhookUrl: url });
}

async function initialize(publicKey: string): Promise<string> {
  const res = await t.post("/v1/transaction", initializeBody({ amount: "25" }), bearer(publicKey));
  expect(res.status).toBe(201);
  return res.body.data.id;
}

describe("delivery", () => {
  it("POSTs the stored body, signed so that the standardwebhooks library verifies it", async () => {
    const keys = await merchantWithReceiver();
    const id = await initialize(keys.testPublicKey);
    const reports = await t.dispatcher().drain();
    expect(reports.map((r) => r.outcome.state)).toEqual(["DELIVERED"]);

    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    const event = await t.db.webhookEvent.findFirstOrThrow({ where: { transactionId: id } });
    expect(request!.body).toBe(event.body);
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.headers["webhook-id"]).toBe(event.id);
    const verified = new Webhook(keys.webhookSecret).verify(request!.body, {
      "webhook-id": String(request!.headers["webhook-id"]),
      "webhook-timestamp": String(request!.headers["webhook-timestamp"]),
      "webhook-signature": String(request!.headers["webhook-signature"]),
    });
    expect(verified).toMatchObject({ event: "payment.initiated", data: { transaction: { status: "INITIATED" } } });
    expect(() =>
      new Webhook(keys.webhookSecret).verify(request!.body.replace("INITIATED", "SUCCESSFUL"), {
        "webhook-id": String(request!.headers["webhook-id"]),
        "webhook-timestamp": String(request!.headers["webhook-timestamp"]),
        "webhook-signature": String(request!.headers["webhook-signature"]),
      }),
    ).toThrow();

    const stored = await firstDelivery(t.db, event.id);
    expect(stored).toMatchObject({ state: "DELIVERED", attemptCount: 1, claimToken: null });
    expect(stored.deliveredAt).toBeInstanceOf(Date);
    expect(stored.attempts).toHaveLength(1);
    expect(stored.attempts[0]).toMatchObject({
      url: receiver.url,
      statusCode: 200,
      succeeded: true,
      // The receiver is on 127.0.0.1: what a private address answers is never kept (merchants' users read attempts).
      responseBody: null,
      error: null,
      trigger: "schedule",
    });
    expect(stored.attempts[0]!.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it("retries failures on the schedule with jitter, records each attempt, then gives up", async () => {
    const keys = await merchantWithReceiver();
    const id = await initialize(keys.testPublicKey);
    receiver.answer = () => ({ status: 500, body: "x".repeat(5000) });
    const clock = manualClock();
    const schedule = [60_000, 3_600_000];
    const dispatcher = t.dispatcher({ retryScheduleMs: schedule }, { clock, random: () => 0.99 });

    const first = await dispatcher.drain();
    expect(first).toHaveLength(1);
    const afterFirst = await firstDeliveryOf(t.db, { transactionId: id });
    expect(afterFirst).toMatchObject({ state: "PENDING", attemptCount: 1 });
    const wait1 = afterFirst.nextAttemptAt.getTime() - clock.now().getTime();
    expect(wait1).toBeGreaterThan(60_000 * 1.19);
    expect(wait1).toBeLessThanOrEqual(60_000 * 1.2);

    expect(await dispatcher.drain()).toEqual([]); // not due yet
    clock.advance(wait1);
    await dispatcher.drain();
    const afterSecond = await firstDeliveryOf(t.db, { transactionId: id });
    expect(afterSecond).toMatchObject({ state: "PENDING", attemptCount: 2 });
    const wait2 = afterSecond.nextAttemptAt.getTime() - clock.now().getTime();
    expect(wait2).toBeGreaterThan(3_600_000 * 1.19);

    clock.advance(wait2);
    await dispatcher.drain();
    const final = await firstDeliveryOf(t.db, { transactionId: id });
    expect(final).toMatchObject({ state: "FAILED", attemptCount: 3, deliveredAt: null });
    expect(final.attempts.map((a) => [a.statusCode, a.succeeded])).toEqual([
      [500, false],
      [500, false],
      [500, false],
    ]);
    expect(final.attempts[0]!.responseBody).toBeNull(); // a private address's answer (deliver's own tests check the 1 KiB cap)
    expect(receiver.ids()).toEqual([final.eventId, final.eventId, final.eventId]);
    clock.advance(10 * 86_400_000);
    expect(await dispatcher.drain()).toEqual([]); // failed for good
  });

  it("counts a timeout and a refused connection as failures, with the reason", async () => {
    const keys = await merchantWithReceiver();
    const id = await initialize(keys.testPublicKey);
    receiver.answer = () => "hang";
    const [timedOut] = await t.dispatcher({ timeoutMs: 300, retryScheduleMs: [1000, 1000] }).drain();
    expect(timedOut!.attempt).toMatchObject({ statusCode: null, succeeded: false, error: "timed out after 300ms" });

    const closed = await startWebhookReceiver();
    await closed.close();
    await t.db.merchant.update({ where: { id: keys.id }, data: { testWebhookUrl: closed.url } });
    await makeFirstDeliveriesDue(t.db, { event: { transactionId: id } });
    const [refused] = await t.dispatcher({ retryScheduleMs: [1000, 1000] }).drain();
    expect(refused!.attempt?.error).toMatch(/ECONNREFUSED/);
    expect(refused!.outcome.state).toBe("PENDING");
  });

  it("treats a redirect as a failure and does not follow it", async () => {
    const keys = await merchantWithReceiver();
    await initialize(keys.testPublicKey);
    receiver.answer = () => ({ status: 302 });
    const [report] = await t.dispatcher().drain();
    expect(report!.attempt).toMatchObject({ statusCode: 302, succeeded: false });
    expect(receiver.received).toHaveLength(1);
  });
});

describe("what is not sent", () => {
  it("skips events of a merchant without a URL for the mode: nothing sent, nothing retried", async () => {
    const keys = await t.merchant({ name: "No Hooks", liveWebhookUrl: "https://hooks.example.com/paygate" });
    const id = await initialize(keys.testPublicKey);
    const event = await t.db.webhookEvent.findFirstOrThrow({ where: { transactionId: id }, include: { attempts: true } });
    const reports = await t.dispatcher().drain();
    expect(reports.map((r) => r.eventId)).not.toContain(event.id);
    // No endpoint took it, so nothing was queued; the Events API shows it skipped.
    expect(event.attempts).toEqual([]);
    expect(await t.db.webhookDelivery.count({ where: { eventId: event.id } })).toBe(0);
    const [listed] = await t.stores.webhookEvents.list({ transactionId: id });
    expect(listed).toMatchObject({ id: event.id, state: "SKIPPED", attemptCount: 0, deliveredAt: null, attempts: [] });
    expect(await t.dispatcher().drain()).toEqual([]);
    expect(receiver.received).toHaveLength(0);
    // An operator's redelivery says why nothing was sent, and queues nothing.
    const report = await t.dispatcher().redeliver(event.id);
    expect(report).toMatchObject({ outcome: { state: "SKIPPED" }, attempt: null });
    expect(await t.db.webhookDelivery.count({ where: { eventId: event.id } })).toBe(0);
  });

  it("queues nothing for an event of a mode without a URL, and skips what waited when the URL goes", async () => {
    const keys = await merchantWithReceiver();
    const kept = await initialize(keys.testPublicKey);
    const deliveryOf = (transactionId: string) => firstDeliveryOf(t.db, { transactionId });
    expect(await deliveryOf(kept)).toMatchObject({ state: "PENDING", attemptCount: 0 });
    await t.gateway.operator.updateMerchant(keys.id, { testWebhookUrl: null });
    // The first endpoint went with the URL: what waited for it is skipped, and keeps its place in the event's history.
    expect(await deliveryOf(kept)).toMatchObject({ state: "SKIPPED", attemptCount: 0 });
    const written = await initialize(keys.testPublicKey);
    // Nothing for the dispatcher to walk or to update later.
    expect(await countFirstDeliveries(t.db, { event: { transactionId: written } })).toBe(0);
    const reports = await t.dispatcher().drain();
    expect(reports.map((r) => r.eventId)).not.toContain((await deliveryOf(kept)).eventId);
    expect(await deliveryOf(kept)).toMatchObject({ state: "SKIPPED", attemptCount: 0 });
    expect(receiver.received).toHaveLength(0);
  });

  it("redelivers to the URL of now an event queued for a first endpoint that was removed since", async () => {
    const keys = await merchantWithReceiver();
    const id = await initialize(keys.testPublicKey);
    const { eventId } = await firstDeliveryOf(t.db, { transactionId: id });
    await t.gateway.operator.updateMerchant(keys.id, { testWebhookUrl: null });
    expect((await firstDelivery(t.db, eventId)).state).toBe("SKIPPED");
    const other = await startWebhookReceiver();
    try {
      await t.gateway.operator.updateMerchant(keys.id, { testWebhookUrl: other.url });
      const report = await t.dispatcher().redeliver(eventId);
      expect(report).toMatchObject({ eventId, outcome: { state: "DELIVERED" }, deliveryId: `wd_${eventId}` });
      expect(other.received.map((r) => r.headers["webhook-id"])).toEqual([eventId]);
      expect(receiver.received).toHaveLength(0);
      const now = await t.db.webhookEndpoint.findFirstOrThrow({ where: { merchantId: keys.id, isLive: false, isPrimary: true } });
      expect(await firstDelivery(t.db, eventId)).toMatchObject({ state: "DELIVERED", attemptCount: 1 });
      expect((await t.db.webhookDelivery.findUniqueOrThrow({ where: { id: `wd_${eventId}` } })).endpointId).toBe(now.id);
    } finally {
      await other.close();
    }
  });

  it("refuses, without connecting, a live URL on a private address unless the operator allows it", async () => {
    const keys = await t.merchant({ name: "Live Local", kyb: "VERIFIED" });
    // Set behind the URL check's back, as if the operator had allowed private addresses then.
    await t.db.merchant.update({ where: { id: keys.id }, data: { liveWebhookUrl: receiver.url } });
    const id = await initialize(keys.livePublicKey);
    // Only this test's event: an earlier test's retry may fall due in the same drain.
    const { id: eventId } = await t.db.webhookEvent.findFirstOrThrow({ where: { transactionId: id } });
    const report = (await t.dispatcher().drain()).find((r) => r.eventId === eventId);
    expect(report!.attempt).toMatchObject({ statusCode: null, succeeded: false });
    expect(report!.attempt!.error).toMatch(/^refused: 127\.0\.0\.1 is a private address/);
    expect(receiver.received).toHaveLength(0);

    await makeFirstDeliveriesDue(t.db, { event: { transactionId: id } });
    const allowed = (await t.dispatcher({ privateTargets: { ...LOCAL_PRIVATE_TARGETS, live: true } }).drain()).find((r) => r.eventId === eventId);
    expect(allowed!.outcome.state).toBe("DELIVERED");
    expect(receiver.received).toHaveLength(1);
  });
});

describe("order and sharing", () => {
  it("holds a transaction's later events until its earlier one is delivered", async () => {
    const keys = await merchantWithReceiver();
    const id = await initialize(keys.testPublicKey);
    expect((await t.post(`/v1/transaction/${id}/pay`, { currency_id: "6" }, bearer(keys.testSecretKey))).status).toBe(200);
    const clock = manualClock();
    let fail = true;
    receiver.answer = () => (fail ? { status: 503 } : { status: 204 });
    const dispatcher = t.dispatcher({ retryScheduleMs: [1000] }, { clock });

    // Earlier tests' events may fall due too as the clock moves: look at this transaction's alone.
    const mine = new Set((await t.db.webhookEvent.findMany({ where: { transactionId: id } })).map((e) => e.id));
    const ofThis = (reports: { eventId: string; type: string }[]) => reports.filter((r) => mine.has(r.eventId)).map((r) => r.type);
    expect(ofThis(await dispatcher.drain())).toEqual(["payment.initiated"]); // payment.pending waits behind it
    fail = false;
    clock.advance(2000);
    expect(ofThis(await dispatcher.drain())).toEqual(["payment.initiated", "payment.pending"]);
    const bodies = receiver.received.filter((r) => mine.has(String(r.headers["webhook-id"]))).map((r) => JSON.parse(r.body).event);
    expect(bodies).toEqual(["payment.initiated", "payment.initiated", "payment.pending"]);
  });

  it("two dispatchers on one database deliver every event exactly once, in order per transaction", async () => {
    const keys = await merchantWithReceiver();
    receiver.answer = () => ({ status: 200, delayMs: 5 });
    const ids: string[] = [];
    for (let i = 0; i < 15; i++) ids.push(await initialize(keys.testPublicKey));
    await Promise.all(ids.map((id) => t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.testSecretKey))));
    const expected = await t.db.webhookEvent.count({ where: { transactionId: { in: ids } } });
    expect(expected).toBe(30);

    const a = t.dispatcher({ concurrency: 4, pollMs: 10 });
    const b = t.dispatcher({ concurrency: 4, pollMs: 10 });
    a.start();
    b.start();
    await receiver.waitFor(expected);
    await Promise.all([a.stop(), b.stop()]);

    const received = receiver.ids();
    expect(new Set(received).size).toBe(received.length); // no event twice
    expect(received).toHaveLength(expected);
    const byTransaction = new Map<string, string[]>();
    for (const r of receiver.received) {
      const body = JSON.parse(r.body);
      const list = byTransaction.get(body.data.transaction.reference) ?? [];
      list.push(body.event);
      byTransaction.set(body.data.transaction.reference, list);
    }
    for (const events of byTransaction.values()) expect(events).toEqual(["payment.initiated", "payment.pending"]);
    expect(await countFirstDeliveries(t.db, { event: { transactionId: { in: ids } } })).toBe(expected);
    expect(await countFirstDeliveries(t.db, { event: { transactionId: { in: ids } }, state: { not: "DELIVERED" } })).toBe(0);
  });
});

describe("redelivery", () => {
  it("sends a failed event again with the same webhook-id and records a manual attempt", async () => {
    const keys = await merchantWithReceiver();
    const id = await initialize(keys.testPublicKey);
    receiver.answer = () => ({ status: 500 });
    await t.dispatcher({ retryScheduleMs: [] }).drain();
    const failed = await firstDeliveryOf(t.db, { transactionId: id });
    expect(failed.state).toBe("FAILED");

    receiver.answer = () => ({ status: 200 });
    const report = await t.dispatcher().redeliver(failed.eventId);
    expect(report?.outcome.state).toBe("DELIVERED");
    expect(receiver.ids()).toEqual([failed.eventId, failed.eventId]);
    const attempts = await t.db.webhookDeliveryAttempt.findMany({ where: { eventId: failed.eventId }, orderBy: { id: "asc" } });
    expect(attempts.map((a) => a.trigger)).toEqual(["schedule", "manual"]);
    expect(await t.dispatcher().redeliver("evt_doesnotexist")).toBeNull();
  });
});
