// A busy dispatcher writes the attempts that end together in one statement: each delivery gets its own
// state, attempt count and times, each attempt its row, and a holder whose lease ran out logs its
// attempt without touching the state. A failed write fails every caller of that batch.
import { expect, it } from "vitest";
import type { ClaimedDelivery, DeliverySettlement } from "../../src/core/stores/webhook-endpoints.ts";
import type { AttemptRecord } from "../../src/core/records/events.ts";
import { gatewayAndReceiverForFile, type TestGateway } from "../support/gateway.ts";
import type { WebhookReceiver } from "../support/webhook-receiver.ts";
import { initializeBody } from "../support/builders.ts";
import { firstDelivery } from "../support/first-delivery.ts";

let t: TestGateway;
let receiver: WebhookReceiver;

gatewayAndReceiverForFile((started) => {
  ({ t, receiver } = started);
});

async function claimFive(): Promise<ClaimedDelivery[]> {
  const keys = await t.merchant({ name: "Batch Ltd", testWebhookUrl: receiver.url });
  for (let i = 0; i < 5; i++) {
    const res = await t.post("/v1/transaction", initializeBody({ customer: { email: `b${i}@example.com` }, amount: "3" }), {
      authorization: `Bearer ${keys.testPublicKey}`,
    });
    expect(res.status).toBe(201);
  }
  const now = new Date();
  const claimed = await t.stores.webhookEndpoints.claimDue(now, new Date(now.getTime() + 60_000), 10);
  expect(claimed).toHaveLength(5);
  return claimed;
}

const attempt = (statusCode: number | null): AttemptRecord => ({
  attemptedAt: new Date("2026-11-24T03:00:00.123Z"),
  url: receiver.url,
  statusCode,
  latencyMs: 7,
  responseBody: statusCode === null ? null : `answer ${statusCode}, with "quotes", commas and a {brace}`,
  error: statusCode === null ? "connect ECONNREFUSED" : null,
  succeeded: statusCode === 200,
  trigger: "schedule",
});

it("settles a batch of different outcomes in one call, each delivery and attempt as if alone", async () => {
  const [delivered, retrying, failed, skipped, stale] = await claimFive();
  const at = new Date("2026-11-24T03:00:01.456Z");
  const next = new Date("2026-11-24T03:05:00.789Z");
  const settlements: DeliverySettlement[] = [
    { delivery: delivered!, outcome: { state: "DELIVERED", at }, attempt: attempt(200) },
    { delivery: retrying!, outcome: { state: "PENDING", nextAttemptAt: next }, attempt: attempt(null) },
    { delivery: failed!, outcome: { state: "FAILED" }, attempt: attempt(500) },
    { delivery: skipped!, outcome: { state: "SKIPPED" }, attempt: null },
    // Another dispatcher took this one over: the claim token no longer matches.
    {
      delivery: { id: stale!.id, eventId: stale!.eventId, claimToken: "not-the-holder" },
      outcome: { state: "DELIVERED", at },
      attempt: attempt(200),
    },
  ];
  await t.stores.webhookEndpoints.settle(settlements);

  const row = (eventId: string) => firstDelivery(t.db, eventId);
  expect(await row(delivered!.eventId)).toMatchObject({ state: "DELIVERED", deliveredAt: at, attemptCount: 1, claimToken: null });
  expect(await row(retrying!.eventId)).toMatchObject({ state: "PENDING", nextAttemptAt: next, attemptCount: 1, deliveredAt: null, claimToken: null });
  expect(await row(failed!.eventId)).toMatchObject({ state: "FAILED", attemptCount: 1, claimToken: null });
  const skippedRow = await row(skipped!.eventId);
  expect(skippedRow).toMatchObject({ state: "SKIPPED", attemptCount: 0, claimToken: null });
  expect(skippedRow.attempts).toEqual([]);
  const staleRow = await row(stale!.eventId);
  expect(staleRow).toMatchObject({ state: "PENDING", attemptCount: 0, claimToken: stale!.claimToken });
  expect(staleRow.attempts).toHaveLength(1); // its attempt is still logged

  const retryAttempt = (await row(retrying!.eventId)).attempts[0];
  expect(retryAttempt).toMatchObject({ statusCode: null, error: "connect ECONNREFUSED", responseBody: null, succeeded: false, latencyMs: 7 });
  const failedAttempt = (await row(failed!.eventId)).attempts[0];
  expect(failedAttempt).toMatchObject({
    statusCode: 500,
    responseBody: `answer 500, with "quotes", commas and a {brace}`,
    error: null,
    succeeded: false,
    trigger: "schedule",
    attemptedAt: new Date("2026-11-24T03:00:00.123Z"),
  });
});

it("does nothing for an empty batch", async () => {
  await expect(t.stores.webhookEndpoints.settle([])).resolves.toBeUndefined();
});

it("fails every caller of a batch whose write fails, and the dispatcher logs each delivery for a retry", async () => {
  const keys = await t.merchant({ name: "Unlucky Ltd", testWebhookUrl: receiver.url });
  for (let i = 0; i < 3; i++) {
    await t.post("/v1/transaction", initializeBody({ customer: { email: `u${i}@example.com` }, amount: "3" }), {
      authorization: `Bearer ${keys.testPublicKey}`,
    });
  }
  const lines: string[] = [];
  let calls = 0;
  const queue = {
    ...t.stores.webhookEndpoints,
    settle: async () => {
      calls++;
      throw new Error("the database went away");
    },
  };
  const dispatcher = t.dispatcher({ pollMs: 20 }, { queue, log: (line) => lines.push(line) });
  dispatcher.start();
  try {
    await expect.poll(() => lines.filter((l) => l.includes("could not be settled")).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
  } finally {
    await dispatcher.stop();
  }
  expect(calls).toBeGreaterThanOrEqual(1);
  expect(lines[0]).toMatch(/^webhooks: delivery wd_evt_\S+ could not be settled \(the database went away\); it will be retried$/);
});
