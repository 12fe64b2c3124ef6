// @module-tag browser
// The refund claim page in Chromium (issue 26): readable at 375 px and on a desktop, no serious or
// critical axe-core violation in its states (the form, an announced error, the thank-you, a refusal),
// and a real form submission that takes the address once.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { accessibilityViolations } from "../support/browser.ts";
import { checkoutFixture, DESKTOP, MOBILE, WAIT } from "./support.ts";

const f = checkoutFixture({ merchant: "Refund Stores" });
const LTC_TEST_ADDRESS = "tltc1q33andx3shykl4uhyerlfhkl7u64mwvz9sa0pdn";

async function claimUrl(): Promise<{ url: string; id: string }> {
  const { id } = await f.initialize();
  const auth = { authorization: `Bearer ${f.keys.testSecretKey}` };
  expect((await f.t.post(`/v1/transaction/${id}/pay`, { currency_id: "7" }, auth)).status).toBe(200);
  expect((await f.t.post(`/v1/test_helpers/transaction/${id}/payment`, {}, auth)).status).toBe(200);
  const made = await f.t.post(`/v1/transaction/${id}/refunds`, { amount_kind: "full" }, auth);
  expect(made.status).toBe(201);
  return { url: made.body.data.refund_url, id: made.body.data.id };
}

async function expectAccessible(page: Page, state: string) {
  expect(await accessibilityViolations(page), state).toEqual([]);
}

async function noHorizontalScroll(page: Page) {
  const { scrollWidth, clientWidth } = await page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
    return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth };
  });
  expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
}

describe("the refund claim page", () => {
  it("takes an address once, announces a refused one, and is accessible at 375 px and on a desktop", async () => {
    const { url, id } = await claimUrl();
    const context = await f.browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const failed: string[] = [];
    page.on("requestfailed", (r) => failed.push(r.url()));
    await page.goto(url);
    await page.getByRole("heading", { level: 1, name: "Claim your refund" }).waitFor(WAIT);
    expect(await page.getByRole("note").textContent()).toContain("Test mode.");
    await expectAccessible(page, "the form, desktop");
    await noHorizontalScroll(page);
    await page.setViewportSize(MOBILE);
    await expectAccessible(page, "the form, 375 px");
    await noHorizontalScroll(page);

    // A main-network address in test mode: refused, announced, and the field says so.
    const field = page.getByLabel(/Your LTC address on/);
    await field.fill("ltc1qqurswpc8qurswpc8qurswpc8qurswpc8p4r4uu");
    await page.getByRole("button", { name: "Send my refund to this address" }).click();
    await page.getByRole("alert").waitFor(WAIT);
    expect(await page.getByRole("alert").textContent()).toMatch(/not a valid LTC address on litecoin for test mode/);
    expect(await page.getByLabel(/Your LTC address on/).getAttribute("aria-invalid")).toBe("true");
    await expectAccessible(page, "the refused address, 375 px");
    expect((await f.t.db.refund.findUniqueOrThrow({ where: { id } })).destination).toBeNull();

    await page.getByLabel(/Your LTC address on/).fill(LTC_TEST_ADDRESS);
    await page.getByRole("button", { name: "Send my refund to this address" }).click();
    await page.getByRole("heading", { level: 1, name: "Thank you" }).waitFor(WAIT);
    expect(await page.getByRole("status").textContent()).toContain(LTC_TEST_ADDRESS);
    await expectAccessible(page, "the thank-you, 375 px");
    expect((await f.t.db.refund.findUniqueOrThrow({ where: { id } })).destination).toBe(LTC_TEST_ADDRESS);

    // The link again: refused, with a page that says why.
    const again = await page.goto(url);
    expect(again?.status()).toBe(410);
    await page.getByRole("heading", { level: 1, name: "This refund link can no longer be used" }).waitFor(WAIT);
    await expectAccessible(page, "the used link, 375 px");
    await noHorizontalScroll(page);
    expect(failed).toEqual([]);
    await context.close();
  });
});
