// @module-tag browser
// The accessibility check the browser pages use (axe-core in Chromium): it finds what it should,
// and paygate's own GraphQL page passes it.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessibilityViolations, launchBrowser } from "../support/browser.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let browser: Browser;
let dev: TestGateway;
beforeAll(async () => {
  [browser, dev] = await Promise.all([launchBrowser(), startTestGateway({ graphql: { introspection: true, landingPage: true } })]);
});
afterAll(async () => {
  await browser?.close();
  await dev?.close();
});

describe("accessibilityViolations", () => {
  it("reports the serious and critical violations of a page", async () => {
    const page = await browser.newPage();
    await page.setContent('<html><head><title>Broken</title></head><body><main><img src="x.png"><input type="text"></main></body></html>');
    const violations = await accessibilityViolations(page);
    expect(violations.map((v) => [v.id, v.impact, v.targets]).sort()).toEqual([
      ["html-has-lang", "serious", ["html"]],
      ["image-alt", "critical", ["img"]],
      ["label", "critical", ["input"]],
    ]);
    await page.close();
  });

  it("finds none on paygate's GraphQL page", async () => {
    const page = await browser.newPage();
    await page.goto(`${dev.url}/graphql`);
    expect(await page.textContent("h1")).toBe("paygate GraphQL API");
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.close();
  });
});
