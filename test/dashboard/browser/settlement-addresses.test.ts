// @module-tag browser
// The Settlement page's TRON and sweep sections in Chromium (issue 40): an owner turns own addresses on
// with k addresses and off, sees an open unmatched receipt with "Assign to a transaction" (an unknown
// transaction's refusal shown next to the form, nothing changed) and "Mark refunded" (the receipt is
// refunded), and asks for a sweep plan (a missing destination named, then an empty plan with the words
// that sweeping runs on the merchant's machine); a viewer reads the sections without any action.
// axe-core at 375 px (no sideways scrolling) and on a desktop.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { accessibilityViolations, DESKTOP, expectNoSidewaysScroll, MOBILE, WAIT } from "../../support/browser.ts";
import { dashboardBrowserFixture, h1 } from "../../support/dashboard.ts";

const DESTINATION = "0x52908400098527886E0F7030069857D2E4169EE7";
const RECEIPT = "ur_12345678-1234-4123-8123-123456789abc";
const ADDRESS = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
const REFUND_HASH = "cd".repeat(32);

const d = dashboardBrowserFixture({ merchant: () => ({ name: "Own Address Studio" }) });
const { openAs } = d;

const text = async (page: Page, selector: string) => ((await page.locator(selector).first().textContent()) ?? "").replace(/\s+/g, " ").trim();

async function openReceipt(): Promise<void> {
  const now = new Date();
  await d.t.db.unmatchedReceipt.create({
    data: {
      id: RECEIPT,
      merchantId: d.merchant.id,
      isLive: false,
      network: "tron",
      address: ADDRESS,
      currencyId: 3,
      amount: "12.345678",
      key: `${"ef".repeat(32)}:0`,
      txHash: "ef".repeat(32),
      logIndex: 0,
      blockHeight: 7,
      confirmations: 20,
      seenAt: now,
      state: "open",
      updatedAt: now,
    },
  });
}

describe("the Settlement page's own addresses, unmatched receipts and sweep plan", () => {
  it("an owner turns own addresses on and off, settles an open receipt and asks for a sweep plan", async () => {
    await openReceipt();
    const { page, problems, context } = await openAs("owner", "/dashboard/settlement", MOBILE);
    await h1(page, "Settlement");
    await page.locator("#unmatched-receipts table").waitFor(WAIT);
    expect(await text(page, "#own-address-state")).toBe("Off: each new TRON Nile testnet payment gets a fresh address.");
    const cells = await page.locator("#unmatched-receipts tbody tr").first().locator("td").allTextContents();
    expect([cells[0], cells[1], cells[2], cells[5]]).toEqual(["12.345678", "USDT", ADDRESS, "Open"]);
    expect(await page.getByRole("button", { name: "Assign to a transaction" }).count()).toBe(1);
    expect(await accessibilityViolations(page), "settlement with own addresses, 375 px").toEqual([]);
    await expectNoSidewaysScroll(page, "settlement with own addresses, 375 px");

    // Own addresses: a count out of range is named next to the form, then on with 2, then off.
    await page.getByLabel("Number of own addresses").fill("11");
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.locator("#own-address-error .alert").waitFor(WAIT);
    expect(await text(page, "#own-address-error")).toBe("address_count must be an integer from 1 to 10");
    await page.getByLabel("Number of own addresses").fill("2");
    await page.getByRole("button", { name: "Turn on" }).click();
    await expect
      .poll(() => text(page, "#own-address-state"), WAIT)
      .toBe("On: new TRON Nile testnet payments go to 2 own addresses, told apart by amount.");
    expect(await d.t.db.settlementSetting.count({ where: { merchantId: d.merchant.id, network: "tron", addressCount: 2 } })).toBe(1);
    await page.getByRole("button", { name: "Turn off on TRON Nile testnet" }).click();
    await expect.poll(() => text(page, "#own-address-state"), WAIT).toBe("Off: each new TRON Nile testnet payment gets a fresh address.");
    expect(await d.t.db.settlementSetting.count({ where: { merchantId: d.merchant.id } })).toBe(0);

    // An unknown transaction: the service's refusal next to the receipt's forms; the receipt stays open.
    await page.getByLabel("Transaction id").fill("tx_unknown");
    await page.getByRole("button", { name: "Assign to a transaction" }).click();
    await page.locator(`#receipt-${RECEIPT}-error .alert`).waitFor(WAIT);
    expect(await text(page, `#receipt-${RECEIPT}-error`)).toMatch(/tx_unknown/);
    expect((await d.t.db.unmatchedReceipt.findUniqueOrThrow({ where: { id: RECEIPT } })).state).toBe("open");

    await page.getByLabel("Refund transaction hash").fill(REFUND_HASH);
    await page.getByRole("button", { name: "Mark refunded" }).click();
    await expect
      .poll(async () => (await page.locator("#unmatched-receipts tbody tr").first().locator("td").allTextContents())[5], WAIT)
      .toMatch(/^Refunded in /);
    expect(await d.t.db.unmatchedReceipt.findUniqueOrThrow({ where: { id: RECEIPT } })).toMatchObject({ state: "refunded" });
    expect(await page.getByRole("button", { name: "Mark refunded" }).count()).toBe(0);

    // The sweep plan: no forwarder setting, so a destination is needed; then an empty plan.
    expect(await text(page, "#sweep-note")).toContain("Sweeping runs on your own machine with the sweep tool (tools/sweep)");
    await page.getByRole("button", { name: "Show plan" }).click();
    await page.locator("#sweep-error .alert").waitFor(WAIT);
    expect(await text(page, "#sweep-error")).toBe(
      "destination is required: the merchant has no forwarder setting on ethereum whose address the funds could go to",
    );
    await page.getByLabel("Destination (optional)").fill(DESTINATION);
    await page.getByRole("button", { name: "Show plan" }).click();
    await page.locator("#sweep-summary").waitFor(WAIT);
    expect(await text(page, "#sweep-summary")).toBe(`Ethereum Sepolia testnet, to ${DESTINATION}: 0 addresses hold funds (0 payments read).`);
    expect(await text(page, "#sweep-empty")).toBe("No address of a settled payment holds funds.");
    expect(await text(page, "#sweep-fees")).toMatch(/^Fees: 0 ETH /);
    expect(await accessibilityViolations(page), "settlement after changes and a plan, 375 px").toEqual([]);
    await expectNoSidewaysScroll(page, "settlement after a plan, 375 px");
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("a viewer reads the setting and the receipts without any action or sweep plan form", async () => {
    await d.t.db.settlementSetting.create({
      data: {
        merchantId: d.merchant.id,
        network: "tron",
        isLive: false,
        mode: "own_addresses",
        destination: "",
        addressCount: 3,
        updatedAt: new Date(),
      },
    });
    const { page, problems, context } = await openAs("viewer", "/dashboard/settlement", MOBILE);
    await h1(page, "Settlement");
    await page.locator("#unmatched-receipts table").waitFor(WAIT);
    expect(await text(page, "#own-address-state")).toBe("On: new TRON Nile testnet payments go to 3 own addresses, told apart by amount.");
    expect(await page.locator("#own-address-form, #sweep-form, .receipt-actions").count()).toBe(0);
    expect(await page.getByRole("button", { name: /Turn on|Change|Turn off on TRON|Assign to a transaction|Mark refunded|Show plan/ }).count()).toBe(
      0,
    );
    expect(await text(page, "#sweep-plan")).toContain("Sweeping runs on your own machine");
    expect(await accessibilityViolations(page), "settlement, viewer, 375 px").toEqual([]);
    await expectNoSidewaysScroll(page, "settlement, viewer, 375 px");
    await page.setViewportSize(DESKTOP);
    expect(await accessibilityViolations(page), "settlement, viewer, desktop").toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
