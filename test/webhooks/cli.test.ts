// The operator's webhook commands: URLs per mode with their checks, listing and redelivering events;
// and `paygate worker`, which delivers them. In this process through runCli, and in a child process
// where the process is what is tested (an exit code a shell sees, a worker stopped by a signal).
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { runCli } from "../../src/cli/run.ts";
import { startRuntime } from "../../src/runtime.ts";
import { itRefusesBadArgs, PAYGATE_BIN, useCli, type BadArgs } from "../support/cli.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { initializeBody } from "../support/builders.ts";

const paygate = useCli({ inProcess: true, migrated: true });
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
    expect(res.stderr).toMatch(/--test-webhook-url takes local test URLs \(e\.g\. http:\/\/127\.0\.0\.1:4000\/webhooks\)/);
    expect(res.stderr).toContain("--test-webhook-url http://127.0.0.1:4000/hook");
  });

  it("refuses a live https URL on a private address, with the same hint, on create and update", async () => {
    const res = await paygate("merchant", "create", "--name", "Internal", "--webhook-url", "https://10.0.0.8/hook");
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/refused: live-mode webhook URLs must point at a public host/);
    expect(res.stderr).toMatch(/--test-webhook-url takes local test URLs \(e\.g\. http:\/\/127\.0\.0\.1:4000\/webhooks\)/);

    const created = await paygate("merchant", "create", "--name", "Later", "--json");
    const update = await paygate("merchant", "update", String(JSON.parse(created.stdout).id), "--webhook-url", "http://localhost:4000/hook");
    expect(update.code).toBe(1);
    expect(update.stderr).toMatch(/Live webhook URL 'http:\/\/localhost:4000\/hook' is refused: live-mode webhook URLs must use https/);
    expect(update.stderr).toContain("--test-webhook-url takes local test URLs");
  });

  it("gives no such hint for a URL no mode takes", async () => {
    const res = await paygate("merchant", "create", "--name", "Odd", "--webhook-url", "ftp://hooks.example.com/paygate");
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/Live webhook URL 'ftp:\/\/hooks\.example\.com\/paygate' is refused: webhook URLs must use http or https/);
    expect(res.stderr).not.toContain("--test-webhook-url");
  });

  it("sets, shows and removes each mode's URL", async () => {
    const created = await paygate(
      "merchant",
      "create",
      "--name",
      "Both",
      "--webhook-url",
      "https://hooks.example.com/paygate",
      "--test-webhook-url",
      "http://127.0.0.1:4000/hook",
      "--json",
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
      await rt.gateway.payments.initializeTransaction({
        bearerToken: merchant.testPublicKey,
        body: initializeBody({ amount: "12.50" }),
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

  it("refuses an unknown event with exit code 1 (bin/paygate.mjs in a child process)", async () => {
    const res = await paygate.child("webhooks", "redeliver", "evt_nosuchevent");
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

describe("paygate worker", () => {
  it("runs until SIGTERM, then finishes and exits 0 (bin/paygate.mjs in a child process)", async () => {
    const child = spawn(process.execPath, [PAYGATE_BIN, "worker"], { env: paygate.env(), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<string>((resolve) => child.once("exit", (code, signal) => resolve(`${code ?? signal}`)));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes("paygate worker: delivering webhooks")) resolve();
      });
      void exited.then((how) => reject(new Error(`the worker exited (${how}) before it started: ${stderr}`)));
    });
    child.kill("SIGTERM"); // at once: it listens before it says it runs
    expect(await exited).toBe("0");
    const messages = stdout
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { msg: string }).msg)
      // The watcher's start-up check of the default public nodes says what it found, in the background.
      .filter((msg) => !msg.startsWith("payment watcher: "));
    expect(messages.slice(-3)).toEqual([
      expect.stringMatching(/^paygate worker: delivering webhooks/),
      "Stopping: finishing the attempts under way.",
      "Stopped.",
    ]);
  });

  it("runs in a test's process until its signal aborts", async () => {
    const stop = new AbortController();
    let stdout = "";
    const output = { write: (text: string) => (stdout += text) };
    const running = runCli(["worker"], { env: paygate.env(), stdout: output, stderr: output, signal: stop.signal });
    let ended = false;
    void running.finally(() => (ended = true));
    while (!ended && !stdout.includes("paygate worker: delivering webhooks")) await new Promise((r) => setTimeout(r, 20));
    stop.abort();
    expect(await running).toBe(0);
    expect(stdout).toMatch(/"msg":"Stopped\."}\n$/);
  });
});
