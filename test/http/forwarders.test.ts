// Deposit forwarders over REST (issue 40; docs/settlement.md) without a chain node: what only the
// configuration, the roles and the database decide. The chain side (addresses paid, flushed and read
// back, a settlement address refusing the coin) is test/e2e/forwarders-anvil.test.ts on anvil.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DuplicateKeyError, PaygateError } from "../../src/core/errors.ts";
import { flushEvent } from "../../src/core/settlement/events.ts";
import { HTTP_STATUS } from "../../src/edge/status.ts";
import { initializeBody } from "../support/builders.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

const FACTORY = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const DESTINATION = "0x52908400098527886E0F7030069857D2E4169EE7";

let bare: TestGateway;
let withFactory: TestGateway;
beforeAll(async () => {
  bare = await startTestGateway();
  withFactory = await startTestGateway({ env: { PAYGATE_ETH_TEST_FORWARDER_FACTORY: FACTORY } });
});
afterAll(async () => {
  await bare?.close();
  await withFactory?.close();
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function send(t: TestGateway, method: string, route: string, key: string, body?: unknown) {
  const response = await fetch(`${t.url}${route}`, {
    method,
    headers: { ...bearer(key), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { reason?: string; message?: string; data?: unknown; errors?: unknown } };
}

describe("forwarders the operator has not configured", () => {
  it("refuses the setting with 503 naming the factory's variable, and writes nothing", async () => {
    const keys = await bare.merchant({ name: "No Factory Ltd" });
    const refused = await send(bare, "PUT", "/v1/settlements/forwarders/ethereum", keys.testSecretKey, { destination: DESTINATION });
    expect([refused.status, refused.body.reason, refused.body.message]).toEqual([
      503,
      "forwarders_not_configured",
      "Deposit forwarders are not configured for Ethereum Sepolia testnet (test mode): the operator must set PAYGATE_ETH_TEST_FORWARDER_FACTORY",
    ]);
    expect(await bare.db.settlementSetting.count()).toBe(0);
  });

  it("refuses the setting and a flush with 503 naming the fee payer's variable when only the factory is set", async () => {
    const keys = await withFactory.merchant({ name: "No Fee Payer Ltd" });
    const message =
      "Deposit forwarders are not configured for Ethereum Sepolia testnet (test mode): the operator must set PAYGATE_ETH_TEST_FEE_PAYER_KEY";
    const setting = await send(withFactory, "PUT", "/v1/settlements/forwarders/ethereum", keys.testSecretKey, { destination: DESTINATION });
    expect([setting.status, setting.body.reason, setting.body.message]).toEqual([503, "forwarders_not_configured", message]);
    const flush = await send(withFactory, "POST", "/v1/settlements/flushes", keys.testSecretKey, { network: "ethereum" });
    expect([flush.status, flush.body.reason, flush.body.message]).toEqual([503, "forwarders_not_configured", message]);
    // The live mode's variable for a live key.
    const live = await send(withFactory, "POST", "/v1/settlements/flushes", keys.liveSecretKey, { network: "ethereum" });
    expect([live.status, live.body.message]).toEqual([
      503,
      "Deposit forwarders are not configured for Ethereum (live mode): the operator must set PAYGATE_ETH_FORWARDER_FACTORY",
    ]);
    expect([await withFactory.db.settlementSetting.count(), await withFactory.db.forwarderFlush.count()]).toEqual([0, 0]);
  });
});

describe("forwarder requests the API refuses", () => {
  it("answers 400 for a flush of no network or a non-EVM one, 404 for an unknown flush or setting, and lists nothing", async () => {
    const keys = await bare.merchant({ name: "Bad Requests Ltd" });
    const missing = await send(bare, "POST", "/v1/settlements/flushes", keys.testSecretKey, {});
    expect([missing.status, missing.body.reason, missing.body.errors]).toEqual([
      400,
      "invalid_flush_request",
      [{ field: "network", message: "network is required: one of ethereum, bsc, base, polygon, arbitrum" }],
    ]);
    const utxo = await send(bare, "POST", "/v1/settlements/flushes", keys.testSecretKey, { network: "litecoin" });
    expect([utxo.status, utxo.body.errors]).toEqual([
      400,
      [{ field: "network", message: "network must be one of ethereum, bsc, base, polygon, arbitrum (got 'litecoin')" }],
    ]);
    const unknown = await send(bare, "GET", "/v1/settlements/flushes/fl_00000000-0000-4000-8000-000000000000", keys.testSecretKey);
    expect([unknown.status, unknown.body.message]).toEqual([404, "No flush with id 'fl_00000000-0000-4000-8000-000000000000'"]);
    const removed = await send(bare, "DELETE", "/v1/settlements/forwarders/ethereum", keys.testSecretKey);
    expect([removed.status, removed.body.reason, removed.body.message]).toEqual([
      404,
      "forwarder_setting_not_found",
      "No forwarder setting for network 'ethereum' in this mode",
    ]);
    expect((await send(bare, "GET", "/v1/settlements/flushes", keys.testSecretKey)).body.data).toEqual([]);
    expect((await send(bare, "GET", "/v1/settlements/forwarders", keys.testSecretKey)).body.data).toEqual([]);
  });

  it("refuses a viewer (403 with the role's message) and changes nothing", async () => {
    const keys = await bare.merchant({ name: "Viewer Ltd" });
    const viewer = bare.gateway.access.dashboard({
      userId: "usr_viewer",
      merchantId: keys.id,
      role: "viewer",
      merchantActive: true,
      email: "viewer@example.com",
      authenticatedAt: new Date(),
      clientAddress: null,
      mustEnrolSecondFactor: false,
    });
    const refusals = [
      () => bare.gateway.settlement.setForwarderSetting(viewer, "ethereum", { destination: DESTINATION }),
      () => bare.gateway.settlement.removeForwarderSetting(viewer, "ethereum"),
      () => bare.gateway.settlement.flushForwarders(viewer, { network: "ethereum" }),
    ];
    for (const refusal of refusals) {
      let error: unknown = null;
      try {
        await refusal();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(PaygateError);
      const { code, message } = error as PaygateError;
      expect([HTTP_STATUS[code], message]).toEqual([
        403,
        "Your role (viewer) cannot manage settlement; ask an owner of this merchant for the owner or developer role",
      ]);
    }
    // Reading is the viewer's.
    expect(await bare.gateway.settlement.forwarderSettings(viewer)).toEqual([]);
    expect([await bare.db.settlementSetting.count(), await bare.db.forwarderFlush.count()]).toEqual([0, 0]);
  });
});

describe("two flushes of one forwarder", () => {
  it("are refused by the database: the second insert fails and writes nothing", async () => {
    const keys = await bare.merchant({ name: "Race Ltd" });
    const init = await bare.post("/v1/transaction", initializeBody({ amount: "10" }), bearer(keys.testPublicKey));
    const transactionId: string = init.body.data.id;
    const flush = (id: string) => ({
      id,
      merchantId: keys.id,
      isLive: false,
      network: "ethereum",
      factory: FACTORY,
      feePayer: DESTINATION,
      nonce: 0n,
      txHash: `0x${"ab".repeat(32)}`,
      rawTx: "0x02",
      createdAt: new Date(),
      items: [{ transactionId, forwarder: DESTINATION, moved: null }],
    });
    await bare.stores.forwarders.createFlush(flush("fl_00000000-0000-4000-8000-000000000001"), null);
    await expect(bare.stores.forwarders.createFlush(flush("fl_00000000-0000-4000-8000-000000000002"), null)).rejects.toBeInstanceOf(
      DuplicateKeyError,
    );
    expect(await bare.db.forwarderFlush.count()).toBe(1);
    // A failed flush gives its forwarder back: another may take it.
    await bare.stores.forwarders.finishFlush(
      "fl_00000000-0000-4000-8000-000000000001",
      { state: "failed", gasUsed: null, fee: null, moved: new Map() },
      new Date(),
      () => null,
    );
    await bare.stores.forwarders.createFlush(flush("fl_00000000-0000-4000-8000-000000000003"), null);
    expect((await bare.db.forwarderFlush.findMany({ orderBy: { id: "asc" } })).map((f) => f.state)).toEqual(["failed", "sending"]);
  });
});

describe("a flush that failed", () => {
  it("writes settlement.flush.failed with its end, about the flush (no transaction); a flush that had moved on writes nothing", async () => {
    const keys = await bare.merchant({ name: "Reverted Ltd" });
    const init = await bare.post("/v1/transaction", initializeBody({ amount: "10" }), bearer(keys.testPublicKey));
    const transactionId: string = init.body.data.id;
    const id = "fl_00000000-0000-4000-8000-0000000000f1";
    await bare.stores.forwarders.createFlush(
      {
        id,
        merchantId: keys.id,
        isLive: false,
        network: "ethereum",
        factory: FACTORY,
        feePayer: DESTINATION,
        nonce: 1n,
        txHash: `0x${"cd".repeat(32)}`,
        rawTx: "0x02",
        createdAt: new Date(),
        items: [{ transactionId, forwarder: DESTINATION, moved: null }],
      },
      null,
    );
    const at = new Date();
    const failed = { state: "failed" as const, gasUsed: 60_000n, fee: null, moved: new Map() };
    const finished = await bare.stores.forwarders.finishFlush(id, failed, at, (f) => flushEvent(f, at));
    expect(finished?.state).toBe("failed");
    // Finished already: null, and no second event.
    expect(await bare.stores.forwarders.finishFlush(id, failed, at, (f) => flushEvent(f, at))).toBeNull();
    const shown = await send(bare, "GET", `/v1/settlements/flushes/${id}`, keys.testSecretKey);
    const listed = await send(bare, "GET", "/v1/events?type=settlement.flush.failed", keys.testSecretKey);
    expect(listed.status).toBe(200);
    expect(
      (listed.body.data as { type: string; subject: string | null; transaction: string | null; data: unknown }[]).map((e) => [
        e.type,
        e.subject,
        e.transaction,
        e.data,
      ]),
    ).toEqual([["settlement.flush.failed", id, null, { event: "settlement.flush.failed", data: { flush: shown.body.data } }]]);
    expect(shown.body.data).toMatchObject({ id, state: "failed", gas_used: "60000", payments: [{ transaction_id: transactionId, moved: null }] });
  });
});
