// @module-tag browser
// The dashboard's transaction pages in Chromium: a signed-in owner lists, filters, searches, exports
// the CSV, opens a transaction whose webhook failed, sees the receiver's status code, and redelivers
// it once the receiver is back; a viewer sees no Redeliver button and the API refuses it. axe-core
// checks both pages, and a 375 px phone gets stacked rows without sideways scrolling.
import { readFile } from "node:fs/promises";
import { parse } from "csv-parse/sync";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXPORT_CSV_HEADER } from "../../support/csv-export.ts";
import { accessibilityViolations, launchBrowser } from "../../support/browser.ts";
import { signedInAs, signInBrowser, type DashboardClient } from "../../support/dashboard.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../../support/webhook-receiver.ts";
import { initializeBody } from "../../support/builders.ts";

let browser: Browser;
let t: TestGateway;
beforeAll(async () => {
  [browser, t] = await Promise.all([launchBrowser(), startTestGateway()]);
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A browser context signed in as the client (its session cookie, as the sign-in form would have set it). */
async function browse(client: DashboardClient, viewport = { width: 1200, height: 900 }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  await signInBrowser(context, t, client);
  return { context, page: await context.newPage() };
}

const rowsOf = (page: Page) => page.locator("table.transactions tbody tr");

describe("the transactions pages", () => {
  let receiver: WebhookReceiver;
  let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
  const tx: Record<string, { id: string; reference: string }> = {};

  afterAll(() => receiver?.close());
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    receiver.answer = () => ({ status: 500, body: "receiver is down" });
    keys = await t.merchant({ name: "Browser Stores", testWebhookUrl: receiver.url });
    const init = async (email: string) => {
      const res = await t.post("/v1/transaction", initializeBody({ customer: { email }, amount: "25" }), {
        authorization: `Bearer ${keys.testPublicKey}`,
      });
      expect(res.status).toBe(201);
      return res.body.data as { id: string; reference: string };
    };
    tx.ada = await init("ada@example.com");
    tx.paid = await init("bo@example.com");
    tx.cy = await init("cy@example.com");
    const auth = { authorization: `Bearer ${keys.testSecretKey}` };
    expect((await t.post(`/v1/transaction/${tx.paid.id}/pay`, { currency_id: "4" }, auth)).status).toBe(200);
    expect((await t.post(`/v1/test_helpers/transaction/${tx.paid.id}/payment`, {}, auth)).status).toBe(200);
    // Every event is attempted once and fails (the receiver answers 500, no retries).
    await t.dispatcher({ retryScheduleMs: [] }).drain();
  });

  it("lists, filters by status, searches by e-mail and exports the filtered CSV", async () => {
    const owner = await signedInAs(t, keys.id, "owner");
    const { context, page } = await browse(owner);
    await page.goto(`${t.url}/dashboard/transactions`);
    await expect.poll(() => rowsOf(page).count()).toBe(3);
    expect(await rowsOf(page).first().textContent()).toContain("cy@example.com");
    expect(await accessibilityViolations(page)).toEqual([]);

    await page.getByLabel("Status").selectOption("SUCCESSFUL");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(() => page.url()).toContain("status=SUCCESSFUL");
    await expect.poll(() => rowsOf(page).count()).toBe(1);
    expect(await rowsOf(page).first().textContent()).toContain(tx.paid?.reference);

    await page.getByRole("link", { name: "Clear" }).click();
    await expect.poll(() => rowsOf(page).count()).toBe(3);
    await page.getByLabel("Search").fill("ADA@example.com");
    await page.getByLabel("Search").press("Enter");
    await expect.poll(() => page.url()).toContain("q=ADA%40example.com");
    await expect.poll(() => rowsOf(page).count()).toBe(1);
    expect(await rowsOf(page).first().textContent()).toContain("ada@example.com");

    // The export keeps the filters: one row besides the header.
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Export CSV" }).click()]);
    expect(download.suggestedFilename()).toMatch(/^transactions-test-\d{4}-\d{2}-\d{2}\.csv$/);
    const records = parse(await readFile((await download.path()) as string, "utf8")) as string[][];
    expect(records[0]).toEqual(EXPORT_CSV_HEADER);
    expect(records.slice(1).map((r) => r[0])).toEqual([tx.ada?.id]);
    await context.close();
  });

  it("shows a failed delivery's status code and redelivers it once the receiver answers 200 (a local receiver)", async () => {
    const owner = await signedInAs(t, keys.id, "owner");
    const { context, page } = await browse(owner);
    await page.goto(`${t.url}/dashboard/transactions`);
    await page.getByRole("link", { name: tx.paid?.reference }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe(`Transaction ${tx.paid?.reference}`);
    const first = page.locator(".timeline > li").first();
    expect(await first.locator("h3").textContent()).toContain("payment.initiated");
    expect(await first.textContent()).toContain("Failed: no retries left");
    expect(await first.locator("td[data-label=Result]").textContent()).toBe("HTTP 500 (failed)");
    // The receiver is on 127.0.0.1: a private address's answer is never kept nor shown.
    expect(await first.locator("td[data-label=Response]").textContent()).toBe(
      "Not kept: the answer came from a private or local address, which the dashboard never shows.",
    );
    expect(await page.locator("section", { hasText: "Receipts" }).locator("tbody tr").count()).toBe(1);
    expect(await page.locator("section", { hasText: "Locked quote" }).textContent()).toContain("1 BTC =");
    expect(await accessibilityViolations(page)).toEqual([]);

    receiver.answer = () => ({ status: 200, body: "thanks" });
    const sent = receiver.received.length;
    await first.getByRole("button", { name: "Redeliver payment.initiated" }).click();
    const again = page.locator(".timeline > li").first();
    await expect.poll(() => again.locator("[role=status]").textContent()).toBe("Redelivered: the receiver answered HTTP 200");
    expect(await again.textContent()).toContain("Delivered");
    expect(await again.locator("td[data-label=Result]").allTextContents()).toEqual(["HTTP 500 (failed)", "HTTP 200"]);
    expect(receiver.received).toHaveLength(sent + 1);
    await context.close();
  });

  it("shows a viewer no Redeliver button, and the API refuses it with 403", async () => {
    const viewer = await signedInAs(t, keys.id, "viewer");
    const { context, page } = await browse(viewer);
    await page.goto(`${t.url}/dashboard/transaction?id=${tx.ada?.id}`);
    await expect.poll(() => page.locator(".timeline > li").count()).toBe(1);
    expect(await page.getByRole("button", { name: /Redeliver/ }).count()).toBe(0);
    const eventId = (await page.locator(".timeline > li p code").first().textContent()) ?? "";
    expect(eventId).toMatch(/^evt_/);
    const refused = await viewer.post(`/dashboard/api/events/${eventId}/redeliver`);
    expect(refused.status).toBe(403);
    expect(refused.body.reason).toBe("role_forbidden");
    // A transaction exists in one mode: the switch leads to the other mode's list, and back here stays here.
    const mode = page.getByRole("group", { name: "Mode" });
    expect(await mode.getByRole("link", { name: "Live" }).getAttribute("href")).toBe("/dashboard/transactions?mode=live");
    expect(await mode.getByRole("link", { name: "Test" }).getAttribute("href")).toBe(`/dashboard/transaction?id=${tx.ada?.id}`);
    await mode.getByRole("link", { name: "Live" }).click();
    await page.getByRole("heading", { level: 1, name: "Transactions" }).waitFor();
    expect(new URL(page.url()).search).toBe("?mode=live");
    await context.close();
  });

  it("fits a 375 px phone: the table becomes labelled stacked rows, nothing scrolls sideways", async () => {
    const owner = await signedInAs(t, keys.id, "owner");
    const { context, page } = await browse(owner, { width: 375, height: 800 });
    await page.goto(`${t.url}/dashboard/transactions`);
    await expect.poll(() => rowsOf(page).count()).toBe(3);
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
    expect(await page.evaluate<string>("getComputedStyle(document.querySelector('table.transactions tbody tr')).display")).toBe("block");
    await page.goto(`${t.url}/dashboard/transaction?id=${tx.paid?.id}`);
    await expect.poll(() => page.locator(".timeline > li").count()).toBe(3);
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
    expect(await accessibilityViolations(page)).toEqual([]);
    await context.close();
  });
});
