// @module-tag browser
// Merchant pricing and per-payment policies in a real Chromium against the real service (issue 29):
// the Pricing page (an owner saves a spread and providers, the service's refusal shown next to the
// form, a viewer reads only), a transaction's page showing its policies, its late-payment decision
// and its quote's market rate, spread and providers, and the checkout's countdown following the
// transaction's expires_in. axe-core on each page at 375 px and on a desktop.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { accessibilityViolations, DESKTOP, MOBILE, WAIT } from "../../support/browser.ts";
import { initializeBody } from "../../support/builders.ts";
import { dashboardBrowserFixture, h1 } from "../../support/dashboard.ts";

const d = dashboardBrowserFixture({ merchant: () => ({ name: "Pricing Shop" }) });
const { openAs } = d;

const secret = () => ({ authorization: `Bearer ${d.merchant.testSecretKey}` });

const text = async (page: Page, selector: string) => ((await page.locator(selector).first().textContent()) ?? "").trim();

describe("the Pricing page", () => {
  it("an owner saves a spread and providers; a refusal shows next to the form and changes nothing", async () => {
    const { page, problems } = await openAs("owner", "/dashboard/pricing", MOBILE);
    await h1(page, "Pricing");
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(await text(page, "#pricing-spread")).toBe("0%");

    await page.getByLabel("Spread (percent)").fill("12");
    await page.getByRole("button", { name: "Save pricing" }).click();
    await page.locator("#pricing-error .alert").waitFor(WAIT);
    expect(await text(page, "#pricing-error")).toBe("spread must be a decimal string from 0 to 10 (percent), with at most 4 decimal places");
    expect(await accessibilityViolations(page)).toEqual([]);

    // The test gateway's live feed is the test rates: it offers no providers to choose from.
    await page.getByLabel("Spread (percent)").fill("1.25");
    await page.getByLabel("Price providers, in order (comma-separated)").fill("");
    await page.getByRole("button", { name: "Save pricing" }).click();
    await expect.poll(() => text(page, "#pricing-spread"), WAIT).toBe("1.25%");
    expect(await text(page, "#pricing-error")).toBe("");
    const shown = await fetch(`${d.t.url}/v1/merchant/pricing`, { headers: secret() });
    expect(((await shown.json()) as any).data.spread_percent).toBe("1.25");
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("a viewer reads it without the form", async () => {
    const { page, problems } = await openAs("viewer", "/dashboard/pricing");
    await h1(page, "Pricing");
    await expect.poll(() => text(page, "#pricing-spread"), WAIT).toBe("1.25%");
    expect(await page.getByRole("button", { name: "Save pricing" }).count()).toBe(0);
    expect(await text(page, ".lead")).toContain("an owner can change it");
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

describe("a transaction's policies", () => {
  it("the transaction page shows the policies, the late-payment decision and the quote's market rate and spread", async () => {
    const init = await d.t.post(
      "/v1/transaction",
      // The merchant's rules need the merchant's server (issue 41): the secret key, the public key in the body.
      initializeBody({
        public_key: d.merchant.testPublicKey,
        expires_in: 600,
        underpayment_tolerance: "2.5",
        confirmations: { BTC: 2 },
        late_payment: { accept_if_rate_moved_below: "3" },
      }),
      secret(),
    );
    const id = init.body.data.id as string;
    expect((await d.t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, secret())).status).toBe(200);
    await d.t.post(`/v1/test_helpers/transaction/${id}/expire`, {}, secret());
    const late = await d.t.post(`/v1/test_helpers/transaction/${id}/payment`, { confirmations: 2 }, secret());
    expect(late.body.data.status).toBe("SUCCESSFUL");

    for (const viewport of [MOBILE, DESKTOP]) {
      const { page, problems } = await openAs("viewer", `/dashboard/transaction?id=${id}`, viewport);
      await page.getByRole("heading", { level: 2, name: "Payment policies" }).waitFor(WAIT);
      const policies = await text(page, "section[aria-labelledby=tx-policies]");
      expect(policies).toContain("600 seconds");
      expect(policies).toContain("2.5%");
      expect(policies).toContain("BTC: 2");
      expect(policies).toContain("Accepted when the rate moved less than 3%");
      expect(policies).toContain("Accepted: the rate moved 0% (65000 → 65000)");
      const quote = await text(page, "section[aria-labelledby=tx-quote]");
      expect(quote).toContain("1 BTC = 64187.5 USD"); // 65000 less the 1.25 % spread
      expect(quote).toContain("Market rate1 BTC = 65000 USD");
      expect(quote).toContain("Spread1.25%");
      expect(await accessibilityViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
      await page.context().close();
    }
  });

  it("the checkout's countdown follows the transaction's expires_in", async () => {
    const init = await d.t.post("/v1/transaction", initializeBody({ public_key: d.merchant.testPublicKey, expires_in: 300 }), secret());
    const page = await d.browser.newPage({ viewport: MOBILE });
    await page.goto(init.body.data.checkout_url as string);
    await page.getByRole("button", { name: /^Bitcoin/ }).click();
    await page.getByRole("heading", { level: 2, name: "Pay with Bitcoin" }).waitFor(WAIT);
    const shown = await fetch(`${d.t.url}/v1/transaction/${init.body.data.id}`, { headers: secret() });
    const expiresAt = ((await shown.json()) as any).data.expires_at as string;
    expect(await page.locator("#countdown").getAttribute("datetime")).toBe(expiresAt);
    expect(await text(page, "#countdown")).toMatch(/^(5:00|4:[0-5]\d)$/);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.close();
  });
});
