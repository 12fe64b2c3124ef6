// The hosted checkout page as plain HTTP (no browser): the headers a page whose address is a
// credential needs, its built assets, and what an operator sees when they were never built.
// What the page does in a browser: test/browser/checkout.test.ts.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contentSecurityPolicy, WEB_DIST } from "../../src/http/checkout-page.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { rawRequest } from "../support/raw-http.ts";

// Shaped like a client secret: `<transaction id>_secret_<32 base62>`.
const TOKEN = "6f1d2a7e-4b1c-4e8a-9d3f-2c5b7a9e1f00_secret_Q3x9LmP2vR8tK1wZ7yB4nD6cH0jF5gSa";

let t: TestGateway;
let unbuilt: TestGateway;
let emptyDir: string;
beforeAll(async () => {
  emptyDir = mkdtempSync(path.join(tmpdir(), "paygate-no-web-"));
  [t, unbuilt] = await Promise.all([startTestGateway(), startTestGateway({ checkout: { dir: emptyDir } })]);
});
afterAll(async () => {
  await Promise.all([t?.close(), unbuilt?.close()]);
  rmSync(emptyDir, { recursive: true, force: true });
});

const lines = () => t.logs.map((line) => JSON.parse(line) as Record<string, unknown>);

describe("GET /checkout/:token", () => {
  it("serves the built page with no-store, no referrer, no framing and a strict Content-Security-Policy", async () => {
    const res = await fetch(`${t.url}/checkout/${TOKEN}`);
    expect(res.status, `web/dist/ under ${WEB_DIST} must be built (npm run build:web)`).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const host = new URL(t.url).host;
    expect(res.headers.get("content-security-policy")).toBe(
      `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self' ws://${host} wss://${host}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    const html = await res.text();
    expect(html).toContain('<html lang="en">');
    // Every script is a file of the build (no inline code, which the policy would refuse anyway).
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toMatch(/ src="\/checkout\/assets\/[\w-]+\.js"/);
    expect(html).not.toMatch(/<style\b|\sstyle="/);
    expect(html).not.toContain(TOKEN); // the page reads it from its own address
  });

  it("is found whatever the case of its path, as Express matches, while the pages' routers are passed over for the API", async () => {
    // src/app.ts enters a page's router only for its own paths (onlyUnder); Express's routes ignore case, so must that.
    const same = await (await fetch(`${t.url}/checkout/${TOKEN}`)).text();
    const upper = await fetch(`${t.url}/CHECKOUT/${TOKEN}`);
    expect(upper.status).toBe(200);
    expect(await upper.text()).toBe(same);
    const dashboard = await fetch(`${t.url}/Dashboard`);
    expect([dashboard.status, dashboard.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
    const docs = await fetch(`${t.url}/OpenAPI.json`);
    expect(docs.status).toBe(200);
    // A path no page serves still reaches the API's own 404.
    const none = await fetch(`${t.url}/checkoutx/${TOKEN}`);
    expect(none.status).toBe(404);
    expect(((await none.json()) as { status: string }).status).toBe("error");
  });

  it("serves the page's assets with long-lived caching; an unknown asset is a 404", async () => {
    const html = await (await fetch(`${t.url}/checkout/${TOKEN}`)).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/checkout\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.some((a) => a.endsWith(".js"))).toBe(true);
    expect(assets.some((a) => a.endsWith(".css"))).toBe(true);
    for (const asset of assets) {
      const res = await fetch(t.url + asset);
      expect(res.status, asset).toBe(200);
      // Scripts, styles and the icon (web/shared/favicon.svg).
      const type = asset.endsWith(".js") ? /^text\/javascript/ : asset.endsWith(".svg") ? /^image\/svg\+xml/ : /^text\/css/;
      expect(res.headers.get("content-type"), asset).toMatch(type);
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect((await res.text()).length).toBeGreaterThan(100);
    }

    const missing = await fetch(`${t.url}/checkout/assets/checkout-00000000.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      status: "error",
      code: "not_found",
      reason: "route_not_found",
      message: "No route for GET /checkout/assets/checkout-00000000.js",
    });
    expect((await fetch(`${t.url}/checkout/assets/../../package.json`)).status).toBe(404);
  });

  it("logs the route's pattern, never the token", async () => {
    const page = await fetch(`${t.url}/checkout/${TOKEN}`);
    await page.text();
    const line = lines().find((l) => l.msg === "request" && l.request_id === page.headers.get("x-request-id"));
    expect(line).toMatchObject({ method: "GET", route: "/checkout/:token", status: 200 });
    expect(t.logs.join("")).not.toContain(TOKEN);
    expect(t.logs.join("")).not.toContain("_secret_");
  });

  it("names only a well-formed Host in the policy's WebSocket sources", async () => {
    const res = await rawRequest(t.url, { path: `/checkout/${TOKEN}`, headers: { host: "evil.example; script-src *" } });
    expect(res.status).toBe(200);
    expect(res.headers["content-security-policy"]).toContain("connect-src 'self'; ");
    expect(res.headers["content-security-policy"]).not.toContain("evil");
    expect(contentSecurityPolicy("[::1]:3000")).toContain("connect-src 'self' ws://[::1]:3000 wss://[::1]:3000;");
    expect(contentSecurityPolicy(undefined)).toContain("connect-src 'self';");
  });
});

describe("GET /checkout/:token without a build", () => {
  it("answers 503 with a page that says what to run, and the same headers", async () => {
    const res = await fetch(`${unbuilt.url}/checkout/${TOKEN}`);
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    const html = await res.text();
    expect(html).toContain("<h1>This checkout page is not available right now</h1>");
    expect(html).toContain("<code>npm run build:web</code>");
    expect((await fetch(`${unbuilt.url}/checkout/assets/checkout.js`)).status).toBe(404);
  });
});
