// The README's ten-line receiver (examples/webhook-receiver.mjs), as a merchant would run it:
// it verifies real deliveries from the dispatcher and rejects a forged one.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { initializeBody } from "../support/builders.ts";

let t: TestGateway;
let receiver: ChildProcess;
let output = "";
let port = 0;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === "object" && address ? address.port : 0;
}

async function until(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; receiver printed:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  t = await startTestGateway();
  port = await freePort();
});
afterAll(async () => {
  receiver?.kill();
  await t.close();
});

describe("the example webhook receiver", () => {
  it("verifies the service's deliveries and rejects a forged one", async () => {
    const keys = await t.merchant({ testWebhookUrl: `http://127.0.0.1:${port}/webhooks` });
    receiver = spawn(process.execPath, ["examples/webhook-receiver.mjs", keys.webhookSecret, String(port)], { stdio: ["ignore", "pipe", "pipe"] });
    receiver.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    receiver.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await until(() => output.includes("receiving webhooks on"), "the receiver to listen");

    const init = await t.post("/v1/transaction", initializeBody(), { authorization: `Bearer ${keys.testPublicKey}` });
    const [report] = await t.dispatcher().drain();
    expect(report).toMatchObject({ type: "payment.initiated", outcome: { state: "DELIVERED" } });
    await until(() => output.includes("verified payment.initiated"), "the verified event");
    expect(output).toContain(`verified payment.initiated: ${init.body.data.reference} is INITIATED`);

    const forged = await fetch(`http://127.0.0.1:${port}/webhooks`, {
      method: "POST",
      headers: { "webhook-id": "msg_forged", "webhook-timestamp": String(Math.floor(Date.now() / 1000)), "webhook-signature": "v1,AAAA" },
      body: JSON.stringify({ event: "payment.received", data: { transaction: { reference: "bq_fake", status: "SUCCESSFUL" } } }),
    });
    expect(forged.status).toBe(401);
    await until(() => output.includes("rejected a delivery"), "the rejection");
  });
});
