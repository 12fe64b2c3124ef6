// @module-tag browser
// "Pay with browser wallet" (EIP-1193) on the checkout, in a real Chromium against the service as
// src/main.ts wires it (the payment watcher on anvil): a provider injected into the page
// (addInitScript) stands for the customer's wallet. It starts on another chain, so the page asks it to
// switch (wallet_switchEthereumChain to anvil's chain id), then forwards eth_sendTransaction to anvil's
// unlocked dev account: the transaction is real, mined, and the watcher finds it; the page then shows
// the payment received. USDT pays with the token's transfer(to, amount), ETH with a native value, both
// exact to the last unit. A wallet that declines, or stays on another chain, is told in words, and
// nothing is sent. axe-core on the page with the button.
import { readFileSync } from "node:fs";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USDT_SEPOLIA_CONTRACT } from "../../src/core/networks.ts";
import { DEV_ACCOUNT, startAnvil, type Anvil } from "../support/anvil.ts";
import { accessibilityViolations, launchBrowser } from "../support/browser.ts";
import { dueUnits } from "../e2e/evm.ts";
import { startE2eService, type E2eService, type Transaction } from "../e2e/service.ts";

const CHAIN_ID = 31_337;
const WAIT = { timeout: 60_000 };
const compiled = JSON.parse(readFileSync(new URL("../rails/chains/token/TestToken.json", import.meta.url), "utf8")) as {
  contracts: Record<"TestToken6", { deployedBytecode: string }>;
};

let browser: Browser;
let anvil: Anvil;
let service: E2eService;
beforeAll(async () => {
  [browser, anvil] = await Promise.all([launchBrowser(), startAnvil({ chainId: CHAIN_ID })]);
  await anvil.setCode(USDT_SEPOLIA_CONTRACT, compiled.contracts.TestToken6.deployedBytecode);
  await anvil.sendTransaction({ to: USDT_SEPOLIA_CONTRACT, data: abiCall("mint(address,uint256)", DEV_ACCOUNT, 10n ** 15n) });
  service = await startE2eService(
    { PAYGATE_ETH_TEST_RPC_URL: anvil.url, PAYGATE_ETH_TEST_CHAIN_ID: String(CHAIN_ID), PAYGATE_CONFIRMATIONS_ETH: "1" },
    ["ETH", "USDT"],
  );
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
  await anvil?.stop();
});

function abiCall(signature: string, ...args: (string | bigint)[]): string {
  const selector = bytesToHex(keccak_256(utf8ToBytes(signature)).slice(0, 4));
  return `0x${selector}${args.map((a) => BigInt(a).toString(16).padStart(64, "0")).join("")}`;
}

/** How the injected wallet behaves: `pays` forwards to anvil; the others decline or stay on their chain. */
type WalletBehaviour = "pays" | "declines" | "stays" | "adds";

/**
 * A page with an EIP-1193 provider in it before the checkout's script runs. It starts on chain 1;
 * every request it does not answer itself goes to anvil through a binding (the page's
 * Content-Security-Policy allows no connection to anvil, and needs none). `sent` records what it sent.
 */
async function pageWithWallet(behaviour: WalletBehaviour): Promise<{ page: Page; sent: unknown[]; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 375, height: 812 } });
  const sent: unknown[] = [];
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(error.message));
  await page.exposeFunction("anvilRequest", async (method: string, params: unknown[]) => {
    if (method === "eth_sendTransaction") sent.push(params[0]);
    return anvil.send(method, params);
  });
  await page.addInitScript(
    ({ behaviour, account }) => {
      const w = globalThis as unknown as { ethereum: unknown; anvilRequest(method: string, params: unknown[]): Promise<unknown> };
      let chainId = "0x1";
      let added: unknown = null;
      const refuse = (code: number, message: string) => Object.assign(new Error(message), { code });
      w.ethereum = {
        async request({ method, params = [] }: { method: string; params?: unknown[] }) {
          if (method === "eth_requestAccounts") return [account];
          if (method === "eth_chainId") return chainId;
          if (method === "wallet_switchEthereumChain") {
            // A wallet that does not know the chain says 4902 until it was added.
            if (behaviour === "adds" && !added) throw refuse(4902, "Unrecognized chain ID.");
            // A wallet that stays on its chain answers as if it switched: the page must check.
            if (behaviour !== "stays") chainId = (params[0] as { chainId: string }).chainId;
            return null;
          }
          if (method === "wallet_addEthereumChain") {
            added = params[0];
            (w as unknown as { addedChain: unknown }).addedChain = params[0];
            // EIP-3085: a wallet that adds the chain switches to it.
            chainId = (params[0] as { chainId: string }).chainId;
            return null;
          }
          if (method === "eth_sendTransaction" && behaviour === "declines") throw refuse(4001, "User rejected the request.");
          return w.anvilRequest(method, params);
        },
      };
    },
    { behaviour, account: DEV_ACCOUNT },
  );
  return { page, sent, problems };
}

async function checkoutOf(): Promise<{ id: string; url: string }> {
  const res = await fetch(`${service.url}/v1/transaction`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${service.merchant.testPublicKey}` },
    body: JSON.stringify({ customer: { email: "ada@example.com" }, currency: "USD", amount: "42" }),
  });
  const body = (await res.json()) as { data: { id: string; checkout_url: string } };
  // The service's public URL is its default; the checkout is served where it listens.
  return { id: body.data.id, url: `${service.url}${new URL(body.data.checkout_url).pathname}` };
}

async function pick(page: Page, url: string, coin: RegExp): Promise<void> {
  await page.goto(url);
  await page.getByRole("heading", { level: 2, name: "Choose how to pay" }).waitFor(WAIT);
  await page.getByRole("button", { name: coin }).click();
  await page.getByRole("button", { name: "Pay with browser wallet" }).waitFor(WAIT);
}

describe("pay with browser wallet", () => {
  for (const [coin, label] of [
    // USDT on its default network: a new merchant's test mode offers it on each of its networks (issue 43).
    ["USDT", /^Tether \(USDT\) on Ethereum/],
    ["ETH", /^Ethereum \(ETH\)/],
  ] as const) {
    it(`${coin}: switches the wallet to the chain, sends the exact amount, and the watcher finds it: paid`, async () => {
      const { id, url } = await checkoutOf();
      const { page, sent, problems } = await pageWithWallet("pays");
      await pick(page, url, label);
      expect(await accessibilityViolations(page), "pay with the wallet's button").toEqual([]);
      const t0 = await service.get(id);
      const due = dueUnits(t0);
      await page.getByRole("button", { name: "Pay with browser wallet" }).click();
      await page.getByRole("heading", { name: "Thank you: payment received" }).waitFor(WAIT);
      expect(sent).toHaveLength(1);
      const tx = sent[0] as { from: string; to: string; value?: string; data?: string };
      if (coin === "USDT") {
        expect(tx).toEqual({ from: DEV_ACCOUNT, to: USDT_SEPOLIA_CONTRACT, data: abiCall("transfer(address,uint256)", t0.payment_address, due) });
      } else {
        expect(tx).toEqual({ from: DEV_ACCOUNT, to: t0.payment_address, value: `0x${due.toString(16)}` });
      }
      const paid: Transaction = await service.until(id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL");
      expect(paid.meta.payment?.amount_confirmed).toBe(String(t0.payment_amount));
      expect(problems).toEqual([]);
      await page.close();
    }, 120_000);
  }

  it("a wallet that declines is told so in words, nothing is sent, and the button works again", async () => {
    const { id, url } = await checkoutOf();
    const { page, sent, problems } = await pageWithWallet("declines");
    await pick(page, url, /^Ethereum \(ETH\)/);
    await page.getByRole("button", { name: "Pay with browser wallet" }).click();
    await expect
      .poll(() => page.locator("#wallet-error").textContent(), WAIT)
      .toBe("You declined in your wallet: nothing was sent. You can try again.");
    expect(sent).toEqual([]);
    await expect.poll(() => page.getByRole("button", { name: "Pay with browser wallet" }).isEnabled(), WAIT).toBe(true);
    expect((await service.get(id)).receipts).toEqual([]);
    expect(await accessibilityViolations(page), "declined").toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it("a wallet that does not know the chain (4902) is asked to add it, then pays", async () => {
    const { id, url } = await checkoutOf();
    const { page, sent } = await pageWithWallet("adds");
    await pick(page, url, /^Ethereum \(ETH\)/);
    await page.getByRole("button", { name: "Pay with browser wallet" }).click();
    await page.getByRole("heading", { name: "Thank you: payment received" }).waitFor(WAIT);
    expect(await page.evaluate(() => (globalThis as unknown as { addedChain: unknown }).addedChain)).toEqual({
      chainId: `0x${CHAIN_ID.toString(16)}`,
      chainName: "Ethereum Sepolia testnet",
      nativeCurrency: { name: "ETH", symbol: "ETH", decimals: 18 },
      rpcUrls: [],
      // The service names no explorer for this test chain here: none is offered.
    });
    expect(sent).toHaveLength(1);
    expect((await service.until(id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL")).status).toBe("SUCCESSFUL");
    await page.close();
  }, 120_000);

  it("a wallet that stays on another chain is asked to switch, then told which network, and nothing is sent", async () => {
    const { url } = await checkoutOf();
    const { page, sent } = await pageWithWallet("stays");
    await pick(page, url, /^Ethereum \(ETH\)/);
    await page.getByRole("button", { name: "Pay with browser wallet" }).click();
    await expect
      .poll(() => page.locator("#wallet-error").textContent(), WAIT)
      .toBe("Your wallet is on another network. Switch it to Ethereum Sepolia testnet, then try again.");
    expect(sent).toEqual([]);
    await page.close();
  }, 120_000);

  it("a browser without a wallet shows no such button", async () => {
    const { url } = await checkoutOf();
    const page = await browser.newPage();
    await page.goto(url);
    await page.getByRole("heading", { level: 2, name: "Choose how to pay" }).waitFor(WAIT);
    await page.getByRole("button", { name: /^Ethereum \(ETH\)/ }).click();
    await page.getByRole("heading", { level: 2, name: "Pay with Ethereum" }).waitFor(WAIT);
    expect(await page.getByRole("button", { name: "Pay with browser wallet" }).count()).toBe(0);
    await page.close();
  }, 120_000);
});
