// The SDK's typed webhook endpoint documents against the real service: create (secret once), list,
// update, the delivery log, rotate, delete; a refusal as PaygateGraphQLError with paygate's code.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewMerchant } from "../../src/core/merchants/merchants.ts";
import { startTestGateway, type TestGateway } from "../../test/support/gateway.ts";
import {
  CreateWebhookEndpointDocument,
  createPaygate,
  DeleteWebhookEndpointDocument,
  PaygateGraphQLError,
  RedeliverFailedWebhookDeliveriesDocument,
  RotateWebhookEndpointSecretDocument,
  UpdateWebhookEndpointDocument,
  WebhookDeliveriesDocument,
  WebhookEndpointDocument,
  WebhookEndpointsDocument,
} from "../src/index.ts";

let t: TestGateway;
let keys: NewMerchant;

beforeAll(async () => {
  t = await startTestGateway();
  keys = await t.merchant({ name: "SDK Receivers", testWebhookUrl: "https://shop.example.com/hooks" });
});
afterAll(() => t?.close());

describe("webhook endpoints through the SDK's GraphQL documents", () => {
  it("creates, lists, reads, updates, rotates and deletes an endpoint, and reads its delivery log", async () => {
    const server = createPaygate({ baseUrl: t.url, secretKey: keys.testSecretKey });
    const { createWebhookEndpoint: made } = await server.graphql(CreateWebhookEndpointDocument, {
      input: { url: "https://books.example.com/in", enabledEvents: ["payment.initiated"], description: "Books" },
    });
    expect(made).toMatchObject({ url: "https://books.example.com/in", status: "ENABLED", primary: false, description: "Books" });
    expect(made.secret).toMatch(/^whsec_/);

    const { webhookEndpoints } = await server.graphql(WebhookEndpointsDocument, {});
    expect(webhookEndpoints.map((e) => [e.url, e.primary, e.secret])).toEqual([
      ["https://shop.example.com/hooks", true, null],
      ["https://books.example.com/in", false, null],
    ]);
    const { webhookEndpoint } = await server.graphql(WebhookEndpointDocument, { id: made.id });
    expect(webhookEndpoint?.enabledEvents).toEqual(["payment.initiated"]);

    const { updateWebhookEndpoint } = await server.graphql(UpdateWebhookEndpointDocument, { id: made.id, input: { enabledEvents: ["*"] } });
    expect(updateWebhookEndpoint).toMatchObject({ endpoint: { enabledEvents: ["*"] }, redelivered: 0 });

    const init = await t.post(
      "/v1/transaction",
      { customer: { email: "ada@example.com" }, currency: "USD", amount: "5" },
      { authorization: `Bearer ${keys.testPublicKey}` },
    );
    expect(init.status).toBe(201);
    const { webhookDeliveries } = await server.graphql(WebhookDeliveriesDocument, { endpointId: made.id, status: "PENDING" });
    expect(webhookDeliveries.edges.map((e) => [e.node.eventType, e.node.status])).toEqual([["payment.initiated", "PENDING"]]);
    expect(webhookDeliveries.pageInfo).toEqual({ hasNextPage: false, endCursor: webhookDeliveries.edges[0]?.cursor });
    const { redeliverFailedWebhookDeliveries } = await server.graphql(RedeliverFailedWebhookDeliveriesDocument, {
      endpointId: made.id,
      since: "2026-01-01T00:00:00Z",
    });
    expect(redeliverFailedWebhookDeliveries.queued).toBe(0);

    const { rotateWebhookEndpointSecret: rotated } = await server.graphql(RotateWebhookEndpointSecretDocument, { id: made.id });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(made.secret);
    expect(rotated.previousSecretExpiresAt).toEqual(expect.any(String));

    const { deleteWebhookEndpoint } = await server.graphql(DeleteWebhookEndpointDocument, { id: made.id });
    expect(deleteWebhookEndpoint).toEqual({ id: made.id, deleted: true });
    expect((await server.graphql(WebhookEndpointDocument, { id: made.id })).webhookEndpoint).toBeNull();
  });

  it("throws PaygateGraphQLError with paygate's message and code: an unknown event name, a public key", async () => {
    const server = createPaygate({ baseUrl: t.url, secretKey: keys.testSecretKey });
    const unknown = await server
      .graphql(CreateWebhookEndpointDocument, { input: { url: "https://books.example.com/in", enabledEvents: ["payment.nope"] } })
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(PaygateGraphQLError);
    expect((unknown as PaygateGraphQLError).message).toContain("enabled_events names no event type: payment.nope");
    expect((unknown as PaygateGraphQLError).errors[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", status: 400 });

    const browser = createPaygate({ baseUrl: t.url, publicKey: keys.testPublicKey });
    const refused = await browser.graphql(WebhookEndpointsDocument, {}).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PaygateGraphQLError);
    expect((refused as PaygateGraphQLError).errors[0]).toMatchObject({
      message: "Invalid Secret Key: this operation needs a secret key (sec_…)",
      extensions: { code: "UNAUTHENTICATED", status: 401 },
    });
  });
});
