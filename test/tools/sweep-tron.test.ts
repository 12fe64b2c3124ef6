// The sweep tool on TRON (tools/sweep/tron.ts; docs/settlement.md, Sweeping fresh addresses): a plan
// of three USDT addresses of the merchant's TRON account, executed against a TRON node's HTTP API.
// No TRON node software runs here, so the node is test/support/fake-tron-node.ts, which answers as the
// API is documented and takes a transaction only when its bytes, id, reference block and signature
// are what a node checks; it charges energy, bandwidth and activation as TRON does. Checked: the
// money (USDT at the destination, nothing left on the addresses), what each transaction cost, the
// report (--report: what paygate records), and every refusal (the node's, a fee limit too low, an unreachable node, a key of
// another account). No database: this file runs once per CI run (vitest.config.ts).
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { HDKey } from "@scure/bip32";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { USDT_TRON_NILE_CONTRACT } from "../../src/core/networks.ts";
import type { SweepAddressView } from "../../src/core/settlement/sweep-view.ts";
import { tronAddressOf } from "../../src/rails/wallets/tron.ts";
import { type FakeTronNode, startFakeTronNode } from "../support/fake-tron-node.ts";
import { serializeKey } from "../support/hd-keys.ts";
import { executeTronPlan, runSweepTool, secretFile, TRANSFER_SUN, tronAddressAt, tronSweepEntry, writeTronPlan } from "../support/tron-sweep-plan.ts";

/** The tool's fee limit and top-up: the plan's fee and a fifth more. */
const FEE_LIMIT = (TRANSFER_SUN * 120n + 99n) / 100n;
const ENERGY_FEE = 64_285n * 100n;
const USDT = 1_000_000n;
const TRX = 1_000_000n;

let node: FakeTronNode;
let dir: string;
let account: HDKey;
let feeKey: Uint8Array;
let feeWallet: string;
let destination: string;

const addressAt = (index: number) => tronAddressAt(account, index);
const entry = (index: number, heldUnits: bigint, transferSun = TRANSFER_SUN) => tronSweepEntry(account, index, heldUnits, transferSun);
const planFile = (addresses: SweepAddressView[], name = "plan.json") => writeTronPlan(dir, destination, addresses, name);

const secret = (name: string, text: string) => secretFile(dir, name, text);
const run = runSweepTool;
const execute = (plan: string, ...more: string[]) => executeTronPlan(dir, plan, account, feeKey, node.url, ...more);

beforeEach(async () => {
  node = await startFakeTronNode(USDT_TRON_NILE_CONTRACT);
  dir = mkdtempSync(path.join(tmpdir(), "sweep-tron-"));
  account = HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/195'/0'");
  feeKey = randomBytes(32);
  feeWallet = tronAddressOf(secp256k1.getPublicKey(feeKey));
  destination = tronAddressOf(secp256k1.getPublicKey(randomBytes(32)));
  node.trx.set(feeWallet, 100n * TRX);
  node.tokens.set(destination, 1n * USDT); // the merchant's address holds USDT, and no TRX: it is not activated
});
afterEach(async () => {
  await node.close();
});

describe("the sweep tool on TRON", () => {
  it("tops up, sends each address's USDT to the destination and the TRX left after it, with each transaction's cost", async () => {
    const [a, b, c] = [addressAt(0), addressAt(1), addressAt(2)];
    node.tokens.set(a, 20n * USDT); // no TRX: not activated
    node.tokens.set(b, 5n * USDT);
    node.trx.set(b, 50n * TRX); // enough for its own transfer
    // c's payment was swept since the plan was made: it holds nothing now.
    const report = JSON.parse(await run(execute(planFile([entry(0, 20n * USDT), entry(1, 5n * USDT), entry(2, 3n * USDT)]), "--json")));

    expect([node.tokens.get(destination), node.tokens.get(a), node.tokens.get(b)]).toEqual([26n * USDT, 0n, 0n]);
    // The TRX left after each transfer went on: nothing is left on the payment addresses.
    expect([node.trx.get(a), node.trx.get(b)]).toEqual([0n, 0n]);
    const [ra, rb, rc] = report.addresses;
    expect(report).toMatchObject({ dry_run: false, network: "tron", destination });
    // a: the fee wallet sent it the fee limit (activating it: 1 TRX more, from the fee wallet).
    expect(ra).toMatchObject({ address: a, state: "swept", top_up: { amount_units: FEE_LIMIT.toString(), fee_units: String(TRX) } });
    expect(ra.transfer).toMatchObject({ amount_units: (20n * USDT).toString(), gas_used: "64285", fee_units: ENERGY_FEE.toString() });
    // What the energy left, less the destination's activation and the bandwidth its free daily bytes no longer cover.
    const leftA = FEE_LIMIT - ENERGY_FEE;
    const sentA = BigInt(ra.coin_left_over.amount_units);
    expect(leftA - sentA - BigInt(ra.coin_left_over.fee_units)).toBe(0n);
    expect(BigInt(ra.coin_left_over.fee_units) > TRX).toBe(true);
    expect(node.trx.get(feeWallet)).toBe(100n * TRX - FEE_LIMIT - TRX);
    // b: no top-up; its leftover pays no activation (the destination exists now), only bandwidth.
    expect(rb).toMatchObject({ address: b, state: "swept", top_up: null, transfer: { amount_units: (5n * USDT).toString() } });
    expect(BigInt(rb.coin_left_over.amount_units) + BigInt(rb.coin_left_over.fee_units)).toBe(50n * TRX - ENERGY_FEE);
    expect(BigInt(rb.coin_left_over.fee_units) < TRX).toBe(true);
    expect(node.trx.get(destination)).toBe(sentA + BigInt(rb.coin_left_over.amount_units));
    expect(rc).toMatchObject({ address: c, state: "already_empty", reason: "holds no USDT now", transfer: null });
    // Each transaction the node took was signed by its sender: the fee wallet's top-up, then the addresses' own.
    expect([...node.taken.values()].map((t) => [t.type, t.owner])).toEqual([
      [1, feeWallet],
      [31, a],
      [1, a],
      [31, b],
      [1, b],
    ]);
    // And waited for: the node reports each in a block one question later.
    expect(node.calls.filter((call) => call === "gettransactioninfobyid")).toHaveLength(10);
  });

  it("reports in text, in sun and energy", async () => {
    node.tokens.set(addressAt(0), 2n * USDT);
    const text = await run(execute(planFile([entry(0, 2n * USDT)])));
    expect(text).toContain(`Swept on TRON Nile testnet to ${destination}:`);
    expect(text).toMatch(new RegExp(`top-up [0-9a-f]{64} \\(${FEE_LIMIT} sun, energy 0\\)`));
    expect(text).toMatch(/transfer [0-9a-f]{64} \(2000000 base units of USDT, energy 64285\)/);
    expect(text).toContain("Moved 2000000 base units of USDT");
    expect(text).toMatch(/Top-ups \d+ sun; fees paid \d+ sun \(TRX\)/);
  });

  it("stops at the node's refusal, naming it, and moves nothing: a fee wallet without the TRX for the top-up", async () => {
    node.trx.set(feeWallet, 1n * TRX);
    node.tokens.set(addressAt(0), 20n * USDT);
    await expect(run(execute(planFile([entry(0, 20n * USDT)])))).rejects.toThrow(
      new RegExp(
        `^the node refused transaction [0-9a-f]{64} from ${feeWallet}: CONTRACT_VALIDATE_ERROR Validate TransferContract error, balance is not sufficient\\.$`,
      ),
    );
    expect([node.tokens.get(addressAt(0)), node.trx.get(feeWallet), node.taken.size]).toEqual([20n * USDT, 1n * TRX, 0]);
  });

  it("says a transfer failed when its fee limit burns out (OUT_OF_ENERGY), and the USDT stays", async () => {
    node.tokens.set(addressAt(0), 20n * USDT);
    node.trx.set(addressAt(0), 1n * TRX);
    // A plan whose fee is far below what the transfer burns: the fee limit is that fee and a fifth.
    await expect(run(execute(planFile([entry(0, 20n * USDT, 500_000n)])))).rejects.toThrow(
      new RegExp(`^transaction [0-9a-f]{64} from ${addressAt(0)} failed: OUT_OF_ENERGY $`),
    );
    expect(node.tokens.get(addressAt(0))).toBe(20n * USDT);
    expect(node.tokens.get(destination)).toBe(1n * USDT);
  });

  it("prints with --report what paygate records: each transfer with the top-up that paid it, and the TRX left over alone", async () => {
    node.tokens.set(addressAt(0), 2n * USDT);
    const body = JSON.parse(await run(execute(planFile([entry(0, 2n * USDT)]), "--report")));
    const [topUp, transfer, leftOver] = [...node.taken.keys()];
    expect(body).toEqual({
      network: "tron",
      sweeps: [
        { tx_hash: transfer, top_up_tx_hash: topUp },
        { tx_hash: leftOver, top_up_tx_hash: null },
      ],
    });
    expect(transfer).toMatch(/^[0-9a-f]{64}$/);
  });

  it("refuses an unreachable node and a key of another account", async () => {
    node.tokens.set(addressAt(0), 20n * USDT);
    const plan = planFile([entry(0, 20n * USDT)]);
    const args = execute(plan);
    args[args.indexOf("--rpc") + 1] = "http://127.0.0.1:1";
    await expect(run(args)).rejects.toThrow(/^the TRON node's URL cannot be reached \(/);
    const other = HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/195'/0'");
    const withOther = execute(plan);
    withOther[withOther.indexOf("--key") + 1] = secret("other.txt", serializeKey(other, "tpub", "private"));
    await expect(run(withOther)).rejects.toThrow(/^1 of the plan's 1 addresses \(USDT\) are not derived from the key you gave/);
    expect(node.taken.size).toBe(0);
  });
});
