// @module-tag browser
// Issue 28: the hosted checkout in the customer's language, in a real Chromium. Every state (choose,
// pay, the paid receipt, expired, a broken link) in each language at 375 px and 1,280 px: its texts
// in the language, `lang` and `dir` on <html> (rtl for Arabic), no horizontal scrolling at 375 px,
// amounts that never break inside a number, axe-core clean, and a screenshot of each. Also the
// language from the browser, the picker, the merchant's cancel_url link and the favicon.
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { explorerLink, type NetworkSlug, networkName } from "../../src/core/networks.ts";
import { coinNameIn, formatFiat, type Locale, LOCALES, MESSAGES, networkLabelIn } from "../../web/checkout/i18n.ts";
import { accessibilityViolations } from "../support/browser.ts";
import { checkoutFixture, DESKTOP, failedRequestsOf, heading, MOBILE, problemsOf as scriptProblemsOf, text, WAIT } from "./support.ts";

const f = checkoutFixture();

/** Five states, two widths, axe on each, on a machine shared with other test runs: a budget, not a timed assertion. */
const STATES_BUDGET_MS = 180_000;
const SHOTS = path.join(tmpdir(), "paygate-checkout-locales");
mkdirSync(SHOTS, { recursive: true });

async function initialize(extra: Record<string, unknown>) {
  const { id, checkoutUrl } = await f.initialize({
    customer: { email: "ada@example.com" },
    currency: "NGN",
    amount: "25000",
    description: "Order #42",
    ...extra,
  });
  return { id, checkoutUrl };
}

const helper = (id: string, action: "payment" | "expire") => f.testHelper(id, action);
const retrieve = (id: string, keys = f.keys) => f.retrieve(id, keys);
const open = (url: string, options: { locale?: string } = {}) => f.open(url, options);
// Every failed request is a problem here: the favicon's 404 included.
const problemsOf = (page: Page) => [...scriptProblemsOf(page), ...failedRequestsOf(page)];

/** The state at both widths: language, direction, no overflow at 375 px, numbers on one line, axe, a screenshot. */
async function checkState(page: Page, locale: Locale, state: string) {
  const root = await page.evaluate(() => {
    const d = (globalThis as unknown as { document: { documentElement: { lang: string; dir: string } } }).document.documentElement;
    return { lang: d.lang, dir: d.dir };
  });
  expect(root, `${locale} ${state}`).toEqual({ lang: locale, dir: locale === "ar" ? "rtl" : "ltr" });
  for (const viewport of [MOBILE, DESKTOP]) {
    await page.setViewportSize(viewport);
    const where = `${locale} ${state} at ${viewport.width} px`;
    const layout = await page.evaluate(() => {
      const doc = (globalThis as unknown as { document: any }).document;
      const root = doc.documentElement;
      // A number on one line (all its boxes, one per bidi run, at one height) and inside its box.
      const numbers = [...doc.querySelectorAll(".number")].map((n: any) => new Set([...n.getClientRects()].map((r: any) => Math.round(r.top))).size);
      const outside = [...doc.querySelectorAll(".number")].filter((n: any) => {
        const own = n.getBoundingClientRect();
        const box = n.closest(".summary, .panel").getBoundingClientRect();
        return own.left < box.left - 1 || own.right > box.right + 1;
      }).length;
      // The lines an element's text takes (its line boxes' distinct tops); null where the element is not shown.
      const linesOf = (selector: string) => {
        const el = doc.querySelector(selector);
        if (!el) return null;
        const range = doc.createRange();
        range.selectNodeContents(el);
        return new Set([...range.getClientRects()].map((r: any) => Math.round(r.top))).size;
      };
      return {
        scrollWidth: root.scrollWidth,
        clientWidth: root.clientWidth,
        numbers,
        outside,
        amount: linesOf("#pay-amount"),
        address: linesOf("#pay-address"),
      };
    });
    if (viewport === MOBILE) expect(layout.scrollWidth, where).toBeLessThanOrEqual(layout.clientWidth);
    for (const lines of layout.numbers) expect(lines, where).toBe(1);
    // Issue 46: at 1,280 px the coin amount keeps one line and the address at most two, in every language.
    if (viewport === DESKTOP && layout.amount !== null) {
      expect(layout.amount, `${where}: the amount's lines`).toBe(1);
      expect(layout.address ?? 0, `${where}: the address's lines`).toBeLessThanOrEqual(2);
    }
    expect(layout.outside, where).toBe(0);
    expect(await accessibilityViolations(page), where).toEqual([]);
    const png = await page.screenshot({ path: path.join(SHOTS, `${state}-${locale}-${viewport.width}.png`), fullPage: true });
    expect(png.length, where).toBeGreaterThan(1_000);
  }
  await page.setViewportSize(MOBILE);
}

describe("every state in every language", () => {
  for (const locale of LOCALES) {
    const m = MESSAGES[locale];
    it(
      `${locale}: choose, pay, the paid receipt, expired and a broken link`,
      async () => {
        // A long NGN amount: it broke mid-number at 1,280 px ("NGN 25,000.0 / 0").
        const paid = await initialize({ locale, amount: "2500000", cancel_url: "https://shop.example.com/cart" });
        const page = await open(paid.checkoutUrl);
        await heading(page, m.chooseTitle);
        expect(await text(page, ".amount-label")).toBe(m.amountDue);
        expect(await text(page, ".fiat-amount")).toBe(formatFiat("2500000", "NGN", locale));
        expect(await page.getByRole("link", { name: m.backToShop("Acme Stores") }).getAttribute("href")).toBe("https://shop.example.com/cart");
        await checkState(page, locale, "choose");

        await page.locator("button.coin").first().click();
        await page.locator("#pay-status .status-title", { hasText: m.waitingTitle }).waitFor(WAIT);
        expect(await text(page, "#pay-amount-label")).toBe(m.amount);
        await checkState(page, locale, "pay");

        await helper(paid.id, "payment");
        await heading(page, m.paidTitle);
        const data = await retrieve(paid.id);
        expect(await text(page, ".amount-label")).toBe(m.orderTotal);
        expect(await page.getByText(m.amountDue, { exact: true }).count()).toBe(0);
        expect(await page.locator("#cancel-link").count()).toBe(0);
        expect(await text(page, "#receipt-title")).toBe(m.receipt);
        expect(await text(page, "#receipt-reference")).toBe(data.reference);
        expect(await page.locator("#receipt-date").getAttribute("datetime")).toBe(data.receipts[0].first_seen_at);
        const hash = data.receipts[0].tx_hash as string;
        expect(await text(page, "#receipt-transactions code")).toBe(hash);
        // The explorer of the network paid on, in the transaction's mode (src/core/networks.ts).
        const network = data.payment_network as NetworkSlug;
        expect(await page.locator(".explorer-link").getAttribute("href")).toBe(explorerLink(network, false, "transaction", hash));
        expect(await page.getByRole("button", { name: m.print }).count()).toBe(1);
        await checkState(page, locale, "paid");
        await page.close();

        const expired = await initialize({ locale });
        const ended = await open(expired.checkoutUrl);
        await heading(ended, m.chooseTitle);
        await helper(expired.id, "expire");
        await heading(ended, m.expiredTitle);
        await checkState(ended, locale, "expired");
        expect(problemsOf(ended)).toEqual([]);
        await ended.close();

        // A broken link has no transaction to fix the language: the picker's is used.
        const broken = await open(`${f.t.url}/checkout/not-a-secret`);
        await broken.locator("#locale-picker").selectOption(locale);
        await heading(broken, m.invalidTitle);
        await checkState(broken, locale, "invalid-link");
        await broken.close();
      },
      STATES_BUDGET_MS,
    );
  }
});

describe("network names and the API's refusals in every language", () => {
  for (const locale of LOCALES) {
    const m = MESSAGES[locale];
    it(
      `${locale}: names the network in the language, and says a refused initiate in it, never in the API's English`,
      async () => {
        // A merchant of its own: it is deactivated below.
        const merchant = await f.t.merchant({ name: `Boutique ${locale}` });
        const paying = await f.initialize({ locale, customer: { email: "ada@example.com" } }, { keys: merchant });
        const page = await open(paying.checkoutUrl);
        await heading(page, m.chooseTitle);
        const tether = coinNameIn({ slug: "USDT", name: "Tether" }, m);
        // USDT's first button is its default network's (a new merchant has a test wallet on each, issue 43).
        await page
          .getByRole("button", { name: new RegExp(`^${tether} \\(USDT\\)`) })
          .first()
          .click();
        await page.locator("#pay-network").waitFor(WAIT);
        const ethereum = networkLabelIn({ slug: "ethereum", name: networkName("ethereum", false), standard: "ERC-20" }, false, m);
        expect(await text(page, "#pay-network")).toBe(ethereum);
        // Issue 46: the heading names the coin in the language's letters, as the network line does.
        expect(await text(page, "#panel-title")).toBe(m.payWith(tether));
        if (locale === "ar") expect(await text(page, "#panel-title"), "Latin letters in the Arabic heading").not.toMatch(/[A-Za-z]/);
        expect(await text(page, ".note")).toBe(m.sendExactly("USDT", ethereum));
        if (locale !== "en") expect(ethereum).not.toContain(networkName("ethereum", false));
        await page.close();

        // Refused at initiate: the merchant was deactivated while the customer was choosing.
        const refused = await f.initialize({ locale, customer: { email: "ada@example.com" } }, { keys: merchant });
        const choosing = await open(refused.checkoutUrl);
        await heading(choosing, m.chooseTitle);
        await f.t.db.merchant.update({ where: { id: merchant.id }, data: { active: false } });
        await choosing.getByRole("button", { name: new RegExp(`^${coinNameIn({ slug: "BTC", name: "Bitcoin" }, m)} \\(BTC\\)`) }).click();
        const said = m.pickRefused(m.apiErrors.merchant_inactive);
        await choosing.getByRole("alert").filter({ hasText: said }).waitFor(WAIT);
        expect(await choosing.locator("#panel").textContent()).not.toContain("The transaction is not initiated");
        expect(await accessibilityViolations(choosing), `${locale} refused`).toEqual([]);
        expect((await retrieve(refused.id, merchant)).status).toBe("INITIATED");
        await choosing.close();
      },
      STATES_BUDGET_MS,
    );
  }
});

describe("choosing the language", () => {
  it("follows the browser's languages when the merchant fixed none", async () => {
    const { checkoutUrl } = await initialize({});
    const page = await open(checkoutUrl, { locale: "fr-CA" });
    await heading(page, MESSAGES.fr.chooseTitle);
    expect(
      await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { lang: string } } }).document.documentElement.lang),
    ).toBe("fr");
    await page.close();
  });

  it("takes the merchant's locale over the browser's, and the customer's pick over both, kept on a reload", async () => {
    const { checkoutUrl } = await initialize({ locale: "es" });
    const page = await open(checkoutUrl, { locale: "de-DE" });
    await heading(page, MESSAGES.es.chooseTitle);
    await page.getByLabel(MESSAGES.es.language).selectOption("pt");
    await heading(page, MESSAGES.pt.chooseTitle);
    expect(await text(page, ".amount-label")).toBe(MESSAGES.pt.amountDue);
    await page.reload();
    await heading(page, MESSAGES.pt.chooseTitle);
    await page.close();
  });

  it("shows no back link without a cancel_url, and the favicon without a 404", async () => {
    const { checkoutUrl } = await initialize({});
    const page = await open(checkoutUrl);
    await heading(page, MESSAGES.en.chooseTitle);
    expect(await page.locator("#cancel-link").count()).toBe(0);
    const icon = await page.locator('link[rel="icon"]').getAttribute("href");
    const res = await fetch(new URL(icon ?? "/missing", f.t.url));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
    // Pages without their own icon link get the same one at /favicon.ico.
    const ico = await fetch(`${f.t.url}/favicon.ico`);
    expect(ico.status).toBe(200);
    expect(ico.url).toBe(new URL(icon ?? "/missing", f.t.url).href);
    expect(problemsOf(page)).toEqual([]);
    await page.close();
  });
});
