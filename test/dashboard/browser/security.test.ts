// @module-tag browser
// Two-factor sign-in, sudo mode and the audit log in a real Chromium against the real service (on a
// test clock, so each sign-in gets a fresh 30-second code): setting up an authenticator app from the
// key the page shows (the test computes the codes with otplib, as an app would), signing out and in
// with a code (a wrong one announced first) and with a recovery code, a wallet change that asks for
// the password and code again and then goes through, the audit log, the page a required second
// factor leads to; axe-core on each new page and on the dialog.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, launchBrowser } from "../../support/browser.ts";
import { manualClock } from "../../support/clock.ts";
import { dashboardUser, signedInAs, signInBrowser, signInWithPassword, TEST_PASSWORD, totpCode } from "../../support/dashboard.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";

const BIP84_ZPUB = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs";
const MOBILE = { width: 375, height: 812 };
const DESKTOP = { width: 1280, height: 800 };
const WAIT = { timeout: 20_000 };
const STEP = 30_000;

const clock = manualClock();
let browser: Browser;
let t: TestGateway;
let merchantId: number;
beforeAll(async () => {
  [browser, t] = await Promise.all([launchBrowser(), startTestGateway({ clock })]);
  merchantId = (await t.merchant({ name: "Secure Shop", kyb: "VERIFIED" })).id;
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function open(viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(error.message));
  return { context, page, problems };
}

const h1 = (page: Page, name: string | RegExp) => page.getByRole("heading", { level: 1, name }).waitFor(WAIT);
const focusedId = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id);

describe("two-factor authentication in a browser", () => {
  it("sets up an app, signs in with a code and with a recovery code, asks again before a wallet change, and logs it all", async () => {
    const owner = await dashboardUser(t, merchantId, "owner");
    const { context, page, problems } = await open(MOBILE);
    await signInWithPassword(page, t.url, owner.email);
    await h1(page, "Home");

    // Setting up: the QR code and the key, then one code of the app turns it on.
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Security" }).click();
    await h1(page, "Security");
    expect(await page.locator("#second-factor-status").textContent()).toMatch(/^Off\./);
    await expectAccessible(page, "security page, off, 375 px");
    await page.getByRole("button", { name: "Set up an authenticator app" }).click();
    await page.getByRole("heading", { name: "Scan this code with your authenticator app" }).waitFor(WAIT);
    await expect.poll(() => focusedId(page), WAIT).toBe("enrol-title");
    expect(await page.getByRole("img", { name: /QR code for your authenticator app/ }).getAttribute("src")).toMatch(/^data:image\/png;base64,/);
    const secret = (await page.locator("#totp-secret").textContent()) ?? "";
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await expectAccessible(page, "security page, enrolling, 375 px");
    await page.getByLabel("Code from the app").fill("000000" === (await totpCode(secret, clock.now())) ? "111111" : "000000");
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.locator("#confirm-error .alert").waitFor(WAIT);
    expect(await page.locator("#confirm-error").getAttribute("role")).toBe("alert");
    expect(await page.locator("#confirm-error").textContent()).toMatch(/code is not the one your authenticator app shows/);
    await page.getByLabel("Code from the app").fill(await totpCode(secret, clock.now()));
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.getByRole("heading", { name: "Two-factor authentication is on: save your recovery codes" }).waitFor(WAIT);
    await expect.poll(() => focusedId(page), WAIT).toBe("recovery-title");
    const recoveryCodes = await page.locator("#recovery-codes li code").allTextContents();
    expect(recoveryCodes).toHaveLength(10);
    await expectAccessible(page, "security page, recovery codes, 375 px");

    // Signed out, the password alone is not enough: a wrong code is announced, the app's code signs in.
    await page.getByRole("banner").getByRole("button", { name: "Sign out", exact: true }).click();
    clock.advance(STEP);
    await signInWithPassword(page, t.url, owner.email);
    await h1(page, "Two-factor authentication");
    await expect.poll(() => focusedId(page), WAIT).toBe("sign-in-code");
    await expectAccessible(page, "sign-in, second step, 375 px");
    await page.getByLabel("Authentication code").fill(await totpCode(secret, new Date(clock.now().getTime() + 10 * STEP)));
    await page.keyboard.press("Enter");
    await page.getByRole("alert").filter({ hasText: "The authentication code is incorrect" }).waitFor(WAIT);
    await expect.poll(() => focusedId(page), WAIT).toBe("sign-in-code");
    await page.getByLabel("Authentication code").fill(await totpCode(secret, clock.now()));
    await page.keyboard.press("Enter");
    await h1(page, "Home");

    // And with a recovery code.
    await page.getByRole("banner").getByRole("button", { name: "Sign out", exact: true }).click();
    await signInWithPassword(page, t.url, owner.email);
    await h1(page, "Two-factor authentication");
    await page.getByLabel("Authentication code").fill(recoveryCodes[0] ?? "");
    await page.keyboard.press("Enter");
    await h1(page, "Home");

    // Eleven minutes on, a wallet change asks for the password and a code again, then goes through.
    clock.advance(11 * 60_000);
    await page.setViewportSize(DESKTOP);
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Wallets" }).click();
    await h1(page, "Wallets");
    await page.getByRole("group", { name: "Mode" }).getByRole("link", { name: "Live" }).click();
    await page.waitForURL(/mode=live/, WAIT);
    await page.getByLabel("Coin").selectOption("BTC");
    await page.getByLabel("Account extended public key").fill(BIP84_ZPUB);
    await page.getByRole("button", { name: "Preview" }).click();
    const dialog = page.getByRole("dialog", { name: "Confirm it is you" });
    await dialog.waitFor(WAIT);
    await expect.poll(() => focusedId(page), WAIT).toBe("reauth-password");
    await expectAccessible(page, "re-authentication dialog");
    await dialog.getByLabel("Password").fill("not the password");
    await dialog.getByLabel("Authentication code").fill(await totpCode(secret, clock.now()));
    await dialog.getByRole("button", { name: "Confirm" }).click();
    await dialog.getByRole("alert").filter({ hasText: "The password is incorrect" }).waitFor(WAIT);
    await expect.poll(() => focusedId(page), WAIT).toBe("reauth-password");
    expect(
      (await t.gateway.merchants.listWallets(t.gateway.access.operator(merchantId))).find((w) => w.currency === "BTC" && w.mode === "live")
        ?.extendedPublicKey,
    ).toBeNull();
    clock.advance(STEP);
    await dialog.getByLabel("Password").fill(TEST_PASSWORD);
    await dialog.getByLabel("Authentication code").fill(await totpCode(secret, clock.now()));
    await dialog.getByRole("button", { name: "Confirm" }).click();
    await dialog.waitFor({ state: "detached", ...WAIT });
    // The preview was sent again: its addresses are shown, and Confirm saves the key.
    await page.getByRole("heading", { name: "Compare these BTC addresses with your wallet" }).waitFor(WAIT);
    await page.getByRole("button", { name: "Confirm" }).click();
    await page.locator("#wallet-saved").waitFor(WAIT);
    expect(
      (await t.gateway.merchants.listWallets(t.gateway.access.operator(merchantId))).find((w) => w.currency === "BTC" && w.mode === "live")
        ?.extendedPublicKey,
    ).toBe("zpub6rFR7y…GutZYs");

    // The audit log shows it all, newest first.
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Audit log" }).click();
    await h1(page, "Audit log");
    const actions = await page.locator("#audit-log td[data-label=Action]").allTextContents();
    expect(actions.slice(0, 5)).toEqual(["wallet.set", "sign_in", "sign_in", "sign_in.second_factor_failed", "second_factor.enable"]);
    expect(await page.locator("#audit-log tr").nth(1).locator("td[data-label=What]").textContent()).toBe("BTC live zpub6rFR7y…GutZYs");
    expect(await page.locator("#audit-log tr").nth(1).locator("td[data-label=Who]").textContent()).toBe(owner.email);
    expect(await page.content()).not.toContain(secret);
    await expectAccessible(page, "audit log, desktop");
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000); // A long walk through many pages: more than the 30 s default when CI runs test files side by side.

  it("cancelling the dialog leaves the change undone and says why", async () => {
    const client = await signedInAs(t, merchantId, "developer");
    const { context, page, problems } = await open();
    await signInBrowser(context, t, client);
    clock.advance(11 * 60_000);
    await page.goto(`${t.url}/dashboard/webhooks`);
    await h1(page, "Webhooks");
    const before = (await t.gateway.merchants.settings(t.gateway.access.operator(merchantId))).webhookUrls.test;
    await page.getByLabel("Webhook URL (test mode)").fill("https://attacker.example/hooks");
    await page.getByRole("button", { name: "Save URL" }).click();
    const dialog = page.getByRole("dialog", { name: "Confirm it is you" });
    await dialog.waitFor(WAIT);
    // Without a second factor, the password only.
    expect(await dialog.getByLabel("Authentication code").count()).toBe(0);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached", ...WAIT });
    await page.locator("#webhook-url-error .alert").waitFor(WAIT);
    expect(await page.locator("#webhook-url-error").textContent()).toMatch(/This change needs your password again/);
    expect((await t.gateway.merchants.settings(t.gateway.access.operator(merchantId))).webhookUrls.test).toBe(before);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("leads an owner without a second factor to the Security page when the service requires one", async () => {
    const strict = await startTestGateway({ sameDatabaseAs: t, clock, dashboard: { requireSecondFactor: true } });
    try {
      const client = await signedInAs(strict, merchantId, "owner");
      const { context, page, problems } = await open(MOBILE);
      await signInBrowser(context, strict, client);
      await page.goto(`${strict.url}/dashboard/wallets`);
      await h1(page, "Security");
      expect(page.url()).toBe(`${strict.url}/dashboard/security`);
      expect(await page.locator("#enrolment-required").textContent()).toMatch(/requires two-factor authentication for owners and developers/);
      expect(await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link").allTextContents()).toEqual(["Security"]);
      await expectAccessible(page, "security page, enrolment required, 375 px");
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      await strict.close();
    }
  });
});
