// Issue 41: roles hold whatever the door, and a test key changes nothing live mode uses. A developer
// (refused pricing in the dashboard) rolled the secret key and changed the spread with it; a test
// secret key changed the live spread; and every change made with a key was audited as the operator.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DashboardClient, signedInAs } from "../support/dashboard.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

const API = "/dashboard/api";
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function rollSecretKey(client: DashboardClient, mode: "test" | "live"): Promise<string> {
  const rolled = await client.post(`${API}/api-keys/roll?mode=${mode}`, { kind: "secret", old_expires: "24h" });
  expect(rolled.status, JSON.stringify(rolled.body)).toBe(201);
  return rolled.body.data.key as string;
}

interface Entry {
  action: string;
  target: string;
  client_address: string | null;
  actor: { kind: string; user_id: string | null; email: string | null; label: string; api_key?: { id: number | null; prefix: string | null } };
}

const auditLog = async (owner: DashboardClient): Promise<Entry[]> => (await owner.get(`${API}/audit-log?limit=20`)).body.data.entries;

describe("a test-mode key changes nothing live mode uses", () => {
  it("refuses a test secret key's pricing change with 403, and the live spread stays", async () => {
    const keys = await t.merchant({ name: "Test Key Pricing Ltd" });
    const refused = await t.post("/v1/merchant/pricing", { spread: "9.99" }, bearer(keys.testSecretKey));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      status: "error",
      code: "forbidden",
      reason: "test_key_live_setting",
      message: "A test-mode key cannot change the merchant's pricing, which live payments use: use the live secret key (sec_live_…) or the dashboard",
    });
    const shown = await fetch(`${t.url}/v1/merchant/pricing`, { headers: bearer(keys.liveSecretKey) });
    expect(((await shown.json()) as { data: { spread_percent: string } }).data.spread_percent).toBe("0");
    // Reading it is fine: it prices test-mode payments too.
    expect((await fetch(`${t.url}/v1/merchant/pricing`, { headers: bearer(keys.testSecretKey) })).status).toBe(200);
  });
});

describe("a key does what the role of whoever rolled it may do", () => {
  it("a developer's rolled key cannot change pricing (as the developer cannot in the dashboard); an owner's can, audited as the key", async () => {
    const keys = await t.merchant({ name: "Rolled Keys Ltd" });
    const owner = await signedInAs(t, keys.id, "owner");
    const developer = await signedInAs(t, keys.id, "developer");
    expect((await developer.request("PUT", `${API}/pricing`, { spread: "9.99" })).status).toBe(403);

    const developersKey = await rollSecretKey(developer, "live");
    const refused = await t.post("/v1/merchant/pricing", { spread: "9.99" }, bearer(developersKey));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      code: "forbidden",
      reason: "key_role_forbidden",
      message:
        "This key was rolled by a developer, and that role cannot manage pricing: use a key rolled by an owner, or ask an owner of this merchant",
    });
    expect((await owner.get(`${API}/pricing`)).body.data.spread_percent).toBe("0");
    // What the developer's role allows, its key does: webhook endpoints.
    const endpoint = await t.post(
      "/v1/webhook_endpoints",
      { url: "https://hooks.example.com/developer", enabled_events: ["*"] },
      bearer(developersKey),
    );
    expect(endpoint.status).toBe(201);

    const ownersKey = await rollSecretKey(owner, "live");
    const set = await t.post("/v1/merchant/pricing", { spread: "1.25" }, bearer(ownersKey));
    expect(set.status).toBe(200);
    const entries = await auditLog(owner);
    const pricing = entries.find((e) => e.action === "pricing.set");
    expect(pricing).toMatchObject({
      target: "spread 1.25%, sources the operator's",
      actor: { kind: "api_key", user_id: owner.userId, email: owner.email, api_key: { prefix: `${ownersKey.slice(0, 13)}…` } },
    });
    expect(pricing?.actor.label).toBe(`API key ${ownersKey.slice(0, 13)}… (rolled by ${owner.email})`);
    expect(pricing?.client_address).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    const created = entries.find((e) => e.action === "webhook_endpoint.create");
    expect(created?.actor).toMatchObject({ kind: "api_key", user_id: developer.userId, email: developer.email });
  });

  it("a key the operator made may do all a secret key does, and its changes name it (not the operator)", async () => {
    const keys = await t.merchant({ name: "Operator Keys Ltd" });
    const owner = await signedInAs(t, keys.id, "owner");
    expect((await t.post("/v1/merchant/pricing", { spread: "0.5" }, bearer(keys.liveSecretKey))).status).toBe(200);
    const [entry] = (await auditLog(owner)).filter((e) => e.action === "pricing.set");
    expect(entry?.actor).toMatchObject({ kind: "api_key", user_id: null, email: null, api_key: { prefix: `${keys.liveSecretKey.slice(0, 13)}…` } });
    expect(entry?.actor.label).toBe(`API key ${keys.liveSecretKey.slice(0, 13)}… (made by the operator)`);
  });

  it("refuses a key whose role may not manage refunds or webhooks with 403, over REST and GraphQL alike", async () => {
    const keys = await t.merchant({ name: "Viewer Key Ltd" });
    // A viewer cannot roll keys; a key recorded with the viewer role (a role lowered since) is held to it.
    const viewer = await signedInAs(t, keys.id, "viewer");
    expect((await viewer.post(`${API}/api-keys/roll?mode=test`, { kind: "secret", old_expires: "now" })).status).toBe(403);
    const developer = await signedInAs(t, keys.id, "developer");
    const key = await rollSecretKey(developer, "test");
    await t.db.apiKey.updateMany({ where: { createdByUserId: developer.userId }, data: { createdByRole: "viewer" } });
    const message =
      "This key was rolled by a viewer, and that role cannot manage webhooks: use a key rolled by an owner, or ask an owner of this merchant";
    const rest = await t.post("/v1/webhook_endpoints", { url: "http://127.0.0.1:9/v", enabled_events: ["*"] }, bearer(key));
    expect(rest.status).toBe(403);
    expect(rest.body).toMatchObject({ reason: "key_role_forbidden", message });
    const refund = await t.post("/v1/transaction/00000000-0000-4000-8000-000000000000/refunds", {}, bearer(key));
    expect(refund.status).toBe(403);
    expect(refund.body.message).toMatch(/^This key was rolled by a viewer, and that role cannot manage refunds/);
    const graph = await t.post(
      "/graphql",
      { query: 'mutation { createWebhookEndpoint(input: { url: "http://127.0.0.1:9/g", enabledEvents: ["*"] }) { id } }' },
      bearer(key),
    );
    expect(graph.body.errors?.[0]).toMatchObject({ message, extensions: { code: "FORBIDDEN", reason: "key_role_forbidden" } });
    // Reading is every role's.
    expect((await fetch(`${t.url}/v1/webhook_endpoints`, { headers: bearer(key) })).status).toBe(200);
    expect((await fetch(`${t.url}/v1/webhook_endpoints`, { headers: bearer(keys.testSecretKey) })).status).toBe(200);
  });
});
