// The checkout for USDT on TRON (issue 25), in a real Chromium against the real service: a merchant
// with a TRON wallet, the customer picks USDT on TRON Nile, the page names the network, and its QR
// code holds the plain T-address (TRON has no payment-URI standard; wallets read the address), with
// no "Open in wallet app" link, which would have no scheme to open. axe-core checks the page.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { createTronTestWallet } from "../../src/rails/wallets/tron.ts";
import { accessibilityViolations, launchBrowser } from "../support/browser.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { decodeQr } from "../support/qr.ts";

const USDT = cryptoBySlug("USDT") as CryptoCurrency;
let browser: Browser;
let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
beforeAll(async () => {
  [browser, t] = await Promise.all([launchBrowser(), startTestGateway()]);
  keys = await t.merchant({ name: "Lagos Gadgets" });
  await t.gateway.updateMerchant(keys.id, {
    wallets: [{ currency: USDT, network: "tron", isLive: false, extendedPublicKey: createTronTestWallet() }],
  });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const WAIT = { timeout: 20_000 };
const text = async (page: Page, selector: string) => ((await page.locator(selector).textContent()) ?? "").trim();

describe("USDT on TRON at the checkout", () => {
  it("names TRON, and the QR code holds the plain T-address, without a wallet link", async () => {
    const init = await t.post(
      "/v1/transaction",
      { customer: { email: "ada@example.com" }, currency: "USD", amount: "40" },
      { authorization: `Bearer ${keys.testPublicKey}` },
    );
    expect(init.status).toBe(201);
    const page = await browser.newPage({ viewport: { width: 375, height: 812 } });
    await page.goto(init.body.data.checkout_url);
    await page.getByRole("heading", { level: 2, name: "Choose how to pay" }).waitFor(WAIT);
    await page.getByRole("button", { name: /^Tether \(USDT\) on TRON Nile testnet \(TRC-20\)/ }).click();
    await page.getByRole("heading", { level: 2, name: "Pay with Tether" }).waitFor(WAIT);
    const res = await fetch(`${t.url}/v1/transaction/${init.body.data.id}`, { headers: { authorization: `Bearer ${keys.testSecretKey}` } });
    const data = ((await res.json()) as { data: Record<string, string> }).data;
    expect(data.payment_network).toBe("tron");
    expect(data.payment_address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(data.payment_uri).toBe(data.payment_address);
    expect(await text(page, "#pay-network")).toBe("TRON Nile testnet (TRC-20)");
    const png = await page.locator(".qr img").screenshot();
    expect(decodeQr(`data:image/png;base64,${png.toString("base64")}`).text).toBe(data.payment_address);
    expect(await page.getByRole("link", { name: "Open in wallet app" }).count()).toBe(0);
    expect(await accessibilityViolations(page), "pay on TRON").toEqual([]);
    await page.close();
  });
});
