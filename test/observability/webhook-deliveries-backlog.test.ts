// GET /metrics counts the deliveries to the webhook endpoints other than a mode's first (issue 27): their
// own pending, due and oldest-due gauges, read from their table at scrape time as the outbox's are, so a
// backlog of a merchant's extra endpoints is seen; a disabled endpoint's deliveries wait for no dispatcher.
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookEndpointStore } from "../../src/db/stores/webhook-endpoints.ts";
import type { Database } from "../../src/db/types.ts";
import { PaygateMetrics } from "../../src/observability/index.ts";
import { initializeBody } from "../support/builders.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { useRecordingServers } from "../support/recording-server.ts";
import { parseExposition, type Exposition } from "./exposition.ts";

let t: TestGateway;
const serve = useRecordingServers();

beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

const ok = (res: ServerResponse) => res.writeHead(200).end("ok");
const broken = (res: ServerResponse) => res.writeHead(500).end("down");

async function scrape(): Promise<Exposition> {
  const res = await fetch(`${t.url}/metrics`);
  expect(res.status).toBe(200);
  return parseExposition(await res.text());
}

async function call(method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(t.url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as { data: { id: string } } };
}

const GAUGES = ["paygate_webhook_deliveries_pending", "paygate_webhook_deliveries_due", "paygate_webhook_deliveries_oldest_due_age_seconds"];

describe("the webhook deliveries' backlog on GET /metrics", () => {
  it("exposes its three gauges with HELP and TYPE, at 0 with nothing waiting", async () => {
    const exposition = await scrape();
    for (const name of GAUGES) {
      const family = exposition.families.get(name);
      expect(family?.type, name).toBe("gauge");
      expect(family?.help?.length ?? 0, name).toBeGreaterThan(10);
      expect(exposition.value(name), name).toBe(0);
    }
  });

  it("counts the extra endpoints' deliveries apart from the outbox: pending, due, behind an earlier one, the oldest's age, none of a disabled endpoint", async () => {
    const primary = await serve(ok, "/primary");
    const keys = await t.merchant({ name: "Backlogged Ltd", testWebhookUrl: primary.url });
    const healthy = await serve(ok, "/healthy");
    const failing = await serve(broken, "/failing");
    const paused = await serve(ok, "/paused");
    const made: string[] = [];
    for (const url of [healthy.url, failing.url, paused.url]) {
      const res = await call("POST", "/v1/webhook_endpoints", keys.testSecretKey, { url, enabled_events: ["*"] });
      expect(res.status).toBe(201);
      made.push(res.body.data.id);
    }
    const [, failingId, pausedId] = made as [string, string, string];

    const before = await scrape();
    expect(before.value("paygate_webhook_deliveries_pending")).toBe(0);
    const init = await t.post("/v1/transaction", initializeBody({ amount: "25" }), { authorization: `Bearer ${keys.testPublicKey}` });
    expect(init.status).toBe(201);
    const transactionId: string = init.body.data.id;
    // One event: the outbox holds it for the first endpoint, and three deliveries wait for the others.
    let now = await scrape();
    expect(now.value("paygate_webhook_events_pending")).toBe(1);
    expect(now.value("paygate_webhook_deliveries_pending")).toBe(3);
    expect(now.value("paygate_webhook_deliveries_due")).toBe(3);

    // Disabled, an endpoint's delivery waits for no dispatcher: not counted.
    expect((await call("POST", `/v1/webhook_endpoints/${pausedId}`, keys.testSecretKey, { disabled: true })).status).toBe(200);
    now = await scrape();
    expect(now.value("paygate_webhook_deliveries_pending")).toBe(2);
    expect(now.value("paygate_webhook_deliveries_due")).toBe(2);

    // A second event of the transaction: its deliveries wait behind the first ones, pending and not due.
    const pay = await t.post(`/v1/transaction/${transactionId}/pay`, { currency_id: "6" }, { authorization: `Bearer ${keys.testSecretKey}` });
    expect(pay.status).toBe(200);
    now = await scrape();
    expect(now.value("paygate_webhook_deliveries_pending")).toBe(4);
    expect(now.value("paygate_webhook_deliveries_due")).toBe(2);

    // The oldest due delivery has waited an hour.
    const oldest = await t.db.webhookDelivery.findFirstOrThrow({ where: { endpointId: failingId, state: "PENDING" }, orderBy: { eventSeq: "asc" } });
    await t.db.webhookDelivery.update({ where: { id: oldest.id }, data: { nextAttemptAt: new Date(Date.now() - 3_600_000) } });
    now = await scrape();
    expect(now.value("paygate_webhook_deliveries_oldest_due_age_seconds")).toBeGreaterThanOrEqual(3600);
    expect(now.value("paygate_webhook_deliveries_oldest_due_age_seconds")).toBeLessThan(3660);

    // Sent: the healthy endpoint has both; the failing one's first waits for its retry, its second behind it.
    await t.dispatcher().drain();
    expect(healthy.requests).toHaveLength(2);
    expect(failing.requests).toHaveLength(1);
    const after = await scrape();
    expect(after.value("paygate_webhook_events_pending")).toBe(0);
    expect(after.value("paygate_webhook_deliveries_pending")).toBe(2);
    expect(after.value("paygate_webhook_deliveries_due")).toBe(0);
    expect(after.value("paygate_webhook_deliveries_oldest_due_age_seconds")).toBe(0);
    // Their attempts are counted with the outbox's: 2 delivered (first endpoint) + 2 (healthy) and 1 retrying.
    expect(
      after.count("paygate_webhook_attempts_total", { outcome: "delivered" }) -
        before.count("paygate_webhook_attempts_total", { outcome: "delivered" }),
    ).toBe(4);
    expect(
      after.count("paygate_webhook_attempts_total", { outcome: "retrying" }) -
        before.count("paygate_webhook_attempts_total", { outcome: "retrying" }),
    ).toBe(1);
  });

  it("reads NaN when the database cannot answer, and the scrape still answers", async () => {
    const metrics = new PaygateMetrics({ defaultMetrics: false });
    const unreachable = { $queryRaw: () => Promise.reject(new Error("connection refused")) } as unknown as Database;
    metrics.observeDatabase({
      webhookBacklog: () => t.gateway.operator.webhookBacklog(),
      webhookDeliveriesBacklog: () => webhookEndpointStore(unreachable).backlog(new Date(), "others"),
    });
    const exposition = parseExposition(await metrics.render());
    for (const name of GAUGES) expect(exposition.value(name), name).toBeNaN();
    // The outbox's gauges are read apart and still answer.
    expect(exposition.value("paygate_webhook_events_pending")).toBe(0);
  });
});
