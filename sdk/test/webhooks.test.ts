// webhooks.verify against the service's real deliveries: a payment event from the dispatcher and the
// dashboard's webhook.test are accepted and typed; a tampered body, another secret or missing headers
// are refused with a WebhookVerificationError that says what to check.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewMerchant } from "../../src/core/merchants/merchants.ts";
import { initializeBody } from "../../test/support/builders.ts";
import { startTestGateway, type TestGateway } from "../../test/support/gateway.ts";
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from "../../test/support/webhook-receiver.ts";
import { createPaygate, verifyWebhook, type WebhookEvent, WebhookVerificationError } from "../src/index.ts";

let t: TestGateway;
let receiver: WebhookReceiver;
let keys: NewMerchant;

beforeAll(async () => {
  t = await startTestGateway();
  receiver = await startWebhookReceiver();
  keys = await t.merchant({ name: "Verify Shop", testWebhookUrl: receiver.url });
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

describe("webhooks.verify", () => {
  let delivery: ReceivedWebhook;

  it("accepts a real payment delivery and returns the typed event", async () => {
    const init = await t.post("/v1/transaction", initializeBody({ amount: "33" }), { authorization: `Bearer ${keys.testPublicKey}` });
    expect(init.status).toBe(201);
    await t.dispatcher().drain();
    await receiver.waitFor(1);
    delivery = receiver.received[0] as ReceivedWebhook;
    const paygate = createPaygate({ baseUrl: t.url, secretKey: keys.testSecretKey });
    const event: WebhookEvent = paygate.webhooks.verify(delivery.body, delivery.headers, keys.webhookSecret);
    expect(event.event).toBe("payment.initiated");
    if (!("transaction" in event.data)) throw new Error("expected a payment event");
    expect(event.data.transaction.reference).toBe(init.body.data.reference);
    expect(event.data.transaction.status).toBe("INITIATED");
    // A Uint8Array body and fetch's Headers work as well.
    const headers = new Headers(Object.entries(delivery.headers).map(([k, v]) => [k, String(v)] as [string, string]));
    expect(verifyWebhook(new TextEncoder().encode(delivery.body), headers, keys.webhookSecret)).toEqual(event);
  });

  it("accepts the dashboard's webhook.test", async () => {
    const attempt = await t.gateway.operator.sendTestEvent(keys.id, "test");
    expect(attempt.statusCode).toBe(200);
    const received = receiver.received.find((r) => r.headers["webhook-id"] === attempt.id);
    expect(received).toBeDefined();
    const event = verifyWebhook(received?.body ?? "", received?.headers ?? {}, keys.webhookSecret);
    expect(event.event).toBe("webhook.test");
    if (event.event !== "webhook.test") throw new Error("expected webhook.test");
    expect(event.data.mode).toBe("test");
  });

  it("refuses a tampered body, another secret and missing headers, saying what to check", () => {
    const tampered = delivery.body.replace('"amount_paid":null', '"amount_paid":33');
    expect(tampered).not.toBe(delivery.body);
    expect(() => verifyWebhook(tampered, delivery.headers, keys.webhookSecret)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(tampered, delivery.headers, keys.webhookSecret)).toThrow(
      /^Webhook signature verification failed \(No matching signature found\): check the secret \(whsec_…\) and pass the raw body, unparsed$/,
    );
    const other = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    expect(() => verifyWebhook(delivery.body, delivery.headers, other)).toThrow(/signature verification failed/);
    const { "webhook-signature": _dropped, ...unsigned } = delivery.headers;
    expect(() => verifyWebhook(delivery.body, unsigned, keys.webhookSecret)).toThrow(
      /^Missing webhook-signature header: this request is not a signed paygate webhook$/,
    );
    expect(() => verifyWebhook(delivery.body, delivery.headers, "not-a-secret")).toThrow(/must be the whsec_… string/);
  });
});
