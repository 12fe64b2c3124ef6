// examples/webhook-receiver.mjs run as a merchant runs it (a child process) against the service's own
// signed deliveries: the dashboard's "Send a test event" (webhook.test, no transaction in it) is accepted,
// a payment event is handled, and a bad signature is a 401 that says so, not a 400.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewMerchant } from "../../src/core/merchants/merchants.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { initializeBody } from "../support/builders.ts";

let t: TestGateway;
let keys: NewMerchant;
let receiver: ChildProcess;
let url = "";
let output = "";
const watchers: Array<() => void> = [];

/** Resolves once the receiver has printed `text` `times` times (fails the test if it exits first). */
function printed(text: string, times = 1): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (output.split(text).length > times) resolve();
      else if (receiver.exitCode !== null) reject(new Error(`the receiver exited (${receiver.exitCode}) before printing "${text}":\n${output}`));
      else return false;
      return true;
    };
    if (!check()) watchers.push(() => void check());
  });
}

beforeAll(async () => {
  t = await startTestGateway();
  // A port the OS just gave out and took back: the receiver listens there.
  const probe = createServer().listen(0, "127.0.0.1");
  await once(probe, "listening");
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  url = `http://127.0.0.1:${port}/webhooks`;
  keys = await t.merchant({ name: "Example Shop", testWebhookUrl: url });
  receiver = spawn(process.execPath, ["examples/webhook-receiver.mjs", keys.webhookSecret, String(port)], { stdio: ["ignore", "pipe", "pipe"] });
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    for (const watcher of watchers) watcher();
  };
  receiver.stdout?.on("data", collect);
  receiver.stderr?.on("data", collect);
  receiver.on("exit", () => collect(Buffer.alloc(0)));
  await printed(`receiving webhooks on ${url}`);
});
afterAll(async () => {
  receiver?.kill();
  await t?.close();
});

describe("the example receiver and the service's deliveries", () => {
  it("accepts the dashboard's test event with 200 and says so", async () => {
    const attempt = await t.gateway.operator.sendTestEvent(keys.id, "test");
    expect(attempt).toMatchObject({ ok: true, statusCode: 200, url });
    expect(JSON.parse(attempt.body)).toMatchObject({ event: "webhook.test", data: { mode: "test" } });
    await printed("verified webhook.test: the test endpoint works");
    expect(output).not.toContain("rejected");
  });

  it("handles a payment event from the dispatcher", async () => {
    const init = await t.post("/v1/transaction", initializeBody(), { authorization: `Bearer ${keys.testPublicKey}` });
    expect(init.status).toBe(201);
    const [report] = await t.dispatcher().drain();
    expect(report).toMatchObject({ type: "payment.initiated", outcome: { state: "DELIVERED" }, attempt: { statusCode: 200 } });
    await printed(`verified payment.initiated: ${init.body.data.reference} is INITIATED`);
  });

  it("answers 401 with a clear message to a forged signature and to another secret's", async () => {
    const body = JSON.stringify({ event: "webhook.test", data: { mode: "test" } });
    const timestamp = new Date();
    const forged = await fetch(url, {
      method: "POST",
      headers: { "webhook-id": "msg_forged", "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)), "webhook-signature": "v1,AAAA" },
      body,
    });
    expect(forged.status).toBe(401);
    expect(await forged.text()).toBe("invalid webhook signature: is the receiver using the merchant's whsec_ signing secret?\n");

    const otherSecret = `whsec_${Buffer.from("another merchant's secret, 32 b").toString("base64")}`;
    const signature = new Webhook(otherSecret).sign("msg_other", timestamp, body);
    const wrongKey = await fetch(url, {
      method: "POST",
      headers: { "webhook-id": "msg_other", "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)), "webhook-signature": signature },
      body,
    });
    expect(wrongKey.status).toBe(401);
    // Both are logged (stdout reaches this process after the answers, so each is waited for).
    await printed("rejected a delivery: invalid signature (No matching signature found)", 2);
  });
});
