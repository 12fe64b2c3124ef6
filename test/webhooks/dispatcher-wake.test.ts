// The dispatcher wakes on the database's notification of a new event rather than waiting for its
// poll: with a 10 s poll, a new event is delivered well within a second. Under a stream of
// notifications it claims at most every 20 ms, so that each claim takes a batch. An event written for
// no endpoint (a mode without a URL) wakes it not at all.
import { expect, it } from "vitest";
import type { TransactionChange, TransactionChanges } from "../../src/core/stores/transaction-changes.ts";
import type { DeliveryQueue } from "../../src/core/webhooks/deliveries.ts";
import { gatewayAndReceiverForFile, type TestGateway } from "../support/gateway.ts";
import type { WebhookReceiver } from "../support/webhook-receiver.ts";
import { initializeBody } from "../support/builders.ts";
import { countFirstDeliveries } from "../support/first-delivery.ts";

let t: TestGateway;
let receiver: WebhookReceiver;

gatewayAndReceiverForFile((started) => {
  ({ t, receiver } = started);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it("delivers a new event in well under the poll interval", async () => {
  const keys = await t.merchant({ name: "Hooked Ltd", testWebhookUrl: receiver.url });
  const dispatcher = t.dispatcher({ pollMs: 10_000 });
  dispatcher.start();
  await sleep(500); // its first look found nothing; now it waits 10 s

  for (const round of [1, 2]) {
    const started = Date.now();
    const res = await t.post("/v1/transaction", initializeBody({ amount: "25" }), {
      authorization: `Bearer ${keys.testPublicKey}`,
    });
    expect(res.status).toBe(201);
    await receiver.waitFor(round, 9_000);
    expect(Date.now() - started).toBeLessThan(1_000);
    const event = await t.db.webhookEvent.findFirstOrThrow({ where: { transactionId: res.body.data.id } });
    expect(receiver.received[round - 1]!.headers["webhook-id"]).toBe(event.id);
  }
});

it("claims at most every 20 ms under a stream of notifications, and at once after a quiet spell", async () => {
  const listeners = new Set<(change: TransactionChange) => void>();
  const changes: TransactionChanges = {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  const notify = () => {
    for (const listener of listeners) listener({ kind: "deliveries-due" });
  };
  const real = t.stores.webhookEndpoints;
  const claimedAt: number[] = [];
  const queue: DeliveryQueue = {
    ...real,
    claimDue: (...args) => {
      claimedAt.push(performance.now());
      return real.claimDue(...args);
    },
  };
  const dispatcher = t.dispatcher({ pollMs: 10_000 }, { queue, changes });
  dispatcher.start();
  await sleep(300); // its first look found nothing; now only notifications wake it

  // A quiet spell, then one event: claimed within a few ms, not after a batching interval.
  claimedAt.length = 0;
  const quietNotifiedAt = performance.now();
  notify();
  await sleep(100);
  expect(claimedAt).toHaveLength(1);
  expect((claimedAt[0] ?? Number.POSITIVE_INFINITY) - quietNotifiedAt).toBeLessThan(50);

  // 300 ms of notifications every millisecond or so (a busy checkout): one claim per 20 ms at most.
  claimedAt.length = 0;
  const streamStart = performance.now();
  while (performance.now() - streamStart < 300) {
    notify();
    await sleep(1);
  }
  await sleep(50);
  const streamed = performance.now() - streamStart;
  expect(claimedAt.length).toBeGreaterThan(2);
  expect(claimedAt.length).toBeLessThanOrEqual(Math.ceil(streamed / 20) + 1);
  const gaps = claimedAt.slice(1).map((at, i) => at - (claimedAt[i] ?? 0));
  // Timers fire a little late or early, never by a debounce's 2 ms.
  expect(Math.min(...gaps)).toBeGreaterThanOrEqual(15);
  await dispatcher.stop();
});

it("is not woken by an event no endpoint takes, and is by a delivery to another endpoint", async () => {
  const keys = await t.merchant({ name: "Unhooked Ltd" }); // no URL in either mode
  const real = t.stores.webhookEndpoints;
  let claims = 0;
  const queue: DeliveryQueue = {
    ...real,
    claimDue: (...args) => {
      claims++;
      return real.claimDue(...args);
    },
  };
  const dispatcher = t.dispatcher({ pollMs: 10_000 }, { queue });
  dispatcher.start();
  await sleep(300); // its first look found nothing; now it waits 10 s
  claims = 0;

  const unrouted = await t.post("/v1/transaction", initializeBody({ amount: "25" }), { authorization: `Bearer ${keys.testPublicKey}` });
  expect(unrouted.status).toBe(201);
  await sleep(300);
  expect(claims).toBe(0);
  // Nothing was queued for it: no endpoint took it.
  expect(await countFirstDeliveries(t.db, { event: { transactionId: unrouted.body.data.id } })).toBe(0);
  expect(await t.db.webhookDelivery.count({ where: { event: { transactionId: unrouted.body.data.id } } })).toBe(0);

  const endpoint = await t.post(
    "/v1/webhook_endpoints",
    { url: receiver.url, enabled_events: ["payment.initiated"] },
    { authorization: `Bearer ${keys.testSecretKey}` },
  );
  expect(endpoint.status).toBe(201);
  const receivedBefore = receiver.received.length;
  const started = Date.now();
  const routed = await t.post("/v1/transaction", initializeBody({ amount: "26" }), { authorization: `Bearer ${keys.testPublicKey}` });
  expect(routed.status).toBe(201);
  await receiver.waitFor(receivedBefore + 1, 9_000);
  expect(Date.now() - started).toBeLessThan(1_000);
  expect(claims).toBeGreaterThan(0);
  const event = await t.db.webhookEvent.findFirstOrThrow({ where: { transactionId: routed.body.data.id } });
  expect(receiver.received[receivedBefore]!.headers["webhook-id"]).toBe(event.id);
  await dispatcher.stop();
});
