// The front door (issue 28): the service names its dashboard in the start-up line, and `GET /` leads
// there and names the API reference, instead of the JSON 404 it answered before. A real service process.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpsDatabase, killChildren, startService, type OpsDatabase, type Service } from "./support.ts";

let db: OpsDatabase;
let service: Service;

beforeAll(async () => {
  db = await createOpsDatabase();
  service = await startService(["--import", "tsx", "src/main.ts"], { env: { ...db.env, HOST: "127.0.0.1" } });
}, 90_000);
afterAll(async () => {
  killChildren();
  await db.close();
});

describe("the front door", () => {
  it("logs the dashboard's URL, and that URL serves the dashboard", async () => {
    const line = /paygate listening on 127\.0\.0\.1:(\d+) \(this machine only\)\. Dashboard: (http:\/\/\S+?)"/.exec(service.output());
    expect(line, service.output().slice(-2_000)).not.toBeNull();
    expect(line?.[2]).toBe(`http://127.0.0.1:${service.port}/dashboard`);
    const dashboard = await fetch(line![2]!);
    expect(dashboard.status).toBe(200);
    expect(dashboard.headers.get("content-type")).toMatch(/^text\/html/);
  });

  it("answers GET / with a redirect to the dashboard and links to the API reference", async () => {
    const res = await fetch(`${service.baseUrl}/`, { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/dashboard");
    expect(res.headers.get("link")).toBe('</docs>; rel="service-doc", </openapi.json>; rel="service-desc"');
    const body = await res.text();
    expect(body).toContain('<a href="/dashboard">');
    expect(body).toContain('<a href="/docs">');
    // The API reference it names exists.
    expect((await fetch(`${service.baseUrl}/docs`)).status).toBe(200);
  });

  it("ends, followed as a browser does, on the dashboard's page", async () => {
    const res = await fetch(`${service.baseUrl}/`);
    expect(res.status).toBe(200);
    expect(new URL(res.url).pathname).toBe("/dashboard");
    expect(await res.text()).toMatch(/<html/i);
  });

  it("still answers an unknown path with the JSON 404", async () => {
    const res = await fetch(`${service.baseUrl}/no-such-page`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ status: "error", code: "not_found" });
  });
});
