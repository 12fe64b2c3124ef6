// @module-tag browser
// The hosted invoice page in Chromium (issue 44): readable at 375 px and on a desktop, no serious or
// critical axe-core violation (English, and Arabic right to left), printed without its Pay form, and a
// real Pay that lands on the checkout of the transaction it made.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { accessibilityViolations } from "../support/browser.ts";
import { checkoutFixture, DESKTOP, MOBILE, WAIT } from "./support.ts";

const f = checkoutFixture({ merchant: "Invoice Stores" });

async function hostedUrl(): Promise<{ url: string; id: string }> {
  const auth = { authorization: `Bearer ${f.keys.testSecretKey}` };
  const made = await f.t.post(
    "/v1/invoices",
    {
      customer: { email: "ada@example.com", name: "Ada Obi" },
      currency: "NGN",
      items: [
        {
          description: "A very long description of the work done this month, so that the table has to wrap on a phone",
          quantity: 3,
          unit_price: "125000.50",
        },
        { description: "Travel", quantity: 1, unit_price: "20000" },
      ],
      taxes: [{ name: "VAT", rate: "7.5" }],
      memo: "Thank you for your business.",
      due_date: "2030-01-31",
      finalize: true,
    },
    auth,
  );
  expect(made.status).toBe(201);
  return { url: made.body.data.hosted_url, id: made.body.data.id };
}

async function noHorizontalScroll(page: Page) {
  const { scrollWidth, clientWidth } = await page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
    return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth };
  });
  expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
}

describe("the hosted invoice page", () => {
  it("is accessible at 375 px and on a desktop, in English and Arabic, prints without its form, and Pay opens the checkout", async () => {
    const { url, id } = await hostedUrl();
    const context = await f.browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const failed: string[] = [];
    page.on("requestfailed", (r) => failed.push(r.url()));
    await page.goto(url);
    await page.getByRole("heading", { level: 1, name: /Invoice INV-0001/ }).waitFor(WAIT);
    expect(await page.locator("#amount-due").textContent()).toBe("424626.61 NGN"); // 3 × 125000.50 + 20000 = 395001.50, VAT 7.5 % = 29625.1125 → 29625.11;
    expect(await accessibilityViolations(page), "desktop").toEqual([]);
    await noHorizontalScroll(page);
    await page.setViewportSize(MOBILE);
    expect(await accessibilityViolations(page), "375 px").toEqual([]);
    await noHorizontalScroll(page);

    await page.emulateMedia({ media: "print" });
    expect(await page.getByRole("button", { name: /Pay/ }).isVisible()).toBe(false);
    expect(await page.locator("#amount-due").isVisible()).toBe(true);
    await page.emulateMedia({ media: "screen" });

    await page.goto(`${url}?lang=ar`);
    await page.getByRole("heading", { level: 1, name: /فاتورة/ }).waitFor(WAIT);
    expect(await accessibilityViolations(page), "Arabic, 375 px").toEqual([]);
    await noHorizontalScroll(page);

    await page.goto(url);
    await page.getByRole("button", { name: /Pay/ }).click();
    await page.waitForURL(/\/checkout\/[0-9a-f-]{36}_secret_/, WAIT);
    const invoice = await f.t.db.invoicePayment.findMany({ where: { invoiceId: id } });
    expect(invoice).toHaveLength(1);
    expect(page.url()).toContain(invoice[0]?.transactionId ?? "none");
    expect(failed.filter((u) => u.includes("/invoice/"))).toEqual([]);
    await context.close();
  });
});
