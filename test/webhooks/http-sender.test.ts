// One delivery attempt against real local HTTP servers: outcomes, limits, and the SSRF guard.
import { describe, expect, it } from "vitest";
import { useRecordingServers } from "../support/recording-server.ts";
import { deliver, type DeliveryRequest, type DeliveryResult } from "../../src/webhooks/http-sender.ts";
import { PrivateAllowlist } from "../../src/core/private-targets.ts";
import { LOCAL_PRIVATE_TARGETS } from "../support/gateway.ts";

const servers = useRecordingServers();
const serve = (handle: Parameters<typeof servers>[0]) => servers(handle, "/hooks/paygate");

const attempt = (url: string, overrides: Partial<DeliveryRequest> = {}): Promise<DeliveryResult> =>
  deliver({ url, headers: {}, body: '{"type":"ping"}', timeoutMs: 2000, mode: "test", privateTargets: LOCAL_PRIVATE_TARGETS, ...overrides });

describe("deliver", () => {
  it("counts a 200 as delivered and returns the response body", async () => {
    const server = await serve((res) => res.writeHead(200, { "content-type": "text/plain" }).end("thanks"));
    const result = await attempt(server.url);
    // The receiver is on 127.0.0.1: a private address, which these tests allow in test mode (the local setup's default).
    expect(result).toEqual({ ok: true, statusCode: 200, latencyMs: expect.any(Number), responseBody: "thanks", privateAddress: true, error: null });
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
    expect(result).toEqual({ ok: true, statusCode: 204, latencyMs: expect.any(Number), responseBody: "", privateAddress: true, error: null });
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
      const result = await attempt(server.url, { mode: "live" });
      expect(result).toMatchObject({ ok: false, statusCode: null, responseBody: null, privateAddress: false });
      expect(result.error).toBe(
        "refused: 127.0.0.1 is a private address; private and local destinations are for the operator to allow " +
          "(PAYGATE_WEBHOOK_ALLOW_PRIVATE=true, or the host in PAYGATE_WEBHOOK_PRIVATE_ALLOWLIST)",
      );
      expect(server.connections).toBe(0);
    });

    it("refuses an IPv4-mapped IPv6 loopback literal", async () => {
      const server = await serve((res) => res.writeHead(200).end());
      const result = await attempt(`http://[::ffff:127.0.0.1]:${server.port}/hook`, { mode: "live" });
      expect(result.error).toMatch(/^refused: ::ffff:7f00:1 is a private address; /);
      expect(server.connections).toBe(0);
    });

    it("refuses a name that resolves to a private address, checking what DNS returns", async () => {
      const server = await serve((res) => res.writeHead(200).end());
      const result = await attempt(`http://localhost:${server.port}/hook`, { mode: "live" });
      expect(result).toMatchObject({ ok: false, statusCode: null });
      expect(result.error).toMatch(/^refused: localhost resolves to a private address \((127\.0\.0\.1|::1)\); .*PAYGATE_WEBHOOK_ALLOW_PRIVATE=true/);
      expect(server.connections).toBe(0);
    });

    it("delivers to a private address when the operator allows it (https is the URL policy's job), marking the answer private", async () => {
      const server = await serve((res) => res.writeHead(200).end("ok"));
      for (const url of [server.url, `http://localhost:${server.port}/hooks/paygate`]) {
        const result = await attempt(url, { mode: "live", privateTargets: { ...LOCAL_PRIVATE_TARGETS, live: true } });
        expect(result, url).toMatchObject({ ok: true, statusCode: 200, responseBody: "ok", privateAddress: true });
      }
      expect(server.requests).toHaveLength(2);
    });
  });

  describe("in test mode", () => {
    const strict = { ...LOCAL_PRIVATE_TARGETS, test: false };
    const allowing = (list: string) => {
      const allowlist = PrivateAllowlist.parse(list);
      if (!(allowlist instanceof PrivateAllowlist)) throw new Error(allowlist.problem);
      return { ...strict, allowlist };
    };

    it("reaches private addresses when the operator allows them (the embedded database's default), marking the answer private", async () => {
      const server = await serve((res) => res.writeHead(200).end("tok_INTERNAL_local"));
      const result = await attempt(`http://localhost:${server.port}/hook`, { mode: "test" });
      expect(result).toMatchObject({ ok: true, statusCode: 200, responseBody: "tok_INTERNAL_local", privateAddress: true });
    });

    it("refuses every private form without connecting when the operator does not allow them, naming the setting", async () => {
      const server = await serve((res) => res.writeHead(200).end("tok_INTERNAL_local"));
      const cases: Array<[string, RegExp]> = [
        [server.url, /^refused: 127\.0\.0\.1 is a private address; /],
        [`http://[::1]:${server.port}/hook`, /^refused: ::1 is a private address; /],
        [`http://localhost:${server.port}/hook`, /^refused: localhost resolves to a private address \((127\.0\.0\.1|::1)\); /],
        [`http://2130706433:${server.port}/hook`, /^refused: 127\.0\.0\.1 is a private address; /],
        ["http://10.1.2.3/hook", /^refused: 10\.1\.2\.3 is a private address; /],
        ["http://169.254.169.254/latest/meta-data/", /^refused: 169\.254\.169\.254 is a private address; /],
      ];
      for (const [url, error] of cases) {
        const result = await attempt(url, { mode: "test", privateTargets: strict });
        expect(result, url).toMatchObject({ ok: false, statusCode: null, responseBody: null, privateAddress: false });
        expect(result.error, url).toMatch(error);
        expect(result.error, url).toContain("PAYGATE_TEST_WEBHOOK_ALLOW_PRIVATE=true, or the host in PAYGATE_WEBHOOK_PRIVATE_ALLOWLIST");
      }
      expect(server.connections).toBe(0);
    });

    it("reaches the allowlist's hosts and networks only", async () => {
      const server = await serve((res) => res.writeHead(200).end("ok"));
      const byNetwork = await attempt(server.url, { mode: "test", privateTargets: allowing("10.0.0.0/8, 127.0.0.0/8") });
      expect(byNetwork).toMatchObject({ ok: true, statusCode: 200, privateAddress: true });
      const byName = await attempt(`http://localhost:${server.port}/hook`, { mode: "test", privateTargets: allowing("localhost") });
      expect(byName).toMatchObject({ ok: true, statusCode: 200, privateAddress: true });
      // localhost's addresses (127.0.0.1, and ::1 where it has one) are in the listed networks.
      const resolved = await attempt(`http://localhost:${server.port}/hook`, { mode: "test", privateTargets: allowing("127.0.0.0/8,::1") });
      expect(resolved).toMatchObject({ ok: true, statusCode: 200, privateAddress: true });
      expect(server.requests).toHaveLength(3);

      const other = await attempt(server.url, { mode: "test", privateTargets: allowing("10.0.0.0/8,hooks.internal") });
      expect(other).toMatchObject({ ok: false, statusCode: null });
      expect(other.error).toMatch(/^refused: 127\.0\.0\.1 is a private address; /);
      const unlistedName = await attempt(`http://localhost:${server.port}/hook`, { mode: "test", privateTargets: allowing("10.0.0.0/8") });
      expect(unlistedName.error).toMatch(/^refused: localhost resolves to a private address/);
      expect(server.requests).toHaveLength(3);
    });

    it("applies the allowlist in live mode too", async () => {
      const server = await serve((res) => res.writeHead(200).end("ok"));
      const result = await attempt(server.url, { mode: "live", privateTargets: allowing("127.0.0.1") });
      expect(result).toMatchObject({ ok: true, statusCode: 200, privateAddress: true });
    });
  });
});
