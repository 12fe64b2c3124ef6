// Sweep plans (issue 40; docs/settlement.md, Sweeping fresh addresses) without a chain node: the
// roles at the core's door (a dashboard viewer refused, an owner's and a developer's empty plan) and
// the modes (a live key plans live payments only). Plans of paid addresses on a node are
// test/e2e/sweep-anvil.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errors, PaygateError } from "../../src/core/errors.ts";
import { HTTP_STATUS } from "../../src/edge/status.ts";
import { freshActor } from "../support/dashboard.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

const DESTINATION = "0x52908400098527886E0F7030069857D2E4169EE7";
const clock = { now: () => new Date() };

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t?.close();
});

describe("sweep plans at the core's door", () => {
  it("refuses a dashboard viewer (403 with the role's message); an owner and a developer get the plan", async () => {
    const keys = await t.merchant({ name: "Sweep Roles Ltd" });
    const params = { network: "ethereum", destination: DESTINATION };
    let error: unknown = null;
    try {
      await t.gateway.settlement.sweepPlan(t.gateway.access.dashboard(freshActor(keys.id, "viewer", clock)), params);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PaygateError);
    expect([HTTP_STATUS[(error as PaygateError).code], (error as PaygateError).message]).toEqual([
      403,
      "Your role (viewer) cannot manage settlement; ask an owner of this merchant for the owner or developer role",
    ]);
    for (const role of ["owner", "developer"] as const) {
      const plan = await t.gateway.settlement.sweepPlan(t.gateway.access.dashboard(freshActor(keys.id, role, clock)), params);
      expect([plan.object, plan.is_live, plan.addresses, plan.payments_read], role).toEqual(["sweep_plan", false, [], 0]);
    }
  });

  it("plans the key's mode: a live key's plan is a live plan, with the live network's name", async () => {
    const keys = await t.merchant({ name: "Sweep Modes Ltd" });
    const response = await fetch(`${t.url}/v1/settlements/sweep-plan?network=bsc&destination=${DESTINATION}`, {
      headers: { authorization: `Bearer ${keys.liveSecretKey}` },
    });
    const body = (await response.json()) as { data: { is_live: boolean; network_name: string; fee_coin: string } };
    expect([response.status, body.data.is_live, body.data.network_name, body.data.fee_coin]).toEqual([200, true, "BNB Smart Chain", "BNB"]);
    const publicKey = await fetch(`${t.url}/v1/settlements/sweep-plan?network=bsc&destination=${DESTINATION}`, {
      headers: { authorization: `Bearer ${keys.testPublicKey}` },
    });
    expect([publicKey.status, ((await publicKey.json()) as { message: string }).message]).toEqual([401, errors.secretKeyRequired().message]);
  });
});
