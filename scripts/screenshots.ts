// `npm run screenshots`: the pictures of the hosted checkout in docs/, made from the real page. It
// starts the service on a throw-away embedded database, makes a test merchant with the CLI and a
// transaction through the REST API, opens its checkout_url in Chromium, picks Bitcoin as a
// customer would, and writes docs/checkout-mobile.png (375×812) and docs/checkout-desktop.png
// (1280×800); then signs in to the dashboard as the merchant's owner (made with `paygate user
// create --password-stdin`) and writes docs/dashboard-home.png (Home, where signing in lands: a few
// orders are paid through the test helpers, so its charts have figures), docs/dashboard-mobile.png
// and docs/dashboard-desktop.png (the Transactions page), docs/dashboard-transaction.png (one
// transaction) and docs/dashboard-webhooks.png (the whole Webhooks page, its endpoints and delivery
// log too). Needs the pages built (npm
// install does it) and Debian's Chromium.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { launchBrowser } from "../test/support/browser.ts";

const root = path.resolve(import.meta.dirname, "..");
const dataDir = mkdtempSync(path.join(tmpdir(), "paygate-screenshots-"));
const port = await freePort();
const baseUrl = `http://127.0.0.1:${port}`;
// The embedded database, whatever the calling shell has in DATABASE_URL.
const { DATABASE_URL: _ignored, ...inherited } = process.env;
const env = {
  ...inherited,
  PAYGATE_DATA_DIR: dataDir,
  HOST: "127.0.0.1",
  PORT: String(port),
  PAYGATE_PUBLIC_URL: baseUrl,
  PAYGATE_PAYMENT_WATCHER: "false", // test mode, no chain: nothing to watch
  PAYGATE_LOG_REQUESTS: "false",
  NODE_ENV: "development",
};

const dashboardPassword = "screenshots only, not a real password";
let service: ChildProcess | null = null;
try {
  const merchant = JSON.parse(
    execFileSync(process.execPath, ["bin/paygate.mjs", "merchant", "create", "--name", "Acme Stores", "--json"], {
      cwd: root,
      env,
      encoding: "utf8",
    }),
  ) as { id: number; testPublicKey: string; testSecretKey: string };
  for (const [email, role, password] of [
    ["ada@acme.example", "owner", true],
    ["grace@acme.example", "developer", true],
    ["linus@acme.example", "viewer", false],
  ] as const) {
    execFileSync(
      process.execPath,
      [
        "bin/paygate.mjs",
        "user",
        "create",
        "--merchant",
        String(merchant.id),
        "--email",
        email,
        "--role",
        role,
        ...(password ? ["--password-stdin"] : []),
      ],
      { cwd: root, env, encoding: "utf8", input: dashboardPassword },
    );
  }
  service = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], { cwd: root, env, stdio: ["ignore", "ignore", "inherit"] });
  await waitReady();

  const initialized = await fetch(`${baseUrl}/v1/transaction`, {
    method: "POST",
    headers: { authorization: `Bearer ${merchant.testPublicKey}`, "content-type": "application/json" },
    body: JSON.stringify({
      customer: { email: "ada@example.com" },
      currency: "USD",
      amount: "100.00",
      description: "Order #1042 · 2 ceramic mugs",
      return_url: "https://shop.example.com/orders/1042",
    }),
  });
  if (initialized.status !== 201) throw new Error(`initialize answered ${initialized.status}: ${await initialized.text()}`);
  const { checkout_url: checkoutUrl, id: checkoutId } = ((await initialized.json()) as { data: { checkout_url: string; id: string } }).data;
  // A few more orders, so that the dashboard's list has something to show; some paid (in test mode,
  // through the test helper), so that Home's volume, statuses and coins have figures.
  for (const [email, amount, description, paidIn] of [
    ["grace@example.org", "24.50", "Order #1043 · tea towel", "4"],
    ["linus@example.net", "310.00", "Order #1044 · espresso machine", "6"],
    ["margaret@example.com", "12.00", "Order #1045 · gift card", null],
    ["alan@example.com", "58.00", "Order #1046 · coffee beans", "3"],
    ["edsger@example.org", "19.90", "Order #1047 · notebook", "7"],
  ] as const) {
    const more = await fetch(`${baseUrl}/v1/transaction`, {
      method: "POST",
      headers: { authorization: `Bearer ${merchant.testPublicKey}`, "content-type": "application/json" },
      body: JSON.stringify({ customer: { email }, currency: "USD", amount, description }),
    });
    if (more.status !== 201) throw new Error(`initialize answered ${more.status}: ${await more.text()}`);
    if (paidIn === null) continue;
    const { id } = ((await more.json()) as { data: { id: string } }).data;
    await post(`/v1/transaction/${id}/pay`, merchant.testSecretKey, { currency_id: paidIn });
    await post(`/v1/test_helpers/transaction/${id}/payment`, merchant.testSecretKey, {});
  }

  const browser = await launchBrowser();
  try {
    for (const [name, viewport, fullPage] of [
      ["mobile", { width: 375, height: 812 }, true],
      ["desktop", { width: 1280, height: 800 }, false],
    ] as const) {
      const page = await browser.newPage({ viewport });
      await page.goto(checkoutUrl);
      // The first visit picks the coin; the second finds it picked (the page shows the API's state).
      const bitcoin = page.getByRole("button", { name: /^Bitcoin/ });
      const paying = page.getByRole("heading", { level: 2, name: "Pay with Bitcoin" });
      await Promise.race([bitcoin.waitFor(), paying.waitFor()]);
      if (await bitcoin.isVisible()) await bitcoin.click();
      await paying.waitFor();
      await page.waitForFunction(() => {
        const img = (globalThis as unknown as { document: { querySelector(s: string): { complete: boolean } | null } }).document.querySelector(
          ".qr img",
        );
        return img?.complete === true;
      });
      await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { blur(): void } | null } }).document.activeElement?.blur());
      const file = path.join(root, "docs", `checkout-${name}.png`);
      await page.screenshot({ path: file, fullPage });
      console.log(`wrote ${path.relative(root, file)} (${viewport.width}×${viewport.height}${fullPage ? ", whole page" : ""})`);
      await page.close();
    }
    for (const [name, viewport] of [
      ["mobile", { width: 375, height: 812 }],
      ["desktop", { width: 1280, height: 800 }],
    ] as const) {
      const page = await browser.newPage({ viewport });
      if (name === "desktop") {
        // Signing in lands on Home.
        await page.goto(`${baseUrl}/dashboard/sign-in`);
        await signIn(page);
        await page.getByRole("heading", { level: 1, name: "Home" }).waitFor();
        await page.getByRole("heading", { level: 2, name: "Volume paid" }).waitFor();
        await page.locator(".chart canvas").first().waitFor();
        await shoot(page, "dashboard-home", viewport, true);
        await page.goto(`${baseUrl}/dashboard/transactions`);
      } else {
        await page.goto(`${baseUrl}/dashboard/sign-in?next=transactions`);
        await signIn(page);
      }
      await page.getByRole("heading", { level: 1, name: "Transactions" }).waitFor();
      await page.getByText("margaret@example.com").first().waitFor();
      await shoot(page, `dashboard-${name}`, viewport, name === "mobile");
      if (name === "desktop") {
        await page.goto(`${baseUrl}/dashboard/transaction?id=${checkoutId}`);
        await page.getByRole("heading", { level: 1, name: /^Transaction / }).waitFor();
        await page.getByText("payment.pending").first().waitFor();
        await shoot(page, "dashboard-transaction", viewport, true);
        await page.goto(`${baseUrl}/dashboard/webhooks`);
        await page.getByRole("heading", { level: 1, name: "Webhooks" }).waitFor();
        // The heading is there before the page's data: wait for what it shows, down to the endpoints' delivery log.
        await page.getByRole("heading", { level: 2, name: "Webhook URL" }).waitFor();
        await page.getByRole("heading", { level: 2, name: "Endpoints" }).waitFor();
        await page.getByRole("heading", { level: 2, name: "Delivery log" }).waitFor();
        await shoot(page, "dashboard-webhooks", viewport, true);
      }
      await page.close();
    }
  } finally {
    await browser.close();
  }
} finally {
  service?.kill("SIGTERM");
  if (service && service.exitCode === null) await new Promise((resolve) => service?.once("exit", resolve));
  rmSync(dataDir, { recursive: true, force: true });
}

async function signIn(page: Page): Promise<void> {
  await page.getByLabel("E-mail").fill("ada@acme.example");
  await page.getByLabel("Password").fill(dashboardPassword);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** A POST with the merchant's secret key that must succeed. */
async function post(pathname: string, secretKey: string, body: unknown): Promise<void> {
  const res = await fetch(`${baseUrl}${pathname}`, {
    method: "POST",
    headers: { authorization: `Bearer ${secretKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${pathname} answered ${res.status}: ${await res.text()}`);
}

/** A screenshot under docs/, with nothing focused. */
async function shoot(page: Page, name: string, viewport: { width: number; height: number }, fullPage: boolean): Promise<void> {
  await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { blur(): void } | null } }).document.activeElement?.blur());
  const file = path.join(root, "docs", `${name}.png`);
  await page.screenshot({ path: file, fullPage });
  console.log(`wrote ${path.relative(root, file)} (${viewport.width}×${viewport.height}${fullPage ? ", whole page" : ""})`);
}

async function waitReady(): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (service?.exitCode !== null) throw new Error(`the service exited (${service?.exitCode}) before it was ready`);
    const ready = await fetch(`${baseUrl}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the service was not ready at ${baseUrl} within 60 s`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}
