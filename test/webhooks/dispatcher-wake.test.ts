// The dispatcher wakes on the database's notification of a new event rather than waiting for its
// poll: with a 10 s poll, a new event is delivered well within a second.
import { expect, it } from "vitest";
import { gatewayAndReceiverForFile, type TestGateway } from "../support/gateway.ts";
import type { WebhookReceiver } from "../support/webhook-receiver.ts";

let t: TestGateway;
let receiver: WebhookReceiver;

gatewayAndReceiverForFile((started) => {
  ({ t, receiver } = started);
});

it("delivers a new event in well under the poll interval", async () => {
  const keys = await t.merchant({ name: "Hooked Ltd", testWebhookUrl: receiver.url });
  const dispatcher = t.dispatcher({ pollMs: 10_000 });
  dispatcher.start();
  await new Promise((resolve) => setTimeout(resolve, 500)); // its first look found nothing; now it waits 10 s

  for (const round of [1, 2]) {
    const started = Date.now();
    const res = await t.post(
      "/v1/transaction",
      { customer: { email: "ada@example.com" }, currency: "USD", amount: "25" },
      {
        authorization: `Bearer ${keys.testPublicKey}`,
      },
    );
    expect(res.status).toBe(201);
    await receiver.waitFor(round, 9_000);
    expect(Date.now() - started).toBeLessThan(1_000);
    const event = await t.db.webhookEvent.findFirstOrThrow({ where: { transactionId: res.body.data.id } });
    expect(receiver.received[round - 1]!.headers["webhook-id"]).toBe(event.id);
  }
});
