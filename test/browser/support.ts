// What the checkout's browser tests share: a Chromium and a real service with one merchant for the
// file (started before its tests, closed after), a transaction made through the REST API as a
// merchant's server makes it, the test helpers that move it on, and a page opened as a customer
// opens checkout_url, with what went wrong on it (script errors, console errors, failed requests).
import type { Browser, Page } from "playwright-core";
import { expect } from "vitest";
import { browserFixture } from "../support/browser-fixture.ts";
import { initializeBody } from "../support/builders.ts";
import type { TestGateway, TestGatewayOptions } from "../support/gateway.ts";

export const MOBILE = { width: 375, height: 812 };
export const DESKTOP = { width: 1280, height: 800 };
/** The page's own polling and live updates on a loaded machine: generous, never a timed assertion. */
export const WAIT = { timeout: 20_000 };

export type TestMerchant = Awaited<ReturnType<TestGateway["merchant"]>>;

export interface Initialized {
  id: string;
  checkoutUrl: string;
  clientSecret: string;
}

export interface CheckoutFixture {
  readonly browser: Browser;
  readonly t: TestGateway;
  readonly keys: TestMerchant;
  /** A transaction of the merchant's test mode: `initializeBody(body)` unless `raw` gives the whole body. */
  initialize(body?: Record<string, unknown>, options?: { raw?: boolean; keys?: TestMerchant }): Promise<Initialized>;
  /** The transaction as the merchant's server reads it (GET /v1/transaction/:id). */
  retrieve(id: string, keys?: TestMerchant): Promise<Record<string, any>>;
  /** A test helper's move (a payment of the amount due, or of `body.amount`; the end of the window). */
  testHelper(id: string, action: "payment" | "expire", body?: Record<string, unknown>, keys?: TestMerchant): Promise<Record<string, any>>;
  /** A new page at `url`, its problems recorded (problemsOf, failedRequestsOf). */
  open(url: string, options?: { viewport?: { width: number; height: number }; locale?: string }): Promise<Page>;
}

/**
 * The browser, the service and a merchant for a test file. `setUp` runs once the merchant exists
 * (wallets on further networks, say).
 */
export function checkoutFixture(
  options: { merchant?: string; gateway?: TestGatewayOptions; setUp?: (t: TestGateway, keys: TestMerchant) => Promise<void> } = {},
): CheckoutFixture {
  const base = browserFixture({ merchant: () => ({ name: options.merchant ?? "Acme Stores" }), gateway: options.gateway, setUp: options.setUp });
  const fixture: CheckoutFixture = {
    get browser() {
      return base.browser;
    },
    get t() {
      return base.t;
    },
    get keys() {
      return base.merchant;
    },
    async initialize(body = {}, { raw = false, keys: merchant = fixture.keys } = {}) {
      const res = await fixture.t.post("/v1/transaction", raw ? body : initializeBody(body), {
        authorization: `Bearer ${merchant.testPublicKey}`,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return { id: res.body.data.id, checkoutUrl: res.body.data.checkout_url, clientSecret: res.body.data.client_secret };
    },
    async retrieve(id, merchant = fixture.keys) {
      const res = await fetch(`${fixture.t.url}/v1/transaction/${id}`, { headers: { authorization: `Bearer ${merchant.testSecretKey}` } });
      expect(res.status).toBe(200);
      return ((await res.json()) as { data: Record<string, any> }).data;
    },
    async testHelper(id, action, body = {}, merchant = fixture.keys) {
      const res = await fixture.t.post(`/v1/test_helpers/transaction/${id}/${action}`, body, {
        authorization: `Bearer ${merchant.testSecretKey}`,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data;
    },
    async open(url, { viewport = MOBILE, locale } = {}) {
      const page = await fixture.browser.newPage(locale ? { viewport, locale } : { viewport });
      const problems: string[] = [];
      const failedRequests: string[] = [];
      page.on("pageerror", (error) => problems.push(error.message));
      page.on("console", (message) => {
        if (message.type() === "error" && !/Failed to load resource/.test(message.text())) problems.push(message.text());
      });
      page.on("response", (response) => {
        if (response.status() >= 400) failedRequests.push(`${response.status()} ${response.url()}`);
      });
      Object.assign(page, { problems, failedRequests });
      await page.goto(url);
      return page;
    },
  };
  return fixture;
}

/** Script errors and console errors of a page opened by `open` (a failed request's own console line aside). */
export const problemsOf = (page: Page): string[] => (page as Page & { problems?: string[] }).problems ?? [];
/** Every answer of 400 or more the page got (the favicon's 404 included). */
export const failedRequestsOf = (page: Page): string[] => (page as Page & { failedRequests?: string[] }).failedRequests ?? [];
export const text = async (page: Page, selector: string) => ((await page.locator(selector).first().textContent()) ?? "").trim();
export const heading = (page: Page, name: string | RegExp) => page.getByRole("heading", { level: 2, name }).waitFor(WAIT);
