// Webhook endpoints and their delivery log over GraphQL (issue 27): the gateway methods REST calls, the
// same rules and messages, secret key only; a signing secret in the create and rotate replies only,
// never in a log line; the mutation cap per request applies.
import type { ServerResponse } from "node:http";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../../src/core/events/payment-events.ts";
import { MAX_MUTATIONS_PER_REQUEST } from "../../src/graphql/mutation-limits.ts";
import { initializeBody } from "../support/builders.ts";
import { manualClock } from "../support/clock.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { useRecordingServers } from "../support/recording-server.ts";

let t: TestGateway;
const serve = useRecordingServers();

beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

const ok = (res: ServerResponse) => res.writeHead(200).end("ok");
const broken = (res: ServerResponse) => res.writeHead(500).end("down");

interface GraphError {
  message: string;
  extensions: { code: string; status: number; reason: string; errors: { field: string; message: string }[] };
}
interface GraphReply {
  data?: any;
  errors?: GraphError[];
}

async function graph(key: string, query: string, variables: Record<string, unknown> = {}): Promise<GraphReply> {
  const res = await fetch(`${t.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as GraphReply;
}

async function rest(method: string, path: string, key: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(t.url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

/** The one error of a reply that has no data for the field. */
function refusal(reply: GraphReply): GraphError {
  expect(reply.errors).toHaveLength(1);
  return reply.errors![0]!;
}

const ENDPOINT = `id isLive url description enabledEvents status disabledAt disabledReason failingSince primary
  secretRotatedAt previousSecretExpiresAt secret createdAt updatedAt`;
const DELIVERY = "id endpointId eventId eventType status attempts statusCode latencyMs lastAttemptAt nextAttemptAt deliveredAt createdAt";

const CREATE = `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { ${ENDPOINT} } }`;
const LIST = `{ webhookEndpoints { ${ENDPOINT} } }`;
const GET = `query($id: ID!) { webhookEndpoint(id: $id) { ${ENDPOINT} } }`;
const UPDATE = `mutation($id: ID!, $input: UpdateWebhookEndpointInput!) {
  updateWebhookEndpoint(id: $id, input: $input) { endpoint { ${ENDPOINT} } redelivered } }`;
const DELETE = "mutation($id: ID!) { deleteWebhookEndpoint(id: $id) { id deleted } }";
const ROTATE = `mutation($id: ID!) { rotateWebhookEndpointSecret(id: $id) { ${ENDPOINT} } }`;
const DELIVERIES = `query($endpointId: ID!, $status: WebhookDeliveryStatus, $first: Int, $after: String) {
  webhookDeliveries(endpointId: $endpointId, status: $status, first: $first, after: $after) {
    edges { cursor node { ${DELIVERY} } } pageInfo { hasNextPage endCursor } } }`;
const REDELIVER = `mutation($id: ID!) { redeliverWebhookDelivery(id: $id) { ${DELIVERY} } }`;
const REDELIVER_FAILED = `mutation($endpointId: ID!, $since: String!) {
  redeliverFailedWebhookDeliveries(endpointId: $endpointId, since: $since) { queued } }`;

async function initialize(publicKey: string): Promise<void> {
  const res = await t.post("/v1/transaction", initializeBody({ amount: "25" }), { authorization: `Bearer ${publicKey}` });
  expect(res.status).toBe(201);
}

describe("webhook endpoints over GraphQL", () => {
  it("creates (the secret shown once), lists, reads, updates, rotates and deletes, as REST sees them", async () => {
    const keys = await t.merchant({ name: "Graph Receivers Ltd", testWebhookUrl: (await serve(ok, "/first")).url });
    const shop = await serve(ok, "/shop");
    const made = await graph(keys.testSecretKey, CREATE, {
      input: { url: shop.url, enabledEvents: ["payment.initiated", "refund.created"], description: "Shop" },
    });
    expect(made.errors).toBeUndefined();
    const endpoint = made.data.createWebhookEndpoint;
    expect(endpoint).toMatchObject({
      isLive: false,
      url: shop.url,
      description: "Shop",
      enabledEvents: ["payment.initiated", "refund.created"],
      status: "ENABLED",
      disabledAt: null,
      disabledReason: null,
      primary: false,
      secretRotatedAt: null,
      previousSecretExpiresAt: null,
    });
    expect(endpoint.id).toMatch(/^we_/);
    expect(endpoint.secret).toMatch(/^whsec_/);

    // The same endpoint through REST, field for field; the secret in neither reply again.
    const viaRest = (await rest("GET", `/v1/webhook_endpoints/${endpoint.id}`, keys.testSecretKey)).body.data;
    const read = (await graph(keys.testSecretKey, GET, { id: endpoint.id })).data.webhookEndpoint;
    expect(read).toEqual({ ...endpoint, secret: null });
    expect(read).toMatchObject({
      url: viaRest.url,
      enabledEvents: viaRest.enabled_events,
      createdAt: viaRest.created_at,
      updatedAt: viaRest.updated_at,
      primary: viaRest.primary,
    });
    expect(viaRest).not.toHaveProperty("secret");

    // The list: the merchant's URL first (every event), then this one; no secret.
    const list = (await graph(keys.testSecretKey, LIST)).data.webhookEndpoints;
    expect(list.map((e: { primary: boolean; enabledEvents: string[]; secret: string | null }) => [e.primary, e.enabledEvents, e.secret])).toEqual([
      [true, ["*"], null],
      [false, ["payment.initiated", "refund.created"], null],
    ]);

    // A filter and a description changed; description null clears it, fields left out are kept.
    const updated = await graph(keys.testSecretKey, UPDATE, { id: endpoint.id, input: { enabledEvents: ["*"], description: null } });
    expect(updated.errors).toBeUndefined();
    expect(updated.data.updateWebhookEndpoint).toMatchObject({
      endpoint: { id: endpoint.id, url: shop.url, enabledEvents: ["*"], description: null, secret: null },
      redelivered: 0,
    });

    // Disabled by its merchant, then enabled again without redelivering what it missed.
    const disabled = await graph(keys.testSecretKey, UPDATE, { id: endpoint.id, input: { disabled: true } });
    expect(disabled.data.updateWebhookEndpoint.endpoint).toMatchObject({ status: "DISABLED", disabledReason: "manual" });
    expect(disabled.data.updateWebhookEndpoint.endpoint.disabledAt).toEqual(expect.any(String));
    const enabled = await graph(keys.testSecretKey, UPDATE, { id: endpoint.id, input: { disabled: false, redeliverMissed: false } });
    expect(enabled.data.updateWebhookEndpoint).toMatchObject({ endpoint: { status: "ENABLED", disabledAt: null }, redelivered: 0 });

    // Rotation: a new secret once, the previous one signing for 24 hours; deliveries carry both signatures.
    const rotated = (await graph(keys.testSecretKey, ROTATE, { id: endpoint.id })).data.rotateWebhookEndpointSecret;
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(Date.parse(rotated.previousSecretExpiresAt) - Date.parse(rotated.secretRotatedAt)).toBe(24 * 3_600_000);
    expect((await graph(keys.testSecretKey, GET, { id: endpoint.id })).data.webhookEndpoint).toMatchObject({
      secret: null,
      secretRotatedAt: rotated.secretRotatedAt,
    });
    await initialize(keys.testPublicKey);
    await t.dispatcher().drain();
    expect(shop.requests).toHaveLength(1);
    for (const secret of [endpoint.secret, rotated.secret]) {
      const event = new Webhook(secret).verify(shop.requests[0]!.body, shop.requests[0]!.headers as Record<string, string>) as { event: string };
      expect(event.event).toBe("payment.initiated");
    }

    // Neither secret is in any log line of the service.
    const log = t.logs.join("\n");
    expect(log).not.toContain(endpoint.secret);
    expect(log).not.toContain(rotated.secret);

    const deleted = await graph(keys.testSecretKey, DELETE, { id: endpoint.id });
    expect(deleted.data.deleteWebhookEndpoint).toEqual({ id: endpoint.id, deleted: true });
    expect((await graph(keys.testSecretKey, GET, { id: endpoint.id })).data.webhookEndpoint).toBeNull();
    expect((await rest("GET", `/v1/webhook_endpoints/${endpoint.id}`, keys.testSecretKey)).status).toBe(404);
    expect((await graph(keys.testSecretKey, LIST)).data.webhookEndpoints).toHaveLength(1);
  });

  it("re-enabled with redeliverMissed: true, queues what it missed while disabled, and sends it", async () => {
    const keys = await t.merchant({ name: "Graph Missed Ltd", testWebhookUrl: (await serve(ok, "/first")).url });
    const receiver = await serve(ok, "/missed");
    const made = await graph(keys.testSecretKey, CREATE, { input: { url: receiver.url, enabledEvents: ["payment.initiated"] } });
    const id: string = made.data.createWebhookEndpoint.id;
    expect((await graph(keys.testSecretKey, UPDATE, { id, input: { disabled: true } })).data.updateWebhookEndpoint.endpoint.status).toBe("DISABLED");
    await initialize(keys.testPublicKey);
    await initialize(keys.testPublicKey);
    await t.dispatcher().drain();
    expect(receiver.requests).toHaveLength(0);
    const enabled = await graph(keys.testSecretKey, UPDATE, { id, input: { disabled: false, redeliverMissed: true } });
    expect(enabled.errors).toBeUndefined();
    expect(enabled.data.updateWebhookEndpoint).toMatchObject({ endpoint: { status: "ENABLED", disabledReason: null }, redelivered: 2 });
    await t.dispatcher().drain();
    const secret: string = made.data.createWebhookEndpoint.secret;
    const events = receiver.requests.map((r) => (new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as { event: string }).event);
    expect(events).toEqual(["payment.initiated", "payment.initiated"]);
  });

  it("makes the mode's first endpoint the merchant's webhook URL, with test mode's own secret (never the one that signs live)", async () => {
    const keys = await t.merchant({ name: "Graph First Ltd" });
    const server = await serve(ok, "/graph-first");
    const made = await graph(keys.testSecretKey, CREATE, { input: { url: server.url, enabledEvents: ["*"] } });
    expect(made.data.createWebhookEndpoint).toMatchObject({ primary: true, url: server.url, secret: expect.stringMatching(/^whsec_/) });
    expect(made.data.createWebhookEndpoint.secret).not.toBe(keys.webhookSecret);
    expect((await t.gateway.merchants.settings(t.gateway.access.operator(keys.id))).webhookUrls.test).toBe(server.url);
  });
});

describe("the delivery log over GraphQL", () => {
  it("lists an endpoint's deliveries newest first with a status filter and a cursor, redelivers one and every failed one since a time", async () => {
    const keys = await t.merchant({ name: "Graph Deliveries Ltd", testWebhookUrl: (await serve(ok, "/primary")).url });
    let down = true;
    const receiver = await serve((res) => (down ? broken(res) : ok(res)), "/log");
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const made = await graph(keys.testSecretKey, CREATE, { input: { url: receiver.url, enabledEvents: ["payment.initiated"] } });
      ids.push(made.data.createWebhookEndpoint.id);
    }
    const [first, second] = ids as [string, string];
    const since = new Date(Date.now() - 1000).toISOString();
    await initialize(keys.testPublicKey);
    await initialize(keys.testPublicKey);

    const pending = await graph(keys.testSecretKey, DELIVERIES, { endpointId: second, status: "PENDING" });
    expect(pending.data.webhookDeliveries.edges.map((e: { node: { status: string; attempts: number } }) => e.node)).toEqual([
      expect.objectContaining({ status: "PENDING", attempts: 0, endpointId: second, eventType: "payment.initiated", statusCode: null }),
      expect.objectContaining({ status: "PENDING", attempts: 0, endpointId: second }),
    ]);

    // No retries: both fail for good at once, with the receiver's status and the attempt's latency.
    await t.dispatcher({ retryScheduleMs: [] }, { clock: manualClock() }).drain();
    const page1 = await graph(keys.testSecretKey, DELIVERIES, { endpointId: second, status: "FAILED", first: 1 });
    expect(page1.errors).toBeUndefined();
    const { edges, pageInfo } = page1.data.webhookDeliveries;
    expect(pageInfo).toEqual({ hasNextPage: true, endCursor: edges[0].cursor });
    expect(edges[0].node).toMatchObject({ status: "FAILED", attempts: 1, statusCode: 500, nextAttemptAt: null, deliveredAt: null });
    expect(edges[0].node.id).toMatch(/^wd_/);
    expect(edges[0].node.eventId).toMatch(/^evt_/);
    expect(edges[0].node.latencyMs).toEqual(expect.any(Number));
    expect(edges[0].node.lastAttemptAt).toEqual(expect.any(String));
    const page2 = await graph(keys.testSecretKey, DELIVERIES, { endpointId: second, status: "FAILED", first: 1, after: pageInfo.endCursor });
    expect(page2.data.webhookDeliveries.pageInfo.hasNextPage).toBe(false);
    expect(page2.data.webhookDeliveries.edges).toHaveLength(1);
    expect(page2.data.webhookDeliveries.edges[0].node.id).not.toBe(edges[0].node.id);
    // Another merchant's secret key, or this merchant's live one, finds no such delivery: nothing queued.
    const stranger = await t.merchant({ name: "Graph Deliveries Stranger Ltd" });
    for (const key of [stranger.testSecretKey, keys.liveSecretKey]) {
      const error = refusal(await graph(key, REDELIVER, { id: edges[0].node.id }));
      expect(error.message).toBe(`No webhook delivery with id '${edges[0].node.id}'`);
      expect(error.extensions).toMatchObject({ code: "NOT_FOUND", status: 404, reason: "webhook_delivery_not_found" });
    }
    expect((await graph(keys.testSecretKey, DELIVERIES, { endpointId: second, status: "FAILED" })).data.webhookDeliveries.edges).toHaveLength(2);
    // The same log as REST's, row for row.
    const viaRest = await rest("GET", `/v1/webhook_endpoints/${second}/deliveries?status=failed`, keys.testSecretKey);
    const all = (await graph(keys.testSecretKey, DELIVERIES, { endpointId: second, status: "FAILED" })).data.webhookDeliveries.edges;
    expect(all.map((e: { node: { id: string } }) => e.node.id)).toEqual(viaRest.body.data.map((d: { id: string }) => d.id));
    expect(all[0].node).toMatchObject({
      eventId: viaRest.body.data[0].event.id,
      latencyMs: viaRest.body.data[0].latency_ms,
      lastAttemptAt: viaRest.body.data[0].last_attempt_at,
      createdAt: viaRest.body.data[0].created_at,
    });
    expect((await graph(keys.testSecretKey, DELIVERIES, { endpointId: second, status: "SUCCEEDED" })).data.webhookDeliveries).toEqual({
      edges: [],
      pageInfo: { hasNextPage: false, endCursor: null },
    });

    // One delivery again: due now with a fresh schedule, then delivered.
    down = false;
    const one = await graph(keys.testSecretKey, REDELIVER, { id: edges[0].node.id });
    expect(one.errors).toBeUndefined();
    expect(one.data.redeliverWebhookDelivery).toMatchObject({ id: edges[0].node.id, status: "PENDING", attempts: 0 });
    await t.dispatcher({ retryScheduleMs: [] }).drain();
    const succeeded = await graph(keys.testSecretKey, DELIVERIES, { endpointId: second, status: "SUCCEEDED" });
    expect(succeeded.data.webhookDeliveries.edges.map((e: { node: { id: string; statusCode: number } }) => [e.node.id, e.node.statusCode])).toEqual([
      [edges[0].node.id, 200],
    ]);

    // Every failed one of the other endpoint since a time.
    const again = await graph(keys.testSecretKey, REDELIVER_FAILED, { endpointId: first, since });
    expect(again.errors).toBeUndefined();
    expect(again.data.redeliverFailedWebhookDeliveries).toEqual({ queued: 2 });
    await t.dispatcher({ retryScheduleMs: [] }).drain();
    const firstLog = (await graph(keys.testSecretKey, DELIVERIES, { endpointId: first })).data.webhookDeliveries.edges;
    expect(firstLog.map((e: { node: { status: string } }) => e.node.status)).toEqual(["SUCCEEDED", "SUCCEEDED"]);
  });

  it("refuses bad list arguments, an unknown cursor or delivery, and a bad time with REST's messages in the graph's names", async () => {
    const keys = await t.merchant({ name: "Graph Bad Log Ltd" });
    const made = await graph(keys.testSecretKey, CREATE, { input: { url: "https://hooks.example.com/in", enabledEvents: ["*"] } });
    const id: string = made.data.createWebhookEndpoint.id;
    const cases: [Record<string, unknown>, string, string][] = [
      [{ first: 0 }, "first", "must be an integer from 1 to 100"],
      [{ first: 101 }, "first", "must be an integer from 1 to 100"],
      [{ status: "SKIPPED" }, "status", "must be one of failed, succeeded, pending"],
    ];
    for (const [args, field, message] of cases) {
      const error = refusal(await graph(keys.testSecretKey, DELIVERIES, { endpointId: id, ...args }));
      expect(error.message).toBe(`Invalid query parameter: ${field} ${message}`);
      expect(error.extensions).toMatchObject({ code: "BAD_USER_INPUT", status: 400, reason: "invalid_list_parameter", errors: [{ field, message }] });
    }
    const cursor = refusal(await graph(keys.testSecretKey, DELIVERIES, { endpointId: id, after: "wd_nosuchdelivery" }));
    expect(cursor.message).toBe(
      "Invalid query parameter: after names no object of this merchant and mode ('wd_nosuchdelivery'); pass the id of the last object of the previous page",
    );
    expect(cursor.extensions).toMatchObject({ code: "BAD_USER_INPUT", status: 400, reason: "unknown_cursor" });
    const badCursor = refusal(await graph(keys.testSecretKey, DELIVERIES, { endpointId: id, after: "nope" }));
    expect(badCursor.message).toBe("Invalid query parameter: after must be the id (wd_…) of a delivery of the previous page");

    const noDelivery = refusal(await graph(keys.testSecretKey, REDELIVER, { id: "wd_nosuchdelivery" }));
    expect(noDelivery.message).toBe("No webhook delivery with id 'wd_nosuchdelivery'");
    expect(noDelivery.extensions).toMatchObject({ code: "NOT_FOUND", status: 404, reason: "webhook_delivery_not_found" });

    const badSince = refusal(await graph(keys.testSecretKey, REDELIVER_FAILED, { endpointId: id, since: "yesterday" }));
    expect(badSince.message).toBe("Invalid webhook endpoint: since must be an ISO 8601 time, e.g. 2026-11-26T12:00:00Z");
    expect(badSince.extensions).toMatchObject({ code: "BAD_USER_INPUT", status: 400, reason: "invalid_webhook_endpoint" });
  });
});

describe("bad input over GraphQL: REST's errors in GraphQL's shape, nothing changed", () => {
  it("refuses an unknown event name, a URL failing the checks, a lone redeliverMissed, naming the field", async () => {
    const keys = await t.merchant({ name: "Graph Careful Ltd" });
    const made = await graph(keys.testSecretKey, CREATE, { input: { url: "https://hooks.example.com/in", enabledEvents: ["*"] } });
    const id: string = made.data.createWebhookEndpoint.id;
    const before = await graph(keys.testSecretKey, LIST);

    const unknown = refusal(await graph(keys.testSecretKey, UPDATE, { id, input: { enabledEvents: ["payment.initiated", "payment.bogus"] } }));
    expect(unknown.message).toBe(`Invalid webhook endpoint: enabled_events names no event type: payment.bogus; use ${EVENT_TYPES.join(", ")} or *`);
    expect(unknown.extensions).toMatchObject({
      code: "BAD_USER_INPUT",
      status: 400,
      reason: "invalid_webhook_endpoint",
      errors: [{ field: "enabledEvents", message: expect.stringContaining("names no event type: payment.bogus") }],
    });
    // The same refusal REST gives.
    const viaRest = await rest("POST", `/v1/webhook_endpoints/${id}`, keys.testSecretKey, { enabled_events: ["payment.initiated", "payment.bogus"] });
    expect(viaRest.body).toMatchObject({ message: unknown.message, reason: unknown.extensions.reason });

    const create = refusal(
      await graph(keys.testSecretKey, CREATE, { input: { url: "https://hooks.example.com/in", enabledEvents: ["charge.succeeded"] } }),
    );
    expect(create.message).toContain("enabled_events names no event type: charge.succeeded");
    const empty = refusal(await graph(keys.testSecretKey, CREATE, { input: { url: "https://hooks.example.com/in", enabledEvents: [] } }));
    expect(empty.message).toBe('Invalid webhook endpoint: enabled_events must name at least one event type, or "*"');

    for (const [url, message] of [
      ["not a url", "url 'not a url' is refused: webhook URL is not a valid absolute URL"],
      ["ftp://example.com/x", "webhook URLs must use http or https"],
    ]) {
      const error = refusal(await graph(keys.testSecretKey, CREATE, { input: { url, enabledEvents: ["*"] } }));
      expect(error.message).toContain(message);
      expect(error.extensions).toMatchObject({ code: "BAD_USER_INPUT", status: 400, errors: [{ field: "url" }] });
    }
    const live = refusal(await graph(keys.liveSecretKey, CREATE, { input: { url: "http://example.com/hook", enabledEvents: ["*"] } }));
    expect(live.message).toContain("live-mode webhook URLs must use https");
    const badUrl = refusal(await graph(keys.testSecretKey, UPDATE, { id, input: { url: "not a url" } }));
    expect(badUrl.extensions).toMatchObject({ status: 400, errors: [{ field: "url" }] });

    const lone = refusal(await graph(keys.testSecretKey, UPDATE, { id, input: { redeliverMissed: true } }));
    expect(lone.message).toBe("Invalid webhook endpoint: redeliver_missed only goes with disabled: false (re-enabling the endpoint)");
    expect(lone.extensions.errors).toEqual([{ field: "redeliverMissed", message: "only goes with disabled: false (re-enabling the endpoint)" }]);

    expect(await graph(keys.testSecretKey, LIST)).toEqual(before);
  });

  it("refuses the 17th endpoint of a mode with the limit's error, and counts each mode apart", async () => {
    const keys = await t.merchant({ name: "Graph Many Ltd" });
    // One per request: each reply holds its endpoint's one-time secret, so none shares a request (issue 41).
    for (let n = 0; n < 16; n++) {
      const reply = await graph(keys.testSecretKey, CREATE, { input: { url: `https://hooks${n}.example.com/in`, enabledEvents: ["*"] } });
      expect(reply.errors).toBeUndefined();
    }
    expect((await graph(keys.testSecretKey, LIST)).data.webhookEndpoints).toHaveLength(16);
    const over = refusal(await graph(keys.testSecretKey, CREATE, { input: { url: "https://hooks16.example.com/in", enabledEvents: ["*"] } }));
    expect(over.message).toBe(
      "This merchant already has 16 test-mode webhook endpoints, the most allowed (PAYGATE_WEBHOOK_ENDPOINTS_MAX); delete one first",
    );
    expect(over.extensions).toMatchObject({ code: "CONFLICT", status: 409, reason: "webhook_endpoint_limit" });
    expect((await graph(keys.testSecretKey, LIST)).data.webhookEndpoints).toHaveLength(16);
    const live = await graph(keys.liveSecretKey, CREATE, { input: { url: "https://live.example.com/in", enabledEvents: ["*"] } });
    expect(live.data.createWebhookEndpoint.isLive).toBe(true);
  });

  it("refuses more mutations in one request than the cap, before any runs", async () => {
    const keys = await t.merchant({ name: "Graph Batch Ltd" });
    const count = MAX_MUTATIONS_PER_REQUEST + 1;
    const fields = Array.from(
      { length: count },
      (_, n) => `e${n}: createWebhookEndpoint(input: { url: "https://batch${n}.example.com/in", enabledEvents: ["*"] }) { id }`,
    );
    const reply = await graph(keys.testSecretKey, `mutation { ${fields.join(" ")} }`);
    expect(reply.data).toBeUndefined();
    const error = refusal(reply);
    expect(error.message).toBe(
      `Too many mutations in one request: ${count} root mutation fields, at most ${MAX_MUTATIONS_PER_REQUEST}; send the others in requests of their own (each counts against the rate limit)`,
    );
    expect(error.extensions).toMatchObject({ code: "BAD_REQUEST", status: 400, reason: "too_many_mutations" });
    expect((await graph(keys.testSecretKey, LIST)).data.webhookEndpoints).toEqual([]);
  });

  it("refuses a public key with REST's 401, and answers another merchant's or mode's endpoint as not found", async () => {
    const keys = await t.merchant({ name: "Graph Owner Ltd" });
    const other = await t.merchant({ name: "Graph Stranger Ltd" });
    const made = await graph(keys.testSecretKey, CREATE, { input: { url: "https://hooks.example.com/in", enabledEvents: ["*"] } });
    const id: string = made.data.createWebhookEndpoint.id;

    const viaRest = await rest("GET", "/v1/webhook_endpoints", keys.testPublicKey);
    expect(viaRest.status).toBe(401);
    for (const [query, variables] of [
      [LIST, {}],
      [GET, { id }],
      [CREATE, { input: { url: "https://hooks.example.com/other", enabledEvents: ["*"] } }],
      [UPDATE, { id, input: { description: "mine" } }],
      [DELETE, { id }],
      [ROTATE, { id }],
      [DELIVERIES, { endpointId: id }],
      [REDELIVER, { id: "wd_nosuchdelivery" }],
      [REDELIVER_FAILED, { endpointId: id, since: "2026-01-01T00:00:00Z" }],
    ] as const) {
      const error = refusal(await graph(keys.testPublicKey, query, variables));
      expect(error.message).toBe(viaRest.body.message);
      expect(error.message).toBe("Invalid Secret Key: this operation needs a secret key (sec_…)");
      expect(error.extensions).toMatchObject({ code: "UNAUTHENTICATED", status: 401, reason: viaRest.body.reason });
    }

    for (const key of [other.testSecretKey, keys.liveSecretKey]) {
      expect((await graph(key, GET, { id })).data.webhookEndpoint).toBeNull();
      for (const [query, variables] of [
        [UPDATE, { id, input: { description: "mine now" } }],
        [DELETE, { id }],
        [ROTATE, { id }],
        [DELIVERIES, { endpointId: id }],
        [REDELIVER_FAILED, { endpointId: id, since: "2026-01-01T00:00:00Z" }],
      ] as const) {
        const error = refusal(await graph(key, query, variables));
        expect(error.message).toBe(`No webhook endpoint with id '${id}'`);
        expect(error.extensions).toMatchObject({ code: "NOT_FOUND", status: 404, reason: "webhook_endpoint_not_found" });
      }
    }
    // Nothing changed.
    expect((await graph(keys.testSecretKey, GET, { id })).data.webhookEndpoint).toMatchObject({ id, description: null, secretRotatedAt: null });
  });
});
