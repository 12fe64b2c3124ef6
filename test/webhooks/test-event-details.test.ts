// Test events to private targets (issue 41): with private webhook targets allowed (the embedded
// database's default), "Send a test event" answered the status, error text and latency, so a dashboard
// user could map which local ports are open. To a private target a dashboard user now learns only
// whether it was delivered, unless the operator asks for details (PAYGATE_WEBHOOK_TEST_EVENT_DETAILS).
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { ConfigError } from "../../src/env.ts";
import { signedInAs, type DashboardClient } from "../support/dashboard.ts";
import { gatewayAndReceiverForFile, startTestGateway, type TestGateway } from "../support/gateway.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

const API = "/dashboard/api";
const WITHHELD_KEYS = ["attempted_at", "details_withheld", "id", "mode", "ok", "url"];

let t: TestGateway;
let receiver: WebhookReceiver;
let closedUrl: string;
gatewayAndReceiverForFile(async (started) => {
  ({ t, receiver } = started);
  receiver.answer = () => ({ status: 200, body: "tok_INTERNAL_answer" });
  const closed = await startWebhookReceiver();
  await closed.close();
  closedUrl = closed.url;
});

/** A developer of a new merchant whose test webhook URL is `url`. */
async function developerWith(gateway: TestGateway, url: string): Promise<DashboardClient> {
  const keys = await gateway.merchant({ name: "Port Scan Ltd", testWebhookUrl: url });
  return signedInAs(gateway, keys.id, "developer");
}

describe("a test event to a private target", () => {
  it("says only that an open local HTTP server got it: no status, error, latency or body", async () => {
    const developer = await developerWith(t, receiver.url);
    const answer = await developer.post(`${API}/webhook-test?mode=test`);
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body.data).sort()).toEqual(WITHHELD_KEYS);
    expect(answer.body.data).toMatchObject({ ok: true, details_withheld: true, mode: "test", url: receiver.url });
    expect(receiver.received.length).toBeGreaterThan(0);
  });

  it("says only that a closed local port did not get it: the same fields, no error text", async () => {
    const developer = await developerWith(t, closedUrl);
    const answer = await developer.post(`${API}/webhook-test?mode=test`);
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body.data).sort()).toEqual(WITHHELD_KEYS);
    expect(answer.body.data).toMatchObject({ ok: false, details_withheld: true, url: closedUrl });
  });

  it("shows the status, error and latency when the operator asks for details, never a private answer's body", async () => {
    const detailed = await startTestGateway({ sameDatabaseAs: t, env: { PAYGATE_WEBHOOK_TEST_EVENT_DETAILS: "true" } });
    try {
      const open = await (await developerWith(detailed, receiver.url)).post(`${API}/webhook-test?mode=test`);
      expect(open.status).toBe(200);
      expect(open.body.data).toMatchObject({
        ok: true,
        details_withheld: false,
        status_code: 200,
        response_body: null,
        response_body_withheld: true,
        error: null,
      });
      expect(open.body.data.latency_ms).toEqual(expect.any(Number));
      expect(JSON.stringify(open.body)).not.toContain("tok_INTERNAL");

      const closed = await (await developerWith(detailed, closedUrl)).post(`${API}/webhook-test?mode=test`);
      expect(closed.body.data).toMatchObject({ ok: false, details_withheld: false, status_code: null, response_body: null });
      expect(closed.body.data.error).toEqual(expect.any(String));
      expect(closed.body.data.latency_ms).toEqual(expect.any(Number));
    } finally {
      await detailed.close();
    }
  });
});

describe("PAYGATE_WEBHOOK_TEST_EVENT_DETAILS", () => {
  it("is off by default, on with true, and refuses a value that is not a boolean", () => {
    expect(loadConfig({}).webhooks.testEventDetails).toBe(false);
    expect(loadConfig({ PAYGATE_WEBHOOK_TEST_EVENT_DETAILS: "true" }).webhooks.testEventDetails).toBe(true);
    expect(() => loadConfig({ PAYGATE_WEBHOOK_TEST_EVENT_DETAILS: "yes" })).toThrow(ConfigError);
    expect(() => loadConfig({ PAYGATE_WEBHOOK_TEST_EVENT_DETAILS: "yes" })).toThrow(/PAYGATE_WEBHOOK_TEST_EVENT_DETAILS/);
  });
});
