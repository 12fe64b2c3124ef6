// @module-tag browser
// The Webhooks page's endpoints (issue 27) in a real Chromium against the real service, a real
// dispatcher and real receivers: an endpoint added with an event filter shows its secret once (the
// receiver verifies its deliveries with it); a receiver answering 500 makes a delivery fail, the log
// shows it with the failing filter, it is redelivered once the receiver answers 200, and so is every
// failed one since a time, the log following the redelivered rows to "succeeded" with no reload (focus
// kept, the outcome announced); the endpoint is disabled and enabled again; the webhook URL field and
// the first endpoint follow each other; a viewer reads the endpoints and the log with no control;
// axe-core at 375 px and on a desktop, with no sideways scrolling.
import type { Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessibilityViolations, DESKTOP, expectNoSidewaysScroll, focusedId, MOBILE, WAIT } from "../../support/browser.ts";
import { initializeBody } from "../../support/builders.ts";
import { dashboardBrowserFixture, h1 } from "../../support/dashboard.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../../support/webhook-receiver.ts";

let primary: WebhookReceiver;
let shop: WebhookReceiver;
beforeAll(async () => {
  [primary, shop] = await Promise.all([startWebhookReceiver(), startWebhookReceiver()]);
});
afterAll(async () => {
  await shop?.close();
  await primary?.close();
});
const d = dashboardBrowserFixture({ merchant: () => ({ name: "Receivers Shop", kyb: "VERIFIED", testWebhookUrl: primary.url }) });
const { openAs } = d;

/** A transaction initialized: its payment.initiated event is written for every endpoint whose filter takes it. */
async function initialize(): Promise<void> {
  const answer = await d.t.post("/v1/transaction", initializeBody({ amount: "25" }), { authorization: `Bearer ${d.merchant.testPublicKey}` });
  expect(answer.status).toBe(201);
}

/** Every due delivery sent now; no retries, so a failed attempt gives it up at once. */
const deliver = () => d.t.dispatcher({ retryScheduleMs: [] }).drain();

/** The shop's endpoint (the first test adds it in the page; a test run alone gets it through the gateway). */
async function shopEndpoint(): Promise<{ id: string }> {
  const owner = d.t.gateway.access.operator(d.merchant.id);
  const found = (await d.t.gateway.webhooks.listEndpoints(owner)).find((e) => e.url === shop.url);
  return found ?? d.t.gateway.webhooks.createEndpoint(owner, { url: shop.url, enabled_events: ["payment.initiated"] });
}

const logRow = (page: Page, text: string) => page.locator("#delivery-rows tbody tr", { hasText: text });

describe("the Webhooks page's endpoints in a browser", () => {
  it("adds an endpoint with a filter (secret once), shows its failing delivery, redelivers it, disables and enables it", async () => {
    shop.answer = () => ({ status: 500, body: "down" });
    const { page, problems } = await openAs("owner", "/dashboard/webhooks");
    await h1(page, "Webhooks");
    await page.getByRole("heading", { name: "Add an endpoint" }).waitFor(WAIT);
    // The merchant's URL is the first endpoint, every event.
    expect(await page.locator("#endpoints-list tbody tr").first().textContent()).toContain(primary.url);

    await page.getByLabel("Endpoint URL").fill(shop.url);
    await page.getByLabel("Description (optional)").fill("Shop");
    await page.getByLabel("Every event (*), those added later too").uncheck();
    await page.getByLabel("payment.initiated", { exact: true }).check();
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await page.getByRole("heading", { name: `Secret of ${shop.url}` }).waitFor(WAIT);
    await expect.poll(() => focusedId(page), WAIT).toBe("endpoint-secret-title");
    const secret = await page.locator("#endpoint-secret").inputValue();
    expect(secret).toMatch(/^whsec_/);
    const row = page.locator("#endpoints-list tbody tr", { hasText: shop.url });
    await row.waitFor(WAIT);
    expect(await row.textContent()).toMatch(/payment\.initiated.*Enabled.*Shop/);
    expect(await page.getByLabel("Endpoint URL").inputValue()).toBe("");

    // The receiver answers 500: the delivery fails, and the failing filter shows it.
    await initialize();
    await deliver();
    expect(shop.received).toHaveLength(1);
    const first = shop.received[0]!;
    expect(new Webhook(secret).verify(first.body, first.headers as Record<string, string>)).toMatchObject({ event: "payment.initiated" });
    await page.getByRole("link", { name: `Delivery log of ${shop.url}` }).click();
    await expect.poll(() => focusedId(page), WAIT).toBe("delivery-log-title");
    expect(await page.locator("#delivery-log-url").textContent()).toBe(shop.url);
    await page.getByRole("link", { name: "Failing only" }).click();
    await expect.poll(() => page.getByRole("link", { name: "Failing only" }).getAttribute("aria-current"), WAIT).toBe("true");
    expect(new URL(page.url()).searchParams.get("deliveries")).toBe("failed");
    const failed = logRow(page, "payment.initiated");
    await failed.waitFor(WAIT);
    expect(await failed.locator('td[data-label="Status code"]').textContent()).toBe("500");
    expect(await failed.locator('td[data-label="Status"]').textContent()).toBe("failed");
    expect(await failed.locator('td[data-label="Attempts"]').textContent()).toBe("1");
    expect(await failed.locator('td[data-label="Latency"]').textContent()).toMatch(/^\d+ ms$/);
    expect(await failed.locator('td[data-label="Event id"]').textContent()).toBe(String(first.headers["webhook-id"]));
    await expectAccessibleAt(page, "owner, endpoint added and its failing log, desktop");

    // Back up: redeliver the row, and it is gone from the failing ones.
    shop.answer = () => ({ status: 200, body: "ok" });
    await failed.getByRole("button", { name: /^Redeliver payment\.initiated/ }).click();
    await expect.poll(() => page.locator("#delivery-log-result").textContent(), WAIT).toMatch(/^payment\.initiated \(evt_\w+\) queued again/);
    // The row follows its delivery with no reload: pending, then succeeded once sent; focus stays on its button.
    await expect.poll(() => failed.locator('td[data-label="Status"]').textContent(), WAIT).toBe("pending");
    const redeliver = failed.getByRole("button", { name: /^Redeliver payment\.initiated/ });
    await expect.poll(() => redeliver.isEnabled(), WAIT).toBe(true);
    await redeliver.focus();
    await deliver();
    expect(shop.received).toHaveLength(2);
    await expect.poll(() => failed.locator('td[data-label="Status"]').textContent(), WAIT).toBe("succeeded");
    expect(await failed.locator('td[data-label="Status code"]').textContent()).toBe("200");
    expect(await failed.locator('td[data-label="Attempts"]').textContent()).toBe("1");
    await expect.poll(() => page.locator("#announcer").textContent(), WAIT).toBe("Delivery of payment.initiated succeeded (200)");
    const focusedDelivery = () =>
      page.evaluate(
        () =>
          (globalThis as unknown as { document: { activeElement: { dataset?: { delivery?: string } } | null } }).document.activeElement?.dataset
            ?.delivery,
      );
    expect(await focusedDelivery()).toBe(await redeliver.getAttribute("data-delivery"));
    await page.getByRole("link", { name: "Failing only" }).click();
    await expect.poll(() => page.locator("#no-deliveries").textContent(), WAIT).toBe("No failing delivery.");
    await page.getByRole("link", { name: "All deliveries" }).click();
    await expect.poll(() => logRow(page, "payment.initiated").locator('td[data-label="Status code"]').textContent(), WAIT).toBe("200");

    // Every failed one since an hour ago: the count in the answer.
    shop.answer = () => ({ status: 500, body: "down again" });
    await initialize();
    await deliver();
    shop.answer = () => ({ status: 200, body: "ok" });
    const hourAgo = await page.evaluate(() => {
      const at = new Date(Date.now() - 3_600_000);
      at.setMinutes(at.getMinutes() - at.getTimezoneOffset());
      return at.toISOString().slice(0, 16);
    });
    await page.getByLabel("Every failed delivery since").fill(hourAgo);
    await page.getByRole("button", { name: "Redeliver failed" }).click();
    await expect.poll(() => page.locator("#delivery-log-result").textContent(), WAIT).toMatch(/^1 delivery queued again since /);
    const received = shop.received.length;
    await deliver();
    expect(shop.received).toHaveLength(received + 1);
    // The log reads itself again: the newer delivery on top, succeeded, with no reload.
    const newest = page.locator("#delivery-rows tbody tr").first();
    await expect.poll(() => page.locator("#delivery-rows tbody tr").count(), WAIT).toBe(2);
    await expect.poll(() => newest.locator('td[data-label="Status"]').textContent(), WAIT).toBe("succeeded");
    expect(await newest.locator('td[data-label="Status code"]').textContent()).toBe("200");

    // Disabled by hand (why and since when), then enabled again redelivering what it missed.
    await row.getByRole("button", { name: `Disable ${shop.url}` }).click();
    await expect.poll(() => page.locator("#endpoint-notice-text").textContent(), WAIT).toBe(`${shop.url} is disabled: nothing is sent to it`);
    const state = page.locator("#endpoints-list tbody tr", { hasText: shop.url }).locator('td[data-label="State"]');
    expect(await state.textContent()).toMatch(/^Disabled since .+: turned off in the dashboard or the API$/);
    await initialize();
    await deliver();
    expect(shop.received).toHaveLength(received + 1);
    await page.getByRole("button", { name: `Enable and redeliver missed ${shop.url}` }).click();
    await expect
      .poll(() => page.locator("#endpoint-notice-text").textContent(), WAIT)
      .toBe(`${shop.url} is enabled; 1 delivery it missed queued again`);
    expect(await state.textContent()).toBe("Enabled");
    await deliver();
    expect(shop.received).toHaveLength(received + 2);

    // Shown once: a reload never shows the secret.
    await page.reload();
    await h1(page, "Webhooks");
    await page.locator("#endpoints-list tbody tr", { hasText: shop.url }).waitFor(WAIT);
    expect(await page.content()).not.toContain(secret);
    expect(problems).toEqual([]);
  });

  it("rotates an endpoint's secret (shown once, with copy) and edits its filter, keyboard only", async () => {
    await shopEndpoint();
    const { page, problems } = await openAs("owner", "/dashboard/webhooks");
    await h1(page, "Webhooks");
    const row = page.locator("#endpoints-list tbody tr", { hasText: shop.url });
    await row.waitFor(WAIT);
    await row.getByRole("button", { name: `Rotate its secret ${shop.url}` }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Endpoint's new secret" }).waitFor(WAIT);
    await expect.poll(() => focusedId(page), WAIT).toBe("endpoint-secret-title");
    expect(await page.locator("#endpoint-secret").inputValue()).toMatch(/^whsec_/);
    expect(await page.locator("#endpoint-secret-note").textContent()).toMatch(/two signatures/);
    expect(await page.getByRole("button", { name: "Copy" }).count()).toBeGreaterThan(0);

    await row.getByRole("button", { name: `Edit ${shop.url}` }).focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => focusedId(page), WAIT).toBe("endpoint-form-title");
    expect(await page.getByLabel("Endpoint URL").inputValue()).toBe(shop.url);
    expect(await page.getByLabel("payment.initiated", { exact: true }).isChecked()).toBe(true);
    await page.getByLabel("payment.pending", { exact: true }).focus();
    await page.keyboard.press("Space");
    await page.getByRole("button", { name: "Save endpoint" }).focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#endpoint-notice-text").textContent(), WAIT).toBe(`${shop.url} is saved`);
    expect(await page.locator("#endpoints-list tbody tr", { hasText: shop.url }).locator('td[data-label="Events"]').textContent()).toBe(
      "payment.initiated, payment.pending",
    );
    // A refused change: the service's message, announced next to the form.
    await row.getByRole("button", { name: `Edit ${shop.url}` }).click();
    await page.getByLabel("Every event (*), those added later too").uncheck();
    await page.getByLabel("payment.initiated", { exact: true }).uncheck();
    await page.getByLabel("payment.pending", { exact: true }).uncheck();
    await page.getByRole("button", { name: "Save endpoint" }).click();
    await page.locator("#endpoint-form-error .alert").waitFor(WAIT);
    expect(await page.locator("#endpoint-form-error").textContent()).toMatch(/enabled_events must name at least one event type/);
    expect(await page.locator("#endpoint-form-error").getAttribute("role")).toBe("alert");
    expect(problems).toEqual([]);
  });

  it("keeps the webhook URL field and the first endpoint in step, both ways, with no reload", async () => {
    const { page, problems } = await openAs("owner", "/dashboard/webhooks");
    await h1(page, "Webhooks");
    const first = page.locator("#endpoints-list tbody tr").first();
    await first.waitFor(WAIT);
    expect(await first.textContent()).toContain(primary.url);
    expect(await page.locator("#webhook-url").inputValue()).toBe(primary.url);
    expect(await page.locator("#delivery-log-url").textContent()).toBe(primary.url);

    // The first endpoint edited in the endpoint form: the URL field above follows, and so does the log's heading.
    const moved = `${primary.url}/moved`;
    await first.getByRole("button", { name: `Edit ${primary.url}` }).click();
    await page.getByLabel("Endpoint URL").fill(moved);
    await page.getByRole("button", { name: "Save endpoint" }).click();
    await expect.poll(() => page.locator("#endpoint-notice-text").textContent(), WAIT).toBe(`${moved} is saved`);
    await expect.poll(() => page.locator("#webhook-url").inputValue(), WAIT).toBe(moved);
    await expect.poll(() => page.locator("#delivery-log-url").textContent(), WAIT).toBe(moved);
    expect(await first.locator("code").first().textContent()).toBe(moved);

    // The URL saved above: the endpoints table follows.
    await page.locator("#webhook-url").fill(primary.url);
    await page.getByRole("button", { name: "Save URL" }).click();
    await expect.poll(() => first.locator("code").first().textContent(), WAIT).toBe(primary.url);
    await expect.poll(() => page.locator("#delivery-log-url").textContent(), WAIT).toBe(primary.url);
    expect(await page.locator("#webhook-url").inputValue()).toBe(primary.url);
    const owner = d.t.gateway.access.operator(d.merchant.id);
    expect((await d.t.gateway.webhooks.listEndpoints(owner)).find((e) => e.isPrimary)?.url).toBe(primary.url);
    await expectAccessibleAt(page, "owner, URL and first endpoint in step, desktop");
    expect(problems).toEqual([]);
  });

  it("reads a log with a pending delivery every 2 s, and stops when the page is left", async () => {
    const endpoint = await shopEndpoint();
    await initialize(); // not sent yet: pending
    const { page, problems } = await openAs("owner", `/dashboard/webhooks?endpoint=${endpoint.id}`);
    const reads: number[] = [];
    page.on("request", (request) => {
      if (new URL(request.url()).pathname.endsWith("/deliveries")) reads.push(Date.now());
    });
    await h1(page, "Webhooks");
    await expect.poll(() => logRow(page, "payment.initiated").first().locator('td[data-label="Status"]').textContent(), WAIT).toBe("pending");
    await expect.poll(() => reads.length, WAIT).toBeGreaterThanOrEqual(3);
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Transactions" }).click();
    await h1(page, "Transactions");
    const left = reads.length;
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    expect(reads.length).toBe(left);
    await deliver();
    expect(problems).toEqual([]);
  });

  it("loads more deliveries after the first 20 (the cursor), and says how many are shown", async () => {
    const endpoint = await shopEndpoint();
    shop.answer = () => ({ status: 200, body: "ok" });
    const owner = d.t.gateway.access.operator(d.merchant.id);
    const before = (await d.t.gateway.webhooks.listDeliveries(owner, endpoint.id, { limit: "100" })).deliveries.length;
    for (let i = before; i < 23; i++) await initialize();
    await deliver();
    const total = (await d.t.gateway.webhooks.listDeliveries(owner, endpoint.id, { limit: "100" })).deliveries.length;
    expect(total).toBeGreaterThan(20);
    expect(total).toBeLessThanOrEqual(40);
    const { page, problems } = await openAs("owner", `/dashboard/webhooks?endpoint=${endpoint.id}`);
    await h1(page, "Webhooks");
    await logRow(page, "payment.initiated").first().waitFor(WAIT);
    expect(await page.locator("#delivery-rows tbody tr").count()).toBe(20);
    await page.getByRole("link", { name: "Load more deliveries" }).click();
    await expect.poll(() => page.locator("#delivery-rows tbody tr").count(), WAIT).toBe(total);
    await expect.poll(() => page.locator("#announcer").textContent(), WAIT).toBe(`${total} deliveries shown`);
    expect(await page.getByRole("link", { name: "Load more deliveries" }).count()).toBe(0);
    // Each row once: the next page starts after the last one shown.
    const ids = await page.locator('#delivery-rows td[data-label="Event id"]').allTextContents();
    expect(new Set(ids).size).toBe(total);
    expect(problems).toEqual([]);
  });

  it("passes axe-core at 375 px and on a desktop with no sideways scrolling, and a viewer reads it all with no control", async () => {
    const endpoint = await shopEndpoint();
    shop.answer = () => ({ status: 200, body: "ok" });
    await initialize();
    await deliver();
    const path = `/dashboard/webhooks?endpoint=${endpoint.id}`;
    for (const viewport of [MOBILE, DESKTOP]) {
      const { context, page, problems } = await openAs("owner", path, viewport);
      await h1(page, "Webhooks");
      await logRow(page, "payment.initiated").first().waitFor(WAIT);
      await expectAccessibleAt(page, `owner at ${viewport.width} px`);
      await expectNoSidewaysScroll(page, `owner at ${viewport.width} px`);
      expect(problems).toEqual([]);
      await context.close();
    }
    for (const viewport of [MOBILE, DESKTOP]) {
      const { context, page, problems } = await openAs("viewer", `${path}&deliveries=failed`, viewport);
      await h1(page, "Webhooks");
      await page.locator("#endpoints-list tbody tr", { hasText: shop.url }).waitFor(WAIT);
      await page.locator("#no-deliveries, #delivery-rows table").first().waitFor(WAIT);
      expect(await page.locator("main p.lead").textContent()).toMatch(/Your role can read these settings/);
      expect(await page.locator("main button, main input, main select, main form").count()).toBe(0);
      // Reading the log is links: all, then failing only.
      await page.getByRole("link", { name: "All deliveries" }).click();
      await logRow(page, "payment.initiated").first().waitFor(WAIT);
      expect(await page.locator("#delivery-rows").textContent()).not.toContain("Redeliver");
      await expectAccessibleAt(page, `viewer at ${viewport.width} px`);
      await expectNoSidewaysScroll(page, `viewer at ${viewport.width} px`);
      expect(problems).toEqual([]);
      await context.close();
    }
  });
});

async function expectAccessibleAt(page: Page, state: string): Promise<void> {
  expect(await accessibilityViolations(page), state).toEqual([]);
}
