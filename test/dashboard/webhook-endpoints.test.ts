// The Webhooks page's endpoints and delivery log (/dashboard/api/webhook-endpoints…, issue 27) over
// HTTP with real sessions, a real dispatcher and real receivers: create (the secret once), list,
// update, disable and enable (redelivering what it missed), rotate, delete, each change in the audit
// log as the user's; the delivery log with its failing filter and cursor, redelivering one and every
// failed one since a time. Refusals with their status and message: a viewer (403), a refused URL and
// an unknown event (400), the limit (409), another merchant's or mode's endpoint (404), an old sign-in (403).
import { describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../../src/core/events/payment-events.ts";
import type { NewMerchant } from "../../src/core/merchants/merchants.ts";
import { initializeBody } from "../support/builders.ts";
import { manualClock } from "../support/clock.ts";
import { expectDashboardError, signedInAs, type DashboardClient } from "../support/dashboard.ts";
import { gatewayAndReceiverForFile, startTestGateway, type TestGateway } from "../support/gateway.ts";
import { useRecordingServers } from "../support/recording-server.ts";
import type { WebhookReceiver } from "../support/webhook-receiver.ts";

const API = "/dashboard/api";
const MAX = 4;

let t: TestGateway;
let receiver: WebhookReceiver;
let merchant: NewMerchant;
let owner: DashboardClient;
let developer: DashboardClient;
let viewer: DashboardClient;
gatewayAndReceiverForFile(
  async (started) => {
    ({ t, receiver } = started);
    merchant = await t.merchant({ name: "Endpoints Ltd", testWebhookUrl: receiver.url });
    owner = await signedInAs(t, merchant.id, "owner");
    developer = await signedInAs(t, merchant.id, "developer");
    viewer = await signedInAs(t, merchant.id, "viewer");
  },
  { env: { PAYGATE_WEBHOOK_ENDPOINTS_MAX: String(MAX) } },
);
const serve = useRecordingServers();

/** A transaction of the merchant initiated: payment.initiated and payment.pending are written. */
async function pay(keys: NewMerchant): Promise<void> {
  const res = await t.post("/v1/transaction", initializeBody({ amount: "25" }), { authorization: `Bearer ${keys.testPublicKey}` });
  expect(res.status).toBe(201);
  const paid = await t.post(`/v1/transaction/${res.body.data.id}/pay`, { currency_id: "6" }, { authorization: `Bearer ${keys.testSecretKey}` });
  expect(paid.status).toBe(200);
}

async function auditLines(merchantId: number): Promise<string[]> {
  const rows = await t.stores.auditLog.page(merchantId, null, 100);
  return rows.filter((r) => r.action.startsWith("webhook_endpoint.")).map((r) => `${r.actorEmail}: ${r.action} ${r.target}`);
}

describe("reads (any role)", () => {
  it("the event types a filter may name, and `*`", async () => {
    const answer = await viewer.get(`${API}/webhook-event-types`);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ event_types: [...EVENT_TYPES], all: "*" });
    expect(answer.body.data.event_types).toContain("payment.initiated");
  });

  it("lists the mode's endpoints: the merchant's URL first, never a secret; none in the other mode", async () => {
    const answer = await viewer.get(`${API}/webhook-endpoints?mode=test`);
    expect(answer.status).toBe(200);
    expect(answer.body.data[0]).toMatchObject({ url: receiver.url, primary: true, enabled_events: ["*"], status: "enabled", mode: "test" });
    expect(answer.body.data.some((e: object) => "secret" in e)).toBe(false);
    expect((await viewer.get(`${API}/webhook-endpoints?mode=live`)).body.data).toEqual([]);
    expectDashboardError(await viewer.get(`${API}/webhook-endpoints?mode=prod`), 400, "invalid_list_parameter", /mode must be test or live/);
  });
});

describe("changes (owner and developer)", () => {
  it("creates with the secret once, updates, disables, enables, rotates and deletes; each audited as the user's", async () => {
    const created = await developer.post(`${API}/webhook-endpoints?mode=test`, {
      url: "https://books.example.com/hooks/paygate?token=abc",
      enabled_events: ["payment.initiated", "payment.received"],
      description: "Accounting",
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id: string = created.body.data.id;
    expect(id).toMatch(/^we_/);
    expect(created.body.data).toMatchObject({
      url: "https://books.example.com/hooks/paygate?token=abc",
      enabled_events: ["payment.initiated", "payment.received"],
      description: "Accounting",
      status: "enabled",
      primary: false,
      mode: "test",
    });
    expect(created.body.data.secret).toMatch(/^whsec_/);
    const listed = await viewer.get(`${API}/webhook-endpoints?mode=test`);
    expect(listed.body.data.map((e: { id: string }) => e.id)).toContain(id);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.data.secret);

    const updated = await developer.patch(`${API}/webhook-endpoints/${id}?mode=test`, {
      url: "https://ledger.example.com/in",
      enabled_events: ["*"],
      description: "Ledger",
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.data).toMatchObject({
      endpoint: { id, url: "https://ledger.example.com/in", enabled_events: ["*"], description: "Ledger" },
      redelivered: 0,
    });

    const disabled = await developer.patch(`${API}/webhook-endpoints/${id}?mode=test`, { disabled: true });
    expect(disabled.status).toBe(200);
    expect(disabled.body.data.endpoint).toMatchObject({ status: "disabled", disabled_reason: "manual", disabled_at: expect.any(String) });
    const enabled = await developer.patch(`${API}/webhook-endpoints/${id}?mode=test`, { disabled: false, redeliver_missed: true });
    expect(enabled.status).toBe(200);
    expect(enabled.body.data).toMatchObject({ endpoint: { status: "enabled", disabled_at: null, disabled_reason: null }, redelivered: 0 });

    const rotated = await developer.post(`${API}/webhook-endpoints/${id}/rotate-secret?mode=test`);
    expect(rotated.status).toBe(201);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(created.body.data.secret);
    expect(rotated.body.data.previous_secret_expires_at).toEqual(expect.any(String));

    const deleted = await owner.delete(`${API}/webhook-endpoints/${id}?mode=test`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toEqual({ id, deleted: true });
    expect((await viewer.get(`${API}/webhook-endpoints?mode=test`)).body.data.map((e: { id: string }) => e.id)).not.toContain(id);

    // Newest first; the URL's origin only (its query carried a token), never a secret.
    const lines = await auditLines(merchant.id);
    expect(lines).toEqual([
      `${owner.email}: webhook_endpoint.delete test https://ledger.example.com ${id}`,
      `${developer.email}: webhook_endpoint.rotate_secret test https://ledger.example.com ${id}: signing secret (the previous one signs for 24 hours)`,
      `${developer.email}: webhook_endpoint.enable test https://ledger.example.com ${id}: enabled, redelivering what it missed`,
      `${developer.email}: webhook_endpoint.disable test https://ledger.example.com ${id}: disabled`,
      `${developer.email}: webhook_endpoint.update test https://books.example.com ${id}: url https://ledger.example.com; events *; description`,
      `${developer.email}: webhook_endpoint.create test https://books.example.com ${id}: events payment.initiated, payment.received`,
    ]);
    expect(lines.join("\n")).not.toMatch(/token=abc|whsec_/);
  });

  it("refuses a viewer every change (403 naming the roles), nothing changed", async () => {
    const before = await viewer.get(`${API}/webhook-endpoints?mode=test`);
    const primary: string = before.body.data[0].id;
    const message = "Your role (viewer) cannot manage webhooks; ask an owner of this merchant for the owner or developer role";
    expectDashboardError(
      await viewer.post(`${API}/webhook-endpoints?mode=test`, { url: "https://x.example.com/h", enabled_events: ["*"] }),
      403,
      "role_forbidden",
      message,
    );
    expectDashboardError(await viewer.patch(`${API}/webhook-endpoints/${primary}?mode=test`, { disabled: true }), 403, "role_forbidden", message);
    expectDashboardError(await viewer.delete(`${API}/webhook-endpoints/${primary}?mode=test`), 403, "role_forbidden", message);
    expectDashboardError(await viewer.post(`${API}/webhook-endpoints/${primary}/rotate-secret?mode=test`), 403, "role_forbidden", message);
    expectDashboardError(
      await viewer.post(`${API}/webhook-endpoints/${primary}/redeliver-failed?mode=test`, { since: "2026-01-01T00:00:00Z" }),
      403,
      "role_forbidden",
      message,
    );
    expectDashboardError(await viewer.post(`${API}/webhook-deliveries/wd_evt_x/redeliver?mode=test`), 403, "role_forbidden", message);
    expect((await viewer.get(`${API}/webhook-endpoints?mode=test`)).body.data).toEqual(before.body.data);
  });

  it("refuses a URL that fails the checks and an unknown event type (400 naming the field), and a body that is no object", async () => {
    expectDashboardError(
      await owner.post(`${API}/webhook-endpoints?mode=live`, { url: "http://shop.example.com/hooks", enabled_events: ["*"] }),
      400,
      "invalid_webhook_endpoint",
      /^Invalid webhook endpoint: url 'http:\/\/shop\.example\.com\/hooks' is refused: /,
    );
    expectDashboardError(
      await owner.post(`${API}/webhook-endpoints?mode=test`, { url: "not a url", enabled_events: ["*"] }),
      400,
      "invalid_webhook_endpoint",
      /url 'not a url' is refused/,
    );
    expectDashboardError(
      await owner.post(`${API}/webhook-endpoints?mode=test`, {
        url: "https://x.example.com/h",
        enabled_events: ["payment.initiated", "payment.bogus"],
      }),
      400,
      "invalid_webhook_endpoint",
      /enabled_events names no event type: payment\.bogus; use payment\.initiated/,
    );
    expectDashboardError(
      await owner.post(`${API}/webhook-endpoints?mode=test`, { url: "https://x.example.com/h", enabled_events: [] }),
      400,
      "invalid_webhook_endpoint",
      /enabled_events must name at least one event type, or "\*"/,
    );
    expectDashboardError(
      await owner.request("POST", `${API}/webhook-endpoints?mode=test`, ["x"]),
      400,
      "invalid_body",
      "The body must be a JSON object",
    );
    expect((await viewer.get(`${API}/webhook-endpoints?mode=live`)).body.data).toEqual([]);
  });

  it("refuses one endpoint more than the limit (409 naming it)", async () => {
    const keys = await t.merchant({ name: "Many Receivers Ltd" });
    const full = await signedInAs(t, keys.id, "developer");
    for (let i = 0; i < MAX; i++) {
      const made = await full.post(`${API}/webhook-endpoints?mode=test`, { url: `https://r${i}.example.com/h`, enabled_events: ["*"] });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
    }
    expectDashboardError(
      await full.post(`${API}/webhook-endpoints?mode=test`, { url: "https://one-more.example.com/h", enabled_events: ["*"] }),
      409,
      "webhook_endpoint_limit",
      `This merchant already has ${MAX} test-mode webhook endpoints, the most allowed (PAYGATE_WEBHOOK_ENDPOINTS_MAX); delete one first`,
    );
    expect((await full.get(`${API}/webhook-endpoints?mode=test`)).body.data).toHaveLength(MAX);
    // The other mode has a limit of its own.
    expect((await full.post(`${API}/webhook-endpoints?mode=live`, { url: "https://one-more.example.com/h", enabled_events: ["*"] })).status).toBe(
      201,
    );
  });

  it("finds no endpoint of another merchant or of the other mode (404), and no delivery of them", async () => {
    const made = await owner.post(`${API}/webhook-endpoints?mode=test`, { url: "https://mine.example.com/h", enabled_events: ["*"] });
    const id: string = made.body.data.id;
    const other = await t.merchant({ name: "Someone Else Ltd" });
    const stranger = await signedInAs(t, other.id, "owner");
    const notFound = `No webhook endpoint with id '${id}'`;
    expectDashboardError(
      await stranger.patch(`${API}/webhook-endpoints/${id}?mode=test`, { disabled: true }),
      404,
      "webhook_endpoint_not_found",
      notFound,
    );
    expectDashboardError(await stranger.delete(`${API}/webhook-endpoints/${id}?mode=test`), 404, "webhook_endpoint_not_found", notFound);
    expectDashboardError(await stranger.post(`${API}/webhook-endpoints/${id}/rotate-secret?mode=test`), 404, "webhook_endpoint_not_found", notFound);
    expectDashboardError(await stranger.get(`${API}/webhook-endpoints/${id}/deliveries?mode=test`), 404, "webhook_endpoint_not_found", notFound);
    expectDashboardError(await owner.get(`${API}/webhook-endpoints/${id}/deliveries?mode=live`), 404, "webhook_endpoint_not_found", notFound);
    expectDashboardError(
      await owner.patch(`${API}/webhook-endpoints/${id}?mode=live`, { description: "x" }),
      404,
      "webhook_endpoint_not_found",
      notFound,
    );
    expect((await owner.get(`${API}/webhook-endpoints?mode=test`)).body.data.find((e: { id: string }) => e.id === id)).toMatchObject({
      status: "enabled",
    });
    expect((await owner.delete(`${API}/webhook-endpoints/${id}?mode=test`)).status).toBe(200);
  });

  it("asks for the password again (403 reauthentication_required) to add an endpoint or rotate its secret after an old sign-in, not to disable it", async () => {
    const clock = manualClock();
    const s = await startTestGateway({ clock });
    try {
      const keys = await s.merchant({ name: "Sudo Ltd" });
      const dev = await signedInAs(s, keys.id, "developer");
      const made = await dev.post(`${API}/webhook-endpoints?mode=test`, { url: "https://a.example.com/h", enabled_events: ["*"] });
      expect(made.status).toBe(201);
      const second = await dev.post(`${API}/webhook-endpoints?mode=test`, { url: "https://b.example.com/h", enabled_events: ["*"] });
      clock.advance(11 * 60_000);
      const again = /^This change needs your password again/;
      expectDashboardError(
        await dev.post(`${API}/webhook-endpoints?mode=test`, { url: "https://c.example.com/h", enabled_events: ["*"] }),
        403,
        "reauthentication_required",
        again,
      );
      const id: string = second.body.data.id;
      expectDashboardError(await dev.post(`${API}/webhook-endpoints/${id}/rotate-secret?mode=test`), 403, "reauthentication_required", again);
      expectDashboardError(
        await dev.patch(`${API}/webhook-endpoints/${id}?mode=test`, { url: "https://d.example.com/h" }),
        403,
        "reauthentication_required",
        again,
      );
      const disabled = await dev.patch(`${API}/webhook-endpoints/${id}?mode=test`, { disabled: true, description: "paused" });
      expect(disabled.status).toBe(200);
      expect(disabled.body.data.endpoint).toMatchObject({ status: "disabled", url: "https://b.example.com/h" });
    } finally {
      await s.close();
    }
  });
});

describe("the delivery log", () => {
  it("lists deliveries newest first with the failing filter and a cursor; redelivers one, then every failed one since a time", async () => {
    const keys = await t.merchant({ name: "Flaky Receiver Ltd" });
    const dev = await signedInAs(t, keys.id, "developer");
    const look = await signedInAs(t, keys.id, "viewer");
    let down = true;
    const shop = await serve((res) => res.writeHead(down ? 500 : 200).end(down ? "down" : "ok"), "/shop");
    const made = await dev.post(`${API}/webhook-endpoints?mode=test`, { url: shop.url, enabled_events: ["payment.initiated", "payment.pending"] });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const id: string = made.body.data.id;
    const since = new Date(Date.now() - 1000).toISOString();
    await pay(keys);
    // No retries: a failed attempt gives the delivery up at once (FAILED).
    await t.dispatcher({ retryScheduleMs: [] }).drain();
    expect(shop.requests).toHaveLength(2);

    const all = await look.get(`${API}/webhook-endpoints/${id}/deliveries?mode=test`);
    expect(all.status).toBe(200);
    expect(all.body.data.has_more).toBe(false);
    const rows = all.body.data.deliveries as {
      id: string;
      event: { id: string; type: string };
      status: string;
      status_code: number;
      attempts: number;
      latency_ms: number;
    }[];
    expect(rows.map((d) => [d.event.type, d.status, d.status_code, d.attempts])).toEqual([
      ["payment.pending", "failed", 500, 1],
      ["payment.initiated", "failed", 500, 1],
    ]);
    expect(rows[0]?.event.id).toMatch(/^evt_/);
    expect(rows[0]?.latency_ms).toEqual(expect.any(Number));

    const first = await look.get(`${API}/webhook-endpoints/${id}/deliveries?mode=test&limit=1&status=failed`);
    expect(first.body.data).toMatchObject({ has_more: true, deliveries: [{ id: rows[0]?.id }] });
    const next = await look.get(`${API}/webhook-endpoints/${id}/deliveries?mode=test&limit=1&status=failed&starting_after=${rows[0]?.id}`);
    expect(next.body.data).toMatchObject({ has_more: false, deliveries: [{ id: rows[1]?.id }] });
    expectDashboardError(
      await look.get(`${API}/webhook-endpoints/${id}/deliveries?mode=test&status=broken`),
      400,
      "invalid_list_parameter",
      /status must be one of failed, succeeded, pending/,
    );

    // The receiver is back: one redelivered, then the rest since a time.
    down = false;
    const one = await dev.post(`${API}/webhook-deliveries/${rows[1]?.id}/redeliver?mode=test`);
    expect(one.status).toBe(202);
    expect(one.body.data).toMatchObject({ id: rows[1]?.id, status: "pending", attempts: 0 });
    await t.dispatcher({ retryScheduleMs: [] }).drain();
    const failing = await look.get(`${API}/webhook-endpoints/${id}/deliveries?mode=test&status=failed`);
    expect(failing.body.data.deliveries.map((d: { id: string }) => d.id)).toEqual([rows[0]?.id]);
    const succeeded = await look.get(`${API}/webhook-endpoints/${id}/deliveries?mode=test&status=succeeded`);
    expect(succeeded.body.data.deliveries.map((d: { id: string; status_code: number }) => [d.id, d.status_code])).toEqual([[rows[1]?.id, 200]]);

    expectDashboardError(
      await dev.post(`${API}/webhook-endpoints/${id}/redeliver-failed?mode=test`, { since: "yesterday" }),
      400,
      "invalid_webhook_endpoint",
      /since must be an ISO 8601 time/,
    );
    const later = await dev.post(`${API}/webhook-endpoints/${id}/redeliver-failed?mode=test`, {
      since: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(later.body.data).toEqual({ queued: 0 });
    const queued = await dev.post(`${API}/webhook-endpoints/${id}/redeliver-failed?mode=test`, { since });
    expect(queued.status).toBe(202);
    expect(queued.body.data).toEqual({ queued: 1 });
    await t.dispatcher({ retryScheduleMs: [] }).drain();
    expect((await look.get(`${API}/webhook-endpoints/${id}/deliveries?mode=test&status=failed`)).body.data.deliveries).toEqual([]);
    expect(shop.requests).toHaveLength(4);

    // Another merchant's delivery does not exist for this one.
    const stranger = await signedInAs(t, merchant.id, "owner");
    expectDashboardError(
      await stranger.post(`${API}/webhook-deliveries/${rows[0]?.id}/redeliver?mode=test`),
      404,
      "webhook_delivery_not_found",
      `No webhook delivery with id '${rows[0]?.id}'`,
    );
  });
});
