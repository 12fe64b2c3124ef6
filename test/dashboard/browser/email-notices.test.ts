// @module-tag browser
// Issue 44 in a real Chromium: a user turns its own e-mail notices on from the Security page and sets
// their language (off and English by default, saved, read back after a reload), and an invoice's page lists its e-mails to the customer,
// saying that e-mail is off when PAYGATE_SMTP_URL is not set; axe-core on both, at 375 px and desktop.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, launchBrowser } from "../../support/browser.ts";
import { dashboardUser, signInWithPassword } from "../../support/dashboard.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";

const MOBILE = { width: 375, height: 812 };
const DESKTOP = { width: 1280, height: 800 };
const WAIT = { timeout: 20_000 };

let browser: Browser;
let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
beforeAll(async () => {
  [browser, t] = await Promise.all([launchBrowser(), startTestGateway()]);
  keys = await t.merchant({ name: "Notice Shop" });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe("e-mail in the dashboard", () => {
  it("turns the user's own notices on from the Security page", async () => {
    const user = await dashboardUser(t, keys.id, "viewer");
    const context = await browser.newContext({ viewport: MOBILE });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    await signInWithPassword(page, t.url, user.email);
    await page.getByRole("heading", { level: 1, name: "Home" }).waitFor(WAIT);
    await page.goto(`${t.url}/dashboard/security`);
    await page.getByRole("heading", { level: 2, name: "E-mail notices" }).waitFor(WAIT);
    const box = page.getByRole("checkbox", {
      name: /E-mail me .* when a payment is received, a webhook endpoint is disabled or a transfer matches no payment/,
    });
    expect(await box.isChecked()).toBe(false);
    expect(await page.getByText("E-mail is off: PAYGATE_SMTP_URL is not set, so nothing is sent.").count()).toBe(1);
    await expectAccessible(page, "security page with e-mail notices, 375 px");
    const language = page.getByLabel("Language of the notices");
    expect(await language.inputValue()).toBe("en");
    await box.check();
    await language.selectOption("fr");
    await page.getByRole("button", { name: "Save" }).click();
    await page.locator("#email-notices-error").getByText("You will get the merchant's notices by e-mail, in Français.").waitFor(WAIT);
    expect(await t.db.dashboardUser.findUniqueOrThrow({ where: { id: user.userId } })).toMatchObject({ emailNotices: true, noticeLocale: "fr" });
    await page.reload();
    await page.getByRole("heading", { level: 2, name: "E-mail notices" }).waitFor(WAIT);
    await expect.poll(() => page.locator("#email-notices").isChecked(), WAIT).toBe(true);
    expect(await page.locator("#notice-language").inputValue()).toBe("fr");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("lists an invoice's e-mails, saying e-mail is off", async () => {
    const made = await t.post(
      "/v1/invoices",
      {
        customer: { email: "client@example.com" },
        currency: "USD",
        items: [{ description: "Poster", quantity: 1, unit_price: "40.00" }],
        finalize: true,
      },
      { authorization: `Bearer ${keys.testSecretKey}` },
    );
    expect(made.status).toBe(201);
    await t.gateway.email.follow();
    const owner = await dashboardUser(t, keys.id, "owner");
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await signInWithPassword(page, t.url, owner.email);
    await page.getByRole("heading", { level: 1, name: "Home" }).waitFor(WAIT);
    await page.goto(`${t.url}/dashboard/invoice?id=${made.body.data.id}&mode=test`);
    await page.getByRole("heading", { level: 2, name: "E-mails to the customer" }).waitFor(WAIT);
    const section = page.locator("#invoice-emails");
    await section.getByText("E-mail is off: PAYGATE_SMTP_URL is not set, so nothing is sent to customers.").waitFor(WAIT);
    const row = section.getByRole("row", { name: /Invoice \(PDF attached\)/ });
    expect(await row.textContent()).toContain("client@example.com");
    expect(await row.textContent()).toContain("skipped");
    expect(await row.textContent()).toContain("not sent: PAYGATE_SMTP_URL is not set");
    await expectAccessible(page, "invoice page with its e-mails, desktop");
    await context.close();
  });
});
