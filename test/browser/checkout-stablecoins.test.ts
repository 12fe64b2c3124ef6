// @module-tag browser
// The stablecoin networks of issue 43 through the checkout in a real Chromium: one anvil per network,
// each with that network's own test chain id (Base Sepolia 84532, Polygon Amoy 80002, Arbitrum Sepolia
// 421614) and the 6-decimal test token at the table's test USDC and USDT contracts; the service runs as
// src/main.ts wires it, for a new merchant with only its built-in test wallets. The customer picks the
// coin on the network, the page warns that the wallet (an injected EIP-1193 provider on Ethereum
// mainnet) is on another network, the customer pays with the browser wallet, which switches to the
// network's chain and sends the token's transfer to that network's anvil, and the page shows the
// payment received once the watcher has seen it, exact to the last unit. axe-core on the pay step.
import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coinNetwork, EVM_CHAINS, type EvmNetworkSlug } from "../../src/core/networks.ts";
import { evmVariables } from "../../src/rails/chains/config.ts";
import { abiCall, dueUnits } from "../e2e/evm.ts";
import { startE2eService, type E2eService, type Transaction } from "../e2e/service.ts";
import { DEV_ACCOUNT, startAnvil, type Anvil } from "../support/anvil.ts";
import { accessibilityViolations, launchBrowser } from "../support/browser.ts";

const NETWORKS = ["base", "polygon", "arbitrum"] as const satisfies readonly EvmNetworkSlug[];
const COIN_NAMES = { USDC: "USD Coin", USDT: "Tether" } as const;
const WAIT = { timeout: 60_000 };
const compiled = JSON.parse(readFileSync(new URL("../rails/chains/token/TestToken.json", import.meta.url), "utf8")) as {
  contracts: Record<"TestToken6", { deployedBytecode: string }>;
};

let browser: Browser;
let service: E2eService;
const anvils = new Map<number, Anvil>();

/** The table's test contract of a coin on a network; undefined where the table has none (USDT on Base). */
const contractOf = (coin: "USDC" | "USDT", network: EvmNetworkSlug) => coinNetwork(coin, network)?.contract?.test;
const chainIdOf = (network: EvmNetworkSlug) => EVM_CHAINS[network].test.chainId as number;

beforeAll(async () => {
  browser = await launchBrowser();
  const env: Record<string, string> = { PAYGATE_UNDERPAYMENT_TOLERANCE_PERCENT: "0" };
  await Promise.all(
    NETWORKS.map(async (network) => {
      const anvil = await startAnvil({ chainId: chainIdOf(network) });
      anvils.set(chainIdOf(network), anvil);
      for (const coin of ["USDC", "USDT"] as const) {
        const contract = contractOf(coin, network);
        if (contract === undefined) continue;
        await anvil.setCode(contract, compiled.contracts.TestToken6.deployedBytecode);
        await anvil.sendTransaction({ to: contract, data: abiCall("mint(address,uint256)", DEV_ACCOUNT, 10n ** 15n) });
      }
      const variables = evmVariables(network);
      env[variables.rpc.test] = anvil.url;
      env[variables.confirmations] = "1";
    }),
  );
  // No wallets given: the new merchant's built-in test wallets receive.
  service = await startE2eService(env, []);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
  await Promise.all([...anvils.values()].map((anvil) => anvil.stop()));
});

/**
 * A 375 px page with an EIP-1193 wallet in it before the checkout's script runs, on Ethereum mainnet
 * (chain 1) until asked to switch; what it does not answer itself goes to the anvil of its chain through
 * a binding (the page's Content-Security-Policy allows no connection to anvil). `sent`: each
 * eth_sendTransaction with the chain it was sent on.
 */
async function pageWithWallet(): Promise<{ page: Page; sent: { chainId: number; tx: unknown }[]; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 375, height: 812 } });
  const sent: { chainId: number; tx: unknown }[] = [];
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(error.message));
  await page.exposeFunction("nodeRequest", async (chainId: string, method: string, params: unknown[]) => {
    const anvil = anvils.get(Number.parseInt(chainId, 16));
    if (anvil === undefined) throw new Error(`no node for chain ${chainId}`);
    if (method === "eth_sendTransaction") sent.push({ chainId: Number.parseInt(chainId, 16), tx: params[0] });
    return anvil.send(method, params);
  });
  await page.addInitScript(
    ({ account }) => {
      const w = globalThis as unknown as { ethereum: unknown; nodeRequest(chainId: string, method: string, params: unknown[]): Promise<unknown> };
      let chainId = "0x1";
      const listeners: ((id: string) => void)[] = [];
      w.ethereum = {
        on(event: string, listener: (id: string) => void) {
          if (event === "chainChanged") listeners.push(listener);
        },
        removeListener(event: string, listener: (id: string) => void) {
          if (event === "chainChanged") listeners.splice(listeners.indexOf(listener), 1);
        },
        async request({ method, params = [] }: { method: string; params?: unknown[] }) {
          if (method === "eth_requestAccounts" || method === "eth_accounts") return [account];
          if (method === "eth_chainId") return chainId;
          if (method === "wallet_switchEthereumChain") {
            chainId = (params[0] as { chainId: string }).chainId;
            for (const listener of [...listeners]) listener(chainId);
            return null;
          }
          return w.nodeRequest(chainId, method, params);
        },
      };
    },
    { account: DEV_ACCOUNT },
  );
  return { page, sent, problems };
}

async function checkoutOf(): Promise<{ id: string; url: string }> {
  const res = await fetch(`${service.url}/v1/transaction`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${service.merchant.testPublicKey}` },
    body: JSON.stringify({ customer: { email: "ada@example.com" }, currency: "USD", amount: "42.37" }),
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { data: { id: string; checkout_url: string } };
  return { id: body.data.id, url: `${service.url}${new URL(body.data.checkout_url).pathname}` };
}

const cases = NETWORKS.flatMap((network) =>
  (["USDC", "USDT"] as const).filter((coin) => contractOf(coin, network) !== undefined).map((coin) => [network, coin] as const),
);

describe("stablecoins on base, polygon and arbitrum, paid through the checkout with a browser wallet", () => {
  it("offers USDC on all three and USDT where Tether has a deployment (not Base)", () => {
    expect(cases.map(([network, coin]) => `${coin} on ${network}`)).toEqual([
      "USDC on base",
      "USDC on polygon",
      "USDT on polygon",
      "USDC on arbitrum",
      "USDT on arbitrum",
    ]);
  });

  it.each(cases)(
    "%s %s: warned about the wallet's network, switched, paid exactly, received",
    async (network, coin) => {
      const networkName = EVM_CHAINS[network].test.name;
      const contract = contractOf(coin, network) as string;
      const { id, url } = await checkoutOf();
      const { page, sent, problems } = await pageWithWallet();
      await page.goto(url);
      await page.getByRole("heading", { level: 2, name: "Choose how to pay" }).waitFor(WAIT);
      await page.getByRole("button", { name: new RegExp(`^${COIN_NAMES[coin]} \\(${coin}\\) on ${networkName}`) }).click();
      await page.getByRole("button", { name: "Pay with browser wallet" }).waitFor(WAIT);

      // The wallet is on Ethereum mainnet: said up front, naming both networks.
      const warning = page.getByText(`this payment is on ${networkName}`);
      await warning.waitFor(WAIT);
      expect(await warning.textContent()).toContain("Your wallet is on Ethereum");
      expect(await accessibilityViolations(page), `the pay step of ${coin} on ${network}`).toEqual([]);

      const t0: Transaction = await service.get(id);
      const shown = t0 as Transaction & { payment_network: string; payment_currency: number };
      expect([shown.payment_network, shown.payment_currency]).toEqual([network, coin === "USDC" ? 8 : 3]);
      const due = dueUnits(t0);
      await page.getByRole("button", { name: "Pay with browser wallet" }).click();
      await page.getByRole("heading", { name: "Thank you: payment received" }).waitFor(WAIT);

      // One transfer of the exact amount, of the table's contract, on the network's own chain.
      expect(sent).toEqual([
        { chainId: chainIdOf(network), tx: { from: DEV_ACCOUNT, to: contract, data: abiCall("transfer(address,uint256)", t0.payment_address, due) } },
      ]);
      const paid = await service.until(id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL");
      expect(paid.meta.payment?.amount_confirmed).toBe(String(t0.payment_amount));
      expect(paid.amount_paid).toBe(t0.payment_amount);
      expect(problems).toEqual([]);
      await page.close();
    },
    120_000,
  );
});
