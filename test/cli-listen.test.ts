// `paygate listen` (issue 27) as a user runs it: a child process against the real service, forwarding
// to a real local receiver. It prints a session secret, forwards each event's exact body signed with
// it, prints a line per delivery, exits 0 on Ctrl-C, and explains a refused key, an unreachable
// service and a full stream cap.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { connect, createServer, type Socket } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewMerchant } from "../src/core/merchants/merchants.ts";
import { initializeBody } from "./support/builders.ts";
import { PAYGATE_BIN } from "./support/cli.ts";
import { openEventStream } from "./support/event-stream.ts";
import { startTestGateway, type TestGateway } from "./support/gateway.ts";
import { startWebhookReceiver, type WebhookReceiver } from "./support/webhook-receiver.ts";

let t: TestGateway;
let receiver: WebhookReceiver;
let keys: NewMerchant;

beforeAll(async () => {
  t = await startTestGateway({ eventStreams: { perKey: 1 } });
  receiver = await startWebhookReceiver();
  keys = await t.merchant({ name: "Listen Shop" });
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

interface Listener {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves with the output once it matches `pattern` (or rejects when the process ends first). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

function runListen(...args: string[]): Listener {
  const child = spawn(process.execPath, [PAYGATE_BIN, "listen", ...args], {
    env: { ...process.env, PAYGATE_SECRET_KEY: "", PAYGATE_API_URL: "" },
  });
  let out = "";
  let err = "";
  const checks = new Set<() => void>();
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
    for (const check of [...checks]) check();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString("utf8");
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`no output matching ${pattern} within ${timeoutMs} ms:\n${out}\n${err}`)), timeoutMs);
        const check = () => {
          const match = out.match(pattern);
          if (match) done(null, match);
        };
        const done = (error: Error | null, match?: RegExpMatchArray) => {
          clearTimeout(timer);
          checks.delete(check);
          if (error || !match) reject(error);
          else resolve(match);
        };
        checks.add(check);
        void exited.then(() => done(new Error(`exited before printing ${pattern}:\n${out}\n${err}`)));
        check();
      });
    },
  };
}

/** A port nothing listens on: one the system handed out, closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === "object" && address !== null ? address.port : 0;
}

/** The key's one stream, once the stream a finished listener held is gone. */
async function streamOnceFree(key: string) {
  let stream = await openEventStream(t.url, key);
  while (stream.status === 429) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    stream = await openEventStream(t.url, key);
  }
  return stream;
}

async function pay(merchant: NewMerchant): Promise<string> {
  const initialized = await t.post("/v1/transaction", initializeBody({ amount: "15" }), { authorization: `Bearer ${merchant.testPublicKey}` });
  expect(initialized.status).toBe(201);
  const id = initialized.body.data.id as string;
  const paid = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, { authorization: `Bearer ${merchant.testSecretKey}` });
  expect(paid.status).toBe(200);
  return id;
}

describe("paygate listen", () => {
  it("forwards each new event signed with the printed secret, prints a line per delivery, and exits 0 on Ctrl-C", async () => {
    receiver.received.length = 0;
    receiver.answer = (request) => (request.body.includes('"payment.pending"') ? { status: 500, body: "nope" } : { status: 200, body: "ok" });
    const listener = runListen("--forward-to", receiver.url, "--api-url", t.url, "--api-key", keys.testSecretKey);
    const [, secret = ""] = await listener.waitFor(/Ready! Your webhook signing secret is (whsec_[A-Za-z0-9+/=]+) \(\^C to quit\)/);
    const transactionId = await pay(keys);
    await receiver.waitFor(2);
    const webhook = new Webhook(secret);
    const bodies = receiver.received.map((r) => {
      const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));
      return webhook.verify(r.body, headers) as { event: string; data: { transaction: { reference: string } } };
    });
    expect(bodies.map((b) => b.event)).toEqual(["payment.initiated", "payment.pending"]);
    // The exact bytes paygate signs for its own deliveries, under the event's id.
    const stored = await t.stores.webhookEvents.page({ merchantId: keys.id, isLive: false, type: null, transactionId, afterSeq: null, limit: 10 });
    expect(receiver.received.map((r) => [r.headers["webhook-id"], r.body])).toEqual(stored.reverse().map((e) => [e.id, e.body]));
    const [initiated, pending] = stored;
    await listener.waitFor(new RegExp(`payment\\.initiated\\s+${initiated?.id}\\s+→ 200 \\(\\d+ ms\\)`));
    await listener.waitFor(new RegExp(`payment\\.pending\\s+${pending?.id}\\s+→ 500 \\(\\d+ ms\\)`));
    listener.child.kill("SIGINT");
    expect(await listener.exited).toBe(0);
    expect(listener.stderr()).toBe("");
    // Nothing left behind: the stream is gone, so the key may open its one stream again.
    const again = await streamOnceFree(keys.testSecretKey);
    expect(again.status).toBe(200);
    again.close();
  });

  it("reconnects when the stream drops and resumes after the last event, missing none", async () => {
    // A TCP relay in front of the service: closing its sockets drops the stream as a network cut would.
    const sockets = new Set<Socket>();
    const target = new URL(t.url);
    const relay = createServer((client) => {
      const upstream = connect(Number(target.port), target.hostname);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on("close", () => sockets.delete(s));
        s.on("error", () => {});
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
    const relayUrl = `http://127.0.0.1:${(relay.address() as { port: number }).port}`;
    receiver.received.length = 0;
    receiver.answer = () => ({ status: 200, body: "ok" });
    const listener = runListen("--forward-to", receiver.url, "--api-url", relayUrl, "--api-key", keys.testSecretKey);
    try {
      await listener.waitFor(/Ready!/);
      const before = await pay(keys);
      await receiver.waitFor(2);
      relay.close(); // no new connections for now
      for (const s of sockets) s.destroy();
      await listener.waitFor(/connection to http:\/\/127\.0\.0\.1:\d+ lost/);
      const during = await pay(keys); // written while the listener is away
      await new Promise<void>((resolve) => relay.listen(Number(new URL(relayUrl).port), "127.0.0.1", resolve));
      await listener.waitFor(/reconnected, resuming after evt_\w+/);
      await receiver.waitFor(4);
      const transactions = receiver.received.map(
        (r) => (JSON.parse(r.body) as { data: { transaction: { reference: string } } }).data.transaction.reference,
      );
      const references = await Promise.all(
        [before, during].map(async (id) => (await t.gateway.payments.transactionDetails(keys.testSecretKey, id)).details?.transaction.reference),
      );
      expect(transactions).toEqual([references[0], references[0], references[1], references[1]]);
      expect(new Set(receiver.received.map((r) => r.headers["webhook-id"])).size).toBe(4);
    } finally {
      listener.child.kill("SIGINT");
      relay.close();
      for (const s of sockets) s.destroy();
    }
    expect(await listener.exited).toBe(0);
  });

  it("prints the error of a failed delivery and keeps going", async () => {
    const nowhere = `http://127.0.0.1:${await closedPort()}/webhooks`;
    const listener = runListen("--forward-to", nowhere, "--api-url", t.url, "--api-key", keys.testSecretKey, "--events", "payment.initiated");
    try {
      await listener.waitFor(/Ready!/);
      await pay(keys);
      await listener.waitFor(
        /payment\.initiated\s+evt_\w+\s+→ error: ECONNREFUSED.*is your receiver running at http:\/\/127\.0\.0\.1:\d+\/webhooks\?/,
      );
    } finally {
      listener.child.kill("SIGINT");
    }
    expect(await listener.exited).toBe(0);
    expect(listener.stdout()).not.toMatch(/payment\.pending/);
  });

  it("refuses a bad key with exit code 1 and says what to pass", async () => {
    const listener = runListen("--forward-to", receiver.url, "--api-url", t.url, "--api-key", "sec_test_notakey");
    expect(await listener.exited).toBe(1);
    expect(listener.stderr()).toMatch(/^paygate: 401: the secret key was refused; pass --api-key sec_test_…/);
    expect(listener.stdout()).not.toMatch(/Ready/);
  });

  it("names the URL when the service cannot be reached", async () => {
    const port = await closedPort();
    const listener = runListen("--forward-to", receiver.url, "--api-url", `http://127.0.0.1:${port}`, "--api-key", keys.testSecretKey);
    expect(await listener.exited).toBe(1);
    expect(listener.stderr()).toMatch(
      new RegExp(
        `paygate: cannot reach paygate at http://127\\.0\\.0\\.1:${port} \\(.*ECONNREFUSED.*\\): is it running there\\? Pass its address with --api-url`,
      ),
    );
  });

  it("says so when the key holds the most streams allowed (429)", async () => {
    const held = await streamOnceFree(keys.testSecretKey);
    expect(held.status).toBe(200);
    try {
      const listener = runListen("--forward-to", receiver.url, "--api-url", t.url, "--api-key", keys.testSecretKey);
      expect(await listener.exited).toBe(1);
      expect(listener.stderr()).toMatch(/paygate: 429: Too many event streams: this secret key has 1 open.*PAYGATE_EVENT_STREAM_MAX_PER_KEY/);
    } finally {
      held.close();
    }
  });

  it("refuses a missing --forward-to with its usage (exit 2)", async () => {
    const listener = runListen("--api-url", t.url, "--api-key", keys.testSecretKey);
    expect(await listener.exited).toBe(2);
    expect(listener.stderr()).toMatch(/--forward-to is required/);
  });
});
