// A Chromium, the service and a merchant for a browser test file (the checkout's and the dashboard's
// fixtures build on it). Apart from browser.ts, which scripts/screenshots.ts imports without the service.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { launchBrowser } from "./browser.ts";
import { startTestGateway, type TestGateway, type TestGatewayOptions } from "./gateway.ts";

export type TestMerchant = Awaited<ReturnType<TestGateway["merchant"]>>;

/** A Chromium, the service and a merchant for a browser test file. */
export interface BrowserFixture {
  readonly browser: Browser;
  readonly t: TestGateway;
  readonly merchant: TestMerchant;
}

/**
 * Started before the file's tests (after the file's own beforeAll hooks above the call, so `merchant`
 * may read what they started; `setUp` runs once the merchant exists), closed after.
 */
export function browserFixture(
  options: {
    merchant?: () => Parameters<TestGateway["merchant"]>[0];
    gateway?: TestGatewayOptions;
    setUp?: (t: TestGateway, merchant: TestMerchant) => Promise<void>;
  } = {},
): BrowserFixture {
  let browser: Browser | undefined;
  let t: TestGateway | undefined;
  let merchant: TestMerchant | undefined;
  beforeAll(async () => {
    [browser, t] = await Promise.all([launchBrowser(), startTestGateway(options.gateway)]);
    merchant = await t.merchant(options.merchant?.());
    await options.setUp?.(t, merchant);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("browserFixture: used before its beforeAll ran");
    return value;
  };
  return {
    get browser() {
      return started(browser);
    },
    get t() {
      return started(t);
    },
    get merchant() {
      return started(merchant);
    },
  };
}
