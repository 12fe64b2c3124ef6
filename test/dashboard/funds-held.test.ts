// Funds held on per-payment addresses (issue 25) on a real EVM node: anvil as the test-mode Ethereum
// node with the 6-decimal test token at the test USDT contract. A payment's address paid USDT but no
// ETH shows that it needs ETH to move the token; one paid ETH holds its own fee coin; one given both
// needs nothing. Read through the core (the CLI's use case), the dashboard's API and its CSV export.
import { readFileSync } from "node:fs";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewMerchant } from "../../src/core/merchants/merchants.ts";
import { USDT_SEPOLIA_CONTRACT } from "../../src/core/networks.ts";
import { DEV_ACCOUNT, startAnvil, type Anvil } from "../support/anvil.ts";
import { expectDashboardError, signedInAs, type DashboardClient } from "../support/dashboard.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

const API = "/dashboard/api";
const CHAIN_ID = 31_337;
const compiled = JSON.parse(readFileSync(new URL("../rails/chains/token/TestToken.json", import.meta.url), "utf8")) as {
  contracts: Record<"TestToken6", { deployedBytecode: string }>;
};

let anvil: Anvil;
let t: TestGateway;
let merchant: NewMerchant;
let owner: DashboardClient;
let viewer: DashboardClient;
/** The addresses: paid USDT only; paid ETH; paid USDT and given ETH for fees. */
let tokenOnly: string;
let ethPaid: string;
let tokenAndFee: string;

function abiCall(signature: string, ...args: (string | bigint)[]): string {
  const selector = bytesToHex(keccak_256(utf8ToBytes(signature)).slice(0, 4));
  return `0x${selector}${args.map((a) => BigInt(a).toString(16).padStart(64, "0")).join("")}`;
}

async function initiate(currencyId: string): Promise<string> {
  const bearer = { authorization: `Bearer ${merchant.testPublicKey}` };
  const created = await t.post("/v1/transaction", { customer: { email: "ada@example.com" }, currency: "USD", amount: "50" }, bearer);
  expect(created.status).toBe(201);
  const paid = await t.post(
    `/v1/transaction/${created.body.data.id}/pay`,
    { currency_id: currencyId },
    { authorization: `Bearer ${merchant.testSecretKey}` },
  );
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  return paid.body.data.payment_address as string;
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID });
  await anvil.setCode(USDT_SEPOLIA_CONTRACT, compiled.contracts.TestToken6.deployedBytecode);
  await anvil.sendTransaction({ to: USDT_SEPOLIA_CONTRACT, data: abiCall("mint(address,uint256)", DEV_ACCOUNT, 10n ** 15n) });
  t = await startTestGateway({ env: { PAYGATE_ETH_TEST_RPC_URL: anvil.url, PAYGATE_ETH_TEST_CHAIN_ID: String(CHAIN_ID) } });
  merchant = await t.merchant({ name: "Held Funds Ltd" });
  owner = await signedInAs(t, merchant.id, "owner");
  viewer = await signedInAs(t, merchant.id, "viewer");
  tokenOnly = await initiate("3");
  ethPaid = await initiate("6");
  tokenAndFee = await initiate("3");
  // 25.5 USDT (6 decimals) to the first; 0.25 ETH to the second; 1.000001 USDT and 0.001 ETH to the third.
  await anvil.sendTransaction({ to: USDT_SEPOLIA_CONTRACT, data: abiCall("transfer(address,uint256)", tokenOnly, 25_500_000n) });
  await anvil.sendTransaction({ to: ethPaid, value: 250_000_000_000_000_000n });
  await anvil.sendTransaction({ to: USDT_SEPOLIA_CONTRACT, data: abiCall("transfer(address,uint256)", tokenAndFee, 1_000_001n) });
  await anvil.sendTransaction({ to: tokenAndFee, value: 1_000_000_000_000_000n });
}, 120_000);
afterAll(async () => {
  await t?.close();
  await anvil?.stop();
});

describe("funds held on handed-out addresses", () => {
  it("lists each address with what it holds and the fee coin it needs, newest first: a token with no ETH needs ETH", async () => {
    const rows = await t.gateway.merchants.fundsHeld(t.gateway.access.operator(merchant.id), { isLive: false, network: "ethereum" });
    expect(rows.map((r) => [r.address, r.coin, r.standard, r.held?.toFixed(), r.feeCoin, r.feeCoinHeld?.toFixed(), r.needsFeeCoin, r.error])).toEqual(
      [
        [tokenAndFee, "USDT", "ERC-20", "1.000001", "ETH", "0.001", false, null],
        [ethPaid, "ETH", null, "0.25", "ETH", "0.25", false, null],
        [tokenOnly, "USDT", "ERC-20", "25.5", "ETH", "0", true, null],
      ],
    );
    expect(rows[2]?.networkName).toBe("Ethereum Sepolia testnet");
    expect(rows[2]?.explorerUrl).toBe(`https://sepolia.etherscan.io/address/${tokenOnly}`);
  });

  it("reads the chain as it is now: a new USDT address given only ETH holds no token and needs nothing; limit keeps the newest", async () => {
    const before = await t.gateway.merchants.fundsHeld(t.gateway.access.operator(merchant.id), { isLive: false, network: "ethereum", limit: 3 });
    expect(before.find((r) => r.address === tokenOnly)?.needsFeeCoin).toBe(true);
    const other = await initiate("3");
    await anvil.sendTransaction({ to: other, value: 5n });
    const after = await t.gateway.merchants.fundsHeld(t.gateway.access.operator(merchant.id), { isLive: false, network: "ethereum", limit: 1 });
    expect(after.map((r) => [r.address, r.held?.toFixed(), r.feeCoinHeld?.toFixed(), r.needsFeeCoin])).toEqual([
      [other, "0", "0.000000000000000005", false],
    ]);
  });

  it("another network's addresses are left out; the live mode has none", async () => {
    expect(await t.gateway.merchants.fundsHeld(t.gateway.access.operator(merchant.id), { isLive: false, network: "bsc" })).toEqual([]);
    expect(await t.gateway.merchants.fundsHeld(t.gateway.access.operator(merchant.id), { isLive: true })).toEqual([]);
  });

  it("refuses an unknown network and a limit out of range, naming them", async () => {
    await expect(t.gateway.merchants.fundsHeld(t.gateway.access.operator(merchant.id), { isLive: false, network: "solana" })).rejects.toThrow(
      "Invalid query parameter: network must be one of ethereum, bsc, base, polygon, arbitrum, tron, bitcoin, litecoin (got 'solana')",
    );
    await expect(t.gateway.merchants.fundsHeld(t.gateway.access.operator(merchant.id), { isLive: false, limit: 0 })).rejects.toThrow(
      "Invalid query parameter: limit must be a whole number from 1 to 1000",
    );
  });
});

describe("the dashboard's API", () => {
  it("answers the list to every role that reads, amounts as exact strings", async () => {
    for (const client of [owner, viewer]) {
      const res = await client.get(`${API}/funds-held?mode=test&network=ethereum`);
      expect(res.status).toBe(200);
      const row = res.body.data.find((r: { address: string }) => r.address === tokenOnly);
      expect(row).toMatchObject({
        currency: "USDT",
        network: "ethereum",
        network_name: "Ethereum Sepolia testnet",
        standard: "ERC-20",
        held: "25.5",
        fee_coin: "ETH",
        fee_coin_held: "0",
        needs_fee_coin: true,
        error: null,
      });
    }
  });

  it("exports the list as CSV, one row per address with the header first", async () => {
    const res = await fetch(`${t.url}${API}/funds-held.csv?mode=test&network=ethereum`, { headers: { cookie: owner.cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="funds-held-test-\d{4}-\d{2}-\d{2}\.csv"$/);
    const text = await res.text();
    expect(text.endsWith("\r\n")).toBe(true);
    const [header, ...rows] = parse(text) as string[][];
    expect(header).toEqual([
      "address",
      "network",
      "coin",
      "standard",
      "held",
      "fee_coin",
      "fee_coin_held",
      "needs_fee_coin",
      "transaction_id",
      "initiated_at",
      "error",
    ]);
    const byAddress = new Map(rows.map((r) => [r[0], r]));
    expect(byAddress.get(tokenOnly)?.slice(0, 8)).toEqual([tokenOnly, "ethereum", "USDT", "ERC-20", "25.5", "ETH", "0", "yes"]);
    expect(byAddress.get(ethPaid)?.slice(0, 8)).toEqual([ethPaid, "ethereum", "ETH", "", "0.25", "ETH", "0.25", "no"]);
    expect(rows).toHaveLength(4);
  });

  it("refuses an unknown network with 400 naming it", async () => {
    expectDashboardError(
      await owner.get(`${API}/funds-held?mode=test&network=solana`),
      400,
      "invalid_list_parameter",
      "Invalid query parameter: network must be one of ethereum, bsc, base, polygon, arbitrum, tron, bitcoin, litecoin (got 'solana')",
    );
    expectDashboardError(
      await owner.get(`${API}/funds-held?limit=ten`),
      400,
      "invalid_list_parameter",
      "Invalid query parameter: limit must be a whole number",
    );
  });
});
