// @module-tag browser
// Security keys in a real Chromium against the real service, with a virtual authenticator of the
// DevTools protocol's WebAuthn domain (CTAP2 over USB, user verification on): registering a key on
// the Security page, signing out and in with the password and the key, removing the key after the
// re-authentication dialog asked for the password and the key again; axe-core on each new state.
// The service's address is http://localhost:PORT: WebAuthn needs a secure context (loopback is one)
// and an RP ID that is a domain (127.0.0.1 is refused as one).
import type { Browser, CDPSession, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, launchBrowser } from "../../support/browser.ts";
import { manualClock } from "../../support/clock.ts";
import { dashboardUser, signInWithPassword, TEST_PASSWORD } from "../../support/dashboard.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";

const WAIT = { timeout: 20_000 };
const clock = manualClock();
let browser: Browser;
let t: TestGateway;
let merchantId: number;
beforeAll(async () => {
  [browser, t] = await Promise.all([launchBrowser(), startTestGateway({ clock, hostName: "localhost" })]);
  merchantId = (await t.merchant({ name: "Key Shop", kyb: "VERIFIED" })).id;
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const h1 = (page: Page, name: string | RegExp) => page.getByRole("heading", { level: 1, name }).waitFor(WAIT);
const nav = (page: Page) => page.getByRole("navigation", { name: "Dashboard" });

/** The virtual authenticator's credentials, as the key itself holds them. */
async function credentialsOf(cdp: CDPSession, authenticatorId: string) {
  return (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials;
}

describe("security keys in a browser", () => {
  it("registers a key, signs in with the password and the key, and removes it after asking for both again", async () => {
    const user = await dashboardUser(t, merchantId, "owner");
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    const cdp = await context.newCDPSession(page);
    await cdp.send("WebAuthn.enable");
    const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: { protocol: "ctap2", transport: "usb", hasResidentKey: false, hasUserVerification: true, isUserVerified: true },
    });

    await signInWithPassword(page, t.url, user.email);
    await h1(page, "Home");
    await nav(page).getByRole("link", { name: "Security" }).click();
    await h1(page, "Security");
    expect(await page.locator("#security-keys-status").textContent()).toMatch(/^None\./);
    await expectAccessible(page, "security page, no key");

    // A name first: without one, the page says so and asks the browser nothing.
    await page.getByRole("button", { name: "Add a security key" }).click();
    await page.locator("#security-key-error").getByText("Enter a name for the key").waitFor(WAIT);
    expect(await credentialsOf(cdp, authenticatorId)).toHaveLength(0);
    await page.getByLabel("Name of the key").fill("Keyring key");
    await page.getByRole("button", { name: "Add a security key" }).click();
    await page.locator("#security-keys-status").getByText("1 registered").waitFor(WAIT);
    expect(await page.locator("td[data-label=Name]").allTextContents()).toEqual(["Keyring key"]);
    expect(await page.locator("#second-factor-status").textContent()).toBe("Off. Signing in asks for one of your security keys instead.");
    await expectAccessible(page, "security page, one key");
    const [credential] = await credentialsOf(cdp, authenticatorId);
    const [stored, ...others] = await t.db.dashboardSecurityKey.findMany({ where: { userId: user.userId } });
    expect(others).toHaveLength(0);
    expect(stored?.credentialId).toBe(Buffer.from(credential?.credentialId ?? "", "base64").toString("base64url"));
    expect(stored?.transports).toEqual(["usb"]);

    // Signed out, the password leads to the key.
    await page.getByRole("banner").getByRole("button", { name: "Sign out", exact: true }).click();
    await signInWithPassword(page, t.url, user.email);
    await h1(page, "Two-factor authentication");
    expect(await page.getByLabel("Authentication code").count()).toBe(0);
    await expectAccessible(page, "sign-in, security key step");
    await page.getByRole("button", { name: "Use your security key" }).click();
    await h1(page, "Home");
    const used = await t.db.dashboardSecurityKey.findUniqueOrThrow({ where: { id: stored?.id ?? "" } });
    expect(used.counter).toBe(BigInt((await credentialsOf(cdp, authenticatorId))[0]?.signCount ?? -1));
    expect(used.counter > 0n).toBe(true);

    // Eleven minutes on, removing the key asks for the password and the key again.
    clock.advance(11 * 60_000);
    await nav(page).getByRole("link", { name: "Security" }).click();
    await h1(page, "Security");
    await page.getByRole("button", { name: "Remove Keyring key" }).click();
    const dialog = page.getByRole("dialog", { name: "Confirm it is you" });
    await dialog.waitFor(WAIT);
    await expectAccessible(page, "re-authentication dialog, security key");
    expect(await dialog.getByLabel("Authentication code").count()).toBe(0);
    await dialog.getByLabel("Password").fill(TEST_PASSWORD);
    await dialog.getByRole("button", { name: "Confirm with your security key" }).click();
    await dialog.waitFor({ state: "detached", ...WAIT });
    await page
      .locator("#security-keys-status")
      .getByText(/^None\./)
      .waitFor(WAIT);
    expect(await t.db.dashboardSecurityKey.count({ where: { userId: user.userId } })).toBe(0);

    const audit = await t.db.auditLogEntry.findMany({ where: { actorUserId: user.userId }, orderBy: { id: "asc" } });
    expect(audit.map((e) => `${e.action} ${e.target}`)).toEqual([
      "sign_in password",
      'security_key.add "Keyring key"',
      'sign_in password and security key "Keyring key"',
      'security_key.remove "Keyring key"',
    ]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
