// @module-tag browser
// The management pages in a real Chromium against the real service: rotating the webhook secret
// (a delivery then verifies with both secrets, standardwebhooks), a test event and its status,
// rolling a key with a 1-hour overlap (the old key accepted, then refused on the test clock), a
// wallet's preview of three addresses then Confirm, the gap-limit warning, a payment link created and deactivated, a
// viewer without change controls; axe-core on each page at 375 px and on a desktop.
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessibilityViolations, DESKTOP, focusedId, MOBILE, WAIT } from "../../support/browser.ts";
import { dashboardBrowserFixture, h1 } from "../../support/dashboard.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../../support/webhook-receiver.ts";
import { manualClock } from "../../support/clock.ts";
import { initializeBody } from "../../support/builders.ts";

const BIP84_ZPUB = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs";
const BIP84_ADDRESSES = ["bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", "bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g"];
const HOUR = 3_600_000;

const clock = manualClock();
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
});
const d = dashboardBrowserFixture({
  // The receiver is on 127.0.0.1: the operator's setting shows its test event's status (issue 41).
  gateway: { clock, env: { PAYGATE_WEBHOOK_TEST_EVENT_DETAILS: "true" } },
  merchant: () => ({ name: "Pages Shop", kyb: "VERIFIED", testWebhookUrl: receiver.url }),
});
/** A page signed in as a new user of that role (signInBrowser: no sign-in form), at `path`, with confirmations accepted. */
const { openAs } = d;

describe("the management pages in a browser", () => {
  it("webhooks: a test event's status, then a rotation whose new secret shows once and signs beside the old one", async () => {
    const { page, problems } = await openAs("owner", "/dashboard/webhooks");
    await h1(page, "Webhooks");
    expect(await page.getByLabel("Webhook URL (test mode)").inputValue()).toBe(receiver.url);

    receiver.answer = () => ({ status: 202, body: "tok_INTERNAL_thanks" });
    await page.getByRole("button", { name: "Send a test event" }).click();
    await page.getByRole("heading", { name: "Delivered" }).waitFor(WAIT);
    expect(await page.locator("#test-status").textContent()).toBe("202");
    // The receiver is on 127.0.0.1: the page says why it shows no body, and never shows it.
    expect(await page.locator("#test-response").textContent()).toMatch(/^Not shown: the endpoint is on a private or local address/);
    expect(await page.locator("#test-result").textContent()).not.toContain("tok_INTERNAL");
    expect(await page.content()).not.toContain("tok_INTERNAL");
    await expect.poll(() => focusedId(page), WAIT).toBe("test-result-title");

    // A URL the service refuses: its message next to the field, announced, nothing saved.
    await page.getByLabel("Webhook URL (test mode)").fill("not a url");
    await page.getByRole("button", { name: "Save URL" }).click();
    await page.locator("#webhook-url-error .alert").waitFor(WAIT);
    expect(await page.locator("#webhook-url-error").getAttribute("role")).toBe("alert");
    await expect.poll(() => page.getByLabel("Webhook URL (test mode)").getAttribute("aria-invalid"), WAIT).toBe("true");
    expect((await d.t.gateway.merchants.settings(d.t.gateway.access.operator(d.merchant.id))).webhookUrls.test).toBe(receiver.url);
    await page.getByLabel("Webhook URL (test mode)").fill(receiver.url);

    await page.getByRole("button", { name: "Rotate the secret" }).click();
    await page.getByRole("heading", { name: "New signing secret" }).waitFor(WAIT);
    await expect.poll(() => focusedId(page), WAIT).toBe("new-webhook-secret-title");
    const secret = await page.locator("#new-webhook-secret").inputValue();
    expect(secret).toMatch(/^whsec_/);
    expect(await page.locator("#new-webhook-secret-note").textContent()).toMatch(/two signatures/);

    // A delivery now verifies with the old secret and with the new one.
    const received = receiver.received.length;
    const initialized = await d.t.post("/v1/transaction", initializeBody({ amount: "25" }), { authorization: `Bearer ${d.merchant.testPublicKey}` });
    expect(initialized.status).toBe(201);
    await d.t.dispatcher().drain();
    const delivery = receiver.received[received]!;
    const headers = {
      "webhook-id": String(delivery.headers["webhook-id"]),
      "webhook-timestamp": String(delivery.headers["webhook-timestamp"]),
      "webhook-signature": String(delivery.headers["webhook-signature"]),
    };
    expect(new Webhook(d.merchant.webhookSecret).verify(delivery.body, headers)).toMatchObject({ event: "payment.initiated" });
    expect(new Webhook(secret).verify(delivery.body, headers)).toMatchObject({ event: "payment.initiated" });

    // Shown once: a reload shows when it was rotated, never the secret.
    await page.reload();
    await h1(page, "Webhooks");
    expect(await page.locator("#secret-info").textContent()).toMatch(/previous secret also signs/);
    expect(await page.content()).not.toContain(secret);
    expect(problems).toEqual([]);
  });

  it("API keys: rolls the secret key with a 1-hour overlap; the old key works, then is refused on the test clock", async () => {
    const { page, problems } = await openAs("owner", "/dashboard/api-keys");
    await h1(page, "API keys");
    await page.getByLabel("Key", { exact: true }).selectOption("secret");
    await page.getByLabel("The old key").selectOption("1h");
    await page.getByRole("button", { name: "Roll the key" }).click();
    await page.getByRole("heading", { name: "New secret key" }).waitFor(WAIT);
    await expect.poll(() => focusedId(page), WAIT).toBe("new-api-key-title");
    const key = await page.locator("#new-api-key").inputValue();
    await expect.poll(() => page.locator("table").textContent(), WAIT).toContain("Expiring");

    const list = async (secret: string) => (await fetch(`${d.t.url}/v1/transactions`, { headers: { authorization: `Bearer ${secret}` } })).status;
    expect(await list(d.merchant.testSecretKey)).toBe(200);
    expect(await list(key)).toBe(200);
    clock.advance(HOUR);
    expect(await list(d.merchant.testSecretKey)).toBe(401);
    expect(await list(key)).toBe(200);
    expect(problems).toEqual([]);
  });

  it("wallets: Preview shows the first three addresses, Confirm sets the key (live mode)", async () => {
    const { page, problems } = await openAs("owner", "/dashboard/wallets?mode=live");
    await h1(page, "Wallets");
    await page.getByLabel("Coin").selectOption("BTC");
    await page.getByLabel("Account extended public key").fill("zpub-not-a-key");
    await page.getByRole("button", { name: "Preview" }).click();
    await page.locator("#wallet-key-error .alert").waitFor(WAIT);
    await expect.poll(() => focusedId(page), WAIT).toBe("wallet-key");

    await page.getByLabel("Account extended public key").fill(BIP84_ZPUB);
    await page.getByRole("button", { name: "Preview" }).click();
    await page.locator("#preview-addresses").waitFor(WAIT);
    await expect.poll(() => focusedId(page), WAIT).toBe("preview-title");
    const shown = await page.locator("#preview-addresses li code").allTextContents();
    expect(shown).toHaveLength(3);
    expect(shown.slice(0, 2)).toEqual(BIP84_ADDRESSES);
    await page.getByRole("button", { name: "Confirm" }).click();
    await page.locator("#wallet-saved").waitFor(WAIT);
    await expect.poll(() => page.locator("table").textContent(), WAIT).toMatch(/BTC.*zpub/);
    expect(problems).toEqual([]);
  });

  it("wallets: the gap-limit warning once 20 handed-out addresses at the end are unpaid", async () => {
    const gap = await d.t.merchant({ name: "Gap Shop" });
    const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
    for (let i = 0; i < 20; i++) {
      const started = await d.t.post("/v1/transaction", initializeBody({ amount: "25" }), bearer(gap.testPublicKey));
      expect((await d.t.post(`/v1/transaction/${started.body.data.id}/pay`, { currency_id: "4" }, bearer(gap.testSecretKey))).status).toBe(200);
    }
    const { page, problems } = await openAs("viewer", "/dashboard/wallets", MOBILE, gap.id);
    await h1(page, "Wallets");
    await page.locator("main .alert").waitFor(WAIT);
    expect(await page.locator("main .alert").textContent()).toMatch(/^BTC: The last 20 BTC addresses handed out received nothing/);
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it("payment links: create one, then deactivate it after the confirmation", async () => {
    const { page, problems } = await openAs("owner", "/dashboard/payment-links");
    await h1(page, "Payment links");
    await page.getByRole("button", { name: "Create a payment link" }).click();
    await page.locator("#link-notice").filter({ hasText: "created" }).waitFor(WAIT);
    await expect.poll(() => focusedId(page), WAIT).toBe("link-notice");
    const slug = (await d.t.gateway.merchants.listPaymentLinks(d.t.gateway.access.operator(d.merchant.id)))[0]!.slug;
    await page.getByRole("button", { name: `Deactivate ${slug}` }).click();
    await page.getByRole("cell", { name: "Deactivated" }).waitFor(WAIT);
    expect(await page.locator("#link-notice").textContent()).toMatch(/is deactivated/);
    await expect.poll(() => focusedId(page), WAIT).toBe("link-notice");
    expect((await d.t.gateway.merchants.listPaymentLinks(d.t.gateway.access.operator(d.merchant.id)))[0]).toMatchObject({ slug, active: false });
    expect(problems).toEqual([]);
  });

  it("a viewer reads every page with no change control", async () => {
    const { page, problems } = await openAs("viewer", "/dashboard/webhooks");
    for (const [path, title] of [
      ["webhooks", "Webhooks"],
      ["api-keys", "API keys"],
      ["wallets", "Wallets"],
      ["payment-links", "Payment links"],
    ] as const) {
      await page.goto(`${d.t.url}/dashboard/${path}`);
      await h1(page, title);
      await page.locator("main p.lead").waitFor(WAIT);
      expect(await page.locator("main button, main input, main select, main form").count(), path).toBe(0);
      expect(await page.locator(".kyb").textContent()).toBe("KYB verified");
    }
    // The test/live switch applies: the live URL (none) in live mode, the test one in test mode.
    await page.goto(`${d.t.url}/dashboard/webhooks?mode=live`);
    await h1(page, "Webhooks");
    expect(await page.locator("#webhook-url-value").textContent()).toBe("No URL is set: events are not sent.");
    await page.getByRole("group", { name: "Mode" }).getByRole("link", { name: "Test" }).click();
    await expect.poll(() => page.locator("#webhook-url-value").textContent(), WAIT).toBe(receiver.url);
    expect(problems).toEqual([]);
  });

  it("passes axe-core on each page at 375 px and on a desktop", async () => {
    for (const viewport of [MOBILE, DESKTOP]) {
      const { page } = await openAs("owner", "/dashboard/webhooks", viewport);
      for (const [path, title] of [
        ["webhooks", "Webhooks"],
        ["api-keys", "API keys"],
        ["wallets?mode=live", "Wallets"],
        ["payment-links", "Payment links"],
      ] as const) {
        await page.goto(`${d.t.url}/dashboard/${path}`);
        await h1(page, title);
        await page.locator("main .table-wrap, main #secret-info").first().waitFor(WAIT);
        expect(await accessibilityViolations(page), `${path} at ${viewport.width} px`).toEqual([]);
        const { scrollWidth, clientWidth } = await page.evaluate(() => {
          const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document
            .documentElement;
          return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth };
        });
        expect(scrollWidth, `${path} at ${viewport.width} px`).toBeLessThanOrEqual(clientWidth);
      }
    }
  });
});
