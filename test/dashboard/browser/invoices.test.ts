// @module-tag browser
// The dashboard's invoices in Chromium (issue 44): an owner creates a draft with the form, finalizes
// it on its page, and after a partial payment sees what was paid and what is left, the payment
// linked to its transaction; a refusal shows next to the form; a viewer reads without any change
// control. axe-core on each page at 375 px (no sideways scrolling) and on a desktop.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { accessibilityViolations, DESKTOP, expectNoSidewaysScroll, MOBILE, WAIT } from "../../support/browser.ts";
import { dashboardBrowserFixture, h1 } from "../../support/dashboard.ts";

const d = dashboardBrowserFixture({ merchant: () => ({ name: "Invoice Studio" }) });
const { openAs } = d;

const secret = () => ({ authorization: `Bearer ${d.merchant.testSecretKey}`, "content-type": "application/json" });
const text = async (page: Page, selector: string) => ((await page.locator(selector).first().textContent()) ?? "").replace(/\s+/g, " ").trim();
/** The value beside a term of the page's definition list. */
const fact = (page: Page, list: string, term: string) => text(page, `${list} dt:text-is("${term}") + dd`);

async function payPart(token: string, amount: string): Promise<string> {
  const { transactionId } = await d.t.gateway.invoices.payInvoice(token, { amount });
  const pay = await fetch(`${d.t.url}/v1/transaction/${transactionId}/pay`, {
    method: "POST",
    headers: secret(),
    body: JSON.stringify({ currency_id: "7" }),
  });
  expect(pay.status).toBe(200);
  const paid = await fetch(`${d.t.url}/v1/test_helpers/transaction/${transactionId}/payment`, { method: "POST", headers: secret(), body: "{}" });
  expect(paid.status).toBe(200);
  return transactionId;
}

describe("the Invoices pages", () => {
  it("an owner creates a draft, finalizes it, and sees what was paid and what is left after a partial payment", async () => {
    const { page, problems, context } = await openAs("owner", "/dashboard/invoices", MOBILE);
    await h1(page, "Invoices");
    await page.getByText("No invoices in test mode yet.").waitFor(WAIT);
    expect(await accessibilityViolations(page), "the empty list, 375 px").toEqual([]);
    await expectNoSidewaysScroll(page, "the empty list with its form, 375 px");

    // A refusal is shown next to the form and nothing is made.
    await page.getByLabel("Customer e-mail").fill("not-an-address");
    await page.getByLabel("Description").fill("Logo design");
    await page.getByLabel("Unit price").fill("150.00");
    await page.getByRole("button", { name: "Create draft" }).click();
    await page.locator("#invoice-form-error .alert").waitFor(WAIT);
    expect(await text(page, "#invoice-form-error")).toBe("Invalid invoice: customer.email must be a valid e-mail address");
    expect(await d.t.db.invoice.count({ where: { merchantId: d.merchant.id } })).toBe(0);

    await page.getByLabel("Customer e-mail").fill("ada@example.com");
    await page.getByLabel("Customer name (optional)").fill("Ada Obi");
    await page.getByLabel("Quantity").fill("2");
    await page.getByRole("button", { name: "Add a line" }).click();
    await page.locator("#invoice-item-2-description").fill("Hosting");
    await page.locator("#invoice-item-2-price").fill("50");
    await page.getByLabel("The customer may pay in parts").check();
    await page.getByLabel("Language of its e-mails, PDF and page").selectOption("fr");
    await page.getByRole("button", { name: "Create draft" }).click();

    await h1(page, "Invoice (draft)");
    expect(page.url()).toMatch(/\/dashboard\/invoice\?(.*&)?id=inv_/);
    expect(await text(page, "#invoice-state")).toBe("Draft");
    expect(await fact(page, "#invoice-facts", "Language")).toBe("Français");
    expect(await fact(page, "#invoice-totals", "Total")).toBe("$350.00");
    expect(await fact(page, "#invoice-facts", "Customer's page")).toBe("None while a draft: finalize it first");
    expect(await accessibilityViolations(page), "a draft, 375 px").toEqual([]);
    await expectNoSidewaysScroll(page, "a draft, 375 px");

    await page.getByRole("button", { name: "Finalize" }).click();
    await h1(page, "Invoice INV-0001");
    expect(await text(page, "#invoice-notice")).toBe("Finalized as INV-0001: the customer can pay it on its page.");
    expect(await text(page, "#invoice-state")).toBe("Open");
    const hosted = (await page.locator("#invoice-hosted-url").getAttribute("href")) ?? "";
    expect(hosted).toMatch(/\/invoice\/[0-9A-Za-z]{32}$/);

    const transactionId = await payPart(hosted.split("/invoice/")[1] ?? "", "100.00");
    await page.reload();
    await h1(page, "Invoice INV-0001");
    expect(await text(page, "#invoice-state")).toBe("Partially paid");
    expect(await fact(page, "#invoice-totals", "Paid")).toBe("$100.00");
    expect(await fact(page, "#invoice-totals", "Left to pay")).toBe("$250.00");
    expect(await page.getByRole("link", { name: transactionId }).getAttribute("href")).toContain(`/dashboard/transaction?`);
    expect(await page.locator("#invoice-pdf-invoice").getAttribute("href")).toBe(
      `/dashboard/api/invoices/${page.url().split("id=")[1]}/pdf?mode=test&document=invoice`,
    );
    // Money counted: no Void any more.
    expect(await page.getByRole("button", { name: "Void" }).count()).toBe(0);
    expect(await accessibilityViolations(page), "a partially paid invoice, 375 px").toEqual([]);
    await expectNoSidewaysScroll(page, "a partially paid invoice, 375 px");

    await page.getByRole("link", { name: "← All invoices" }).click();
    await h1(page, "Invoices");
    const row = page.locator("#invoices tbody tr").first();
    await row.waitFor(WAIT);
    expect((await row.textContent())?.replace(/\s+/g, " ")).toContain("INV-0001");
    expect(await text(page, '#invoices tbody tr td[data-label="State"]')).toBe("Partially paid");
    expect(await text(page, '#invoices tbody tr td[data-label="Left"]')).toBe("$250.00");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("a viewer reads the list and an invoice without any change control, and both pass axe-core on a desktop", async () => {
    const made = await fetch(`${d.t.url}/v1/invoices`, {
      method: "POST",
      headers: secret(),
      body: JSON.stringify({
        customer: { email: "bo@example.com" },
        currency: "NGN",
        items: [{ description: "Audit", quantity: 1, unit_price: "5000" }],
      }),
    });
    expect(made.status).toBe(201);
    const id = ((await made.json()) as { data: { id: string } }).data.id;

    const { page, problems, context } = await openAs("viewer", "/dashboard/invoices", DESKTOP);
    await h1(page, "Invoices");
    await page.locator("#invoices tbody tr").nth(1).waitFor(WAIT);
    expect(await page.locator("#invoice-form").count()).toBe(0);
    expect(await text(page, ".lead")).toContain("owners and developers can create, finalize and void them");
    expect(await accessibilityViolations(page), "the list, viewer, desktop").toEqual([]);

    await page.goto(`${d.t.url}/dashboard/invoice?id=${id}`);
    await h1(page, "Invoice (draft)");
    expect(await page.getByRole("button", { name: /Finalize|Void/ }).count()).toBe(0);
    expect(await text(page, "main .hint")).toContain("Owners and developers can finalize and void invoices.");
    expect(await accessibilityViolations(page), "a draft, viewer, desktop").toEqual([]);
    // The server refuses it all the same.
    const refused = await page.evaluate(async (invoiceId) => {
      const session = (await (await fetch("/dashboard/api/session")).json()) as { data: { csrf_token: string } };
      const res = await fetch(`/dashboard/api/invoices/${invoiceId}/finalize?mode=test`, {
        method: "POST",
        headers: { "X-CSRF-Token": session.data.csrf_token },
      });
      return { status: res.status, body: (await res.json()) as { message: string } };
    }, id);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe("Your role (viewer) cannot manage invoices; ask an owner of this merchant for the owner or developer role");
    expect(problems).toEqual([]);
    await context.close();
  });
});
