// The shared outbound HTTP client against real local HTTP servers: deadline, body cap, no redirects,
// the public-only guard, Retry-After, and the wording of every failure.
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { useRecordingServers } from "../../support/recording-server.ts";
import { describeFailure, fetchPrefix, fetchText, type OutboundFailure, type Outcome } from "../../../src/rails/http/outbound.ts";

const serve = (handle: Parameters<ReturnType<typeof useRecordingServers>>[0]) => servers(handle, "/api");
const servers = useRecordingServers();

/** Writes `chunk` every few milliseconds until the client goes away. */
function endless(res: ServerResponse, chunk: string, everyMs = 5): void {
  res.writeHead(200);
  res.flushHeaders();
  const timer = setInterval(() => res.write(chunk), everyMs);
  res.on("close", () => clearInterval(timer));
}

/** The failure of an outcome that must have failed. */
function failureOf<T, F extends OutboundFailure>(outcome: Outcome<T, F>): F {
  if (outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  return outcome.failure;
}

const options = { timeoutMs: 2000, maxBytes: 1000 };

describe("fetchText", () => {
  it("returns a 2xx body, sending the method, headers and body given", async () => {
    const server = await serve((res) => res.writeHead(200).end('{"ok":true}'));
    const outcome = await fetchText(`${server.url}?q=1`, {
      ...options,
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "k" },
      body: '{"café":"✓"}',
    });
    expect(outcome).toEqual({ ok: true, value: '{"ok":true}' });
    expect(server.requests).toEqual([
      {
        method: "POST",
        url: "/api?q=1",
        headers: expect.objectContaining({ "content-type": "application/json", "x-api-key": "k", "user-agent": "paygate" }),
        body: '{"café":"✓"}',
      },
    ]);
  });

  it("drops a leading byte order mark, as fetch's text() did", async () => {
    const server = await serve((res) => res.writeHead(200).end("\uFEFF[1]"));
    expect(await fetchText(server.url, options)).toEqual({ ok: true, value: "[1]" });
  });

  it("reuses kept-alive connections for the following requests to the same server", async () => {
    const server = await serve((res) => res.writeHead(200).end("ok"));
    for (let i = 0; i < 8; i++) expect(await fetchText(server.url, options)).toEqual({ ok: true, value: "ok" });
    expect(server.requests).toHaveLength(8);
    // undici's pool may open a second connection while the first is being released, then reuses both.
    expect(server.connections).toBeLessThanOrEqual(2);
  });

  it("times out a server that never answers, after about timeoutMs", async () => {
    const server = await serve(() => {});
    const started = performance.now();
    const failure = failureOf(await fetchText(server.url, { ...options, timeoutMs: 300 }));
    expect(failure).toEqual({ kind: "timeout", timeoutMs: 300 });
    expect(describeFailure(failure)).toBe("no complete answer within 300 ms");
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("applies the deadline to the body too: a trickle with short gaps still times out", async () => {
    const server = await serve((res) => endless(res, ".", 50));
    const started = performance.now();
    const failure = failureOf(await fetchText(server.url, { ...options, timeoutMs: 400 }));
    expect(describeFailure(failure)).toBe("no complete answer within 400 ms");
    expect(performance.now() - started).toBeLessThan(1200);
  });

  it("accepts a body of exactly maxBytes and refuses one byte more", async () => {
    const server = await serve((res, req) => res.writeHead(200).end("x".repeat(req.url === "/api/more" ? 1001 : 1000)));
    expect(await fetchText(server.url, options)).toEqual({ ok: true, value: "x".repeat(1000) });
    const failure = failureOf(await fetchText(`${server.url}/more`, options));
    expect(failure).toEqual({ kind: "too-large", maxBytes: 1000 });
    expect(describeFailure(failure)).toBe("the response body is larger than 1000 bytes");
  });

  it("stops reading an endless body at the cap instead of waiting for the deadline", async () => {
    const server = await serve((res) => endless(res, "y".repeat(512)));
    const started = performance.now();
    const failure = failureOf(await fetchText(server.url, { timeoutMs: 5000, maxBytes: 4096 }));
    expect(describeFailure(failure)).toBe("the response body is larger than 4096 bytes");
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("fails on a non-2xx status, quoting the start of the body on one line", async () => {
    const server = await serve((res) => res.writeHead(500).end(`database\n   locked ${"z".repeat(5000)}`));
    const failure = failureOf(await fetchText(server.url, options));
    expect(failure).toMatchObject({ kind: "status", status: 500, statusText: "Internal Server Error", retryAfterMs: null });
    expect(describeFailure(failure)).toBe(`HTTP 500 Internal Server Error: database locked ${"z".repeat(184)}…`);
  });

  it("says a status alone when the error body is empty", async () => {
    const server = await serve((res) => res.writeHead(503).end());
    expect(describeFailure(failureOf(await fetchText(server.url, options)))).toBe("HTTP 503 Service Unavailable");
  });

  it("does not follow a redirect: the 3xx is the answer", async () => {
    const target = await serve((res) => res.writeHead(200).end("should not be reached"));
    const server = await serve((res) => res.writeHead(302, { location: target.url }).end("moved"));
    const failure = failureOf(await fetchText(server.url, options));
    expect(describeFailure(failure)).toBe("HTTP 302 Found: moved");
    expect(target.connections).toBe(0);
  });

  describe("HTTP 429", () => {
    const limited = (headers: Record<string, string>) => serve((res) => res.writeHead(429, headers).end("slow down"));

    it("says it is rate limited and reads Retry-After in seconds", async () => {
      const server = await limited({ "retry-after": "10" });
      const failure = failureOf(await fetchText(server.url, options));
      expect(failure).toMatchObject({ kind: "status", status: 429, retryAfterMs: 10_000 });
      expect(describeFailure(failure)).toBe("rate limited (HTTP 429 Too Many Requests): slow down");
    });

    it("reads Retry-After given as an HTTP date", async () => {
      const server = await limited({ "retry-after": new Date(Date.now() + 30_000).toUTCString() });
      const failure = failureOf(await fetchText(server.url, options));
      expect(failure.kind === "status" && failure.retryAfterMs).toBeGreaterThan(28_000);
      expect(failure.kind === "status" && failure.retryAfterMs).toBeLessThanOrEqual(30_000);
    });

    it("gives null for a missing or unreadable Retry-After, and no negative wait for a past date", async () => {
      for (const [headers, expected] of [
        [{}, null],
        [{ "retry-after": "soon" }, null],
        [{ "retry-after": new Date(Date.now() - 60_000).toUTCString() }, 0],
      ] as const) {
        const server = await limited(headers);
        expect(failureOf(await fetchText(server.url, options)), JSON.stringify(headers)).toMatchObject({ kind: "status", retryAfterMs: expected });
      }
    });
  });

  it("describes a refused connection", async () => {
    const server = await serve(() => {});
    await server.close();
    const failure = failureOf(await fetchText(`http://127.0.0.1:${server.port}/`, options));
    expect(failure).toMatchObject({ kind: "transport", reason: "connection refused (ECONNREFUSED)", cause: expect.any(Error) });
    expect(describeFailure(failure)).toBe("request failed: connection refused (ECONNREFUSED)");
  });

  it("describes a connection cut before the answer", async () => {
    const server = await serve((res) => res.socket?.destroy());
    const failure = failureOf(await fetchText(server.url, options));
    expect(describeFailure(failure)).toBe("request failed: connection closed before the response was complete (UND_ERR_SOCKET)");
  });

  it("describes a URL it cannot send to", async () => {
    expect(describeFailure(failureOf(await fetchText("not a url", options)))).toBe("request failed: invalid URL");
    expect(describeFailure(failureOf(await fetchText("ftp://127.0.0.1/x", options)))).toBe("request failed: unsupported protocol ftp:");
  });
});

describe("fetchPrefix", () => {
  it("returns any status with its body", async () => {
    const server = await serve((res) => res.writeHead(404).end("no such hook"));
    expect(await fetchPrefix(server.url, options)).toEqual({ ok: true, value: { status: 404, text: "no such hook", privateAddress: false } });
  });

  it("keeps the first maxBytes of a longer body, without cutting a character in half", async () => {
    const server = await serve((res) => res.writeHead(200).end(`${"a".repeat(999)}é${"b".repeat(5000)}`));
    expect(await fetchPrefix(server.url, options)).toEqual({ ok: true, value: { status: 200, text: "a".repeat(999), privateAddress: false } });
  });

  it("stops reading an endless body at maxBytes", async () => {
    const server = await serve((res) => endless(res, "y".repeat(512)));
    const started = performance.now();
    expect(await fetchPrefix(server.url, { timeoutMs: 5000, maxBytes: 1024 })).toEqual({
      ok: true,
      value: { status: 200, text: "y".repeat(1024), privateAddress: false },
    });
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("does not follow a redirect", async () => {
    const target = await serve((res) => res.writeHead(200).end("should not be reached"));
    const server = await serve((res) => res.writeHead(307, { location: target.url }).end("moved"));
    expect(await fetchPrefix(server.url, options)).toEqual({ ok: true, value: { status: 307, text: "moved", privateAddress: false } });
    expect(target.connections).toBe(0);
  });

  it("times out the same way", async () => {
    const server = await serve(() => {});
    expect(failureOf(await fetchPrefix(server.url, { ...options, timeoutMs: 200 }))).toEqual({ kind: "timeout", timeoutMs: 200 });
  });
});

describe("publicOnly", () => {
  const guarded = { ...options, publicOnly: true };

  it("refuses literal private, loopback and link-local addresses without connecting", async () => {
    const server = await serve((res) => res.writeHead(200).end());
    const cases: Array<[string, string]> = [
      [server.url, "refused: 127.0.0.1 is a private address"],
      [`http://[::1]:${server.port}/`, "refused: ::1 is a private address"],
      [`http://[::ffff:127.0.0.1]:${server.port}/`, "refused: ::ffff:7f00:1 is a private address"],
      ["http://10.1.2.3/", "refused: 10.1.2.3 is a private address"],
      ["http://192.168.0.10/", "refused: 192.168.0.10 is a private address"],
      ["http://169.254.169.254/latest/meta-data/", "refused: 169.254.169.254 is a private address"],
      ["http://0x7f.1/", "refused: 127.0.0.1 is a private address"],
    ];
    for (const [url, reason] of cases) {
      const failure = failureOf(await fetchText(url, guarded));
      expect(failure, url).toEqual({ kind: "transport", reason, refusedAddress: true });
      expect(describeFailure(failure)).toBe(`request failed: ${reason}`);
    }
    expect(server.connections).toBe(0);
  });

  it("refuses a name that resolves to loopback, checking what DNS returns on every connection", async () => {
    const server = await serve((res) => res.writeHead(200).end("ok"));
    const byName = `http://localhost:${server.port}/api`;
    // Unguarded, the same origin is reachable, and its connection stays in the open pool…
    expect(await fetchText(byName, options)).toEqual({ ok: true, value: "ok" });
    expect(server.connections).toBe(1);
    // …which the guarded requests never borrow: each is refused at its own lookup.
    for (let i = 0; i < 2; i++) {
      const failure = failureOf(await fetchPrefix(byName, guarded));
      expect(failure).toMatchObject({ kind: "transport" });
      expect(failure.kind === "transport" && failure.reason).toMatch(/^refused: localhost resolves to a private address \((127\.0\.0\.1|::1)\)$/);
    }
    expect(server.connections).toBe(1);
    expect(server.requests).toHaveLength(1);
  });
});

describe("publicOnly with privateExceptions", () => {
  const loopbackOnly = { allows: (_hostname: string, address: string) => address === "127.0.0.1" || address === "::1" };
  const guarded = { ...options, publicOnly: true, privateExceptions: loopbackOnly };

  it("reaches an excepted private address, by literal or by name, and says the answer may be private", async () => {
    const server = await serve((res) => res.writeHead(200).end("internal"));
    for (const url of [server.url, `http://localhost:${server.port}/api`]) {
      expect(await fetchPrefix(url, guarded), url).toEqual({ ok: true, value: { status: 200, text: "internal", privateAddress: true } });
    }
  });

  it("still refuses the private addresses it does not except, without connecting", async () => {
    const server = await serve((res) => res.writeHead(200).end("internal"));
    const none = { ...guarded, privateExceptions: { allows: () => false } };
    for (const url of [server.url, `http://localhost:${server.port}/api`]) {
      const failure = failureOf(await fetchPrefix(url, none));
      expect(failure, url).toMatchObject({ kind: "transport", refusedAddress: true });
    }
    expect(failureOf(await fetchPrefix("http://10.1.2.3/", guarded))).toEqual({
      kind: "transport",
      reason: "refused: 10.1.2.3 is a private address",
      refusedAddress: true,
    });
    expect(server.connections).toBe(0);
  });

  it("reports a name that does not resolve as a transport failure, not a refusal", async () => {
    const failure = failureOf(await fetchPrefix("http://no-such-host.invalid/", guarded));
    expect(failure).toMatchObject({ kind: "transport" });
    expect(failure).not.toHaveProperty("refusedAddress");
  });
});
