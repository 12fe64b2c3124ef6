// @module-tag browser
// The checkout for USDT on TRON (issue 25), in a real Chromium against the real service: a merchant
// with a TRON wallet, the customer picks USDT on TRON Nile, the page names the network, and its QR
// code holds the plain T-address (TRON has no payment-URI standard; wallets read the address), with
// no "Open in wallet app" link, which would have no scheme to open. axe-core checks the page.
import { describe, expect, it } from "vitest";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { createTronTestWallet } from "../../src/rails/wallets/tron.ts";
import { accessibilityViolations } from "../support/browser.ts";
import { decodeQr } from "../support/qr.ts";
import { checkoutFixture, heading, text, WAIT } from "./support.ts";

const USDT = cryptoBySlug("USDT") as CryptoCurrency;
const f = checkoutFixture({
  merchant: "Lagos Gadgets",
  setUp: async (t, keys) => {
    await t.gateway.operator.updateMerchant(keys.id, {
      wallets: [{ currency: USDT, network: "tron", isLive: false, extendedPublicKey: createTronTestWallet() }],
    });
  },
});

describe("USDT on TRON at the checkout", () => {
  it("names TRON, and the QR code holds the plain T-address, without a wallet link", async () => {
    const init = await f.initialize({ customer: { email: "ada@example.com" }, currency: "USD", amount: "40" }, { raw: true });
    const page = await f.open(init.checkoutUrl);
    await heading(page, "Choose how to pay");
    await page.getByRole("button", { name: /^Tether \(USDT\) on TRON Nile testnet \(TRC-20\)/ }).click();
    await page.getByRole("heading", { level: 2, name: "Pay with Tether" }).waitFor(WAIT);
    const data = await f.retrieve(init.id);
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
