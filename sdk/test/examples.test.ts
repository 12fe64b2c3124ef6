// examples/sdk-receiver.ts and examples/sdk-integration.ts against the real service: the receiver
// accepts webhook.test and payment events and answers 401 to a bad signature; the shop makes a
// transaction for an order, hands out its checkout URL, and is marked paid by the payment.received webhook.
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createShop } from "../../examples/sdk-integration.ts";
import { describeEvent, startReceiver } from "../../examples/sdk-receiver.ts";
import { initializeBody } from "../../test/support/builders.ts";
import { startTestGateway, type TestGateway } from "../../test/support/gateway.ts";
import type { WebhookEvent } from "../src/index.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t?.close());

describe("examples/sdk-receiver.ts", () => {
  it("accepts webhook.test and payment events from the service, and answers 401 to a bad signature", async () => {
    const handled: string[] = [];
    // The merchant is made first (its secret), then its test URL pointed at the receiver.
    const keys = await t.merchant({ name: "Receiver Shop" });
    const { server, url } = await startReceiver(keys.webhookSecret, 0, (event: WebhookEvent) => void handled.push(describeEvent(event)));
    try {
      await t.gateway.operator.updateMerchant(keys.id, { testWebhookUrl: url });
      const test = await t.gateway.operator.sendTestEvent(keys.id, "test");
      expect(test.statusCode).toBe(200);
      expect(handled).toEqual(["verified webhook.test: the test endpoint works"]);

      const init = await t.post("/v1/transaction", initializeBody({ amount: "20" }), { authorization: `Bearer ${keys.testPublicKey}` });
      const [report] = await t.dispatcher().drain();
      expect(report).toMatchObject({ type: "payment.initiated", outcome: { state: "DELIVERED" }, attempt: { statusCode: 200 } });
      expect(handled[1]).toBe(`verified payment.initiated: ${init.body.data.reference} is INITIATED`);

      const body = JSON.stringify({ event: "webhook.test", data: { mode: "test" } });
      const forged = new Webhook(`whsec_${Buffer.alloc(32, 1).toString("base64")}`).sign("msg_forged", new Date(), body);
      const answer = await fetch(url, {
        method: "POST",
        headers: { "webhook-id": "msg_forged", "webhook-timestamp": String(Math.floor(Date.now() / 1000)), "webhook-signature": forged },
        body,
      });
      expect(answer.status).toBe(401);
      expect(await answer.text()).toMatch(/^invalid webhook: Webhook signature verification failed/);
      expect(handled).toHaveLength(2);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("examples/sdk-integration.ts", () => {
  it("turns an order into a transaction with a checkout URL, and marks it paid on payment.received", async () => {
    const keys = await t.merchant({ name: "Integration Shop" });
    const shop = createShop({ paygateUrl: t.url, publicKey: keys.testPublicKey, secretKey: keys.testSecretKey, webhookSecret: keys.webhookSecret });
    const shopUrl = await shop.listen();
    try {
      await t.gateway.operator.updateMerchant(keys.id, { testWebhookUrl: `${shopUrl}/webhooks` });
      const placed = await fetch(`${shopUrl}/orders`, { method: "POST", body: JSON.stringify({ email: "ada@example.com", amount: "25.00" }) });
      expect(placed.status, await placed.clone().text()).toBe(201);
      const { order_id: orderId, checkout_url: checkoutUrl } = (await placed.json()) as { order_id: string; checkout_url: string };
      expect(checkoutUrl.startsWith(t.url)).toBe(true);
      const order = shop.orders.get(orderId);
      expect(order?.status).toBe("awaiting_payment");

      // The customer pays at the checkout (here: initiate, then the test helper's payment), and the dispatcher delivers.
      const auth = { authorization: `Bearer ${keys.testSecretKey}` };
      expect((await t.post(`/v1/transaction/${order?.transactionId}/pay`, { currency_id: "4" }, auth)).status).toBe(200);
      expect((await t.post(`/v1/test_helpers/transaction/${order?.transactionId}/payment`, {}, auth)).status).toBe(200);
      await t.dispatcher().drain();
      const status = async () => ((await (await fetch(`${shopUrl}/orders/${orderId}`)).json()) as { status: string }).status;
      expect(await status()).toBe("paid");

      const refused = await fetch(`${shopUrl}/orders`, { method: "POST", body: JSON.stringify({ email: "not-an-email", amount: "25.00" }) });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: string }).error).toMatch(/^400: .*customer\.email/);
    } finally {
      await shop.close();
    }
  });
});
