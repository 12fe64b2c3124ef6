// Merchant accounts: keys stored hashed, webhook secrets encrypted, wallets owned by one merchant.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PaygateError } from "../../src/core/errors.ts";
import { cryptoBySlug } from "../../src/core/money/currencies.ts";
import { hashKey } from "../../src/core/secrets.ts";
import { HdWalletRails } from "../../src/rails/wallets/index.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

const ZPUB = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs";
const btc = cryptoBySlug("BTC")!;

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

describe("merchant secrets at rest", () => {
  it("stores secret keys only as hashes and the webhook secret only encrypted", async () => {
    const m = await t.merchant({ name: "Hashy" });
    const rows = await t.db.apiKey.findMany({ where: { merchantId: m.id } });
    const dump = JSON.stringify(await t.db.merchant.findUniqueOrThrow({ where: { id: m.id }, include: { apiKeys: true } }));
    expect(dump).not.toContain(m.testSecretKey);
    expect(dump).not.toContain(m.liveSecretKey);
    expect(dump).not.toContain(m.webhookSecret);
    expect(rows.map((r) => r.keyHash).sort()).toEqual([m.testPublicKey, m.testSecretKey, m.livePublicKey, m.liveSecretKey].map(hashKey).sort());
    const merchant = await t.db.merchant.findUniqueOrThrow({ where: { id: m.id } });
    expect(t.secrets.open(merchant.webhookSecretEnc)).toBe(m.webhookSecret);
  });
});

describe("wallets", () => {
  it("refuses a key that another merchant already receives on", async () => {
    const first = await t.merchant({ name: "First", wallets: [{ currency: btc, isLive: true, extendedPublicKey: ZPUB }] });
    const second = await t.merchant({ name: "Second" });
    await expect(
      t.gateway.operator.updateMerchant(second.id, { wallets: [{ currency: btc, isLive: true, extendedPublicKey: ZPUB }] }),
    ).rejects.toThrow(/already belongs to another merchant/);
    expect(await t.db.paymentProcessor.count({ where: { merchantId: second.id, isLive: true } })).toBe(0);
    expect(await t.db.paymentProcessor.count({ where: { merchantId: first.id, isLive: true } })).toBe(1);
  });

  it("keeps a replaced key's counter, so switching back never reuses an address", async () => {
    const m = await t.merchant({ name: "Switcher" });
    const testBtc = await t.db.paymentProcessor.findUniqueOrThrow({
      where: { merchantId_currencyId_network_isLive: { merchantId: m.id, currencyId: btc.id, network: "bitcoin", isLive: false } },
      include: { wallet: true },
    });
    await t.db.wallet.update({ where: { id: testBtc.walletId }, data: { nextIndex: 5 } });
    const otherKey = new HdWalletRails().createTestWallet(btc);
    await t.gateway.operator.updateMerchant(m.id, { wallets: [{ currency: btc, isLive: false, extendedPublicKey: otherKey }] });
    await t.gateway.operator.updateMerchant(m.id, {
      wallets: [{ currency: btc, isLive: false, extendedPublicKey: testBtc.wallet.extendedPublicKey }],
    });
    const back = await t.db.paymentProcessor.findUniqueOrThrow({
      where: { merchantId_currencyId_network_isLive: { merchantId: m.id, currencyId: btc.id, network: "bitcoin", isLive: false } },
      include: { wallet: true },
    });
    expect(back.walletId).toBe(testBtc.walletId);
    expect(back.wallet.nextIndex).toBe(5);
  });

  it("refuses a private key and says why", async () => {
    const m = await t.merchant({ name: "Careless" });
    const xprv = "xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi";
    const attempt = t.gateway.operator.updateMerchant(m.id, { wallets: [{ currency: btc, isLive: true, extendedPublicKey: xprv }] });
    await expect(attempt).rejects.toBeInstanceOf(PaygateError);
    await expect(attempt).rejects.toMatchObject({ code: "validation_error", reason: "invalid_merchant_settings" });
    await expect(attempt).rejects.toThrow(/private key/);
  });
});
