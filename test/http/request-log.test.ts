// The service's log: one JSON line per request with what an operator needs, and nothing a leaked
// log could hurt anyone with (bodies, keys, e-mails); no value can start a line of its own.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { rawRequest } from "../support/raw-http.ts";
import { initializeBody } from "../support/builders.ts";

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
beforeAll(async () => {
  t = await startTestGateway();
  keys = await t.merchant();
});
afterAll(() => t.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const lines = () => t.logs.map((line) => JSON.parse(line) as Record<string, unknown>);
const requestLine = (requestId: string) => lines().find((line) => line.msg === "request" && line.request_id === requestId);

describe("request log", () => {
  it("writes one line per request with method, route, status, latency, request id and merchant", async () => {
    const res = await fetch(`${t.url}/v1/transaction`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(keys.testPublicKey) },
      body: JSON.stringify(
        initializeBody({ customer: { email: "ada.secret@example.com", name: "Ada Obi" }, amount: "10", description: "Order #42" }),
      ),
    });
    expect(res.status).toBe(201);
    const id = ((await res.json()) as { data: { id: string } }).data.id;
    const requestId = res.headers.get("x-request-id") as string;
    expect(requestLine(requestId)).toMatchObject({ level: "info", method: "POST", route: "/v1/transaction", status: 201, merchant_id: keys.id });
    expect(typeof requestLine(requestId)?.latency_ms).toBe("number");

    const read = await fetch(`${t.url}/v1/transaction/${id}`, { headers: bearer(keys.testSecretKey) });
    expect(requestLine(read.headers.get("x-request-id") as string)).toMatchObject({
      method: "GET",
      route: "/v1/transaction/:transaction_id",
      status: 200,
      merchant_id: keys.id,
    });

    const refused = await fetch(`${t.url}/v1/transaction/${id}/pay`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(keys.testPublicKey) },
      body: "{}",
    });
    expect(requestLine(refused.headers.get("x-request-id") as string)).toMatchObject({ level: "warn", status: 400, error: "invalid_request" });

    const graphql = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(keys.testSecretKey) },
      body: JSON.stringify({ query: `{ transaction(id: "${id}") { id } }` }),
    });
    expect(requestLine(graphql.headers.get("x-request-id") as string)).toMatchObject({ route: "/graphql", status: 200, merchant_id: keys.id });

    const log = t.logs.join("");
    for (const secret of [keys.testPublicKey, keys.testSecretKey, "ada.secret@example.com", "Ada Obi", "Order #42"])
      expect(log).not.toContain(secret);
  });

  it("keeps every value on its own line, whatever the client sends", async () => {
    const before = t.logs.length;
    await rawRequest(t.url, { method: "GET", path: "/v1/transaction/x%0A%7B%22level%22%3A%22fatal%22%7D", headers: bearer(keys.testSecretKey) });
    await rawRequest(t.url, {
      method: "POST",
      path: "/graphql",
      headers: { "content-type": "application/json" },
      body: '{"query": "\n{\\"level\\":\\"fatal\\"}',
    });
    const added = t.logs.slice(before);
    expect(added.length).toBeGreaterThanOrEqual(2);
    for (const line of added) {
      expect(line.trimEnd().split("\n")).toHaveLength(1);
      expect(JSON.parse(line).level).not.toBe("fatal");
    }
  });
});
