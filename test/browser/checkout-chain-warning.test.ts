// @module-tag browser
// The checkout's wrong-network warning (issue 43), in a real Chromium against the real service: an
// EIP-1193 provider injected before the page's script stands for the customer's wallet. On the pay
// step of an EVM payment the page reads the wallet's chain id without asking for an account, and
// when it is not the payment's says which network each is on, in the page's language (English and
// Arabic, right to left), with a button that asks the wallet to switch. chainChanged updates it live
// (gone on the right chain, back on the wrong one), the region is a polite status, and the page's
// listener is removed once the payment leaves the pay step. No warning on the right chain, none
// without a wallet. axe-core clean, 375 px without sideways scrolling.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { MESSAGES, networkLabelIn } from "../../web/checkout/i18n.ts";
import { accessibilityViolations, expectNoSidewaysScroll, focusedId } from "../support/browser.ts";
import { checkoutFixture, heading, MOBILE, WAIT } from "./support.ts";

const f = checkoutFixture({ merchant: "Chain Check Ltd" });

const SEPOLIA = "0xaa36a7";
const BSC_TESTNET = "0x61";

interface FakeWallet {
  /** Every method the page asked the wallet for. */
  calls(): Promise<string[]>;
  /** The wallet's user moves it to another chain: chainChanged. */
  setChain(chainId: string): Promise<void>;
  /** How many chainChanged listeners the page has on the wallet now. */
  listeners(): Promise<number>;
}

/** A page with a wallet on `chainId` injected before the checkout's script runs. */
async function pageWithWallet(chainId: string): Promise<{ page: Page; wallet: FakeWallet; problems: string[] }> {
  const page = await f.browser.newPage({ viewport: MOBILE });
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(error.message));
  await page.addInitScript((start) => {
    type Listener = (value: unknown) => void;
    const w = globalThis as unknown as Record<string, unknown>;
    let chain = start;
    const calls: string[] = [];
    const listeners = new Set<Listener>();
    const emit = () => {
      for (const l of listeners) l(chain);
    };
    w.walletCalls = calls;
    w.walletListeners = listeners;
    w.walletSetChain = (next: string) => {
      chain = next;
      emit();
    };
    w.ethereum = {
      async request({ method, params = [] }: { method: string; params?: unknown[] }) {
        calls.push(method);
        if (method === "eth_chainId") return chain;
        if (method === "wallet_switchEthereumChain") {
          chain = (params[0] as { chainId: string }).chainId;
          emit();
          return null;
        }
        throw Object.assign(new Error("not in this test"), { code: 4200 });
      },
      on(event: string, listener: Listener) {
        if (event === "chainChanged") listeners.add(listener);
      },
      removeListener(event: string, listener: Listener) {
        if (event === "chainChanged") listeners.delete(listener);
      },
    };
  }, chainId);
  const wallet: FakeWallet = {
    calls: () => page.evaluate(() => [...((globalThis as unknown as { walletCalls: string[] }).walletCalls ?? [])]),
    setChain: (next) => page.evaluate((c) => (globalThis as unknown as { walletSetChain(c: string): void }).walletSetChain(c), next),
    listeners: () => page.evaluate(() => (globalThis as unknown as { walletListeners: Set<unknown> }).walletListeners.size),
  };
  return { page, wallet, problems };
}

/** A USDT payment on Ethereum's test network, its pay step open in `page`. */
async function payStep(page: Page, locale: "en" | "ar"): Promise<{ id: string }> {
  const init = await f.initialize({ customer: { email: "ada@example.com" }, currency: "USD", amount: "12", locale });
  await page.goto(init.checkoutUrl);
  await page.locator("button.coin", { hasText: "(USDT)" }).first().click();
  await page.locator("#pay-amount").waitFor(WAIT);
  const data = await f.retrieve(init.id);
  expect(data.payment_network).toBe("ethereum");
  expect(data.payment_uri).toMatch(/^ethereum:0x[0-9a-fA-F]{40}@11155111\/transfer\?/);
  return { id: init.id };
}

const warningText = (page: Page) => page.locator("#chain-warning").textContent();
const switchButtons = (page: Page) => page.locator("#switch-chain:visible").count();

describe("the wallet on another network", () => {
  it("English: names both networks, goes on chainChanged to the payment's chain, comes back, switches, and lets go of the wallet", async () => {
    const { page, wallet, problems } = await pageWithWallet(BSC_TESTNET);
    const { id } = await payStep(page, "en");
    await expect.poll(() => warningText(page), WAIT).toBe("Your wallet is on BNB Smart Chain testnet; this payment is on Ethereum Sepolia testnet.");
    const region = page.locator("#chain-warning");
    expect(await region.getAttribute("role")).toBe("status");
    expect(await switchButtons(page)).toBe(1);
    expect(await accessibilityViolations(page), "warning shown").toEqual([]);
    await expectNoSidewaysScroll(page, "warning at 375 px");
    // Read without a connect prompt: no account was asked for.
    expect(await wallet.calls()).not.toContain("eth_requestAccounts");
    expect(await wallet.listeners()).toBe(1);

    await wallet.setChain(SEPOLIA);
    await expect.poll(() => warningText(page), WAIT).toBe("Your wallet is now on Ethereum Sepolia testnet.");
    expect(await region.getAttribute("data-state")).toBe("right");
    expect(await switchButtons(page)).toBe(0);

    await wallet.setChain("0x7a69");
    await expect
      .poll(() => warningText(page), WAIT)
      .toBe("Your wallet is on the network with chain ID 31337; this payment is on Ethereum Sepolia testnet.");
    expect(await region.getAttribute("data-state")).toBe("wrong");

    await page.getByRole("button", { name: "Switch wallet to Ethereum Sepolia testnet" }).click();
    await expect.poll(() => warningText(page), WAIT).toBe("Your wallet is now on Ethereum Sepolia testnet.");
    expect(await wallet.calls()).toContain("wallet_switchEthereumChain");
    expect(await wallet.calls()).not.toContain("eth_requestAccounts");
    // Keyboard focus moves on to paying, not to the page's top.
    expect(await focusedId(page)).toBe("pay-browser-wallet");
    expect(await accessibilityViolations(page), "warning gone").toEqual([]);

    // The payment leaves the pay step: the page stops listening to the wallet.
    await f.testHelper(id, "payment");
    await heading(page, /Thank you/);
    await expect.poll(() => wallet.listeners(), WAIT).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it("Arabic, right to left: the warning in Arabic, gone on the right chain, back on the wrong one", async () => {
    const ar = MESSAGES.ar;
    const payment = networkLabelIn({ slug: "ethereum", name: "Ethereum Sepolia testnet", standard: null }, false, ar);
    const bsc = networkLabelIn({ slug: "bsc", name: "BNB Smart Chain testnet", standard: null }, false, ar);
    const { page, wallet, problems } = await pageWithWallet(BSC_TESTNET);
    await payStep(page, "ar");
    expect(await page.locator("html").getAttribute("dir")).toBe("rtl");
    const wrong = "محفظتك على شبكة بي إن بي سمارت تشين (شبكة اختبار)؛ وهذه الدفعة على شبكة إيثريوم سيبوليا (شبكة اختبار).";
    expect(ar.walletOtherNetwork(bsc, payment)).toBe(wrong);
    await expect.poll(() => warningText(page), WAIT).toBe(wrong);
    expect(await page.getByRole("button", { name: ar.switchWalletTo(payment) }).isVisible()).toBe(true);
    expect(await accessibilityViolations(page), "warning in Arabic").toEqual([]);
    await expectNoSidewaysScroll(page, "Arabic warning at 375 px");

    await wallet.setChain(SEPOLIA);
    await expect.poll(() => warningText(page), WAIT).toBe(ar.walletNowOnNetwork(payment));
    expect(await switchButtons(page)).toBe(0);
    await wallet.setChain(BSC_TESTNET);
    await expect.poll(() => warningText(page), WAIT).toBe(wrong);
    expect(await switchButtons(page)).toBe(1);
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it("a wallet already on the payment's chain: no warning, no switch button", async () => {
    const { page, wallet } = await pageWithWallet(SEPOLIA);
    await payStep(page, "en");
    await expect.poll(async () => (await wallet.calls()).includes("eth_chainId"), WAIT).toBe(true);
    await page.getByRole("button", { name: "Pay with browser wallet" }).waitFor(WAIT);
    expect(await warningText(page)).toBe("");
    expect(await page.locator("#chain-warning").isVisible()).toBe(false);
    expect(await switchButtons(page)).toBe(0);
    expect(await accessibilityViolations(page), "right chain").toEqual([]);
    await page.close();
  }, 120_000);

  it("a browser without a wallet: no warning at all", async () => {
    const page = await f.browser.newPage({ viewport: MOBILE });
    await payStep(page, "en");
    expect(await page.locator("#chain-warning").count()).toBe(0);
    expect(await page.locator("#switch-chain").count()).toBe(0);
    await page.close();
  }, 120_000);
});
