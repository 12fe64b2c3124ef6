// The merchant's default network per coin (issue 25): set per mode, only where the merchant has a
// wallet, only a network that carries the coin; an initiate without `network` (REST and GraphQL) is
// paid on it, one that names a network is paid on that one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PaygateError } from "../../src/core/errors.ts";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { HdWalletRails } from "../../src/rails/wallets/index.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

const USDT = cryptoBySlug("USDT") as CryptoCurrency;

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
beforeAll(async () => {
  t = await startTestGateway();
  keys = await t.merchant({ name: "Lagos Shop" });
});
afterAll(() => t.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function initialized(): Promise<string> {
  const init = await t.post(
    "/v1/transaction",
    { customer: { email: "ada@example.com" }, currency: "NGN", amount: "15000" },
    bearer(keys.testPublicKey),
  );
  expect(init.status).toBe(201);
  return init.body.data.id as string;
}

/** The refusal `updateMerchant` threw. */
async function refusal(change: Promise<unknown>): Promise<{ code: string; reason: string; message: string }> {
  const error = await change.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PaygateError);
  const { code, reason, message } = error as PaygateError;
  return { code, reason, message };
}

describe("the merchant's default network per coin", () => {
  it("refuses a network that does not carry the coin, naming the allowed ones, and changes nothing", async () => {
    const setting = { currency: USDT, network: "litecoin", isLive: false };
    expect(await refusal(t.gateway.operator.updateMerchant(keys.id, { defaultNetworks: [setting] }))).toEqual({
      code: "validation_error",
      reason: "invalid_merchant_settings",
      message: "default network must be one of ethereum, bsc, tron, polygon, arbitrum for USDT (got 'litecoin')",
    });
    expect(await t.gateway.operator.defaultNetworks(keys.id)).toEqual([]);
  });

  it("refuses a network the merchant has no wallet on (in that mode), and changes nothing", async () => {
    // A new merchant has a test wallet on every network (issue 43), and none in live mode.
    const setting = { currency: USDT, network: "bsc", isLive: true };
    expect(await refusal(t.gateway.operator.updateMerchant(keys.id, { defaultNetworks: [setting] }))).toEqual({
      code: "validation_error",
      reason: "invalid_merchant_settings",
      message: "default network: no USDT wallet on bsc is set for live mode; add one before making bsc the default for USDT",
    });
    expect(await t.gateway.operator.defaultNetworks(keys.id)).toEqual([]);
    const id = await initialized();
    const pay = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "3" }, bearer(keys.testSecretKey));
    expect([pay.status, pay.body.data.payment_network]).toEqual([200, "ethereum"]);
  });

  it("is set with the wallet on it, per mode, in the audit log; REST's initiate without `network` pays on it", async () => {
    const wallet = { currency: USDT, network: "bsc" as const, isLive: false, extendedPublicKey: new HdWalletRails().createTestWallet(USDT, "bsc") };
    await t.gateway.operator.updateMerchant(keys.id, { wallets: [wallet], defaultNetworks: [{ currency: USDT, network: "bsc", isLive: false }] });
    expect(await t.gateway.operator.defaultNetworks(keys.id)).toEqual([{ currency: "USDT", isLive: false, network: "bsc" }]);
    const audit = await t.db.auditLogEntry.findMany({ where: { merchantId: keys.id, action: "default_network.set" }, select: { target: true } });
    expect(audit).toEqual([{ target: "USDT test bsc" }]);

    const id = await initialized();
    const pay = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "3" }, bearer(keys.testSecretKey));
    expect(pay.status, JSON.stringify(pay.body)).toBe(200);
    expect([pay.body.data.payment_network, pay.body.data.payment_network_name]).toEqual(["bsc", "BNB Smart Chain testnet"]);
    // A network named in the request wins over the default.
    const named = await t.post(`/v1/transaction/${await initialized()}/pay`, { currency_id: "3", network: "ethereum" }, bearer(keys.testSecretKey));
    expect([named.status, named.body.data.payment_network]).toEqual([200, "ethereum"]);
    // Another coin keeps its own default.
    const eth = await t.post(`/v1/transaction/${await initialized()}/pay`, { currency_id: "6" }, bearer(keys.testSecretKey));
    expect([eth.status, eth.body.data.payment_network]).toEqual([200, "ethereum"]);
  });

  it("counts for GraphQL's initiatePayment without `network` too", async () => {
    const id = await initialized();
    const response = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { ...bearer(keys.testSecretKey), "content-type": "application/json" },
      body: JSON.stringify({
        query: 'mutation ($id: ID!) { initiatePayment(transactionId: $id, input: { currencyId: "3" }) { paymentNetwork { slug name } } }',
        variables: { id },
      }),
    });
    const body = (await response.json()) as { data?: { initiatePayment: unknown }; errors?: unknown };
    expect(body.errors).toBeUndefined();
    expect(body.data?.initiatePayment).toEqual({ paymentNetwork: { slug: "bsc", name: "BNB Smart Chain testnet" } });
  });

  it("checks a refund address on the default network, and frees the index leased with the read when it refuses it", async () => {
    const wallet = { currency: USDT, network: "tron" as const, isLive: false, extendedPublicKey: new HdWalletRails().createTestWallet(USDT, "tron") };
    await t.gateway.operator.updateMerchant(keys.id, { wallets: [wallet], defaultNetworks: [{ currency: USDT, network: "tron", isLive: false }] });
    const processor = await t.db.paymentProcessor.findFirstOrThrow({
      where: { merchantId: keys.id, currencyId: USDT.id, network: "tron", isLive: false },
    });
    const walletId = processor.walletId as number;
    // The wallet's slots are made by its first lease: one initiate on it first.
    const first = await t.post(`/v1/transaction/${await initialized()}/pay`, { currency_id: "3" }, bearer(keys.testSecretKey));
    expect([first.status, first.body.data.payment_network]).toEqual([200, "tron"]);

    // An Ethereum address is a refund address on Ethereum, not on TRON, the network the default picks.
    const evmAddress = "0x52908400098527886E0F7030069857D2E4169EE7";
    const refused = await t.post(
      `/v1/transaction/${await initialized()}/pay`,
      { currency_id: "3", refund_address: evmAddress },
      bearer(keys.testSecretKey),
    );
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([
      {
        field: "refund_address",
        message:
          "refund_address is not a valid USDT address for test mode: it is a hex address; give the TRON address in its usual form, 34 characters starting with T",
      },
    ]);
    const now = new Date();
    const leased = await t.db.walletIndexSlot.count({ where: { walletId, leasedUntil: { gt: now } } });
    expect(leased).toBe(0);
    // The index leased with the read and freed is the next initiate's: no gap.
    const next = await t.post(`/v1/transaction/${await initialized()}/pay`, { currency_id: "3" }, bearer(keys.testSecretKey));
    expect(next.status).toBe(200);
    const row = await t.db.transaction.findUniqueOrThrow({ where: { id: next.body.data.id }, select: { derivationIndex: true } });
    expect(row.derivationIndex).toBe(1);
    expect((await t.db.wallet.findUniqueOrThrow({ where: { id: walletId } })).nextIndex).toBe(2);
  });

  it("is changed back by setting the coin's own network", async () => {
    await t.gateway.operator.updateMerchant(keys.id, { defaultNetworks: [{ currency: USDT, network: "ethereum", isLive: false }] });
    expect(await t.gateway.operator.defaultNetworks(keys.id)).toEqual([{ currency: "USDT", isLive: false, network: "ethereum" }]);
    const pay = await t.post(`/v1/transaction/${await initialized()}/pay`, { currency_id: "3" }, bearer(keys.testSecretKey));
    expect([pay.status, pay.body.data.payment_network]).toEqual([200, "ethereum"]);
  });
});
