// The dashboard's skeleton end to end: a signed-in owner reads its session and its users, and the
// page is served for any non-API path. (sessions.test.ts and users.test.ts go into each rule.)
import { afterAll, beforeAll, expect, it } from "vitest";
import { signedInAs } from "../support/dashboard.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t?.close();
});

it("signs in, reads the session and the users", async () => {
  const merchant = await t.merchant({ name: "Acme Stores" });
  const owner = await signedInAs(t, merchant.id, "owner");
  const me = await owner.get("/dashboard/api/session");
  expect(me.status).toBe(200);
  expect(me.body.data).toMatchObject({ user: { email: owner.email, role: "owner" }, merchant: { name: "Acme Stores", kyb_status: "NONE" } });
  expect(me.body.data.csrf_token).toBe(owner.csrfToken);
  const users = await owner.get("/dashboard/api/users");
  expect(users.body.data.map((u: { email: string }) => u.email)).toEqual([owner.email]);
});
