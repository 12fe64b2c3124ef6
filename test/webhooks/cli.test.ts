// The operator's webhook commands: URLs per mode with their checks, listing and redelivering events.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { startRuntime } from "../../src/runtime.ts";
import { itRefusesBadArgs, useCli, type BadArgs } from "../support/cli.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

const paygate = useCli();
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver.close());

describe("webhook URLs", () => {
  it("refuses a live URL that is not https, saying how to set a local one", async () => {
    const res = await paygate("merchant", "create", "--name", "Local", "--webhook-url", "http://127.0.0.1:4000/hook");
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/Live webhook URL 'http:\/\/127\.0\.0\.1:4000\/hook' is refused: live-mode webhook URLs must use https/);
  });

  it("refuses a live https URL on a private address", async () => {
    const res = await paygate("merchant", "create", "--name", "Internal", "--webhook-url", "https://10.0.0.8/hook");
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/refused: live-mode webhook URLs must point at a public host/);
  });

  it("sets, shows and removes each mode's URL", async () => {
    const created = await paygate(
      "merchant", "create", "--name", "Both", "--webhook-url", "https://hooks.example.com/paygate", "--test-webhook-url", "http://127.0.0.1:4000/hook", "--json",
    );
    expect(created.code).toBe(0);
    const id = String(JSON.parse(created.stdout).id);
    const removed = await paygate("merchant", "update", id, "--test-webhook-url", "", "--json");
    expect(removed.code).toBe(0);
    expect(JSON.parse(removed.stdout)).toMatchObject({ liveWebhookUrl: "https://hooks.example.com/paygate", testWebhookUrl: null });
    const readable = await paygate("merchant", "update", id, "--test-webhook-url", "http://localhost:5000/h");
    expect(readable.stdout).toMatch(/Webhooks: live https:\/\/hooks\.example\.com\/paygate, test http:\/\/localhost:5000\/h\./);
  });
});

describe("webhooks list and redeliver", () => {
  let eventId = "";

  it("lists an event with its state and attempts", async () => {
    const created = await paygate("merchant", "create", "--name", "Listed", "--test-webhook-url", receiver.url, "--json");
    const merchant = JSON.parse(created.stdout);
    // The service would write this event; here the test opens the same database between CLI runs.
    const rt = await startRuntime(loadConfig(paygate.env()), { log: () => {} });
    try {
      await rt.gateway.initializeTransaction({
        bearerToken: merchant.testPublicKey,
        body: { customer: { email: "ada@example.com" }, currency: "USD", amount: "12.50" },
      });
    } finally {
      await rt.close();
    }
    const res = await paygate("webhooks", "list", "--merchant", String(merchant.id), "--json");
    expect(res.code).toBe(0);
    const { events } = JSON.parse(res.stdout);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "payment.initiated", mode: "test", state: "pending", attemptCount: 0, attempts: [] });
    expect(events[0].reference).toMatch(/^bq_/);
    eventId = events[0].id;
  });

  it("redelivers an event now and says what happened", async () => {
    const res = await paygate("webhooks", "redeliver", eventId);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(new RegExp(`Delivered payment.initiated ${eventId} \\(HTTP 200\\)`));
    expect(receiver.ids()).toEqual([eventId]);
    const list = JSON.parse((await paygate("webhooks", "list", "--state", "delivered", "--json")).stdout);
    const event = list.events.find((e: { id: string }) => e.id === eventId);
    expect(event.attempts).toHaveLength(1);
    expect(event.attempts[0]).toMatchObject({ statusCode: 200, succeeded: true, trigger: "manual", url: receiver.url });
  });

  it("prints a readable list", async () => {
    const res = await paygate("webhooks", "list");
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(new RegExp(`${eventId}\\s+payment.initiated\\s+test bq_\\w+\\s+delivered, 1 attempt\\(s\\), last 200`));
  });

  it("refuses an unknown event with exit code 1", async () => {
    const res = await paygate("webhooks", "redeliver", "evt_nosuchevent");
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/No webhook event with id evt_nosuchevent; list them with: paygate webhooks list/);
  });

  const badArgs: BadArgs[] = [
    ["a bad state", ["webhooks", "list", "--state", "lost"], /--state must be one of pending, delivered, failed, skipped/],
    ["a bad limit", ["webhooks", "list", "--limit", "0"], /--limit must be a whole number from 1 to 1000/],
    ["a missing event id", ["webhooks", "redeliver"], /Expected 1 argument/],
    ["a malformed event id", ["webhooks", "redeliver", "123"], /An event id looks like evt_/],
    ["an argument to worker", ["worker", "now"], /Unexpected argument 'now'|Expected 0 argument/],
    ["a bad payment-link merchant", ["payment-link", "create", "--merchant", "abc"], /merchant id is a whole number/],
  ];
  itRefusesBadArgs(paygate, badArgs);
});
