// One delivery attempt against real local HTTP servers: outcomes, limits, and the SSRF guard.
import { describe, expect, it } from "vitest";
import { useRecordingServers } from "../support/recording-server.ts";
import { deliver, type DeliveryRequest, type DeliveryResult } from "../../src/webhooks/http-sender.ts";

const servers = useRecordingServers();
const serve = (handle: Parameters<typeof servers>[0]) => servers(handle, "/hooks/paygate");

const attempt = (url: string, overrides: Partial<DeliveryRequest> = {}): Promise<DeliveryResult> =>
  deliver({ url, headers: {}, body: '{"type":"ping"}', timeoutMs: 2000, mode: "test", allowPrivate: false, ...overrides });

describe("deliver", () => {
  it("counts a 200 as delivered and returns the response body", async () => {
    const server = await serve((res) => res.writeHead(200, { "content-type": "text/plain" }).end("thanks"));
    const result = await attempt(server.url);
    expect(result).toEqual({ ok: true, statusCode: 200, latencyMs: expect.any(Number), responseBody: "thanks", error: null });
    expect(Number.isInteger(result.latencyMs)).toBe(true);
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it("counts a 500 as failed, keeping the status and the start of the body", async () => {
    const server = await serve((res) => res.writeHead(500).end(`boom ${"x".repeat(5000)}`));
    const result = await attempt(server.url);
    expect(result).toMatchObject({ ok: false, statusCode: 500, error: null });
    expect(result.responseBody).toBe(`boom ${"x".repeat(1019)}`);
  });

  it("keeps at most 1024 bytes of a 10 KB body", async () => {
    const big = "abcdefghij".repeat(1024);
    const server = await serve((res) => res.writeHead(200).end(big));
    const result = await attempt(server.url);
    expect(result.ok).toBe(true);
    expect(result.responseBody).toBe(big.slice(0, 1024));
    expect(result.responseBody?.length).toBeLessThanOrEqual(1024);
  });

  it("does not cut a multi-byte character in half at the limit", async () => {
    // 1023 ASCII bytes then "é" (2 bytes): the limit falls inside the "é".
    const server = await serve((res) => res.writeHead(400).end(`${"a".repeat(1023)}é and more`));
    const result = await attempt(server.url);
    expect(result).toMatchObject({ ok: false, statusCode: 400, responseBody: "a".repeat(1023) });
  });

  it("stops reading an endless body instead of buffering it", async () => {
    const server = await serve((res) => {
      res.writeHead(200);
      const timer = setInterval(() => res.write("y".repeat(512)), 5);
      res.on("close", () => clearInterval(timer));
    });
    const result = await attempt(server.url, { timeoutMs: 3000 });
    expect(result).toMatchObject({ ok: true, statusCode: 200, error: null, responseBody: "y".repeat(1024) });
    expect(result.latencyMs).toBeLessThan(1000);
  });

  it("times out a server that never answers, after about timeoutMs", async () => {
    const server = await serve(() => {});
    const result = await attempt(server.url, { timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, statusCode: null, responseBody: null, error: "timed out after 300ms" });
    expect(result.latencyMs).toBeGreaterThanOrEqual(290);
    expect(result.latencyMs).toBeLessThan(1000);
    expect(server.requests).toHaveLength(1);
  });

  it("applies the deadline to the body too, not just to the headers", async () => {
    // Headers at once, then a trickle: no gap is long, but the whole exceeds the deadline.
    const server = await serve((res) => {
      res.writeHead(200);
      res.flushHeaders();
      const timer = setInterval(() => res.write("."), 50);
      res.on("close", () => clearInterval(timer));
    });
    const result = await attempt(server.url, { timeoutMs: 400 });
    expect(result).toMatchObject({ ok: false, statusCode: null, error: "timed out after 400ms" });
    expect(result.latencyMs).toBeLessThan(1200);
  });

  it("reports a refused connection", async () => {
    const server = await serve(() => {});
    const closedPort = server.port;
    await server.close();
    const result = await attempt(`http://127.0.0.1:${closedPort}/hook`);
    expect(result).toMatchObject({ ok: false, statusCode: null, responseBody: null, error: "connection refused (ECONNREFUSED)" });
  });

  it("does not follow a redirect, and counts it as a failure", async () => {
    const target = await serve((res) => res.writeHead(200).end("should not be reached"));
    const server = await serve((res) => res.writeHead(302, { location: target.url }).end("moved"));
    const result = await attempt(server.url);
    expect(result).toMatchObject({ ok: false, statusCode: 302, responseBody: "moved", error: null });
    expect(target.connections).toBe(0);
  });

  it("sends the headers and body exactly as given, as a JSON POST", async () => {
    const server = await serve((res) => res.writeHead(204).end());
    const body = JSON.stringify({ type: "payment.confirmed", note: "café ✓ \u{1F600}", amount: "1.50" });
    const headers = { "webhook-id": "msg_123", "webhook-timestamp": "1700000000", "webhook-signature": "v1,abc+/=" };
    const result = await attempt(`${server.url}?merchant=7`, { headers, body });
    expect(result).toEqual({ ok: true, statusCode: 204, latencyMs: expect.any(Number), responseBody: "", error: null });
    expect(server.requests).toHaveLength(1);
    const [received] = server.requests;
    expect(received?.method).toBe("POST");
    expect(received?.url).toBe("/hooks/paygate?merchant=7");
    expect(received?.body).toBe(body);
    expect(received?.headers).toMatchObject({
      ...headers,
      "content-type": "application/json",
      "user-agent": "paygate-webhooks/1",
      "content-length": String(Buffer.byteLength(body, "utf8")),
    });
  });

  it("never throws, even for a URL or header it cannot send", async () => {
    await expect(attempt("not a url")).resolves.toMatchObject({ ok: false, statusCode: null, error: "invalid URL" });
    await expect(attempt("ftp://127.0.0.1/x")).resolves.toMatchObject({ ok: false, error: "unsupported protocol ftp:" });
    const server = await serve((res) => res.writeHead(200).end());
    const result = await attempt(server.url, { headers: { "x-bad": "line\nbreak" } });
    expect(result).toMatchObject({ ok: false, statusCode: null });
    expect(result.error).toBe("invalid x-bad header (UND_ERR_INVALID_ARG)");
    expect(server.connections).toBe(0);
  });

  describe("in live mode", () => {
    it("refuses a literal loopback IP without connecting", async () => {
      const server = await serve((res) => res.writeHead(200).end());
      const result = await attempt(server.url, { mode: "live", allowPrivate: false });
      expect(result).toMatchObject({ ok: false, statusCode: null, responseBody: null, error: "refused: 127.0.0.1 is a private address" });
      expect(server.connections).toBe(0);
    });

    it("refuses an IPv4-mapped IPv6 loopback literal", async () => {
      const server = await serve((res) => res.writeHead(200).end());
      const result = await attempt(`http://[::ffff:127.0.0.1]:${server.port}/hook`, { mode: "live", allowPrivate: false });
      expect(result.error).toBe("refused: ::ffff:7f00:1 is a private address");
      expect(server.connections).toBe(0);
    });

    it("refuses a name that resolves to a private address, checking what DNS returns", async () => {
      const server = await serve((res) => res.writeHead(200).end());
      const result = await attempt(`http://localhost:${server.port}/hook`, { mode: "live", allowPrivate: false });
      expect(result).toMatchObject({ ok: false, statusCode: null });
      expect(result.error).toMatch(/^refused: localhost resolves to a private address \((127\.0\.0\.1|::1)\)$/);
      expect(server.connections).toBe(0);
    });

    it("delivers to a private address when allowPrivate is set (https is the URL policy's job)", async () => {
      const server = await serve((res) => res.writeHead(200).end("ok"));
      for (const url of [server.url, `http://localhost:${server.port}/hooks/paygate`]) {
        const result = await attempt(url, { mode: "live", allowPrivate: true });
        expect(result, url).toMatchObject({ ok: true, statusCode: 200, responseBody: "ok" });
      }
      expect(server.requests).toHaveLength(2);
    });
  });

  it("has no guard in test mode", async () => {
    const server = await serve((res) => res.writeHead(200).end());
    expect(await attempt(`http://localhost:${server.port}/hook`, { mode: "test" })).toMatchObject({ ok: true, statusCode: 200 });
  });
});
