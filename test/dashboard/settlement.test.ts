// The dashboard's settlement and ledger pages over HTTP with signed-in sessions (issue 40): the
// forwarder setting per EVM network (set, listed, removed), the flushes and a flush on demand, and the
// ledger's entries, totals and CSV, each in the page's mode. An owner acts; a viewer reads but is
// refused every change (403, nothing changed); a bad settlement address is a 400 naming the field;
// the modes are walls. The façades are REST's (test/http/forwarders.test.ts, test/ledger/).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "../support/clock.ts";
import { expectDashboardError, signedInAs } from "../support/dashboard.ts";
import { initializeBody } from "../support/builders.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

const API = "/dashboard/api";
const FACTORY = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const DESTINATION = "0x52908400098527886E0F7030069857D2E4169EE7";
// anvil's first dev key: a fee payer for the configuration only (no node is asked here).
// A port nothing listens on: the fee payer's node does not answer.
const NO_NODE = "http://127.0.0.1:9";
const FEE_PAYER_KEY = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

const MINUTE = 60_000;
const clock = manualClock();
let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({
    clock,
    env: { PAYGATE_ETH_TEST_FORWARDER_FACTORY: FACTORY, PAYGATE_ETH_TEST_FEE_PAYER_KEY: FEE_PAYER_KEY, PAYGATE_ETH_TEST_RPC_URL: NO_NODE },
  });
});
afterAll(async () => {
  await t?.close();
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const settingsState = async () => JSON.stringify(await t.db.settlementSetting.findMany({ orderBy: { network: "asc" } }));

/** A test-mode BTC payment recorded by the test helper: one receipt in the ledger. */
async function paid(keys: { testPublicKey: string; testSecretKey: string }): Promise<string> {
  const init = await t.post("/v1/transaction", initializeBody({ amount: "100", description: "Order 7" }), bearer(keys.testPublicKey));
  expect(init.status).toBe(201);
  const id: string = init.body.data.id;
  expect((await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.testSecretKey))).status).toBe(200);
  expect((await t.post(`/v1/test_helpers/transaction/${id}/payment`, {}, bearer(keys.testSecretKey))).status).toBe(200);
  return id;
}

describe("settlement in the dashboard", () => {
  it("an owner lists the settings, is told a bad address by its field, removes a setting and flushes on demand", async () => {
    const keys = await t.merchant({ name: "Dash Settlement" });
    const owner = await signedInAs(t, keys.id, "owner");
    expect((await owner.get(`${API}/settlement/forwarders?mode=test`)).body.data).toEqual({ forwarders: [] });

    const bad = await owner.post(`${API}/settlement/forwarders/ethereum?mode=test`, { destination: "0x1234" });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([
      { field: "destination", message: expect.stringMatching(/^destination is not an address of Ethereum Sepolia testnet/) },
    ]);
    const zero = await owner.post(`${API}/settlement/forwarders/ethereum?mode=test`, { destination: `0x${"0".repeat(40)}` });
    expect([zero.status, zero.body.errors]).toEqual([
      400,
      [{ field: "destination", message: "destination cannot be the zero address: money sent there is lost" }],
    ]);
    const network = await owner.post(`${API}/settlement/forwarders/litecoin?mode=test`, { destination: DESTINATION });
    expect(network.status).toBe(400);
    expect(network.body.errors[0].field).toBe("network");
    expect(await settingsState()).toBe("[]");

    // A setting made before (the REST and CLI set it through the same use case, checked on anvil there).
    await t.db.settlementSetting.create({
      data: { merchantId: keys.id, network: "ethereum", isLive: false, mode: "forwarder", destination: DESTINATION, updatedAt: new Date() },
    });
    const listed = await owner.get(`${API}/settlement/forwarders?mode=test`);
    expect(listed.body.data.forwarders).toEqual([
      {
        object: "forwarder_setting",
        network: "ethereum",
        is_live: false,
        mode: "forwarder",
        destination: DESTINATION,
        factory: FACTORY,
        updated_at: expect.any(String),
      },
    ]);
    // The modes are walls: test mode's setting is not live mode's.
    expect((await owner.get(`${API}/settlement/forwarders?mode=live`)).body.data).toEqual({ forwarders: [] });
    const wrongMode = await owner.delete(`${API}/settlement/forwarders/ethereum?mode=live`);
    expectDashboardError(wrongMode, 404, "forwarder_setting_not_found", "No forwarder setting for network 'ethereum' in this mode");

    const removed = await owner.delete(`${API}/settlement/forwarders/ethereum?mode=test`);
    expect([removed.status, removed.body.data]).toEqual([200, { network: "ethereum", is_live: false, mode: "own_addresses" }]);
    expect(await t.db.settlementSetting.count({ where: { merchantId: keys.id } })).toBe(0);

    expect((await owner.get(`${API}/settlement/flushes?mode=test`)).body.data).toEqual({ flushes: [], has_more: false });
    const noNetwork = await owner.post(`${API}/settlement/flushes?mode=test`, {});
    expect([noNetwork.status, noNetwork.body.reason, noNetwork.body.errors]).toEqual([
      400,
      "invalid_flush_request",
      [{ field: "network", message: expect.stringMatching(/^network is required: one of ethereum/) }],
    ]);
    const nothing = await owner.post(`${API}/settlement/flushes?mode=test`, { network: "ethereum" });
    expectDashboardError(
      nothing,
      422,
      "nothing_to_flush",
      "Nothing to flush: no successful Ethereum Sepolia testnet test mode payment past its finality depth has a forwarder that is not flushed yet",
    );
    const badList = await owner.get(`${API}/settlement/flushes?mode=test&limit=0`);
    expect(badList.status).toBe(400);
    expect(JSON.stringify(badList.body.errors)).toContain("limit");
  });

  it("a viewer reads, and is refused every change with 403 naming its role; nothing changes", async () => {
    const keys = await t.merchant({ name: "Dash Settlement Viewer" });
    await t.db.settlementSetting.create({
      data: { merchantId: keys.id, network: "ethereum", isLive: false, mode: "forwarder", destination: DESTINATION, updatedAt: new Date() },
    });
    const before = await settingsState();
    const viewer = await signedInAs(t, keys.id, "viewer");
    expect((await viewer.get(`${API}/settlement/forwarders?mode=test`)).body.data.forwarders).toHaveLength(1);
    expect((await viewer.get(`${API}/settlement/flushes?mode=test`)).status).toBe(200);
    const message = "Your role (viewer) cannot manage settlement; ask an owner of this merchant for the owner or developer role";
    expectDashboardError(
      await viewer.post(`${API}/settlement/forwarders/ethereum?mode=test`, { destination: DESTINATION }),
      403,
      "role_forbidden",
      message,
    );
    expectDashboardError(await viewer.delete(`${API}/settlement/forwarders/ethereum?mode=test`), 403, "role_forbidden", message);
    expectDashboardError(await viewer.post(`${API}/settlement/flushes?mode=test`, { network: "ethereum" }), 403, "role_forbidden", message);
    expect(await settingsState()).toBe(before);
    expect(await t.db.forwarderFlush.count({ where: { merchantId: keys.id } })).toBe(0);
  });

  it("shows the fee payers of the mode: not configured, or why the node gave no balance; every role reads them", async () => {
    const keys = await t.merchant({ name: "Dash Fee Payers" });
    const viewer = await signedInAs(t, keys.id, "viewer");
    const answer = await viewer.get(`${API}/settlement/fee-payers?mode=test`);
    expect(answer.status).toBe(200);
    const payers = answer.body.data.fee_payers as { network: string; address: string | null; problem: string | null; low: boolean | null }[];
    expect(payers.map((p) => p.network)).toEqual(["ethereum", "bsc", "base", "polygon", "arbitrum"]);
    const [ethereum, ...others] = payers;
    expect(ethereum).toMatchObject({ network: "ethereum", address: null, balance: null, low: null });
    expect(ethereum?.problem).toEqual(expect.any(String));
    for (const other of others)
      expect(other, other.network).toEqual({ network: other.network, address: null, balance: null, low: null, problem: null });
    // Live mode has no fee payer configured here.
    const live = await viewer.get(`${API}/settlement/fee-payers?mode=live`);
    expect(live.body.data.fee_payers.every((p: { problem: string | null; low: boolean | null }) => p.problem === null && p.low === null)).toBe(true);
  });

  it("setting a settlement address needs a recent password (sudo mode), as REST's use case requires; nothing is saved", async () => {
    const keys = await t.merchant({ name: "Dash Settlement Sudo" });
    const owner = await signedInAs(t, keys.id, "owner");
    clock.advance(11 * MINUTE);
    const refused = await owner.post(`${API}/settlement/forwarders/ethereum?mode=test`, { destination: DESTINATION });
    expectDashboardError(refused, 403, "reauthentication_required", /^This change needs your password again/);
    expect(await t.db.settlementSetting.count({ where: { merchantId: keys.id } })).toBe(0);
  });
});

describe("the ledger in the dashboard", () => {
  it("lists the period's entries, totals them per coin and network, and gives the CSV; every role reads it", async () => {
    const keys = await t.merchant({ name: "Dash Ledger" });
    const id = await paid(keys);
    const viewer = await signedInAs(t, keys.id, "viewer");
    const entries = await viewer.get(`${API}/ledger/entries?mode=test&from=2000-01-01`);
    expect(entries.status).toBe(200);
    expect(entries.body.data).toMatchObject({
      has_more: false,
      entries: [{ object: "ledger_entry", kind: "receipt", coin: "BTC", transaction_id: id }],
    });
    expect((await viewer.get(`${API}/ledger/entries?mode=live`)).body.data).toEqual({ entries: [], has_more: false });
    // A period that ends before the payment holds nothing.
    expect((await viewer.get(`${API}/ledger/entries?mode=test&to=2000-01-01`)).body.data.entries).toEqual([]);

    const totals = await viewer.get(`${API}/ledger/totals?mode=test&from=2000-01-01&to=2100-01-01`);
    expect(totals.body.data).toMatchObject({ is_live: false, from: "2000-01-01T00:00:00.000Z", to: "2100-01-01T00:00:00.000Z" });
    expect(totals.body.data.totals).toMatchObject([{ coin: "BTC", network: "bitcoin", receipts: 1 }]);

    const csv = await fetch(`${t.url}${API}/ledger/entries.csv?mode=test&from=2000-01-01&to=2100-01-01`, { headers: { cookie: viewer.cookie } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-disposition")).toBe('attachment; filename="ledger-test-2000-01-01-2100-01-01.csv"');
    const lines = (await csv.text()).trim().split(/\r?\n/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(id);
  });

  it("names a bad period's field (400) and changes nothing", async () => {
    const keys = await t.merchant({ name: "Dash Ledger Bad" });
    const owner = await signedInAs(t, keys.id, "owner");
    const bad = await owner.get(`${API}/ledger/entries?mode=test&from=yesterday`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe("from");
    const noPeriod = await fetch(`${t.url}${API}/ledger/entries.csv?mode=test`, { headers: { cookie: owner.cookie } });
    expect(noPeriod.status).toBe(400);
    expect(JSON.stringify(await noPeriod.json())).toMatch(/from/);
  });
});
