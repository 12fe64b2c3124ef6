// A sweep plan of USDT on TRON as GET /v1/settlements/sweep-plan gives it, built in a test (no TRON
// JSON-RPC runs here to price it) for the sweep tool to execute against test/support/fake-tron-node.ts.
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { HDKey } from "@scure/bip32";
import { USDT_TRON_NILE_CONTRACT } from "../../src/core/networks.ts";
import type { SweepAddressView, SweepPlanView } from "../../src/core/settlement/sweep-view.ts";
import { sweepTotals, unitsText } from "../../src/core/settlement/sweep-view.ts";
import { tronAddressOf } from "../../src/rails/wallets/tron.ts";
import { main } from "../../tools/sweep/sweep.ts";
import { serializeKey } from "./hd-keys.ts";

/** The plan's fee of a USDT transfer into a holder: 64,285 energy at 100 sun and 345 bytes at 1,000 sun. */
export const TRANSFER_SUN = 64_285n * 100n + 345n * 1_000n;

/** The TRON account's (m/44'/195'/0') address at 0/index, derived here (not with the tool's keys). */
export function tronAddressAt(account: HDKey, index: number): string {
  const { publicKey } = account.deriveChild(0).deriveChild(index);
  if (publicKey === null) throw new Error("no public key");
  return tronAddressOf(publicKey);
}

/** The plan's entry of the payment at 0/index holding `heldUnits` of USDT, its transfer priced at `transferSun`. */
export function tronSweepEntry(
  account: HDKey,
  index: number,
  heldUnits: bigint,
  transferSun = TRANSFER_SUN,
  transactionId = `tx_${index}`,
): SweepAddressView {
  const held = unitsText(heldUnits, 6);
  const fee = transferSun.toString();
  const feeTrx = unitsText(transferSun, 6);
  return {
    transaction_id: transactionId,
    address: tronAddressAt(account, index),
    coin: "USDT",
    token_contract: USDT_TRON_NILE_CONTRACT,
    decimals: 6,
    account_key: serializeKey(account, "tpub"),
    derivation_index: index,
    derivation_path: `0/${index}`,
    full_path: `m/44'/195'/0'/0/${index}`,
    held,
    held_units: heldUnits.toString(),
    fee_coin_held: "0",
    fee_coin_held_units: "0",
    fee: {
      source: "documented",
      note: null,
      gas: "64285",
      gas_price: "100",
      bandwidth: "345",
      activation: null,
      transfer: feeTrx,
      transfer_units: fee,
      top_up: feeTrx,
      top_up_units: fee,
      top_up_fee: "0",
      top_up_fee_units: "0",
      total: feeTrx,
      total_units: fee,
    },
    to_send: held,
    to_send_units: heldUnits.toString(),
    value_usd: held,
    fee_usd: null,
    skipped: null,
  };
}

/** Writes a test-mode TRON plan of `addresses` to `destination` into `dir`; its path. */
export function writeTronPlan(dir: string, destination: string, addresses: SweepAddressView[], name = "plan.json"): string {
  const plan: SweepPlanView = {
    object: "sweep_plan",
    is_live: false,
    network: "tron",
    network_name: "TRON Nile testnet",
    fee_coin: "TRX",
    destination,
    destination_source: "parameter",
    addresses,
    totals: sweepTotals(addresses, null),
    rates: [],
    payments_read: addresses.length,
    limit: 100,
    has_more: false,
    next_starting_after: null,
    created_at: new Date().toISOString(),
  };
  const at = path.join(dir, name);
  writeFileSync(at, JSON.stringify(plan));
  return at;
}

/** A file of `dir` only its owner reads, as the tool wants keys. */
export function secretFile(dir: string, name: string, text: string): string {
  const at = path.join(dir, name);
  writeFileSync(at, text, { mode: 0o600 });
  return at;
}

/** The tool's arguments to execute `plan` against the node at `rpc`, the account's and the fee wallet's keys written to `dir`. */
export function executeTronPlan(dir: string, plan: string, account: HDKey, feeKey: Uint8Array, rpc: string, ...more: string[]): string[] {
  const key = secretFile(dir, "account.txt", serializeKey(account, "tpub", "private"));
  const fee = secretFile(dir, "fee.txt", Buffer.from(feeKey).toString("hex"));
  return ["--plan", plan, "--key", key, "--execute", "--rpc", rpc, "--fee-key", fee, ...more];
}

/** Runs the sweep tool in this process; what it printed. */
export async function runSweepTool(args: string[]): Promise<string> {
  const lines: string[] = [];
  await main(args, (text) => lines.push(text));
  return lines.join("\n");
}
