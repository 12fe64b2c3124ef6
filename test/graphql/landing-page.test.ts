// GET /graphql from a browser: a page paygate serves itself, that works offline (no CDN), and none
// when the landing page is off (production).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let dev: TestGateway;
let production: TestGateway;
beforeAll(async () => {
  dev = await startTestGateway({ graphql: { introspection: true, landingPage: true } });
  production = await startTestGateway({ graphql: { introspection: false, landingPage: false } });
});
afterAll(async () => {
  await dev.close();
  await production.close();
});

const browserGet = (base: string) => fetch(`${base}/graphql`, { headers: { accept: "text/html,application/xhtml+xml" } });

describe("the GraphQL page", () => {
  it("is served locally, says how to query, and loads nothing from elsewhere", async () => {
    const res = await browserGet(dev.url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    const html = await res.text();
    expect(html).toContain("<h1>paygate GraphQL API</h1>");
    expect(html).toContain("apollo-require-preflight");
    expect(html).not.toMatch(/<(script|link|img|iframe)[^>]+(src|href)=["']?https?:/i);
    expect(html).not.toMatch(/apollographql|cdn\./i);
  });

  it("runs the query the page's form sends", async () => {
    const keys = await dev.merchant();
    const res = await fetch(`${dev.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${keys.testPublicKey}` },
      body: JSON.stringify({
        query: "query Transaction($id: ID!) { transaction(id: $id) { id } }",
        variables: { id: "00000000-0000-0000-0000-000000000000" },
      }),
    });
    expect(await res.json()).toEqual({ data: { transaction: null } });
  });

  it("is not served when the landing page is off", async () => {
    const res = await browserGet(production.url);
    expect(res.headers.get("content-type") ?? "").not.toMatch(/text\/html/);
    expect(res.status).toBe(400);
  });
});
