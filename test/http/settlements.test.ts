// Consolidations over REST (issue 40; docs/settlement.md) without a chain node: what only the API
// and the database decide. The chain side (a PSBT signed, broadcast and seen mined, each refusal of
// a bad request) is test/e2e/ltc-consolidation.test.ts on Litecoin Core.
import { bech32 } from "@scure/base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorize, can } from "../../src/core/access/roles.ts";
import type { DashboardActor } from "../../src/core/access/roles.ts";
import { initializeBody } from "../support/builders.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
beforeAll(async () => {
  t = await startTestGateway();
  keys = await t.merchant({ name: "Settled Goods Ltd" });
});
afterAll(() => t?.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const ROUTE = "/v1/settlements/consolidations";

describe("consolidations over REST", () => {
  it("answers 404 for an unknown or malformed id, on retrieve and cancel", async () => {
    for (const id of ["co_00000000-0000-4000-8000-000000000000", "not-an-id"]) {
      const got = await fetch(`${t.url}${ROUTE}/${id}`, { headers: bearer(keys.testSecretKey) });
      expect([got.status, ((await got.json()) as { message: string }).message]).toEqual([404, `No consolidation with id '${id}'`]);
      const canceled = await t.post(`${ROUTE}/${id}/cancel`, {}, bearer(keys.testSecretKey));
      expect([canceled.status, canceled.body.reason]).toEqual([404, "consolidation_not_found"]);
    }
  });

  it("never offers a test helper's payment, which has no chain output to spend: 422, nothing written", async () => {
    const init = await t.post("/v1/transaction", initializeBody({ amount: "100" }), bearer(keys.testPublicKey));
    const id: string = init.body.data.id;
    expect((await t.post(`/v1/transaction/${id}/pay`, { currency_id: "7" }, bearer(keys.testSecretKey))).status).toBe(200);
    expect((await t.post(`/v1/test_helpers/transaction/${id}/payment`, {}, bearer(keys.testSecretKey))).status).toBe(200);
    await t.db.transaction.update({ where: { id }, data: { finalAt: new Date() } });
    const refused = await t.post(
      ROUTE,
      { coin: "LTC", destination: bech32.encode("tltc", [0, ...bech32.toWords(new Uint8Array(20).fill(7))]), fee_rate: "2" },
      bearer(keys.testSecretKey),
    );
    expect([refused.status, refused.body.message]).toEqual([
      422,
      "Nothing to consolidate: no settled LTC on litecoin in test mode payment has an output that is unspent, unrefunded and in no other consolidation",
    ]);
    expect(await t.db.consolidation.count()).toBe(0);
  });

  it("refuses a cursor that names no consolidation of the merchant and mode, and a key's other mode sees none", async () => {
    const listed = await fetch(`${t.url}${ROUTE}?starting_after=co_00000000-0000-4000-8000-000000000000`, { headers: bearer(keys.testSecretKey) });
    expect([listed.status, ((await listed.json()) as { message: string }).message]).toEqual([
      400,
      "Invalid query parameter: starting_after names no object of this merchant and mode ('co_00000000-0000-4000-8000-000000000000'); pass the id of the last object of the previous page",
    ]);
    const live = await fetch(`${t.url}${ROUTE}`, { headers: bearer(keys.liveSecretKey) });
    expect([live.status, ((await live.json()) as { data: unknown[] }).data]).toEqual([200, []]);
  });

  it("lets owners and developers consolidate, never viewers", () => {
    const actor = (role: DashboardActor["role"]): DashboardActor => ({
      userId: "u",
      merchantId: keys.id,
      role,
      merchantActive: true,
      email: "a@example.com",
      authenticatedAt: new Date(),
      clientAddress: null,
      mustEnrolSecondFactor: false,
    });
    expect([
      can(actor("owner"), "manage_settlement"),
      can(actor("developer"), "manage_settlement"),
      can(actor("viewer"), "manage_settlement"),
    ]).toEqual([true, true, false]);
    expect(() => authorize(actor("viewer"), "manage_settlement")).toThrow(
      "Your role (viewer) cannot manage settlement; ask an owner of this merchant for the owner or developer role",
    );
  });
});
