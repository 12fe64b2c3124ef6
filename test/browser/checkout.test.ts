// @module-tag browser
// The hosted checkout page in a real Chromium, against the real service: a transaction made through
// the REST API, its checkout_url opened as a customer would, the coin picked, and the page moved on
// by the test helpers (and the chain watcher's own entry) without a reload. axe-core checks every
// state the customer can see.
import { Decimal } from "../../src/core/money/amounts.ts";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { accessibilityViolations } from "../support/browser.ts";
import { decodeQr } from "../support/qr.ts";
import { checkoutFixture, DESKTOP, heading, type Initialized, MOBILE, problemsOf, text, WAIT } from "./support.ts";

const f = checkoutFixture();

function initialize(extra: Record<string, unknown> = {}): Promise<Initialized> {
  return f.initialize({ customer: { email: "ada@example.com", name: "Ada Obi" }, description: "Order #42", ...extra });
}

/** The transaction as the merchant's server reads it (table 2.2). */
const retrieve = (id: string) => f.retrieve(id);
const testHelper = (id: string, action: "payment" | "expire", body: Record<string, unknown> = {}) => f.testHelper(id, action, body);
const open = (url: string, viewport = MOBILE) => f.open(url, { viewport });

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

/** Reads the QR code as a wallet's camera would: from a screenshot of the page. */
async function qrOnScreen(page: Page): Promise<string> {
  const png = await page.locator(".qr img").screenshot();
  return decodeQr(`data:image/png;base64,${png.toString("base64")}`).text;
}

/** Marks the page, so a later check can tell that it was not reloaded. */
const mark = (page: Page) => page.evaluate(() => Object.assign(globalThis, { notReloaded: true }));
const stillMarked = (page: Page) => page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded === true);

describe("the checkout page from checkout_url", () => {
  it("shows the merchant, the description, the amount and the test-mode banner, and the coins with their indicative amounts", async () => {
    const { checkoutUrl, clientSecret, id } = await initialize();
    expect(checkoutUrl).toBe(`${f.t.url}/checkout/${clientSecret}`);
    const page = await open(checkoutUrl);
    await heading(page, "Choose how to pay");
    expect(await text(page, "h1")).toBe("Acme Stores");
    expect(await text(page, ".description")).toBe("Order #42");
    expect(await text(page, ".fiat-amount")).toBe("$100.00");
    expect(await page.getByRole("banner").textContent()).toContain("Test mode");
    expect(await page.title()).toBe("Pay Acme Stores · $100.00");

    // The coins and amounts the API offers, as the page shows them.
    const options = await graphql(
      clientSecret,
      `{ paymentOptions(transactionId: "${id}") { options { currency { slug name } network { name standard } feeLevel amount available } } }`,
    );
    const offered = options.paymentOptions.options as {
      currency: { slug: string; name: string };
      network: { name: string; standard: string | null };
      feeLevel: "LOW" | "MEDIUM" | "HIGH";
      amount: string;
      available: boolean;
    }[];
    // Every coin on every network of the table (issue 43): a new merchant has a test wallet on each.
    expect(offered.map((o) => o.currency.slug)).toEqual([...Array(5).fill("USDT"), "BTC", "BNB", "ETH", "LTC", ...Array(5).fill("USDC")]);
    const buttons = page.locator("button.coin");
    expect(await buttons.count()).toBe(offered.length);
    const fee = { LOW: "Network fees: low", MEDIUM: "Network fees: medium", HIGH: "Network fees: high" };
    for (const [i, option] of offered.entries()) {
      expect(option.available).toBe(true);
      const several = offered.filter((o) => o.currency.slug === option.currency.slug).length > 1;
      const network = option.network.standard ? `${option.network.name} (${option.network.standard})` : option.network.name;
      expect(await buttons.nth(i).textContent()).toBe(
        `${option.currency.name} (${option.currency.slug})${several ? ` on ${network}` : ""}${fee[option.feeLevel]}about ${option.amount} ${option.currency.slug}`,
      );
    }
    await expectNoHorizontalScroll(page);
    await expectAccessible(page, "choose a coin");
    expect(problemsOf(page)).toEqual([]);
    await page.close();
  });

  it("for each coin: the exact amount, the API's payment_address with copy buttons, the network, a QR of the payment URI and a countdown", async () => {
    const coins = [
      { slug: "USDT", name: "Tether", network: "Ethereum Sepolia testnet (ERC-20)" },
      { slug: "BTC", name: "Bitcoin", network: "Bitcoin testnet" },
      { slug: "BNB", name: "BNB", network: "BNB Smart Chain testnet" },
      { slug: "ETH", name: "Ethereum", network: "Ethereum Sepolia testnet" },
      { slug: "LTC", name: "Litecoin", network: "Litecoin testnet" },
    ];
    for (const coin of coins) {
      const { id, checkoutUrl } = await initialize();
      const page = await open(checkoutUrl);
      // A coin on several networks has a button per network: its default network's comes first.
      await page
        .getByRole("button", { name: new RegExp(`^${coin.name} \\(${coin.slug}\\)`) })
        .first()
        .click();
      await heading(page, `Pay with ${coin.name}`);

      const data = await retrieve(id);
      expect(data.status).toBe("PENDING");
      expect(await text(page, "#pay-address")).toBe(data.payment_address);
      expect(await text(page, "#pay-amount")).toBe(`${new Decimal(data.payment_amount).toFixed()} ${coin.slug}`);
      expect(await text(page, "#pay-network")).toBe(coin.network);
      if (coin.slug === "USDT") {
        // The token's contract, shortened, linked to the explorer (issue 43).
        const contract = page.locator("#pay-contract a");
        expect(await contract.textContent()).toBe("0xaA8E…33D0");
        expect(await contract.getAttribute("href")).toBe("https://sepolia.etherscan.io/address/0xaA8E23Fb1079EA71e0a56F48a2aA51851D8433D0");
        await expectAccessible(page, "a token's contract");
      }
      expect(await page.locator(".qr img").getAttribute("alt")).toBe(`QR code of the payment request ${data.payment_uri}`);
      expect(await qrOnScreen(page), coin.slug).toBe(data.payment_uri);
      expect(await page.getByRole("link", { name: "Open in wallet app" }).getAttribute("href")).toBe(data.payment_uri);
      expect(await text(page, "#countdown")).toMatch(/^(29|30):\d\d$/);
      expect(await text(page, "#pay-status .status-title")).toBe("Waiting for your payment");
      await expectNoHorizontalScroll(page);
      if (coin.slug === "BTC") await expectAccessible(page, "awaiting payment");
      expect(problemsOf(page), coin.slug).toEqual([]);
      await page.close();
    }
  });

  it("copies the address and says so in a live region", async () => {
    const { id, checkoutUrl } = await initialize();
    const page = await open(checkoutUrl);
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: f.t.url });
    await page.getByRole("button", { name: /^Bitcoin/ }).click();
    await heading(page, "Pay with Bitcoin");
    await page.getByRole("button", { name: "Copy address" }).click();
    await page.locator(".copy-status", { hasText: "Address copied." }).waitFor(WAIT);
    expect(await page.locator(".copy-status").getAttribute("role")).toBe("status");
    const copied = await page.evaluate(() =>
      (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText(),
    );
    expect(copied).toBe((await retrieve(id)).payment_address);
    await page.getByRole("button", { name: "Copy amount" }).click();
    await page.locator(".copy-status", { hasText: "Amount copied." }).waitFor(WAIT);
    await page.close();
  });

  it("is picked with the keyboard alone, and focus moves to the next step's heading", async () => {
    const { checkoutUrl } = await initialize();
    const page = await open(checkoutUrl);
    await heading(page, "Choose how to pay");
    let focused = "";
    for (let i = 0; i < 15 && !focused.startsWith("Bitcoin"); i++) {
      await page.keyboard.press("Tab");
      focused = await page.evaluate(
        () => (globalThis as unknown as { document: { activeElement: { textContent: string } | null } }).document.activeElement?.textContent ?? "",
      );
    }
    expect(focused).toMatch(/^Bitcoin \(BTC\)/);
    await page.keyboard.press("Enter");
    await heading(page, "Pay with Bitcoin");
    await page.waitForFunction(
      () => (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id === "panel-title",
      null,
      WAIT,
    );
    await page.close();
  });

  it("turns underpaid, then paid, without a reload; a reload shows the same thank-you and the merchant's return link", async () => {
    const { id, checkoutUrl } = await initialize({ return_url: "https://shop.example.com/orders/42" });
    const page = await f.browser.newPage({ viewport: MOBILE });
    // The live updates come over the event stream (graphql-sse), with the client secret.
    const stream = page.waitForResponse((r) => r.url() === `${f.t.url}/graphql/stream` && r.request().method() === "POST", WAIT);
    await page.goto(checkoutUrl);
    const streamed = await stream;
    expect(streamed.status()).toBe(200);
    expect(await streamed.headerValue("content-type")).toMatch(/^text\/event-stream/);
    expect(await streamed.request().headerValue("authorization")).toMatch(/^Bearer [0-9a-f-]{36}_secret_/);
    await page.getByRole("button", { name: /^Bitcoin/ }).click();
    await heading(page, "Pay with Bitcoin");
    await mark(page);
    const due = new Decimal((await retrieve(id)).payment_amount);

    await testHelper(id, "payment", { amount: "0.001" });
    await page.locator("#pay-status .status-title", { hasText: "Part of the payment has arrived" }).waitFor(WAIT);
    const owed = due.minus("0.001").toFixed();
    expect(await text(page, "#pay-amount-label")).toBe("Amount still to send");
    expect(await text(page, "#pay-amount")).toBe(`${owed} BTC`);
    expect(await text(page, "#pay-status .status-detail")).toContain(`Send the remaining ${owed} BTC to the same address`);
    await expectAccessible(page, "underpaid");

    await testHelper(id, "payment");
    await heading(page, "Thank you: payment received");
    expect(await stillMarked(page)).toBe(true);
    expect(await text(page, "#final p")).toBe(`Acme Stores has received your payment of ${due.toFixed()} BTC ($100.00).`);
    const back = page.getByRole("link", { name: "Return to Acme Stores" });
    expect(await back.getAttribute("href")).toBe("https://shop.example.com/orders/42");
    await expectAccessible(page, "paid");

    await page.reload();
    await heading(page, "Thank you: payment received");
    expect(await stillMarked(page)).toBe(false);
    expect(await page.getByRole("link", { name: "Return to Acme Stores" }).getAttribute("href")).toBe("https://shop.example.com/orders/42");
    expect(problemsOf(page)).toEqual([]);
    await page.close();
  });

  it("falls back to asking every few seconds when the event stream fails", async () => {
    const { id, checkoutUrl } = await initialize();
    const page = await f.browser.newPage({ viewport: MOBILE });
    // As a proxy that cuts event streams would: the page must still follow the payment.
    await page.route(`${f.t.url}/graphql/stream`, (route) => route.abort("connectionreset"));
    await page.goto(checkoutUrl);
    await page.getByRole("button", { name: /^Bitcoin/ }).click();
    await heading(page, "Pay with Bitcoin");
    await mark(page);
    await testHelper(id, "payment");
    await heading(page, "Thank you: payment received");
    expect(await stillMarked(page)).toBe(true);
    await page.close();
  });

  it("shows confirmations under way, then paid, as the chain watcher reports them", async () => {
    const { id, checkoutUrl } = await initialize();
    const page = await open(checkoutUrl, DESKTOP);
    await page.getByRole("button", { name: /^Litecoin/ }).click();
    await heading(page, "Pay with Litecoin");
    await mark(page);
    const due = new Decimal((await retrieve(id)).payment_amount);
    const receipt = (confirmations: number) => ({
      key: "c0ffee:0",
      txHash: "c0ffee",
      amount: due,
      confirmations,
      blockHeight: confirmations ? 100 : null,
    });

    await f.t.gateway.payments.applyReceipts(id, { receipts: [receipt(0)], requiredConfirmations: 6, source: "chain", complete: true });
    await page.locator("#pay-status .status-title", { hasText: "Payment seen: waiting for confirmations" }).waitFor(WAIT);
    expect(await text(page, "#pay-status .status-detail")).toBe(
      `${due.toFixed()} LTC arrived and awaits the network's confirmations (0 of 6). Confirmed so far: 0 LTC of ${due.toFixed()} LTC. It completes by itself: you may close this page.`,
    );
    await expectAccessible(page, "confirming");

    // Each new block shows without a reload.
    await f.t.gateway.payments.applyReceipts(id, { receipts: [receipt(2)], requiredConfirmations: 6, source: "chain", complete: true });
    await page.locator("#pay-status .status-detail", { hasText: "confirmations (2 of 6)" }).waitFor(WAIT);

    await f.t.gateway.payments.applyReceipts(id, { receipts: [receipt(6)], requiredConfirmations: 6, source: "chain", complete: true });
    await heading(page, "Thank you: payment received");
    expect(await stillMarked(page)).toBe(true);
    expect(await page.getByRole("link", { name: /Return to/ }).count()).toBe(0); // no return_url given
    await page.close();
  });

  it("says a payment that signals replaceability (BIP 125) counts from its first confirmation where 0 are accepted", async () => {
    const { id, checkoutUrl } = await initialize();
    const page = await open(checkoutUrl, DESKTOP);
    await page.getByRole("button", { name: /^Litecoin/ }).click();
    await heading(page, "Pay with Litecoin");
    const due = new Decimal((await retrieve(id)).payment_amount);
    const rbf = { key: "beef:0", txHash: "beef", amount: due, confirmations: 0, blockHeight: null, replaceable: true };
    await f.t.gateway.payments.applyReceipts(id, { receipts: [rbf], requiredConfirmations: 0, source: "chain", complete: true });
    await page.locator("#pay-status .status-title", { hasText: "Payment seen: waiting for confirmations" }).waitFor(WAIT);
    expect(await text(page, "#pay-status .status-detail")).toBe(
      `${due.toFixed()} LTC arrived and awaits the network's confirmations (your wallet marked it replaceable, so it counts from its first confirmation). Confirmed so far: 0 LTC of ${due.toFixed()} LTC. It completes by itself: you may close this page.`,
    );
    await f.t.gateway.payments.applyReceipts(id, {
      receipts: [{ ...rbf, confirmations: 1, blockHeight: 100 }],
      requiredConfirmations: 0,
      source: "chain",
      complete: true,
    });
    await heading(page, "Thank you: payment received");
    await page.close();
  });

  it("turns expired when the window closes, and stays so on a reload", async () => {
    const { id, checkoutUrl } = await initialize({ return_url: "https://shop.example.com/cart" });
    const page = await open(checkoutUrl);
    await page.getByRole("button", { name: /^Ethereum/ }).click();
    await heading(page, "Pay with Ethereum");
    await mark(page);
    await testHelper(id, "expire");
    await heading(page, "This payment has expired");
    expect(await stillMarked(page)).toBe(true);
    expect(await text(page, "#final p")).toBe(
      "The time to pay ran out before a payment arrived, and nothing was charged. To pay, go back to Acme Stores and start again.",
    );
    expect(await page.getByRole("link", { name: "Return to Acme Stores" }).getAttribute("href")).toBe("https://shop.example.com/cart");
    await expectAccessible(page, "expired");
    await page.reload();
    await heading(page, "This payment has expired");
    await page.close();
  });

  it("lays the order beside the payment on a desktop, and stacks them at 375 px without horizontal scrolling", async () => {
    const { checkoutUrl } = await initialize({ description: "A very long description that must wrap on a small phone ".repeat(4).trim() });
    for (const viewport of [DESKTOP, MOBILE]) {
      const page = await open(checkoutUrl, viewport);
      await heading(page, "Choose how to pay");
      const summary = (await page.locator("#summary").boundingBox())!;
      const panel = (await page.locator("#panel").boundingBox())!;
      if (viewport === DESKTOP) expect(panel.x).toBeGreaterThanOrEqual(summary.x + summary.width);
      else expect(panel.y).toBeGreaterThanOrEqual(summary.y + summary.height);
      await expectNoHorizontalScroll(page);
      await page.close();
    }
  });
});

describe("a checkout link that does not work", () => {
  it("says so, and what to do, for another transaction's client secret and for a broken link", async () => {
    const first = await initialize();
    const second = await initialize();
    // The second transaction's secret on the first one's id: it opens nothing.
    const crossed = `${first.id}_secret_${second.clientSecret.split("_secret_")[1]}`;
    for (const token of [crossed, `${first.id}_secret_${"x".repeat(32)}`, "not-a-checkout-link"]) {
      const page = await open(`${f.t.url}/checkout/${token}`);
      await heading(page, "This payment link is not valid");
      expect(await text(page, "#error p")).toBe(
        "Check that you opened the whole link you were given. If it still fails, go back to the merchant's site and start the payment again: each payment has its own link.",
      );
      expect(await page.locator("#error").getAttribute("role")).toBe("alert");
      expect(await page.locator("h1").count()).toBe(0);
      await expectAccessible(page, `invalid link ${token}`);
      await page.close();
    }
    // Nothing was picked through the crossed link.
    expect((await retrieve(first.id)).status).toBe("INITIATED");
  });
});

async function graphql(clientSecret: string, query: string) {
  const res = await fetch(`${f.t.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${clientSecret}` },
    body: JSON.stringify({ query }),
  });
  const body = (await res.json()) as { data: Record<string, any>; errors?: unknown[] };
  expect(body.errors).toBeUndefined();
  return body.data;
}
