// @module-tag browser
// Networks in the dashboard, in a real Chromium against the real service (issue 25): the owner picks
// USDT's default network on the Wallets page (only a network with a wallet can be picked; the choice
// is saved, shown, announced and written to the audit log); another role reads it. The Funds held
// page lists what each handed-out address holds on a real EVM node (anvil): a USDT address without
// ETH says it needs ETH to move the token; the CSV export link follows the network filter. axe-core
// on each page.
import { readFileSync } from "node:fs";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewMerchant } from "../../../src/core/merchants/merchants.ts";
import { cryptoBySlug, type CryptoCurrency } from "../../../src/core/money/currencies.ts";
import { USDT_SEPOLIA_CONTRACT } from "../../../src/core/networks.ts";
import { HdWalletRails } from "../../../src/rails/wallets/index.ts";
import { DEV_ACCOUNT, startAnvil, type Anvil } from "../../support/anvil.ts";
import { accessibilityViolations, focusedId, launchBrowser, WAIT } from "../../support/browser.ts";
import { signedInAs, signInBrowser } from "../../support/dashboard.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";

const USDT = cryptoBySlug("USDT") as CryptoCurrency;
const CHAIN_ID = 31_337;
const compiled = JSON.parse(readFileSync(new URL("../../rails/chains/token/TestToken.json", import.meta.url), "utf8")) as {
  contracts: Record<"TestToken6", { deployedBytecode: string }>;
};

let browser: Browser;
let anvil: Anvil;
let t: TestGateway;
let merchant: NewMerchant;
beforeAll(async () => {
  [browser, anvil] = await Promise.all([launchBrowser(), startAnvil({ chainId: CHAIN_ID })]);
  await anvil.setCode(USDT_SEPOLIA_CONTRACT, compiled.contracts.TestToken6.deployedBytecode);
  await anvil.sendTransaction({ to: USDT_SEPOLIA_CONTRACT, data: abiCall("mint(address,uint256)", DEV_ACCOUNT, 10n ** 15n) });
  t = await startTestGateway({ env: { PAYGATE_ETH_TEST_RPC_URL: anvil.url, PAYGATE_ETH_TEST_CHAIN_ID: String(CHAIN_ID) } });
  merchant = await t.merchant({ name: "Networks Shop" });
  // A merchant made before issue 43 had no test wallet on bsc (a new one has one on every network):
  // without it, BNB Smart Chain cannot be the default.
  await t.db.paymentProcessor.deleteMany({ where: { merchantId: merchant.id, currencyId: USDT.id, network: "bsc", isLive: false } });
  // A second USDT wallet, on TRON: TRON can then be the default; BNB Smart Chain (no wallet) cannot.
  await t.gateway.operator.updateMerchant(merchant.id, {
    wallets: [{ currency: USDT, network: "tron", isLive: false, extendedPublicKey: new HdWalletRails().createTestWallet(USDT, "tron") }],
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await anvil?.stop();
});

function abiCall(signature: string, ...args: (string | bigint)[]): string {
  const selector = bytesToHex(keccak_256(utf8ToBytes(signature)).slice(0, 4));
  return `0x${selector}${args.map((a) => BigInt(a).toString(16).padStart(64, "0")).join("")}`;
}

async function openAs(role: "owner" | "developer" | "viewer", path: string): Promise<{ page: Page; problems: string[] }> {
  const client = await signedInAs(t, merchant.id, role);
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await signInBrowser(context, t, client);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(error.message));
  await page.goto(t.url + path);
  return { page, problems };
}

describe("default networks on the Wallets page", () => {
  it("the owner picks TRON for USDT: saved, shown, announced with focus, audited; a network without a wallet cannot be picked", async () => {
    const { page, problems } = await openAs("owner", "/dashboard/wallets");
    await page.getByRole("heading", { level: 2, name: "Default networks (test mode)" }).waitFor(WAIT);
    const select = page.getByLabel("Default network for USDT");
    expect(await select.inputValue()).toBe("ethereum");
    const options = await select
      .locator("option")
      .evaluateAll((list) =>
        list.map((o) => [(o as unknown as { value: string }).value, (o as unknown as { disabled: boolean }).disabled, o.textContent]),
      );
    expect(options).toEqual([
      ["ethereum", false, "Ethereum Sepolia testnet (ERC-20)"],
      ["bsc", true, "BNB Smart Chain testnet (BEP-20): no wallet set"],
      ["tron", false, "TRON Nile testnet (TRC-20)"],
      ["polygon", false, "Polygon Amoy testnet (ERC-20)"],
      ["arbitrum", false, "Arbitrum Sepolia testnet (ERC-20)"],
    ]);
    expect(await accessibilityViolations(page)).toEqual([]);

    await select.selectOption("tron");
    // USDT's own form: USDC has one too since issue 43.
    await page.locator("form").filter({ has: select }).getByRole("button", { name: "Save" }).click();
    await expect.poll(() => focusedId(page), WAIT).toBe("default-networks-saved");
    expect(await page.locator("#default-networks-saved").textContent()).toBe(
      "USDT is now paid on TRON Nile testnet (TRC-20) when a request names no network.",
    );
    await expect.poll(() => page.getByLabel("Default network for USDT").inputValue(), WAIT).toBe("tron");
    await expect
      .poll(
        async () => (await t.gateway.operator.defaultNetworks(merchant.id)).map((d) => `${d.currency} ${d.isLive ? "live" : "test"} ${d.network}`),
        WAIT,
      )
      .toEqual(["USDT test tron"]);
    const audit = await t.db.auditLogEntry.findMany({ where: { merchantId: merchant.id, action: "default_network.set" } });
    expect(audit.map((a) => a.target)).toEqual(["USDT test tron"]);
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it("a developer reads the default without a control; the service refuses its change with 403", async () => {
    const { page, problems } = await openAs("developer", "/dashboard/wallets");
    await page.getByRole("heading", { level: 2, name: "Default networks (test mode)" }).waitFor(WAIT);
    await expect.poll(() => page.locator("#default-network-USDT").textContent(), WAIT).toBe("USDT: TRON Nile testnet (TRC-20)");
    expect(await page.getByLabel("Default network for USDT").count()).toBe(0);
    const developer = await signedInAs(t, merchant.id, "developer");
    const refused = await developer.request("PUT", "/dashboard/api/default-networks/USDT?mode=test", { network: "ethereum" });
    expect(refused.status).toBe(403);
    expect(refused.body.reason).toBe("role_forbidden");
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it("the API refuses a network without a wallet, and one that does not carry the coin, with 400 naming it; nothing changes", async () => {
    const owner = await signedInAs(t, merchant.id, "owner");
    const noWallet = await owner.request("PUT", "/dashboard/api/default-networks/USDT?mode=test", { network: "bsc" });
    expect(noWallet.status).toBe(400);
    expect(noWallet.body.message).toBe("default network: no USDT wallet on bsc is set for test mode; add one before making bsc the default for USDT");
    const wrong = await owner.request("PUT", "/dashboard/api/default-networks/USDT?mode=test", { network: "litecoin" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe("default network must be one of ethereum, bsc, tron, polygon, arbitrum for USDT (got 'litecoin')");
    const missing = await owner.request("PUT", "/dashboard/api/default-networks/USDT?mode=test", {});
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe("network is required: give it as a string");
    const coin = await owner.request("PUT", "/dashboard/api/default-networks/DOGE?mode=test", { network: "ethereum" });
    expect(coin.status).toBe(400);
    expect(coin.body.message).toBe("currency must be a coin this gateway takes (got 'DOGE')");
    expect((await t.gateway.operator.defaultNetworks(merchant.id)).map((d) => d.network)).toEqual(["tron"]);
  });
});

describe("the Funds held page", () => {
  it("lists what each address holds, says a USDT address without ETH needs ETH, and the CSV link follows the filter", async () => {
    const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
    const created = await t.post(
      "/v1/transaction",
      { customer: { email: "ada@example.com" }, currency: "USD", amount: "20" },
      bearer(merchant.testPublicKey),
    );
    const paid = await t.post(
      `/v1/transaction/${created.body.data.id}/pay`,
      { currency_id: "3", network: "ethereum" },
      bearer(merchant.testSecretKey),
    );
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const address = paid.body.data.payment_address as string;
    await anvil.sendTransaction({ to: USDT_SEPOLIA_CONTRACT, data: abiCall("transfer(address,uint256)", address, 7_250_000n) });

    const { page, problems } = await openAs("viewer", "/dashboard/funds-held");
    await page.getByRole("heading", { level: 1, name: "Funds held" }).waitFor(WAIT);
    await page.getByLabel("Network").selectOption("ethereum");
    await expect
      .poll(() => page.locator("#funds-summary").textContent(), WAIT)
      .toBe("1 address; 1 needs the fee coin before the token can be moved.");
    const cells = await page.locator("tbody tr").first().locator("td").allTextContents();
    expect(cells).toEqual([address, "Ethereum Sepolia testnet (ERC-20)", "7.25 USDT", "0 ETH", "Needs ETH to move the USDT"]);
    expect(await page.locator("#funds-export").getAttribute("href")).toBe("/dashboard/api/funds-held.csv?network=ethereum&mode=test");
    const csv = await page.evaluate(async (href) => (await fetch(href)).text(), "/dashboard/api/funds-held.csv?network=ethereum&mode=test");
    expect(csv.split("\r\n")[1]?.startsWith(`${address},ethereum,USDT,ERC-20,7.25,ETH,0,yes,`)).toBe(true);
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });
});
