// @module-tag browser
// The front door in a real Chromium (issue 28): the address the start-up line names opens the dashboard's
// sign-in, and the page `GET /` answers (for clients that do not follow the redirect) passes axe-core.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessibilityViolations, launchBrowser } from "../support/browser.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let browser: Browser;
let t: TestGateway;
beforeAll(async () => {
  [browser, t] = await Promise.all([launchBrowser(), startTestGateway()]);
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe("the front door", () => {
  it("takes a browser from / to the dashboard's sign-in, which passes axe-core", async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 812 } });
    const page = await context.newPage();
    const response = await page.goto(`${t.url}/`);
    expect(response?.request().redirectedFrom()?.url()).toBe(`${t.url}/`);
    expect(new URL(page.url()).pathname).toBe("/dashboard");
    await page.getByRole("heading", { level: 1, name: "Sign in to your dashboard" }).waitFor({ timeout: 20_000 });
    expect(await accessibilityViolations(page)).toEqual([]);
    await context.close();
  });

  it("answers / with a page that links the dashboard and the API reference, and passes axe-core", async () => {
    const res = await fetch(`${t.url}/`, { redirect: "manual" });
    expect(res.status).toBe(302);
    const page = await browser.newPage();
    await page.goto(`${t.url}/livez`); // an origin for the page's relative links
    await page.setContent(await res.text());
    expect(await page.getByRole("link", { name: "Open the dashboard" }).getAttribute("href")).toBe("/dashboard");
    expect(await page.getByRole("link", { name: "API reference" }).getAttribute("href")).toBe("/docs");
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.getByRole("link", { name: "API reference" }).click();
    await page.waitForURL(`${t.url}/docs`);
    expect(await page.title()).toBe("paygate API reference");
    await page.close();
  });
});
