// @module-tag browser
// The checkout when a coin is paid on several networks (issue 25), in a real Chromium against the real
// service: USDT on Ethereum and on BNB Smart Chain are two choices named by the API's network names,
// the customer picks BSC, and the page says the network in words, warns that a transfer on another
// network is lost, and its QR code holds that network's EIP-681 URI (chain 97). axe-core checks both.
import { describe, expect, it } from "vitest";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { USDT_BSC_TESTNET_CONTRACT } from "../../src/core/networks.ts";
import { HdWalletRails } from "../../src/rails/wallets/index.ts";
import { accessibilityViolations } from "../support/browser.ts";
import { decodeQr } from "../support/qr.ts";
import { checkoutFixture, heading, text, WAIT } from "./support.ts";

const USDT = cryptoBySlug("USDT") as CryptoCurrency;
const f = checkoutFixture({
  merchant: "Two Chains Ltd",
  setUp: async (t, keys) => {
    const key = new HdWalletRails().createTestWallet(USDT, "bsc");
    await t.gateway.operator.updateMerchant(keys.id, { wallets: [{ currency: USDT, network: "bsc", isLive: false, extendedPublicKey: key }] });
  },
});

describe("a coin on several networks", () => {
  it("asks which network, names it, warns about the others, and the QR holds that network's URI", async () => {
    const init = await f.initialize({ customer: { email: "ada@example.com" }, currency: "USD", amount: "100" }, { raw: true });
    const page = await f.open(init.checkoutUrl);
    await heading(page, "Choose how to pay");
    const usdt = page.locator("button.coin", { hasText: "Tether (USDT)" });
    // Ethereum and bsc, and the new merchant's own test wallets on tron, polygon and arbitrum (issue 43).
    expect(await usdt.count()).toBe(5);
    expect(await usdt.nth(0).locator(".coin-network").textContent()).toBe(" on Ethereum Sepolia testnet (ERC-20)");
    expect(await usdt.nth(1).locator(".coin-network").textContent()).toBe(" on BNB Smart Chain testnet (BEP-20)");
    // A coin on one network is named as before, without one.
    expect(await page.locator("button.coin", { hasText: "Bitcoin (BTC)" }).locator(".coin-network").count()).toBe(0);
    expect(await accessibilityViolations(page), "choose among networks").toEqual([]);

    await page.getByRole("button", { name: /^Tether \(USDT\) on BNB Smart Chain testnet \(BEP-20\)/ }).click();
    await page.getByRole("heading", { level: 2, name: "Pay with Tether" }).waitFor(WAIT);
    const data = await f.retrieve(init.id);
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
