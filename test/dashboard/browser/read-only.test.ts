// @module-tag browser
// A deactivated merchant's dashboard in a real Chromium: a banner above every page says why nothing
// can be changed (and who can reactivate it), the pages show no change controls and no misleading
// "your role" note, and axe-core finds nothing, at 375 px and on a desktop.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessibilityViolations, launchBrowser } from "../../support/browser.ts";
import { signedInAs, signInBrowser, type DashboardClient } from "../../support/dashboard.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";

let browser: Browser;
let t: TestGateway;
let merchantId: number;
let owner: DashboardClient;
beforeAll(async () => {
  [browser, t] = await Promise.all([launchBrowser(), startTestGateway()]);
  merchantId = (await t.merchant({ name: "Closed Stores", kyb: "VERIFIED" })).id;
  owner = await signedInAs(t, merchantId, "owner");
  await t.gateway.operator.updateMerchant(merchantId, { active: false });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const WAIT = { timeout: 20_000 };
const BANNER =
  /^This merchant is deactivated · the dashboard is read-only: .*reactivates the merchant \(paygate merchant update \d+ --active true\)\.$/;

async function openAs(client: DashboardClient, path: string, viewport: { width: number; height: number }) {
  const context = await browser.newContext({ viewport });
  await signInBrowser(context, t, client);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(error.message));
  await page.goto(t.url + path);
  return { context, page, problems };
}

const h1 = (page: Page, name: string) => page.getByRole("heading", { level: 1, name }).waitFor(WAIT);

describe("a deactivated merchant's dashboard in a browser", () => {
  it("shows the read-only banner on every page, no change controls, and passes axe-core", async () => {
    const { context, page, problems } = await openAs(owner, "/dashboard/api-keys", { width: 375, height: 812 });
    await h1(page, "API keys");
    const banner = page.locator("#read-only-banner");
    expect(await banner.isVisible()).toBe(true);
    expect((await banner.textContent())?.replace(/\s+/g, " ")).toMatch(BANNER);
    expect(await banner.textContent()).toContain(`paygate merchant update ${merchantId} --active true`);
    expect(await page.locator("main form").count()).toBe(0);
    expect(await page.getByText("Your role").count()).toBe(0);
    expect(await accessibilityViolations(page), "API keys, read-only, 375 px").toEqual([]);

    for (const [name, title] of [
      ["Webhooks", "Webhooks"],
      ["Wallets", "Wallets"],
      ["Payment links", "Payment links"],
      ["Pricing", "Pricing"],
      ["Users", "Users"],
    ] as const) {
      await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name }).click();
      await h1(page, title);
      expect(await banner.isVisible(), title).toBe(true);
      expect(await page.locator("main form").count(), title).toBe(0);
      expect(await page.locator("main select").count(), title).toBe(0);
      expect(await page.getByRole("button", { name: /Invite|Remove|Roll|Create|Deactivate|Rotate|Send/ }).count(), title).toBe(0);
      expect(await page.getByText(/Your role|Only an owner/).count(), title).toBe(0);
    }
    expect(await accessibilityViolations(page), "Users, read-only, 375 px").toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("passes axe-core on a desktop, and shows no banner once the merchant is active again", async () => {
    const { context, page, problems } = await openAs(owner, "/dashboard/webhooks", { width: 1280, height: 800 });
    await h1(page, "Webhooks");
    expect(await page.locator("#read-only-banner").isVisible()).toBe(true);
    expect(await accessibilityViolations(page), "Webhooks, read-only, desktop").toEqual([]);

    await t.gateway.operator.updateMerchant(merchantId, { active: true });
    try {
      await page.reload();
      await h1(page, "Webhooks");
      // The change controls come with the page's data, after its heading.
      await page.locator("main form").first().waitFor(WAIT);
      expect(await page.locator("#read-only-banner").isVisible()).toBe(false);
    } finally {
      await t.gateway.operator.updateMerchant(merchantId, { active: false });
    }
    expect(problems).toEqual([]);
    await context.close();
  });
});
