// SIGTERM under load, on the real service (`node --import tsx src/main.ts`, NODE_ENV=production as
// in a deployment: Apollo Server installs signal handlers of its own then, which main.ts must undo):
// every request the service took is answered in full, later connections are refused, and the process
// exits 0 well within its 10 s deadline.
//
// The load: 8 clients, each with one keep-alive connection, sending initializes one after another
// (6 over REST, 2 over GraphQL), after a short warm-up; SIGTERM one second in. Beside it, two
// connections whose fate is known in advance:
// - a request half sent when the signal comes, its body finished once the service has logged the
//   signal: the service must wait for it and answer it in full, with `Connection: close`;
// - a keep-alive connection left idle: it must be closed after the one-second grace, not held open
//   until the keep-alive timeout.
// Connections without a request under way get that grace before they are closed (a request already
// on its way is still answered), so no client here, all of them busy, may see a reset. Afterwards the
// database must hold exactly the transactions whose success reached a client: nothing was run whose
// answer was lost.
import { once } from "node:events";
import { Agent, request } from "node:http";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMerchantKey, createOpsDatabase, killChildren, logLines, startService, waitReady, type OpsDatabase, type Service } from "./support.ts";

const CLIENTS = 8;
const GRAPHQL_CLIENTS = 2;
const SIGTERM_AFTER_MS = 1_000;
/** No client sends after this, whatever happens (the load is bounded). */
const LOAD_CAP_MS = 5_000;
const STOP_DEADLINE_MS = 10_000;
/** src/main.ts: how long idle connections are left open once stopping. */
const IDLE_GRACE_MS = 1_000;

type Outcome =
  | { kind: "answered"; tag: string; status: number; ok: boolean; connectionClose: boolean; requestId: string; at: number; body: string }
  | { kind: "refused"; tag: string; at: number }
  | { kind: "reset"; tag: string; code: string; reusedSocket: boolean; at: number }
  | { kind: "broken"; tag: string; detail: string; at: number };

let db: OpsDatabase;
let publicKey = "";
let service: Service;

beforeAll(async () => {
  db = await createOpsDatabase();
  // On the embedded database one process owns it: the merchant first, then the service.
  publicKey = await createMerchantKey("Shutdown Test", { env: db.env });
  // The load is far above a test key's 25 requests a second: limits off here (they have tests of their own).
  service = await startService(["--import", "tsx", "src/main.ts"], { env: { ...db.env, PAYGATE_RATE_LIMIT_TEST: "off" } });
  await waitReady(service.baseUrl);
});

afterAll(async () => {
  killChildren();
  await db?.close();
});

describe("SIGTERM under load", () => {
  it("answers every request it took, refuses the rest, closes idle keep-alive connections and exits 0", async () => {
    const { port } = service;
    const started = Date.now();
    const since = () => Date.now() - started;
    const warmAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    const warmUp: Outcome[] = [];
    for (let i = 0; i < 4; i++) warmUp.push(await send(warmAgent, port, i % 2 === 0 ? "rest" : "graphql", `warm-${i}`, since));
    warmAgent.destroy();
    expect(warmUp.map((o) => (o.kind === "answered" ? o.ok : o.kind))).toEqual([true, true, true, true]);

    // A keep-alive connection that answered once and then sits idle.
    const idle = connect(port, "127.0.0.1");
    const idleFirst = readUntil(idle, '{"status":"ok"}');
    idle.write("GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    expect(await idleFirst).toMatch(/^HTTP\/1\.1 200 /);
    idle.on("error", () => {}); // a reset would count as closed too
    let idleClosedAt = -1;
    idle.on("close", () => (idleClosedAt = since()));

    // A request half sent: headers and part of the body now, the rest after the signal.
    const slowBody = initializeBody("slow");
    const slow = connect(port, "127.0.0.1");
    const slowText = readAll(slow);
    await once(slow, "connect");
    slow.write(
      `POST /v1/transaction HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${publicKey}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(slowBody)}\r\n\r\n${slowBody.slice(0, 20)}`,
    );

    // The load.
    const outcomes: Outcome[] = [];
    const clients = Array.from({ length: CLIENTS }, async (_, client) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (let seq = 0; since() < LOAD_CAP_MS; seq++) {
          const outcome = await send(agent, port, client < CLIENTS - GRAPHQL_CLIENTS ? "rest" : "graphql", `c${client}-${seq}`, since);
          outcomes.push(outcome);
          if (outcome.kind === "refused") return; // the listener is closed: so is every later attempt
        }
      } finally {
        agent.destroy();
      }
    });

    await delay(SIGTERM_AFTER_MS);
    const sigtermAt = since();
    service.child.kill("SIGTERM");
    // Once the service has taken the signal (not before: a body read first could be answered first).
    await service.waitFor(/"msg":"SIGTERM: /);
    await delay(100);
    slow.write(slowBody.slice(20)); // not end(): a client that half-closes has given up on its answer, for Node

    await Promise.all(clients);
    const exit = await Promise.race([service.exited, delay(STOP_DEADLINE_MS + 2_000).then(() => null)]);
    const exitedAt = since();
    const slowResponse = await slowText;

    const context = `\n${summary(outcomes)}\nservice output (tail):\n${service.output().slice(-3_000)}`;
    expect(exit, `the service did not exit${context}`).not.toBeNull();
    expect(exit?.code, context).toBe(0);
    expect(exitedAt - sigtermAt, context).toBeLessThan(STOP_DEADLINE_MS);

    // The half-sent request was finished and answered in full, with Connection: close.
    const [head = "", body = ""] = slowResponse.split("\r\n\r\n");
    expect(head, context).toMatch(/^HTTP\/1\.1 201 /);
    expect(head.toLowerCase(), context).toContain("connection: close");
    expect(JSON.parse(body), context).toMatchObject({ status: "success", data: { status: "INITIATED" } });

    // The idle keep-alive connection was closed by the service after the grace, not held open.
    expect(idleClosedAt, context).toBeGreaterThanOrEqual(sigtermAt + IDLE_GRACE_MS - 50);
    expect(idleClosedAt - sigtermAt, context).toBeLessThan(IDLE_GRACE_MS + 1_500);

    // Every answer was a complete success; nothing was cut off mid-response.
    const answered = outcomes.filter((o) => o.kind === "answered");
    expect(
      outcomes.filter((o) => o.kind === "broken"),
      context,
    ).toEqual([]);
    expect(
      answered.filter((o) => !o.ok),
      context,
    ).toEqual([]);
    expect(answered.filter((o) => o.at < sigtermAt).length, context).toBeGreaterThan(CLIENTS);
    // Answers the service gave after it took the signal were told to close their connection. "After" by the
    // service's own log order: on a loaded machine an answer written before the signal can reach this
    // process long after it.
    const answeredAfterSignal = requestIdsLoggedAfter(service.output(), /"msg":"SIGTERM: /);
    expect(answeredAfterSignal.size, context).toBeGreaterThan(0);
    expect(
      answered.filter((o) => answeredAfterSignal.has(o.requestId) && !o.connectionClose),
      context,
    ).toEqual([]);
    // After the close: refused connections, never a half answer. Every client ended refused.
    const refused = outcomes.filter((o) => o.kind === "refused");
    expect(refused.length, context).toBe(CLIENTS);
    expect(
      refused.every((o) => o.at >= sigtermAt),
      context,
    ).toBe(true);
    // No connection was reset: not one the service had accepted before the signal, nor a kept-alive one.
    expect(
      outcomes.filter((o) => o.kind === "reset"),
      context,
    ).toEqual([]);

    // The service logged its stop.
    const messages = logLines(service.output()).map((line) => line.msg ?? "");
    expect(
      messages.some((m) => m.startsWith("SIGTERM: stopping")),
      context,
    ).toBe(true);
    expect(
      messages.some((m) => m.startsWith("HTTP server closed")),
      context,
    ).toBe(true);
    expect(
      messages.some((m) => m.startsWith("stopped in")),
      context,
    ).toBe(true);

    // The database holds exactly the transactions whose success reached a client.
    const rows = await db.query<{ tag: string | null }>(`SELECT request_meta->>'tag' AS tag FROM transactions`);
    const stored = rows.map((row) => row.tag ?? "(none)").sort();
    const delivered = [...warmUp, ...answered]
      .map((o) => o.tag)
      .concat("slow")
      .sort();
    expect(stored, context).toEqual(delivered);
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------

function initializeBody(tag: string): string {
  return JSON.stringify({ customer: { email: "ops@example.com" }, currency: "USD", amount: "10.00", meta: { tag } });
}

const INITIALIZE_MUTATION = "mutation Init($input: InitializeTransactionInput!) { initializeTransaction(input: $input) { id status } }";

/** One initialize, over REST or GraphQL, and what became of it. */
function send(agent: Agent, port: number, api: "rest" | "graphql", tag: string, since: () => number): Promise<Outcome> {
  const body =
    api === "rest"
      ? initializeBody(tag)
      : JSON.stringify({
          query: INITIALIZE_MUTATION,
          variables: { input: { customer: { email: "ops@example.com" }, currency: "USD", amount: "10.00", meta: { tag } } },
        });
  return new Promise<Outcome>((resolve) => {
    let responded = false;
    const req = request(
      {
        agent,
        host: "127.0.0.1",
        port,
        method: "POST",
        path: api === "rest" ? "/v1/transaction" : "/graphql",
        headers: { authorization: `Bearer ${publicKey}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        responded = true;
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", () => {}); // reported by "close" below (complete is false)
        res.on("close", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          if (!res.complete) {
            resolve({ kind: "broken", tag, detail: `cut off after ${text.length} bytes of a ${res.statusCode} answer`, at: since() });
            return;
          }
          const status = res.statusCode ?? 0;
          resolve({
            kind: "answered",
            tag,
            status,
            ok: api === "rest" ? status === 201 && succeeded(text) : status === 200 && initialized(text),
            connectionClose: res.headers.connection === "close",
            requestId: String(res.headers["x-request-id"] ?? ""),
            at: since(),
            body: text.slice(0, 300),
          });
        });
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (responded) return; // the response's "close" reports it
      if (error.code === "ECONNREFUSED") resolve({ kind: "refused", tag, at: since() });
      else resolve({ kind: "reset", tag, code: error.code ?? error.message, reusedSocket: req.reusedSocket, at: since() });
    });
    req.end(body);
  });
}

/** The request ids of the request-log lines that come after the first line matching `marker`. */
function requestIdsLoggedAfter(output: string, marker: RegExp): Set<string> {
  const lines = output.split("\n");
  const from = lines.findIndex((line) => marker.test(line));
  const ids = new Set<string>();
  if (from < 0) return ids;
  for (const line of lines.slice(from + 1)) {
    const id = /"request_id":"([^"]+)"/.exec(line)?.[1];
    if (id) ids.add(id);
  }
  return ids;
}

function succeeded(text: string): boolean {
  try {
    const json = JSON.parse(text) as { status?: string; data?: { status?: string } };
    return json.status === "success" && json.data?.status === "INITIATED";
  } catch {
    return false;
  }
}

function initialized(text: string): boolean {
  try {
    const json = JSON.parse(text) as { errors?: unknown; data?: { initializeTransaction?: { status?: string } } };
    return json.errors === undefined && json.data?.initializeTransaction?.status === "INITIATED";
  } catch {
    return false;
  }
}

function summary(outcomes: Outcome[]): string {
  const counts = new Map<string, number>();
  for (const o of outcomes) {
    const key = o.kind === "answered" ? `answered ${o.status}${o.ok ? "" : " (not ok)"}` : o.kind === "reset" ? `reset ${o.code}` : o.kind;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const odd = outcomes.filter((o) => o.kind === "broken" || (o.kind === "answered" && !o.ok)).slice(0, 5);
  return `outcomes: ${JSON.stringify(Object.fromEntries(counts))}${odd.length ? `\nfirst odd ones: ${JSON.stringify(odd)}` : ""}`;
}

/** Resolves with what the socket received once `marker` is in it. */
function readUntil(socket: Socket, marker: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const onData = (chunk: Buffer) => {
      text += chunk.toString("utf8");
      if (text.includes(marker)) {
        socket.off("data", onData);
        resolve(text);
      }
    };
    socket.on("data", onData);
    socket.once("error", reject);
  });
}

/** Everything the socket received, once the other side has closed it. */
function readAll(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    socket.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    socket.once("end", () => resolve(text));
    socket.once("error", reject);
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
