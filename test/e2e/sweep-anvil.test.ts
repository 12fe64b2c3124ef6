// Sweep plans and the sweep tool end to end on anvil (issue 40; docs/settlement.md, Sweeping fresh
// addresses): a merchant with a known seed is paid two USDT payments (a USDT-like token whose
// `transfer` returns nothing) and one ETH payment on fresh addresses of its keys; they succeed and
// become final; the plan reads what each holds and its fees from the node; the tool (tools/sweep, run
// as the merchant runs it, in its own process) prints a dry run that changes nothing, refuses a key the
// addresses are not derived from, sweeps with real signed transactions, and skips what it swept when
// run again. One node for the file; both databases.
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { HDKey } from "@scure/bip32";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressOfPrivateKey } from "../../src/rails/evm/signing.ts";
import { toChecksumAddress } from "../../src/rails/wallets/addresses.ts";
import { USDT_SEPOLIA_CONTRACT } from "../../src/rails/wallets/networks.ts";
import type { Anvil } from "../support/anvil.ts";
import { abiCall, balanceOf, coinBalance } from "../support/forwarders.ts";
import { serializeKey } from "../support/hd-keys.ts";
import { decimalOf, dueUnits } from "./evm.ts";
import { runSweepTool, secretFile, startSweepScene, sweepKeys, tprv } from "./sweep-tool.ts";
import type { E2eService, Transaction } from "./service.ts";

const keys = sweepKeys();
const { ethAccount, usdtAccount, destination, feeKey, feeWallet } = keys;

let anvil: Anvil;
let service: E2eService;
let dir: string;
let usdt: Transaction[];
let eth: Transaction;
let stopped = false;

beforeAll(async () => {
  ({ anvil, service, dir, usdt, eth } = await startSweepScene(keys, "paygate-sweep-"));
});
afterAll(async () => {
  await service?.close();
  if (!stopped) await anvil?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function plan(query: string, key = service.merchant.testSecretKey): Promise<{ status: number; body: any }> {
  const response = await fetch(`${service.url}/v1/settlements/sweep-plan?${query}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, body: await response.json() };
}

const tool = runSweepTool;
const file = (name: string, text: string) => secretFile(dir, name, text);

const usdtUnits = (address: string) => balanceOf(anvil, USDT_SEPOLIA_CONTRACT, address);
const nonceOf = async (address: string) => BigInt(String(await anvil.send("eth_getTransactionCount", [address, "latest"])));

describe("sweep plans and the sweep tool on anvil", () => {
  let planFile: string;

  it("plans the three addresses: what each holds read from the node, its derivation, gas × price from the node, the top-ups, totals and the share", async () => {
    const got = await plan(`network=ethereum&destination=${destination}`);
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    const p = got.body.data;
    const gasPrice = BigInt(String(await anvil.send("eth_gasPrice", [])));
    expect(p).toMatchObject({
      object: "sweep_plan",
      is_live: false,
      network: "ethereum",
      fee_coin: "ETH",
      destination,
      destination_source: "parameter",
      payments_read: 3,
      has_more: false,
      next_starting_after: null,
    });
    expect(p.addresses.map((a: any) => a.transaction_id).sort()).toEqual([...usdt, eth].map((t) => t.id).sort());
    for (const t of usdt) {
      const a = p.addresses.find((x: any) => x.transaction_id === t.id);
      const child = usdtAccount.deriveChild(0).deriveChild(a.derivation_index);
      expect(addressOfPrivateKey(child.privateKey as Uint8Array)).toBe(toChecksumAddress(t.payment_address));
      expect(a).toMatchObject({
        address: t.payment_address,
        coin: "USDT",
        token_contract: toChecksumAddress(USDT_SEPOLIA_CONTRACT),
        decimals: 6,
        derivation_path: `0/${a.derivation_index}`,
        held: decimalOf(dueUnits(t), 6),
        held_units: dueUnits(t).toString(),
        fee_coin_held_units: "0",
        to_send_units: dueUnits(t).toString(),
        skipped: null,
      });
      // The token transfer's estimate on the node, at its gas price; the address holds no ETH, so all of it is topped up.
      const estimate = BigInt(
        String(
          await anvil.send("eth_estimateGas", [
            { from: t.payment_address, to: USDT_SEPOLIA_CONTRACT, data: abiCall("transfer(address,uint256)", destination, dueUnits(t)) },
          ]),
        ),
      );
      expect(a.fee).toMatchObject({
        source: "node",
        gas: estimate.toString(),
        gas_price: gasPrice.toString(),
        transfer_units: (estimate * gasPrice).toString(),
        top_up_units: (estimate * gasPrice).toString(),
        top_up_fee_units: (21_000n * gasPrice).toString(),
        total_units: ((estimate + 21_000n) * gasPrice).toString(),
      });
    }
    const e = p.addresses.find((x: any) => x.transaction_id === eth.id);
    const ethFee = 21_000n * gasPrice;
    expect(e).toMatchObject({
      coin: "ETH",
      token_contract: null,
      held_units: dueUnits(eth).toString(),
      fee_coin_held_units: dueUnits(eth).toString(),
      to_send_units: (dueUnits(eth) - ethFee).toString(),
      fee: { gas: "21000", transfer_units: ethFee.toString(), top_up_units: "0", top_up_fee_units: "0", total_units: ethFee.toString() },
    });
    expect(addressOfPrivateKey(ethAccount.deriveChild(0).deriveChild(e.derivation_index).privateKey as Uint8Array)).toBe(
      toChecksumAddress(eth.payment_address),
    );

    // Totals add up, in USD at the test rates the plan names; the share is fee ÷ value.
    const usdtTotal = usdt.reduce((sum, t) => sum + dueUnits(t), 0n);
    expect(p.totals.coins.find((c: any) => c.coin === "USDT")).toMatchObject({ addresses: 2, held: decimalOf(usdtTotal, 6) });
    const rate = (coin: string) => Number(p.rates.find((r: any) => r.coin === coin).usd);
    expect(rate("USDT")).toBeGreaterThan(0);
    expect(rate("ETH")).toBeGreaterThan(0);
    const feeTotal = p.addresses.reduce((sum: bigint, a: any) => sum + BigInt(a.fee.total_units), 0n);
    expect(p.totals.fees.total).toBe(decimalOf(feeTotal, 18));
    const value = Number(decimalOf(usdtTotal, 6)) * rate("USDT") + Number(decimalOf(dueUnits(eth), 18)) * rate("ETH");
    expect(Number(p.totals.value_usd)).toBeCloseTo(value, 4);
    expect(Number(p.totals.fee_share_percent)).toBeCloseTo((Number(p.totals.fee_usd) / value) * 100, 1);

    planFile = file("plan.json", JSON.stringify(got.body));
  });

  it("a dry run prints each address's top-up and transfer and sends nothing", async () => {
    const before = await Promise.all([...usdt.map((t) => usdtUnits(t.payment_address)), nonceOf(feeWallet)]);
    const run = await tool(["--plan", planFile, "--key", "-", "--coin", "USDT"], `${tprv(usdtAccount)}\n`);
    expect([run.code, run.stderr]).toEqual([0, ""]);
    expect(run.stdout).toContain("Dry run: nothing is sent. 2 addresses on");
    for (const t of usdt)
      expect(run.stdout).toMatch(
        new RegExp(`${t.payment_address}  top-up [0-9.]+ ETH from the fee wallet, then send ${decimalOf(dueUnits(t), 6)} USDT`),
      );
    expect(run.stdout).not.toContain(tprv(usdtAccount));
    expect(await Promise.all([...usdt.map((t) => usdtUnits(t.payment_address)), nonceOf(feeWallet)])).toEqual(before);
  });

  it("refuses a key the addresses are not derived from, and a plan with another coin's account: nothing is sent", async () => {
    const other = HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/60'/1'");
    const wrong = await tool(
      ["--plan", planFile, "--key", "-", "--coin", "USDT", "--execute", "--rpc", anvil.url, "--fee-key", file("fee1", feeKey.toString("hex"))],
      tprv(other),
    );
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(
      /^paygate-sweep: 2 of the plan's 2 addresses \(USDT\) are not derived from the key you gave, e\.g\. 0x[0-9a-fA-F]{40} at 0\/\d+: give the private key of the account whose extended public key paygate has for that coin, or --coin to sweep one coin\. Nothing was sent\.\n$/,
    );
    // The USDT key without --coin: the ETH address is another account's.
    const mixed = await tool(["--plan", planFile, "--key", file("usdt-key", tprv(usdtAccount))]);
    expect([mixed.code, mixed.stderr]).toEqual([
      2,
      expect.stringContaining("1 of the plan's 3 addresses (ETH) are not derived from the key you gave"),
    ]);
    // A public key is not enough.
    const pub = await tool(["--plan", planFile, "--key", "-"], serializeKey(usdtAccount, "tpub"));
    expect([pub.code, pub.stderr]).toEqual([2, "paygate-sweep: the account key is a public key: the sweep needs the private key of the account\n"]);
    expect(await nonceOf(feeWallet)).toBe(0n);
    for (const t of usdt) expect(await usdtUnits(t.payment_address)).toBe(dueUnits(t));
  });

  it("executes: tops each USDT address up from the fee wallet, sends the USDT to the destination, reports; a second run skips them", async () => {
    const feeBefore = await coinBalance(anvil, feeWallet);
    const run = await tool(
      [
        "--plan",
        planFile,
        "--key",
        file("usdt-key2", tprv(usdtAccount)),
        "--coin",
        "usdt",
        "--execute",
        "--rpc",
        anvil.url,
        "--fee-key",
        "-",
        "--json",
      ],
      `0x${feeKey.toString("hex")}\n`,
    );
    expect([run.code, run.stderr]).toEqual([0, ""]);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ dry_run: false, network: "ethereum", destination });
    expect(report.addresses).toHaveLength(2);
    let feeWalletSpent = 0n;
    for (const t of usdt) {
      const o = report.addresses.find((x: any) => x.address === t.payment_address);
      expect(o).toMatchObject({ state: "swept", coin: "USDT", transfer: { amount_units: dueUnits(t).toString() } });
      const topUp = (await anvil.send("eth_getTransactionByHash", [o.top_up.tx_hash])) as { from: string; to: string; value: string };
      expect([topUp.from.toLowerCase(), topUp.to.toLowerCase(), BigInt(topUp.value).toString()]).toEqual([
        feeWallet.toLowerCase(),
        t.payment_address.toLowerCase(),
        o.top_up.amount_units,
      ]);
      const receipt = (await anvil.send("eth_getTransactionReceipt", [o.transfer.tx_hash])) as { from: string; status: string; gasUsed: string };
      expect([receipt.from.toLowerCase(), receipt.status, BigInt(receipt.gasUsed).toString()]).toEqual([
        t.payment_address.toLowerCase(),
        "0x1",
        o.transfer.gas_used,
      ]);
      feeWalletSpent += BigInt(o.top_up.amount_units) + BigInt(o.top_up.fee_units);
      expect(await usdtUnits(t.payment_address)).toBe(0n);
    }
    // The chain: the destination holds both payments; the fee wallet paid exactly the top-ups and their fees.
    expect(await usdtUnits(destination)).toBe(usdt.reduce((sum, t) => sum + dueUnits(t), 0n));
    expect(feeBefore - (await coinBalance(anvil, feeWallet))).toBe(feeWalletSpent);

    const nonce = await nonceOf(feeWallet);
    const again = await tool(
      ["--plan", planFile, "--key", file("usdt-key3", tprv(usdtAccount)), "--coin", "USDT", "--execute", "--rpc", anvil.url, "--fee-key", "-"],
      feeKey.toString("hex"),
    );
    expect([again.code, again.stderr]).toEqual([0, ""]);
    for (const t of usdt) expect(again.stdout).toContain(`${t.payment_address}  already empty: holds no USDT now`);
    expect(await nonceOf(feeWallet)).toBe(nonce);
  });

  it("sweeps the ETH address with its own account's key (no top-up: the coin pays its fee), fetching the plan from the API", async () => {
    const destinationBefore = await coinBalance(anvil, destination);
    const run = await tool(
      [
        "--api",
        service.url,
        "--network",
        "ethereum",
        "--destination",
        destination,
        "--coin",
        "ETH",
        "--api-key-file",
        file("api-key", service.merchant.testSecretKey),
      ].concat(["--key", "-", "--execute", "--rpc", anvil.url, "--fee-key", file("fee2", feeKey.toString("hex")), "--json"]),
      tprv(ethAccount),
    );
    expect([run.code, run.stderr]).toEqual([0, ""]);
    const [o] = JSON.parse(run.stdout).addresses;
    expect(o).toMatchObject({ address: eth.payment_address, state: "swept", top_up: null });
    const fee = BigInt(o.transfer.fee_units);
    expect(BigInt(o.transfer.amount_units) + fee).toBe(dueUnits(eth));
    expect(await coinBalance(anvil, eth.payment_address)).toBe(0n);
    expect((await coinBalance(anvil, destination)) - destinationBefore).toBe(dueUnits(eth) - fee);
  });

  it("a plan after the sweep lists nothing: every address is empty", async () => {
    const got = await plan(`network=ethereum&destination=${destination}`);
    expect([got.status, got.body.data.addresses, got.body.data.payments_read, got.body.data.totals.fee_share_percent]).toEqual([200, [], 3, null]);
  });

  it("an empty plan for a network without payments; 400s naming the parameter; 403 for a key rolled by a viewer", async () => {
    const empty = await plan(`network=bsc&destination=${destination}`);
    expect([empty.status, empty.body.data.addresses, empty.body.data.payments_read, empty.body.data.network_name]).toEqual([
      200,
      [],
      0,
      "BNB Smart Chain testnet",
    ]);

    const refusals: [string, string, string][] = [
      ["network=ethereum&destination=0x1234", "destination", "destination is not an address of Ethereum Sepolia testnet"],
      [
        "network=ethereum&destination=0x0000000000000000000000000000000000000000",
        "destination",
        "destination cannot be the zero address: money sent there is lost",
      ],
      [
        "network=ethereum",
        "destination",
        "destination is required: the merchant has no forwarder setting on ethereum whose address the funds could go to",
      ],
      [
        `network=litecoin&destination=${destination}`,
        "network",
        "network must be one of ethereum, bsc, base, polygon, arbitrum, tron (got 'litecoin')",
      ],
      [`network=ethereum&coin=BTC&destination=${destination}`, "coin", "coin must be a coin paid on ethereum (got 'BTC')"],
    ];
    for (const [query, field, message] of refusals) {
      const refused = await plan(query);
      expect([refused.status, refused.body.reason, refused.body.errors], query).toEqual([400, "invalid_sweep_plan_request", [{ field, message }]]);
    }
    const unknown = await plan(`network=ethereum&destination=${destination}&limit=500`);
    expect([unknown.status, unknown.body.reason, unknown.body.errors]).toEqual([
      400,
      "invalid_list_parameter",
      [{ field: "limit", message: "must be an integer from 1 to 200" }],
    ]);

    const db = service.runtime.database.db;
    const key = await db.apiKey.findFirstOrThrow({ where: { merchantId: service.merchant.id, kind: "SECRET", isLive: false, revokedAt: null } });
    await db.apiKey.update({
      where: { id: key.id },
      data: { createdByRole: "viewer", createdByUserId: "usr_viewer", createdByEmail: "viewer@example.com" },
    });
    try {
      const refused = await plan(`network=ethereum&destination=${destination}`);
      expect([refused.status, refused.body.reason, refused.body.message]).toEqual([
        403,
        "key_role_forbidden",
        "This key was rolled by a viewer, and that role cannot manage settlement: use a key rolled by an owner, or ask an owner of this merchant",
      ]);
    } finally {
      await db.apiKey.update({ where: { id: key.id }, data: { createdByRole: null, createdByUserId: null, createdByEmail: null } });
    }
  });

  it("answers 503 naming the network when its node cannot be asked", async () => {
    // The swept payments are still read: each address is asked of the node, which is gone.
    await anvil.stop();
    stopped = true;
    const refused = await plan(`network=ethereum&destination=${destination}`);
    expect([refused.status, refused.body.reason]).toEqual([503, "chain_node_unavailable"]);
    expect(refused.body.message).toMatch(
      /^The Ethereum Sepolia testnet node \(PAYGATE_ETH_TEST_RPC_URL\) cannot be asked what the payment addresses hold \(.+\); retry once it answers$/,
    );
  });
});
