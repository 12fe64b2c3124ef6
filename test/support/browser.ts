// A real browser for the tests: Debian's Chromium (apt-get install -y chromium) driven by
// playwright-core, which downloads no browser of its own. Each launch gets a fresh, empty profile
// (Playwright makes a temporary user-data-dir and removes it at close), so no cache, cookie or
// cached CORS preflight survives from one launch to the next.
import { existsSync } from "node:fs";
import axe from "axe-core";
import { chromium, type Browser, type Page } from "playwright-core";
import { expect } from "vitest";

/** Where Debian's package puts it; PAYGATE_CHROMIUM names another binary. */
export const CHROMIUM_PATH = process.env.PAYGATE_CHROMIUM ?? "/usr/bin/chromium";

/**
 * Flags for a machine without a display, as root, on a closed network: without the
 * background-networking ones, Chromium keeps trying to reach Google's hosts.
 */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `No Chromium at ${CHROMIUM_PATH}: the browser tests (test/browser/) need it; install Debian's chromium: apt-get install -y chromium (or set PAYGATE_CHROMIUM to a Chromium binary)`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

export interface AccessibilityViolation {
  id: string;
  impact: "serious" | "critical";
  help: string;
  /** CSS selectors of the offending elements. */
  targets: string[];
}

/**
 * Runs axe-core in the page as it is now and returns its serious and critical violations (minor
 * and moderate ones are left to review). The script is evaluated through the DevTools protocol, so
 * the page's Content-Security-Policy does not stop it.
 */
export async function accessibilityViolations(page: Page): Promise<AccessibilityViolation[]> {
  // These functions run in the page (the project compiles without the DOM's types: globalThis is the window).
  if (!(await page.evaluate(() => "axe" in globalThis))) await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const result = await (globalThis as unknown as { axe: typeof axe }).axe.run({ resultTypes: ["violations"] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(" ")) }));
  });
  return violations.filter((v): v is AccessibilityViolation => v.impact === "serious" || v.impact === "critical");
}

/** Expects no serious or critical axe-core violation in the page as it is now; `state` names it in a failure. */
export async function expectAccessible(page: Page, state: string): Promise<void> {
  expect(await accessibilityViolations(page), state).toEqual([]);
}

/** The two widths every page is checked at: a 375 px phone and a desktop. */
export const MOBILE = { width: 375, height: 812 };
export const DESKTOP = { width: 1280, height: 800 };
/** The page's own polling and live updates on a loaded machine: generous, never a timed assertion. */
export const WAIT = { timeout: 20_000 };

/** The id of the element that has the focus (the project compiles without the DOM's types: globalThis is the window). */
export const focusedId = (page: Page): Promise<string | undefined> =>
  page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id);

/** Nothing wider than the viewport: a 375 px phone never scrolls sideways; `state` names it in a failure. */
export async function expectNoSidewaysScroll(page: Page, state: string): Promise<void> {
  const { scrollWidth, clientWidth } = await page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
    return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth };
  });
  expect(scrollWidth, state).toBeLessThanOrEqual(clientWidth);
}
