// @module-tag browser
// The dashboard in a real Chromium against the real service: signing in with the keyboard, the
// shell (merchant, KYB, the test/live switch, the navigation), inviting a user and using the link
// in a second browser, a viewer without change controls, signing out; axe-core on each page, at
// 375 px and on a desktop.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessibilityViolations, launchBrowser } from "../../support/browser.ts";
import { dashboardUser, signedInAs, signInBrowser } from "../../support/dashboard.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";

let browser: Browser;
let t: TestGateway;
let merchantId: number;
let owner: { email: string; password: string };
beforeAll(async () => {
  [browser, t] = await Promise.all([launchBrowser(), startTestGateway()]);
  merchantId = (await t.merchant({ name: "Acme Stores", kyb: "PENDING" })).id;
  owner = await dashboardUser(t, merchantId, "owner", "owner@acme.example");
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const MOBILE = { width: 375, height: 812 };
const DESKTOP = { width: 1280, height: 800 };
const WAIT = { timeout: 20_000 };

interface Opened {
  context: BrowserContext;
  page: Page;
  problems: string[];
}

async function open(path: string, viewport = MOBILE): Promise<Opened> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("console", (message) => {
    // A 401 of GET /session before signing in is the page asking, not a problem.
    if (message.type() === "error" && !/Failed to load resource/.test(message.text())) problems.push(message.text());
  });
  await page.goto(t.url + path);
  return { context, page, problems };
}

async function expectAccessible(page: Page, state: string) {
  expect(await accessibilityViolations(page), state).toEqual([]);
}

async function expectNoHorizontalScroll(page: Page) {
  const { scrollWidth, clientWidth } = await page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
    return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth };
  });
  expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
}

const h1 = (page: Page, name: string | RegExp) => page.getByRole("heading", { level: 1, name }).waitFor(WAIT);

/** Signs in with the keyboard only: the e-mail field has focus, Tab to the password, Enter submits. */
async function signInWithKeyboard(page: Page, email: string, password: string) {
  await h1(page, "Sign in to your dashboard");
  await page.waitForFunction(
    () => (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id === "email",
    undefined,
    WAIT,
  );
  await page.keyboard.type(email);
  await page.keyboard.press("Tab");
  await page.keyboard.type(password);
  await page.keyboard.press("Enter");
}

describe("the dashboard in a browser", () => {
  it("sends a visitor to sign-in, refuses a wrong password with an announced message, and signs in with the keyboard", async () => {
    const { context, page, problems } = await open("/dashboard/users");
    await h1(page, "Sign in to your dashboard");
    expect(page.url()).toBe(`${t.url}/dashboard/sign-in?next=users`);
    await expectAccessible(page, "sign-in");
    await expectNoHorizontalScroll(page);

    await signInWithKeyboard(page, owner.email, "not the password");
    const alert = page.getByRole("alert").filter({ hasText: "E-mail or password is incorrect" });
    await alert.waitFor(WAIT);

    await page.fill("#email", "");
    await page.focus("#email");
    await page.keyboard.type(owner.email);
    await page.keyboard.press("Tab");
    await page.keyboard.type(owner.password);
    await page.keyboard.press("Enter");
    await h1(page, "Users");
    expect(page.url()).toBe(`${t.url}/dashboard/users`);

    // The shell: the merchant, its KYB status, test mode marked, the navigation of existing pages.
    expect(await page.getByRole("banner").textContent()).toContain("Acme Stores");
    expect(await page.locator(".kyb").textContent()).toBe("KYB under review");
    expect(await page.locator("#mode-banner").textContent()).toContain("Test mode");
    expect(await page.locator("#mode-banner").isVisible()).toBe(true);
    const nav = page.getByRole("navigation", { name: "Dashboard" });
    expect(await nav.getByRole("link").allTextContents()).toEqual([
      "Home",
      "Transactions",
      "Invoices",
      "Webhooks",
      "API keys",
      "Wallets",
      "Funds held",
      "Settlement",
      "Ledger",
      "Payment links",
      "Pricing",
      "Users",
      "Security",
      "Audit log",
    ]);
    expect(await nav.getByRole("link", { name: "Users" }).getAttribute("aria-current")).toBe("page");
    // Both ways to sign out sit together with the account, none in the navigation.
    expect(await page.locator(".account .sign-out").getByRole("button").allTextContents()).toEqual(["Sign out", "Sign out everywhere"]);
    expect(await nav.getByRole("button").count()).toBe(0);
    await expectAccessible(page, "users page, owner, 375 px");
    await expectNoHorizontalScroll(page);
    expect(await page.title()).toBe("Users · paygate dashboard");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("switches between test and live mode, kept in the address and shown everywhere", async () => {
    const { context, page, problems } = await open("/dashboard/sign-in?next=users", DESKTOP);
    await signInWithKeyboard(page, owner.email, owner.password);
    await h1(page, "Users");
    const live = page.getByRole("group", { name: "Mode" }).getByRole("link", { name: "Live" });
    await live.focus();
    await page.keyboard.press("Enter");
    await page.waitForURL(`${t.url}/dashboard/users?mode=live`, WAIT);
    expect(await page.locator("#mode-banner").isVisible()).toBe(false);
    expect(await live.getAttribute("aria-current")).toBe("true");
    expect(await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Users" }).getAttribute("href")).toBe(
      "/dashboard/users?mode=live",
    );
    // Focus moves to the page's heading once the new page has rendered (after the address changes, so wait for it).
    await page.waitForFunction(
      () => (globalThis as unknown as { document: { activeElement: { tagName: string } | null } }).document.activeElement?.tagName === "H1",
      undefined,
      WAIT,
    );
    expect(
      await page.evaluate(
        () => (globalThis as unknown as { document: { activeElement: { tagName: string } | null } }).document.activeElement?.tagName,
      ),
    ).toBe("H1");
    await expectAccessible(page, "live mode, desktop");

    await page.reload();
    await h1(page, "Users");
    expect(await page.locator("#mode-banner").isVisible()).toBe(false);
    await page.getByRole("group", { name: "Mode" }).getByRole("link", { name: "Test" }).click();
    await page.waitForURL(`${t.url}/dashboard/users`, WAIT);
    expect(await page.locator("#mode-banner").isVisible()).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("invites a user, shows the link once, and the link sets a password in a second browser; a viewer sees no change controls", async () => {
    const { context, page, problems } = await open("/dashboard/sign-in?next=users");
    await signInWithKeyboard(page, owner.email, owner.password);
    await h1(page, "Users");
    await page.getByLabel("E-mail").fill("viewer@acme.example");
    await page.getByLabel("Role", { exact: true }).selectOption("viewer");
    await page.getByRole("button", { name: "Invite" }).click();
    await page.getByRole("heading", { level: 2, name: "Invitation for viewer@acme.example" }).waitFor(WAIT);
    const link = await page.getByLabel("One-time sign-in link").inputValue();
    expect(link).toMatch(new RegExp(`^${t.url}/dashboard/welcome#[0-9A-Za-z]{43}$`));
    await expect.poll(async () => page.getByRole("table").textContent(), WAIT).toContain("viewer@acme.example");
    await expectAccessible(page, "invitation shown");
    await expectNoHorizontalScroll(page);

    // The invited user, in another browser.
    const second = await open(new URL(link).pathname + new URL(link).hash);
    await h1(second.page, "Welcome: set your password");
    expect(second.page.url()).toBe(`${t.url}/dashboard/welcome`); // the token left the address bar
    await expectAccessible(second.page, "set password");
    await second.page.getByLabel("New password").fill("the viewer's password");
    await second.page.getByLabel("Repeat the password").fill("the viewer's password");
    await second.page.getByRole("button", { name: "Set password and sign in" }).click();
    // Signed in, on the first page (Home); then to Users.
    await h1(second.page, "Home");
    await second.page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Users" }).click();
    await h1(second.page, "Users");
    expect(await second.page.locator(".account").textContent()).toContain("viewer@acme.example (viewer)");
    expect(await second.page.locator("form").count()).toBe(0);
    expect(await second.page.locator("main select").count()).toBe(0);
    expect(await second.page.getByRole("button", { name: /Remove/ }).count()).toBe(0);
    expect(await second.page.getByText("Only an owner can invite or change users.").count()).toBe(1);
    await expectAccessible(second.page, "users page, viewer");

    // The link works once.
    const again = await open(new URL(link).pathname + new URL(link).hash);
    await h1(again.page, "Welcome: set your password");
    await again.page.getByLabel("New password").fill("another long password");
    await again.page.getByLabel("Repeat the password").fill("another long password");
    await again.page.getByRole("button", { name: "Set password and sign in" }).click();
    await again.page.getByRole("alert").filter({ hasText: "This sign-in link is not valid" }).waitFor(WAIT);

    // The owner makes the viewer a developer, then removes them; the viewer's browser is signed out.
    await page.getByLabel("Role of viewer@acme.example").selectOption("developer");
    await expect.poll(async () => (await t.db.dashboardUser.findFirst({ where: { email: "viewer@acme.example" } }))?.role, WAIT).toBe("developer");
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Remove viewer@acme.example" }).click();
    await expect.poll(async () => page.getByRole("table").textContent(), WAIT).not.toContain("viewer@acme.example");
    await second.page.reload();
    await h1(second.page, "Sign in to your dashboard");

    expect([...problems, ...second.problems, ...again.problems]).toEqual([]);
    await Promise.all([context.close(), second.context.close(), again.context.close()]);
  });

  it("opens a page directly with a session given to the browser (signInBrowser, for other pages' tests)", async () => {
    const viewer = await signedInAs(t, merchantId, "viewer");
    const context = await browser.newContext({ viewport: DESKTOP });
    await signInBrowser(context, t, viewer);
    const page = await context.newPage();
    await page.goto(`${t.url}/dashboard/users?mode=live`);
    await h1(page, "Users");
    expect(await page.locator(".account").textContent()).toContain(`${viewer.email} (viewer)`);
    await context.close();
  });

  it("signs out to the sign-in page", async () => {
    const { context, page, problems } = await open("/dashboard/sign-in?next=users", DESKTOP);
    await signInWithKeyboard(page, owner.email, owner.password);
    await h1(page, "Users");
    await page.getByRole("banner").getByRole("button", { name: "Sign out", exact: true }).click();
    await h1(page, "Sign in to your dashboard");
    expect(await page.getByText("You are signed out.").count()).toBe(1);
    await page.goto(`${t.url}/dashboard/users`);
    await h1(page, "Sign in to your dashboard");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("comes back to the transaction it was asked for after signing in", async () => {
    const id = "00000000-0000-4000-8000-000000000000";
    const { context, page } = await open(`/dashboard/transaction?id=${id}`, DESKTOP);
    await h1(page, "Sign in to your dashboard");
    expect(page.url()).toBe(`${t.url}/dashboard/sign-in?next=transaction&id=${id}`);
    await signInWithKeyboard(page, owner.email, owner.password);
    await h1(page, "Transaction");
    expect(page.url()).toBe(`${t.url}/dashboard/transaction?id=${id}`);
    await page
      .getByRole("alert")
      .filter({ hasText: `No transaction with id '${id}'` })
      .waitFor(WAIT);
    await context.close();
  });

  it("keeps the page opened last when the one before it gets its data later", async () => {
    const { context, page, problems } = await open("/dashboard/sign-in?next=home", DESKTOP);
    // The home page's figures are held until the Security page has been opened and shown.
    let releaseHome: () => void = () => {};
    const homeHeld = new Promise<void>((resolve) => {
      releaseHome = resolve;
    });
    await page.route(/\/dashboard\/api\/home/, async (route) => {
      await homeHeld;
      await route.continue();
    });
    await signInWithKeyboard(page, owner.email, owner.password);
    await h1(page, "Home");
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Security" }).click();
    await h1(page, "Security");
    await page
      .locator("main")
      .getByText("Loading…")
      .waitFor({ state: "detached", ...WAIT });
    const home = page.waitForResponse(/\/dashboard\/api\/home/, WAIT);
    releaseHome();
    await home;
    // Time for the late answer to be read and rendered (on a page no longer shown): the Security page
    // stays, its title too, with nothing of the home page.
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 250)));
    expect(await page.title()).toBe("Security · paygate dashboard");
    expect(await page.getByRole("heading", { level: 1 }).allTextContents()).toEqual(["Security"]);
    expect(await page.locator("main").getAttribute("aria-busy")).toBe("false");
    expect(problems).toEqual([]);
    await context.close();
  });
});
