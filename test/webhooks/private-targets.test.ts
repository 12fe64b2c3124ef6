// Webhooks and private destinations (issue 23, defect 5): a dashboard user set the test webhook URL to
// an internal service and read its answer through "Send a test event". Private and local targets are
// the operator's to allow (PAYGATE_TEST_WEBHOOK_ALLOW_PRIVATE, PAYGATE_WEBHOOK_PRIVATE_ALLOWLIST), refused
// when a URL is set and again at connect time, and what a private address answers never reaches a
// dashboard user.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { ConfigError } from "../../src/env.ts";
import { PrivateAllowlist, shownResponseBody } from "../../src/core/private-targets.ts";
import type { NewMerchant } from "../../src/core/merchants/merchants.ts";
import { startRuntime } from "../../src/runtime.ts";
import { useCli } from "../support/cli.ts";
import { signedInAs, type DashboardAnswer, type DashboardClient } from "../support/dashboard.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { initializeBody } from "../support/builders.ts";

const API = "/dashboard/api";
const SETTING_HINT =
  "private and local destinations are for the operator to allow (PAYGATE_TEST_WEBHOOK_ALLOW_PRIVATE=true, or the host in PAYGATE_WEBHOOK_PRIVATE_ALLOWLIST)";

function allowlist(text: string): PrivateAllowlist {
  const parsed = PrivateAllowlist.parse(text);
  if (!(parsed instanceof PrivateAllowlist)) throw new Error(parsed.problem);
  return parsed;
}

/** A gateway, a receiver that answers with an internal-looking secret, and a developer of a merchant without URLs. */
function setUp(options: Parameters<typeof startTestGateway>[0]) {
  const s = {} as { t: TestGateway; receiver: WebhookReceiver; merchant: NewMerchant; developer: DashboardClient; token: string };
  beforeAll(async () => {
    s.t = await startTestGateway(options);
    s.receiver = await startWebhookReceiver();
    s.token = `tok_INTERNAL_${randomBytes(12).toString("hex")}`;
    s.receiver.answer = () => ({ status: 200, body: `{"secret":"${s.token}"}` });
    s.merchant = await s.t.merchant({ name: "Private Targets Ltd" });
    s.developer = await signedInAs(s.t, s.merchant.id, "developer");
  });
  afterAll(async () => {
    await s.receiver?.close();
    await s.t?.close();
  });
  return s;
}

const setTestUrl = (developer: DashboardClient, url: string) => developer.request("PUT", `${API}/webhook-url?mode=test`, { url });

function expectRefusedUrl(answer: DashboardAnswer, url: string) {
  expect(answer.status, `${url}: ${JSON.stringify(answer.body)}`).toBe(400);
  expect(answer.body).toMatchObject({ status: "error", reason: "invalid_merchant_settings" });
  expect(answer.body.message).toMatch(/is refused: test-mode webhook URLs must point at a public host: /);
  expect(answer.body.message).toContain(SETTING_HINT);
}

describe("configuration", () => {
  it("allows private test destinations by default on the embedded database only, and live ones never by default", () => {
    expect(loadConfig({}).webhooks.privateTargets).toEqual({ live: false, test: true, allowlist: PrivateAllowlist.NONE });
    const postgres = { DATABASE_URL: "postgres://paygate@db.example.com/paygate", PAYGATE_ENCRYPTION_KEY: randomBytes(32).toString("base64") };
    expect(loadConfig(postgres).webhooks.privateTargets).toEqual({ live: false, test: false, allowlist: PrivateAllowlist.NONE });
    expect(loadConfig({ ...postgres, PAYGATE_TEST_WEBHOOK_ALLOW_PRIVATE: "true" }).webhooks.privateTargets.test).toBe(true);
    expect(loadConfig({ PAYGATE_TEST_WEBHOOK_ALLOW_PRIVATE: "false" }).webhooks.privateTargets.test).toBe(false);
  });

  it("reads the allowlist, and refuses a bad entry naming the variable and the entry", () => {
    const { allowlist: list } = loadConfig({ PAYGATE_WEBHOOK_PRIVATE_ALLOWLIST: "hooks.internal, 10.20.0.0/16" }).webhooks.privateTargets;
    expect(list.hosts).toEqual(["hooks.internal"]);
    expect(list.includesAddress("10.20.1.2")).toBe(true);
    expect(() => loadConfig({ PAYGATE_WEBHOOK_PRIVATE_ALLOWLIST: "10.0.0.0/8, https://hooks.internal" })).toThrow(ConfigError);
    expect(() => loadConfig({ PAYGATE_WEBHOOK_PRIVATE_ALLOWLIST: "10.0.0.0/8, https://hooks.internal" })).toThrow(
      /PAYGATE_WEBHOOK_PRIVATE_ALLOWLIST: 'https:\/\/hooks\.internal' is not a host name, an IP address or a CIDR range/,
    );
    expect(() => loadConfig({ PAYGATE_TEST_WEBHOOK_ALLOW_PRIVATE: "yes" })).toThrow(/PAYGATE_TEST_WEBHOOK_ALLOW_PRIVATE/);
  });

  it("never lets a private address's body through to merchants' users", () => {
    expect(shownResponseBody({ responseBody: "ok", privateAddress: false })).toBe("ok");
    expect(shownResponseBody({ responseBody: "tok_INTERNAL", privateAddress: true })).toBeNull();
  });
});

describe("with private test destinations off (the default with DATABASE_URL)", () => {
  const s = setUp({ privateWebhookTargets: { test: false } });

  it("refuses every private or local form of a test URL in the dashboard, naming the setting, and keeps the URL", async () => {
    const port = new URL(s.receiver.url).port;
    for (const url of [
      s.receiver.url,
      `http://[::1]:${port}/hook`,
      `http://localhost:${port}/hook`,
      `http://2130706433:${port}/hook`,
      `http://0x7f.1:${port}/hook`,
      `http://[::ffff:127.0.0.1]:${port}/hook`,
      "http://10.0.0.8/hook",
      "http://192.168.1.20/hook",
      "http://169.254.169.254/latest/meta-data/",
      "http://metadata.google.internal/computeMetadata/v1/",
      "http://devbox:8080/hook",
    ]) {
      expectRefusedUrl(await setTestUrl(s.developer, url), url);
    }
    expect((await s.t.gateway.merchants.settings(s.t.gateway.access.operator(s.merchant.id))).webhookUrls.test).toBeNull();
    // A public one is still taken (plain http is fine in test mode).
    const accepted = await setTestUrl(s.developer, "http://hooks.example.com/paygate");
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.webhook_url).toBe("http://hooks.example.com/paygate");
    expect((await setTestUrl(s.developer, "")).status).toBe(200);
  });

  it("refuses them on the operator's paths too (merchant create and update), changing nothing", async () => {
    const before = await s.t.db.merchant.count();
    await expect(s.t.gateway.operator.createMerchant({ name: "Internal", testWebhookUrl: "http://127.0.0.1:4000/webhooks" })).rejects.toMatchObject({
      reason: "invalid_merchant_settings",
      message: expect.stringContaining(
        `Test webhook URL 'http://127.0.0.1:4000/webhooks' is refused: test-mode webhook URLs must point at a public host: 127.0.0.1 is a private, loopback or reserved address; use a public hostname or IP; ${SETTING_HINT}`,
      ),
    });
    expect(await s.t.db.merchant.count()).toBe(before);
    await expect(s.t.gateway.operator.updateMerchant(s.merchant.id, { testWebhookUrl: "http://[::1]:4000/webhooks" })).rejects.toMatchObject({
      reason: "invalid_merchant_settings",
      message: expect.stringContaining(SETTING_HINT),
    });
    expect((await s.t.gateway.merchants.settings(s.t.gateway.access.operator(s.merchant.id))).webhookUrls.test).toBeNull();
  });

  it("does not connect to a private URL stored earlier: the dispatcher's attempt and the test event say why", async () => {
    const keys = await s.t.merchant({ name: "Stored Earlier" });
    const developer = await signedInAs(s.t, keys.id, "developer");
    const port = new URL(s.receiver.url).port;
    for (const [url, refusal] of [
      [s.receiver.url, /^refused: 127\.0\.0\.1 is a private address; /],
      // A name is checked on what DNS returns when the connection is made.
      [`http://localhost:${port}/hook`, /^refused: localhost resolves to a private address \((127\.0\.0\.1|::1)\); /],
    ] as const) {
      // As if it had been set while the operator allowed private destinations.
      await s.t.db.merchant.update({ where: { id: keys.id }, data: { testWebhookUrl: url } });
      const initialized = await s.t.post("/v1/transaction", initializeBody({ amount: "10" }), { authorization: `Bearer ${keys.testPublicKey}` });
      expect(initialized.status).toBe(201);
      const { id: eventId } = await s.t.db.webhookEvent.findFirstOrThrow({ where: { transactionId: initialized.body.data.id } });
      const report = (await s.t.dispatcher({ retryScheduleMs: [] }).drain()).find((r) => r.eventId === eventId);
      expect(report?.outcome.state).toBe("FAILED");
      expect(report?.attempt).toMatchObject({ statusCode: null, responseBody: null, succeeded: false });
      expect(report?.attempt?.error).toMatch(refusal);
      expect(report?.attempt?.error).toContain(SETTING_HINT);

      const test = await developer.post(`${API}/webhook-test?mode=test`);
      expect(test.status).toBe(200);
      expect(test.body.data).toMatchObject({ ok: false, status_code: null, response_body: null, response_body_withheld: false });
      expect(test.body.data.error).toMatch(refusal);
      expect(test.body.data.error).toContain(SETTING_HINT);
    }
    expect(s.receiver.received).toHaveLength(0);
  });
});

describe("with an allowlist", () => {
  // The operator's setting shows the test event's status and latency (issue 41; test-event-details.test.ts has it off).
  const s = setUp({ privateWebhookTargets: { test: false, allowlist: allowlist("127.0.0.1") }, env: { PAYGATE_WEBHOOK_TEST_EVENT_DETAILS: "true" } });

  it("takes and delivers to a listed host only, and never shows what it answered", async () => {
    const port = new URL(s.receiver.url).port;
    expectRefusedUrl(await setTestUrl(s.developer, `http://localhost:${port}/hook`), "localhost");
    expectRefusedUrl(await setTestUrl(s.developer, "http://10.0.0.8/hook"), "10.0.0.8");
    const accepted = await setTestUrl(s.developer, s.receiver.url);
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.webhook_url).toBe(s.receiver.url);

    const test = await s.developer.post(`${API}/webhook-test?mode=test`);
    expect(test.status).toBe(200);
    expect(test.body.data).toMatchObject({ ok: true, status_code: 200, response_body: null, response_body_withheld: true, error: null });
    expect(test.body.data.latency_ms).toEqual(expect.any(Number));
    expect(JSON.stringify(test.body)).not.toContain(s.token);
    expect(s.receiver.received).toHaveLength(1);
  });
});

describe("with private test destinations on (the embedded database's local setup)", () => {
  // The operator's setting shows the test event's status (issue 41; test-event-details.test.ts has it off).
  const s = setUp({ env: { PAYGATE_WEBHOOK_TEST_EVENT_DETAILS: "true" } });

  it("delivers to a local receiver, but never shows its answer to a dashboard user", async () => {
    const port = new URL(s.receiver.url).port;
    for (const url of [s.receiver.url, `http://localhost:${port}/hooks`]) {
      expect((await setTestUrl(s.developer, url)).status).toBe(200);
      const test = await s.developer.post(`${API}/webhook-test?mode=test`);
      expect(test.status).toBe(200);
      expect(test.body.data).toMatchObject({ ok: true, status_code: 200, response_body: null, response_body_withheld: true });
      expect(JSON.stringify(test.body)).not.toContain(s.token);
    }
    expect(s.receiver.received).toHaveLength(2);
    // The operator's own command (the CLI's call) shows it.
    const operator = await s.t.gateway.operator.sendTestEvent(s.merchant.id, "test");
    expect(operator.responseBody).toContain(s.token);
  });

  it("keeps no body of a private address's answer to a real delivery, so the transaction page cannot show it", async () => {
    const keys = await s.t.merchant({ name: "Delivered Locally", testWebhookUrl: s.receiver.url });
    const owner = await signedInAs(s.t, keys.id, "owner");
    const initialized = await s.t.post("/v1/transaction", initializeBody({ amount: "10" }), { authorization: `Bearer ${keys.testPublicKey}` });
    const id = initialized.body.data.id;
    await s.t.dispatcher().drain();
    const stored = await s.t.db.webhookDeliveryAttempt.findMany({ where: { event: { transactionId: id } } });
    expect(stored.map((a) => [a.statusCode, a.responseBody])).toEqual([[200, null]]);
    const detail = await owner.get(`${API}/transactions/${id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.data.events[0].attempts[0]).toMatchObject({ status_code: 200, response_body: null, response_body_withheld: true });
    expect(JSON.stringify(detail.body)).not.toContain(s.token);
  });
});

describe("the CLI with private test destinations off", () => {
  const paygate = useCli({ inProcess: true, migrated: true, env: { PAYGATE_TEST_WEBHOOK_ALLOW_PRIVATE: "false" } });

  it("refuses a local --test-webhook-url on create and update, naming the setting", async () => {
    const created = await paygate("merchant", "create", "--name", "Local", "--test-webhook-url", "http://127.0.0.1:4000/webhooks");
    expect(created.code).toBe(1);
    expect(created.stderr).toContain(
      "Test webhook URL 'http://127.0.0.1:4000/webhooks' is refused: test-mode webhook URLs must point at a public host",
    );
    expect(created.stderr).toContain(SETTING_HINT);
    const rt = await startRuntime(loadConfig(paygate.env()), { log: () => {} });
    try {
      expect(await rt.database.db.merchant.count()).toBe(0);
    } finally {
      await rt.close();
    }

    const plain = await paygate("merchant", "create", "--name", "Public", "--json");
    const id = String(JSON.parse(plain.stdout).id);
    const updated = await paygate("merchant", "update", id, "--test-webhook-url", "http://[::1]:4000/webhooks");
    expect(updated.code).toBe(1);
    expect(updated.stderr).toContain(SETTING_HINT);
    // A live URL refused for being local gets no hint towards a test URL that would be refused too.
    const live = await paygate("merchant", "update", id, "--webhook-url", "https://10.0.0.8/hook");
    expect(live.code).toBe(1);
    expect(live.stderr).not.toContain("--test-webhook-url takes local test URLs");
  });
});
