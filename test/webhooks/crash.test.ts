// A dispatcher killed in the middle of a burst loses nothing: after a restart every event arrives,
// at least once, each time with its own unchanged webhook-id. `paygate worker` runs as an operator
// runs it, in a child process on a real database (a data folder, or PostgreSQL with DATABASE_URL).
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { startRuntime } from "../../src/runtime.ts";
import { useCli } from "../support/cli.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { initializeBody } from "../support/builders.ts";
import { firstDeliveryStates } from "../support/first-delivery.ts";

const BURST = 40;
const cli = useCli(); // a data folder or PostgreSQL database of this file's own
let env: NodeJS.ProcessEnv = {};
let receiver: WebhookReceiver;

beforeAll(async () => {
  env = {
    ...cli.env(),
    PAYGATE_WEBHOOK_TIMEOUT_MS: "1000", // an event held by the killed worker is due again 3 s later
    PAYGATE_WEBHOOK_POLL_MS: "20",
    PAYGATE_WEBHOOK_CONCURRENCY: "4",
  };
  receiver = await startWebhookReceiver();
  receiver.answer = () => ({ status: 200, delayMs: 25 });
});
afterAll(() => receiver.close());

/** Opens the database in this process (the embedded one allows one process at a time). */
async function withRuntime<T>(work: (rt: Awaited<ReturnType<typeof startRuntime>>) => Promise<T>): Promise<T> {
  const rt = await startRuntime(loadConfig(env), { log: () => {} });
  try {
    return await work(rt);
  } finally {
    await rt.close();
  }
}

function startWorker(): ChildProcess {
  const child = spawn(process.execPath, [path.resolve("bin/paygate.mjs"), "worker"], { env, stdio: ["ignore", "pipe", "pipe"] });
  child.stderr?.on("data", () => {});
  child.stdout?.on("data", () => {});
  return child;
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve(child.exitCode) : child.once("exit", resolve),
  );

it("delivers every event of a burst after the worker is killed mid-way and restarted", { timeout: 90_000 }, async () => {
  const eventIds = await withRuntime(async (rt) => {
    const merchant = await rt.gateway.operator.createMerchant({ name: "Crash Test", testWebhookUrl: receiver.url });
    for (let i = 0; i < BURST; i++) {
      await rt.gateway.payments.initializeTransaction({
        bearerToken: merchant.testPublicKey,
        body: initializeBody({ customer: { email: `c${i}@example.com` }, amount: String(10 + i) }),
      });
    }
    return (await rt.database.db.webhookEvent.findMany({ select: { id: true } })).map((e) => e.id);
  });
  expect(eventIds).toHaveLength(BURST);

  const first = startWorker();
  await receiver.waitFor(8, 30_000);
  first.kill("SIGKILL");
  await exited(first);
  const beforeRestart = receiver.received.length;
  expect(beforeRestart).toBeLessThan(BURST); // killed mid-way, not after the burst

  const second = startWorker();
  try {
    const deadline = Date.now() + 45_000;
    while (new Set(receiver.ids()).size < BURST && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    // Events the killed worker sent but could not record fall due again once its hold (3 s) ends.
    let count = -1;
    while (count !== receiver.received.length && Date.now() < deadline) {
      count = receiver.received.length;
      await new Promise((r) => setTimeout(r, 4000));
    }
  } finally {
    second.kill("SIGTERM");
    expect(await exited(second)).toBe(0);
  }

  const received = receiver.ids();
  expect(new Set(received)).toEqual(new Set(eventIds)); // every event, with its own id
  const bodies = new Map<string, string>();
  for (const r of receiver.received) {
    const id = String(r.headers["webhook-id"]);
    if (bodies.has(id)) expect(r.body).toBe(bodies.get(id)); // a repeat is the same message
    bodies.set(id, r.body);
  }
  const states = await withRuntime((rt) => firstDeliveryStates(rt.database.db));
  expect(states).toEqual([{ state: "DELIVERED", _count: BURST }]);
});
