// The checkout when a coin is paid on several networks (issue 25), in a real Chromium against the real
// service: USDT on Ethereum and on BNB Smart Chain are two choices named by the API's network names,
// the customer picks BSC, and the page says the network in words, warns that a transfer on another
// network is lost, and its QR code holds that network's EIP-681 URI (chain 97). axe-core checks both.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { USDT_BSC_TESTNET_CONTRACT } from "../../src/core/networks.ts";
import { HdWalletRails } from "../../src/rails/wallets/index.ts";
import { accessibilityViolations, launchBrowser } from "../support/browser.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { decodeQr } from "../support/qr.ts";

const USDT = cryptoBySlug("USDT") as CryptoCurrency;
let browser: Browser;
let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
beforeAll(async () => {
  [browser, t] = await Promise.all([launchBrowser(), startTestGateway()]);
  keys = await t.merchant({ name: "Two Chains Ltd" });
  const key = new HdWalletRails().createTestWallet(USDT, "bsc");
  await t.gateway.updateMerchant(keys.id, { wallets: [{ currency: USDT, network: "bsc", isLive: false, extendedPublicKey: key }] });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const WAIT = { timeout: 20_000 };
const text = async (page: Page, selector: string) => ((await page.locator(selector).textContent()) ?? "").trim();

describe("a coin on several networks", () => {
  it("asks which network, names it, warns about the others, and the QR holds that network's URI", async () => {
    const init = await t.post(
      "/v1/transaction",
      { customer: { email: "ada@example.com" }, currency: "USD", amount: "100" },
      { authorization: `Bearer ${keys.testPublicKey}` },
    );
    expect(init.status).toBe(201);
    const page = await browser.newPage({ viewport: { width: 375, height: 812 } });
    await page.goto(init.body.data.checkout_url);
    await page.getByRole("heading", { level: 2, name: "Choose how to pay" }).waitFor(WAIT);
    const usdt = page.locator("button.coin", { hasText: "Tether (USDT)" });
    expect(await usdt.count()).toBe(2);
    expect(await usdt.nth(0).locator(".coin-network").textContent()).toBe(" on Ethereum Sepolia testnet (ERC-20)");
    expect(await usdt.nth(1).locator(".coin-network").textContent()).toBe(" on BNB Smart Chain testnet (BEP-20)");
    // A coin on one network is named as before, without one.
    expect(await page.locator("button.coin", { hasText: "Bitcoin (BTC)" }).locator(".coin-network").count()).toBe(0);
    expect(await accessibilityViolations(page), "choose among networks").toEqual([]);

    await page.getByRole("button", { name: /^Tether \(USDT\) on BNB Smart Chain testnet \(BEP-20\)/ }).click();
    await page.getByRole("heading", { level: 2, name: "Pay with Tether" }).waitFor(WAIT);
    const res = await fetch(`${t.url}/v1/transaction/${init.body.data.id}`, { headers: { authorization: `Bearer ${keys.testSecretKey}` } });
    const data = ((await res.json()) as { data: Record<string, string> }).data;
    expect(data.payment_network).toBe("bsc");
    expect(data.payment_uri).toMatch(
      new RegExp(`^ethereum:${USDT_BSC_TESTNET_CONTRACT}@97/transfer\\?address=${data.payment_address}&uint256=\\d+$`),
    );
    expect(await text(page, "#pay-network")).toBe("BNB Smart Chain testnet (BEP-20)");
    expect(await text(page, ".note")).toBe(
      "Send exactly this amount of USDT on the BNB Smart Chain testnet (BEP-20) network. A payment of another coin or on another network cannot be matched to this order and is lost.",
    );
    const png = await page.locator(".qr img").screenshot();
    expect(decodeQr(`data:image/png;base64,${png.toString("base64")}`).text).toBe(data.payment_uri);
    expect(await accessibilityViolations(page), "pay on BSC").toEqual([]);
    await page.close();
  });
});
