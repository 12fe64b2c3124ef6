// The dashboard's TRON own-address setting, unmatched receipts and sweep plans over HTTP with
// signed-in sessions (issue 40; docs/settlement.md): an owner sets, lists and removes the setting in
// the page's mode, reads the (empty) unmatched receipts, is told an unknown receipt (404) and the
// sweep plan's refusals (400 naming the field, 503 naming the node); a viewer reads but is refused
// every change and the plan (403, nothing changed). The façade is REST's and the CLI's
// (test/cli-own-addresses.test.ts, test/http/sweep-plan.test.ts); matching on a chain is
// test/e2e/tron-own-addresses-anvil.test.ts.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initializeBody } from "../support/builders.ts";
import { expectDashboardError, signedInAs } from "../support/dashboard.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

const API = "/dashboard/api";
const DESTINATION = "0x52908400098527886E0F7030069857D2E4169EE7";
const UNKNOWN = "ur_00000000-0000-4000-8000-000000000000";
const TX_HASH = `0x${"ab".repeat(32)}`;
const ROLE_MESSAGE = "Your role (viewer) cannot manage settlement; ask an owner of this merchant for the owner or developer role";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t?.close();
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const settingsState = async (merchantId: number) =>
  JSON.stringify(await t.db.settlementSetting.findMany({ where: { merchantId }, orderBy: { network: "asc" } }));

describe("TRON own addresses in the dashboard", () => {
  it("an owner sets k own addresses in the page's mode, lists them, is told bad input by its field, and removes the setting", async () => {
    const keys = await t.merchant({ name: "Dash Own Addresses" });
    const owner = await signedInAs(t, keys.id, "owner");
    expect((await owner.get(`${API}/settlement/own-addresses?mode=test`)).body.data).toEqual({ own_addresses: [] });

    const tooMany = await owner.post(`${API}/settlement/own-addresses/tron?mode=test`, { address_count: 11 });
    expect([tooMany.status, tooMany.body.errors]).toEqual([
      400,
      [{ field: "address_count", message: "address_count must be an integer from 1 to 10" }],
    ]);
    const evm = await owner.post(`${API}/settlement/own-addresses/bsc?mode=test`, { address_count: 2 });
    expect([evm.status, evm.body.errors]).toEqual([400, [{ field: "network", message: "network must be one of tron (got 'bsc')" }]]);
    expect(await settingsState(keys.id)).toBe("[]");

    const set = await owner.post(`${API}/settlement/own-addresses/tron?mode=test`, { address_count: 2 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.data).toMatchObject({ object: "own_address_setting", network: "tron", is_live: false, mode: "own_addresses", address_count: 2 });
    const listed = await owner.get(`${API}/settlement/own-addresses?mode=test`);
    expect(listed.body.data.own_addresses).toEqual([set.body.data]);
    for (const address of set.body.data.addresses as string[]) expect(address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(await t.db.settlementSetting.count({ where: { merchantId: keys.id, isLive: false, network: "tron", addressCount: 2 } })).toBe(1);

    // The modes are walls: test mode's setting is not live mode's.
    expect((await owner.get(`${API}/settlement/own-addresses?mode=live`)).body.data).toEqual({ own_addresses: [] });
    expectDashboardError(
      await owner.delete(`${API}/settlement/own-addresses/tron?mode=live`),
      404,
      "own_address_setting_not_found",
      "No own-address setting for network 'tron' in this mode",
    );

    const removed = await owner.delete(`${API}/settlement/own-addresses/tron?mode=test`);
    expect([removed.status, removed.body.data]).toEqual([200, { network: "tron", is_live: false, mode: "unique_address" }]);
    expect(await settingsState(keys.id)).toBe("[]");
    // The change is in the audit log with the user who made it.
    expect(await t.db.auditLogEntry.count({ where: { merchantId: keys.id, action: { startsWith: "own_address_setting." } } })).toBe(2);
  });

  it("lists no unmatched receipts; assigning or refunding an unknown one is a 404 naming it, bad input a 400 naming the field", async () => {
    const keys = await t.merchant({ name: "Dash Unmatched" });
    const owner = await signedInAs(t, keys.id, "owner");
    const list = await owner.get(`${API}/settlement/unmatched-receipts?mode=test`);
    expect([list.status, list.body.data]).toEqual([200, { receipts: [], has_more: false }]);
    const badList = await owner.get(`${API}/settlement/unmatched-receipts?mode=test&limit=0`);
    expect(badList.status).toBe(400);
    expect(JSON.stringify(badList.body.errors)).toContain("limit");

    const message = `No unmatched receipt with id '${UNKNOWN}'`;
    const assign = await owner.post(`${API}/settlement/unmatched-receipts/${UNKNOWN}/assign?mode=test`, { transaction_id: "tx_unknown" });
    expectDashboardError(assign, 404, "unmatched_receipt_not_found", message);
    const refund = await owner.post(`${API}/settlement/unmatched-receipts/${UNKNOWN}/refund?mode=test`, { tx_hash: TX_HASH });
    expectDashboardError(refund, 404, "unmatched_receipt_not_found", message);
    // An unknown receipt is not found whatever the body (the mode wall: another mode's is unknown too)…
    const unknownNoHash = await owner.post(`${API}/settlement/unmatched-receipts/${UNKNOWN}/refund?mode=test`, {});
    expectDashboardError(unknownNoHash, 404, "unmatched_receipt_not_found", message);
    // …and an open one of the page's mode names the missing field.
    const id = `ur_${randomUUID()}`;
    await t.db.unmatchedReceipt.create({
      data: {
        id,
        merchantId: keys.id,
        isLive: false,
        network: "tron",
        address: "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8",
        currencyId: 3,
        amount: "25.000417",
        key: `${"cd".repeat(32)}:0`,
        txHash: "cd".repeat(32),
        logIndex: 0,
        blockHeight: 10,
        confirmations: 1,
        seenAt: new Date(),
        state: "open",
        updatedAt: new Date(),
      },
    });
    const noHash = await owner.post(`${API}/settlement/unmatched-receipts/${id}/refund?mode=test`, {});
    expect(noHash.status).toBe(400);
    expect(noHash.body.errors[0].field).toBe("tx_hash");
    expect((await t.db.unmatchedReceipt.findUniqueOrThrow({ where: { id } })).state).toBe("open");
  });

  it("a viewer reads the setting and the receipts, and is refused every change and the sweep plan with 403; nothing changes", async () => {
    const keys = await t.merchant({ name: "Dash Own Viewer" });
    await t.db.settlementSetting.create({
      data: { merchantId: keys.id, network: "tron", isLive: false, mode: "own_addresses", destination: "", addressCount: 3, updatedAt: new Date() },
    });
    const before = await settingsState(keys.id);
    const viewer = await signedInAs(t, keys.id, "viewer");
    const listed = await viewer.get(`${API}/settlement/own-addresses?mode=test`);
    expect([listed.status, listed.body.data.own_addresses.map((s: { address_count: number }) => s.address_count)]).toEqual([200, [3]]);
    expect((await viewer.get(`${API}/settlement/unmatched-receipts?mode=test`)).status).toBe(200);

    const refusals = [
      await viewer.post(`${API}/settlement/own-addresses/tron?mode=test`, { address_count: 1 }),
      await viewer.delete(`${API}/settlement/own-addresses/tron?mode=test`),
      await viewer.post(`${API}/settlement/unmatched-receipts/${UNKNOWN}/assign?mode=test`, { transaction_id: "tx_unknown" }),
      await viewer.post(`${API}/settlement/unmatched-receipts/${UNKNOWN}/refund?mode=test`, { tx_hash: TX_HASH }),
      await viewer.get(`${API}/settlement/sweep-plan?mode=test&network=ethereum&destination=${DESTINATION}`),
    ];
    for (const refused of refusals) expectDashboardError(refused, 403, "role_forbidden", ROLE_MESSAGE);
    expect(await settingsState(keys.id)).toBe(before);
    expect(await t.db.auditLogEntry.count({ where: { merchantId: keys.id, action: { startsWith: "own_address_setting." } } })).toBe(0);
  });
});

describe("sweep plans in the dashboard", () => {
  it("gives an owner the empty plan of the page's mode, and names a missing destination or a bad network (400)", async () => {
    const keys = await t.merchant({ name: "Dash Sweep" });
    const owner = await signedInAs(t, keys.id, "owner");
    const plan = await owner.get(`${API}/settlement/sweep-plan?mode=test&network=ethereum&destination=${DESTINATION}`);
    expect(plan.status, JSON.stringify(plan.body)).toBe(200);
    expect(plan.body.data).toMatchObject({
      object: "sweep_plan",
      is_live: false,
      network: "ethereum",
      network_name: "Ethereum Sepolia testnet",
      destination: DESTINATION,
      destination_source: "parameter",
      addresses: [],
      payments_read: 0,
    });
    const live = await owner.get(`${API}/settlement/sweep-plan?mode=live&network=bsc&destination=${DESTINATION}`);
    expect([live.status, live.body.data.is_live, live.body.data.network_name]).toEqual([200, true, "BNB Smart Chain"]);

    const noDestination = await owner.get(`${API}/settlement/sweep-plan?mode=test&network=bsc`);
    expect([noDestination.status, noDestination.body.reason, noDestination.body.errors]).toEqual([
      400,
      "invalid_sweep_plan_request",
      [
        {
          field: "destination",
          message: "destination is required: the merchant has no forwarder setting on bsc whose address the funds could go to",
        },
      ],
    ]);
    const utxo = await owner.get(`${API}/settlement/sweep-plan?mode=test&network=bitcoin&destination=${DESTINATION}`);
    expect([utxo.status, utxo.body.errors]).toEqual([
      400,
      [{ field: "network", message: "network must be one of ethereum, bsc, base, polygon, arbitrum, tron (got 'bitcoin')" }],
    ]);
  });

  it("answers 503 naming the network's node when a paid address is to be read and no node is configured", async () => {
    const keys = await t.merchant({ name: "Dash Sweep Node" });
    const init = await t.post("/v1/transaction", initializeBody({ amount: "100", description: "Order 9" }), bearer(keys.testPublicKey));
    expect(init.status).toBe(201);
    const id: string = init.body.data.id;
    const pay = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "6" }, bearer(keys.testSecretKey));
    expect(pay.status, JSON.stringify(pay.body)).toBe(200);
    expect((await t.post(`/v1/test_helpers/transaction/${id}/payment`, {}, bearer(keys.testSecretKey))).status).toBe(200);
    // Past its finality depth, as the finality job would mark it: the plan reads its address.
    await t.db.transaction.update({ where: { id }, data: { finalAt: new Date() } });

    const owner = await signedInAs(t, keys.id, "owner");
    const refused = await owner.get(`${API}/settlement/sweep-plan?mode=test&network=ethereum&destination=${DESTINATION}`);
    expectDashboardError(
      refused,
      503,
      "chain_node_unavailable",
      /^The Ethereum Sepolia testnet node( \(PAYGATE_ETH_TEST_RPC_URL\))? cannot be asked what the payment addresses hold \(.+\); retry once it answers$/,
    );
  });
});
