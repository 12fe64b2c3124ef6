// @module-tag browser
// The dashboard's Settlement and Ledger pages in Chromium (issue 40): an owner sees each EVM network's
// forwarder setting, is told a bad settlement address next to the form (nothing saved), turns a
// setting off, and is refused a flush with the service's words; a viewer reads both pages without
// any change control. The ledger shows a paid payment's entry and totals, and its CSV link once a
// period has both ends. axe-core on each page at 375 px (no sideways scrolling) and on a desktop.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { accessibilityViolations, DESKTOP, expectNoSidewaysScroll, MOBILE, WAIT } from "../../support/browser.ts";
import { dashboardBrowserFixture, h1 } from "../../support/dashboard.ts";

const FACTORY = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const DESTINATION = "0x52908400098527886E0F7030069857D2E4169EE7";
// anvil's first dev key: a fee payer for the configuration only (no node is asked here).
// A port nothing listens on: the fee payer's node does not answer.
const NO_NODE = "http://127.0.0.1:9";
const FEE_PAYER_KEY = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

const d = dashboardBrowserFixture({
  merchant: () => ({ name: "Settle Studio" }),
  gateway: { env: { PAYGATE_ETH_TEST_FORWARDER_FACTORY: FACTORY, PAYGATE_ETH_TEST_FEE_PAYER_KEY: FEE_PAYER_KEY, PAYGATE_ETH_TEST_RPC_URL: NO_NODE } },
});
const { openAs } = d;

const text = async (page: Page, selector: string) => ((await page.locator(selector).first().textContent()) ?? "").replace(/\s+/g, " ").trim();
/** The cells of a table's first body row, as read. */
const firstRow = (page: Page, table: string) => page.locator(`${table} tbody tr`).first().locator("td").allTextContents();
const secret = () => ({ authorization: `Bearer ${d.merchant.testSecretKey}`, "content-type": "application/json" });

describe("the Settlement page", () => {
  it("an owner sees the settings, is told a bad address, turns a setting off, and sees a refused flush in words", async () => {
    await d.t.db.settlementSetting.create({
      data: { merchantId: d.merchant.id, network: "ethereum", isLive: false, mode: "forwarder", destination: DESTINATION, updatedAt: new Date() },
    });
    const { page, problems, context } = await openAs("owner", "/dashboard/settlement", MOBILE);
    await h1(page, "Settlement");
    await page.locator("#forwarder-settings table").waitFor(WAIT);
    const rows = page.locator("#forwarder-settings tbody tr");
    expect(await rows.count()).toBe(5);
    expect((await firstRow(page, "#forwarder-settings")).slice(0, 2)).toEqual(["Ethereum Sepolia testnet", `Forwarders to ${DESTINATION}`]);
    expect(await rows.nth(1).textContent()).toContain("Off: the merchant's own addresses");
    await page.getByText("No flushes in test mode yet.").waitFor(WAIT);
    await page.locator("#fee-payers table").waitFor(WAIT);
    const payer = await firstRow(page, "#fee-payers");
    expect(payer[0]).toBe("Ethereum Sepolia testnet");
    expect(payer[3]).toMatch(/^Unavailable: /);
    expect((await page.locator("#fee-payers tbody tr").nth(1).locator("td").allTextContents())[3]).toBe("Not configured");
    expect(await accessibilityViolations(page), "settlement, 375 px").toEqual([]);
    await expectNoSidewaysScroll(page, "settlement, 375 px");

    await page.getByLabel("Settlement address").fill("0x1234");
    await page.getByRole("button", { name: "Use forwarders" }).click();
    await page.locator("#forwarder-error .alert").waitFor(WAIT);
    expect(await text(page, "#forwarder-error")).toMatch(/destination is not an address of Ethereum Sepolia testnet/);
    expect(await d.t.db.settlementSetting.count({ where: { merchantId: d.merchant.id } })).toBe(1);

    await page.getByRole("button", { name: "Turn off on Ethereum Sepolia testnet" }).click();
    await expect.poll(async () => (await firstRow(page, "#forwarder-settings"))[1], WAIT).toBe("Off: the merchant's own addresses");
    expect(await d.t.db.settlementSetting.count({ where: { merchantId: d.merchant.id } })).toBe(0);

    // Nothing settled to flush: the service's refusal is shown in its words.
    await page.getByRole("button", { name: "Flush now" }).click();
    await page.locator("#flush-error .alert").waitFor(WAIT);
    expect(await text(page, "#flush-error")).toBe(
      "Nothing to flush: no successful Ethereum Sepolia testnet test mode payment past its finality depth has a forwarder that is not flushed yet",
    );
    expect(await d.t.db.forwarderFlush.count({ where: { merchantId: d.merchant.id } })).toBe(0);
    expect(await accessibilityViolations(page), "settlement after changes, 375 px").toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("a viewer reads the page without any change control", async () => {
    const { page, context } = await openAs("viewer", "/dashboard/settlement", DESKTOP);
    await h1(page, "Settlement");
    await page.locator("#forwarder-settings table").waitFor(WAIT);
    expect(await page.locator("#forwarder-form, #flush-form").count()).toBe(0);
    expect(await page.getByRole("button", { name: /Turn off|Flush now|Use forwarders/ }).count()).toBe(0);
    expect(await text(page, ".lead")).toContain("owners and developers can change it and flush");
    expect(await accessibilityViolations(page), "settlement, viewer, desktop").toEqual([]);
    await context.close();
  }, 120_000);
});

describe("the Ledger page", () => {
  it("shows a paid payment's entry and totals, and the CSV link once the period has both ends", async () => {
    const init = await fetch(`${d.t.url}/v1/transaction`, {
      method: "POST",
      headers: { authorization: `Bearer ${d.merchant.testPublicKey}`, "content-type": "application/json" },
      body: JSON.stringify({ customer: { email: "ada@example.com" }, currency: "USD", amount: "100", reference: "ledger-ref-1" }),
    });
    const id = ((await init.json()) as { data: { id: string } }).data.id;
    expect(
      (await fetch(`${d.t.url}/v1/transaction/${id}/pay`, { method: "POST", headers: secret(), body: JSON.stringify({ currency_id: "4" }) })).status,
    ).toBe(200);
    expect((await fetch(`${d.t.url}/v1/test_helpers/transaction/${id}/payment`, { method: "POST", headers: secret(), body: "{}" })).status).toBe(200);

    const { page, problems, context } = await openAs("viewer", "/dashboard/ledger", MOBILE);
    await h1(page, "Ledger");
    await page.locator("#ledger-totals table").waitFor(WAIT);
    const totals = await firstRow(page, "#ledger-totals");
    expect(totals.slice(0, 3)).toEqual(["BTC", "bitcoin", "1"]);
    // Received and net are the same exact amount (no refunds, no fees): the API's decimal string as given.
    expect(totals[3]).toMatch(/^0\.\d{8}$/);
    expect(totals[9]).toBe(totals[3]);
    expect((await firstRow(page, "#ledger-entries")).slice(1, 6)).toEqual(["receipt", "in", "BTC", "bitcoin", totals[3]]);
    expect(await text(page, "#ledger-csv")).toBe("Choose a start and an end to download the period as CSV.");
    expect(await accessibilityViolations(page), "ledger, 375 px").toEqual([]);
    await expectNoSidewaysScroll(page, "ledger, 375 px");

    await page.getByLabel("From (inclusive)").fill("2000-01-01");
    await page.getByLabel("To (exclusive)").fill("2100-01-01");
    await page.getByRole("button", { name: "Show" }).click();
    await page.locator("#ledger-csv-link").waitFor(WAIT);
    const href = (await page.locator("#ledger-csv-link").getAttribute("href")) ?? "";
    expect(href).toBe("/dashboard/api/ledger/entries.csv?from=2000-01-01&to=2100-01-01&mode=test");
    const csv = await page.evaluate(async (url) => (await fetch(url)).text(), href);
    expect(csv).toContain(id);

    // A period that ends before the payment holds nothing.
    await page.getByLabel("To (exclusive)").fill("2000-01-02");
    await page.getByRole("button", { name: "Show" }).click();
    await expect.poll(() => text(page, "#ledger-totals"), WAIT).toBe("No entries in this period.");
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
