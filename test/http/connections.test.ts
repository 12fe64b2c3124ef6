// The socket-level guards (issue 23): a client dripping its headers is cut once the headers take
// too long, an address holds at most so many connections (a trusted proxy is not capped), and the
// caps' settings are read from the environment with the open-file limit in mind.
import { mkdtempSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { ConfigError } from "../../src/env.ts";
import { defaultConnectionTotal, defaultLiveTotal, openFileLimit } from "../../src/edge/connection-limits.ts";
import { startTestGateway, type TestGateway, type TestGatewayOptions } from "../support/gateway.ts";

const own: TestGateway[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const g of own.splice(0)) await g.close();
});

async function gateway(options: TestGatewayOptions): Promise<TestGateway> {
  const g = await startTestGateway(options);
  own.push(g);
  return g;
}

/** A raw TCP connection to the gateway: what it received, and when it closed. */
function rawConnection(g: TestGateway): { socket: Socket; received: () => string; closed: Promise<void>; connected: Promise<void> } {
  const url = new URL(g.url);
  const socket = connect(Number(url.port), url.hostname);
  sockets.push(socket);
  let received = "";
  socket.on("data", (chunk: Buffer) => {
    received += chunk.toString("utf8");
  });
  socket.on("error", () => {});
  return {
    socket,
    received: () => received,
    closed: new Promise((resolve) => socket.once("close", () => resolve())),
    connected: new Promise((resolve) => socket.once("connect", () => resolve())),
  };
}

describe("slow requests", () => {
  it("answers 408 and closes a connection whose headers drip in past the headers timeout", async () => {
    const g = await gateway({ connections: { perAddress: 256, headersTimeoutMs: 1000, requestTimeoutMs: 2000 } });
    const drip = rawConnection(g);
    await drip.connected;
    drip.socket.write("GET /livez HTTP/1.1\r\nHost: localhost\r\n");
    const timer = setInterval(() => drip.socket.write(`X-Drip: ${Date.now()}\r\n`), 300);
    try {
      // Bounded: Node's own default would hold it about 90 s.
      await Promise.race([drip.closed, new Promise((_, reject) => setTimeout(() => reject(new Error("still open after 10 s")), 10_000))]);
    } finally {
      clearInterval(timer);
    }
    expect(drip.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
    // A client that sends its request at once is served as ever.
    expect((await fetch(`${g.url}/livez`)).status).toBe(200);
  });
});

describe("connections per address", () => {
  it("closes the connections of an address past its cap at once, and takes them again once one closes", async () => {
    const g = await gateway({ connections: { perAddress: 3, headersTimeoutMs: 15_000, requestTimeoutMs: 60_000 } });
    const held = [rawConnection(g), rawConnection(g), rawConnection(g)];
    await Promise.all(held.map((c) => c.connected));
    const over = rawConnection(g);
    await over.closed;
    expect(over.received()).toBe("");
    await expect(fetch(`${g.url}/livez`)).rejects.toThrow();
    expect(g.logs.filter((line) => line.includes("connection refused for 127.0.0.1"))).toHaveLength(1);
    expect(g.logs.find((line) => line.includes("connection refused for 127.0.0.1"))).toContain("PAYGATE_MAX_CONNECTIONS_PER_ADDRESS");
    held[0]!.socket.destroy();
    await held[0]!.closed;
    const res = await fetch(`${g.url}/livez`, { headers: { connection: "close" } });
    expect(res.status).toBe(200);
  });

  it("does not cap a trusted proxy, which carries many clients' connections", async () => {
    const g = await gateway({
      connections: { perAddress: 2, headersTimeoutMs: 15_000, requestTimeoutMs: 60_000 },
      rateLimits: { trustProxy: ["loopback"] },
    });
    const held = [rawConnection(g), rawConnection(g), rawConnection(g)];
    await Promise.all(held.map((c) => c.connected));
    expect((await fetch(`${g.url}/livez`, { headers: { connection: "close" } })).status).toBe(200);
  });
});

describe("settings", () => {
  it("reads the caps, with defaults under the open-file limit", () => {
    const config = loadConfig({});
    const fileLimit = openFileLimit();
    expect(config.connections).toEqual({
      perAddress: 256,
      headersTimeoutMs: 15_000,
      requestTimeoutMs: 60_000,
      total: defaultConnectionTotal(fileLimit),
    });
    expect(config.live).toEqual({ perAddress: 32, perCredential: 100, total: defaultLiveTotal(fileLimit), subscriptionsPerSocket: 5 });
    const set = loadConfig({
      PAYGATE_MAX_CONNECTIONS_PER_ADDRESS: "0",
      PAYGATE_HTTP_HEADERS_TIMEOUT_MS: "5000",
      PAYGATE_HTTP_REQUEST_TIMEOUT_MS: "9000",
      PAYGATE_LIVE_MAX_PER_ADDRESS: "4",
      PAYGATE_LIVE_MAX_PER_CREDENTIAL: "3",
      PAYGATE_LIVE_MAX_CONNECTIONS: "20",
      PAYGATE_LIVE_MAX_SUBSCRIPTIONS_PER_SOCKET: "2",
    });
    expect(set.connections).toMatchObject({ perAddress: 0, headersTimeoutMs: 5000, requestTimeoutMs: 9000 });
    expect(set.live).toEqual({ perAddress: 4, perCredential: 3, total: 20, subscriptionsPerSocket: 2 });
  });

  it("refuses a request timeout under the headers timeout, a ceiling over the file limit, and bad numbers, naming the variable", () => {
    expect(() => loadConfig({ PAYGATE_HTTP_HEADERS_TIMEOUT_MS: "20000", PAYGATE_HTTP_REQUEST_TIMEOUT_MS: "10000" })).toThrow(
      "PAYGATE_HTTP_REQUEST_TIMEOUT_MS: must be at least PAYGATE_HTTP_HEADERS_TIMEOUT_MS (20000)",
    );
    const total = defaultConnectionTotal(openFileLimit());
    expect(() => loadConfig({ PAYGATE_LIVE_MAX_CONNECTIONS: String(total + 1) })).toThrow(`PAYGATE_LIVE_MAX_CONNECTIONS: must be at most ${total}`);
    expect(() => loadConfig({ PAYGATE_LIVE_MAX_PER_ADDRESS: "0" })).toThrow(ConfigError);
    expect(() => loadConfig({ PAYGATE_LIVE_MAX_PER_ADDRESS: "0" })).toThrow("PAYGATE_LIVE_MAX_PER_ADDRESS");
    expect(() => loadConfig({ PAYGATE_HTTP_HEADERS_TIMEOUT_MS: "fast" })).toThrow("PAYGATE_HTTP_HEADERS_TIMEOUT_MS");
  });

  it("reads the soft open-file limit, and keeps the live ceiling well under it", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "paygate-limits-"));
    const file = path.join(dir, "limits");
    writeFileSync(
      file,
      "Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 524288               files\n",
    );
    expect(openFileLimit(file)).toBe(1024);
    writeFileSync(file, "Max open files            unlimited            unlimited            files\n");
    expect(openFileLimit(file)).toBe(Number.POSITIVE_INFINITY);
    expect(openFileLimit(path.join(dir, "missing"))).toBeNull();
    expect(defaultLiveTotal(1024)).toBe(448);
    expect(defaultConnectionTotal(1024)).toBe(896);
    expect(defaultLiveTotal(Number.POSITIVE_INFINITY)).toBe(10_000);
    expect(defaultLiveTotal(null)).toBe(448);
  });
});
