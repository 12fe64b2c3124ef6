// `paygate holdings` (issue 25): what a merchant's handed-out addresses hold now, read from a real EVM
// node (anvil, the 6-decimal test token at the test USDT contract), as a table, as JSON and as CSV; a
// USDT address without ETH is marked as needing ETH to move the token. The payments are made through
// the service's own wiring (startRuntime) on the CLI's database, between its commands.
import { readFileSync } from "node:fs";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { USDT_SEPOLIA_CONTRACT } from "../src/core/networks.ts";
import { startRuntime } from "../src/runtime.ts";
import { DEV_ACCOUNT, startAnvil, type Anvil } from "./support/anvil.ts";
import { itRefusesBadArgs, useCli } from "./support/cli.ts";

const CHAIN_ID = 31_337;
const compiled = JSON.parse(readFileSync(new URL("./rails/chains/token/TestToken.json", import.meta.url), "utf8")) as {
  contracts: Record<"TestToken6", { deployedBytecode: string }>;
};

let anvil: Anvil;
/** Filled before the CLI's own set-up reads it (hooks run in the order they are registered). */
const env: Record<string, string> = { PAYGATE_ETH_TEST_CHAIN_ID: String(CHAIN_ID) };
beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID });
  env.PAYGATE_ETH_TEST_RPC_URL = anvil.url;
  await anvil.setCode(USDT_SEPOLIA_CONTRACT, compiled.contracts.TestToken6.deployedBytecode);
  await anvil.sendTransaction({ to: USDT_SEPOLIA_CONTRACT, data: abiCall("mint(address,uint256)", DEV_ACCOUNT, 10n ** 15n) });
});
afterAll(async () => {
  await anvil?.stop();
});
const paygate = useCli({ inProcess: true, env });

function abiCall(signature: string, ...args: (string | bigint)[]): string {
  const selector = bytesToHex(keccak_256(utf8ToBytes(signature)).slice(0, 4));
  return `0x${selector}${args.map((a) => BigInt(a).toString(16).padStart(64, "0")).join("")}`;
}

/** Pays in test mode through the service's wiring on the CLI's database: the address handed out per coin id. */
async function handOut(keys: { testPublicKey: string; testSecretKey: string }, currencyIds: string[]): Promise<string[]> {
  const runtime = await startRuntime(loadConfig(paygate.env()));
  try {
    const addresses: string[] = [];
    for (const currencyId of currencyIds) {
      const created = await runtime.gateway.payments.initializeTransaction({
        bearerToken: keys.testPublicKey,
        body: { customer: { email: "ada@example.com" }, currency: "USD", amount: "40" },
      });
      const paid = await runtime.gateway.payments.initiatePayment({
        bearerToken: keys.testSecretKey,
        transactionId: created.transaction.id,
        body: { currency_id: currencyId },
      });
      addresses.push(paid.transaction.paymentAddress as string);
    }
    return addresses;
  } finally {
    await runtime.close();
  }
}

describe("paygate holdings", () => {
  let merchantId: string;
  let usdtAddress: string;
  let ethAddress: string;

  it("prints each address with what it holds and the fee coin, marking a token held without ETH", async () => {
    const created = await paygate("merchant", "create", "--name", "Holdings Shop", "--json");
    expect(created.code, created.stderr).toBe(0);
    const merchant = JSON.parse(created.stdout);
    merchantId = String(merchant.id);
    [usdtAddress = "", ethAddress = ""] = await handOut(merchant, ["3", "6"]);
    await anvil.sendTransaction({ to: USDT_SEPOLIA_CONTRACT, data: abiCall("transfer(address,uint256)", usdtAddress, 12_345_678n) });
    await anvil.sendTransaction({ to: ethAddress, value: 30_000_000_000_000_000n });

    const res = await paygate("holdings", "--merchant", merchantId, "--network", "ethereum");
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ADDRESS\s+NETWORK\s+COIN\s+HELD\s+FEE COIN\s+FEE COIN HELD\s+NOTE$/);
    expect(lines[1]).toMatch(new RegExp(`^${ethAddress}\\s+ethereum\\s+ETH\\s+0\\.03\\s+ETH\\s+0\\.03$`));
    expect(lines[2]).toMatch(new RegExp(`^${usdtAddress}\\s+ethereum\\s+USDT\\s+12\\.345678\\s+ETH\\s+0\\s+needs ETH to move$`));
    expect(res.stdout).toContain("1 address(es) hold a token but none of the fee coin");
  }, 180_000); // the first command migrates the new data folder

  it("prints JSON and CSV with exact amounts", async () => {
    const json = await paygate("holdings", "--merchant", merchantId, "--network", "ethereum", "--json");
    expect(json.code, json.stderr).toBe(0);
    const parsed = JSON.parse(json.stdout);
    expect(parsed.mode).toBe("test");
    expect(
      parsed.holdings.map((h: { address: string; held: string; feeCoinHeld: string; needsFeeCoin: boolean }) => [
        h.address,
        h.held,
        h.feeCoinHeld,
        h.needsFeeCoin,
      ]),
    ).toEqual([
      [ethAddress, "0.03", "0.03", false],
      [usdtAddress, "12.345678", "0", true],
    ]);
    const csv = await paygate("holdings", "--merchant", merchantId, "--network", "ethereum", "--csv");
    expect(csv.code, csv.stderr).toBe(0);
    const [header, ...rows] = parse(csv.stdout) as string[][];
    expect(header?.slice(0, 8)).toEqual(["address", "network", "coin", "standard", "held", "fee_coin", "fee_coin_held", "needs_fee_coin"]);
    expect(rows.map((r) => r.slice(0, 8))).toEqual([
      [ethAddress, "ethereum", "ETH", "", "0.03", "ETH", "0.03", "no"],
      [usdtAddress, "ethereum", "USDT", "ERC-20", "12.345678", "ETH", "0", "yes"],
    ]);
  });

  it("says so when the mode has no handed-out addresses", async () => {
    const res = await paygate("holdings", "--merchant", merchantId, "--mode", "live");
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe(`Merchant ${merchantId} has handed out no live payment addresses.\n`);
  });

  it("refuses an unknown network with exit code 1, naming the known ones", async () => {
    const res = await paygate("holdings", "--merchant", merchantId, "--network", "solana");
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("network must be one of ethereum, bsc, base, polygon, arbitrum, tron, bitcoin, litecoin (got 'solana')");
  });

  itRefusesBadArgs(paygate, [
    ["no merchant", ["holdings"], /--merchant ID is required\./],
    ["a bad mode", ["holdings", "--merchant", "1", "--mode", "main"], /--mode must be test or live; got 'main'\./],
    ["--csv with --json", ["holdings", "--merchant", "1", "--csv", "--json"], /--csv and --json print different things: give one\./],
    ["a bad limit", ["holdings", "--merchant", "1", "--limit", "ten"], /--limit must be a whole number; got 'ten'\./],
  ]);
});
