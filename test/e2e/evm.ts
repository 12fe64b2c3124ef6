// The end-to-end cases of a native EVM coin (ETH, BNB) through the service on an anvil node, shared by
// the ETH and BNB files: a dev account pays with a real signed transaction (anvil mines its block),
// blocks are mined with anvil_mine, a reorganisation replaces blocks (anvil_reorg).
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { expect, it } from "vitest";
import type { CryptoSlug } from "../../src/core/money/currencies.ts";
import type { Anvil } from "../support/anvil.ts";
import { eventArrives, onChain, progress, type E2eService, type Transaction } from "./service.ts";

/** A contract call's data: the function's selector and its arguments as 32-byte words (mint, transfer). */
export function abiCall(signature: string, ...args: (string | bigint)[]): string {
  const selector = bytesToHex(keccak_256(utf8ToBytes(signature)).slice(0, 4));
  return `0x${selector}${args.map((a) => BigInt(a).toString(16).padStart(64, "0")).join("")}`;
}

/** The amount due in base units, exactly, from the payment URI (EIP-681's value= or uint256=). */
export function dueUnits(t: Transaction): bigint {
  const match = /[?&](?:value|uint256)=(\d+)/.exec(t.payment_uri);
  if (!match) throw new Error(`no amount in ${t.payment_uri}`);
  return BigInt(match[1] as string);
}

/** Base units as the API's decimal string (no trailing zeros). */
export function decimalOf(units: bigint, decimals: number): string {
  const text = units.toString().padStart(decimals + 1, "0");
  const whole = text.slice(0, -decimals);
  const fraction = text.slice(-decimals).replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole;
}

/** The native coin's cases, on the anvil the service watches (its chain id set as the test chain id). */
export function nativeCoinCases(
  slug: Extract<CryptoSlug, "ETH" | "BNB">,
  required: number,
  context: () => { anvil: Anvil; service: E2eService },
): void {
  const pay = (to: string, value: bigint) => context().anvil.sendTransaction({ to, value });

  it(`${slug}: hands out a URI on the local chain, is paid by a signed transaction, counts 1 and 2 of ${required} confirmations, then succeeds with its events`, async () => {
    const { anvil, service } = context();
    const t0 = await service.initiate(slug, "30");
    expect(t0.payment_uri).toMatch(new RegExp(`^ethereum:${t0.payment_address}@${anvil.chainId}\\?value=\\d+$`));
    const due = dueUnits(t0);
    const amount = decimalOf(due, 18);
    const tx = await pay(t0.payment_address, due);
    const block = await anvil.blockOf(tx);
    // Anvil answers the state of its newest block from its live state while it mines the next, which
    // can show the payment as a hash-less balance receipt first; the client reads such a balance again
    // at a new head (evm-rpc.ts nativeRead), and else the transfer takes it over (onChain).
    let t = await service.until(t0.id, (t) => onChain(t).length === 1 && onChain(t)[0]?.tx_hash === tx, "its payment seen");
    expect(progress(t)).toEqual({ status: "PENDING", state: "confirming", confirmations: 1, required, receipts: [[tx, amount, 1, "SEEN"]] });
    expect(onChain(t)[0]?.block_height).toBe(block);
    await anvil.mine(1);
    t = await service.until(t0.id, (t) => t.meta.payment?.confirmations === 2, `2 of ${required}`);
    expect(progress(t)).toEqual({ status: "PENDING", state: "confirming", confirmations: 2, required, receipts: [[tx, amount, 2, "SEEN"]] });
    await anvil.mine(required - 2);
    t = await service.until(t0.id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL");
    expect(progress(t)).toEqual({
      status: "SUCCESSFUL",
      state: "paid",
      confirmations: null,
      required,
      receipts: [[tx, amount, required, "CONFIRMED"]],
    });
    expect(t.meta.payment?.amount_confirmed).toBe(amount);
    await eventArrives(service, t0.reference, "payment.received");
    expect(service.events(t0.reference)).toEqual(["payment.initiated", "payment.pending", "payment.received"]);
  });

  it(`${slug}: stays underpaid on a part payment and succeeds once topped up; an overpayment succeeds as overpaid`, async () => {
    const { anvil, service } = context();
    const t0 = await service.initiate(slug, "20");
    const due = dueUnits(t0);
    const part = due / 4n;
    await pay(t0.payment_address, part);
    await anvil.mine(required);
    let t = await service.until(t0.id, (t) => onChain(t)[0]?.state === "CONFIRMED", "the part payment confirmed");
    expect(progress(t)).toMatchObject({ status: "PENDING", state: "underpaid" });
    expect(t.meta.payment?.amount_confirmed).toBe(decimalOf(part, 18));
    await pay(t0.payment_address, due - part);
    await anvil.mine(required);
    t = await service.until(t0.id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL");
    expect(onChain(t).map((r) => [r.amount, r.state])).toEqual([
      [decimalOf(part, 18), "CONFIRMED"],
      [decimalOf(due - part, 18), "CONFIRMED"],
    ]);
    expect(t.meta.payment).toMatchObject({ state: "paid", amount_confirmed: decimalOf(due, 18) });

    const over = await service.initiate(slug, "10");
    const sent = (dueUnits(over) * 3n) / 2n;
    await pay(over.payment_address, sent);
    await anvil.mine(required);
    t = await service.until(over.id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL");
    expect(t.meta.payment).toMatchObject({ state: "overpaid", amount_confirmed: decimalOf(sent, 18) });
  });

  it(`${slug}: drops a payment whose block a reorganisation replaces before it has its confirmations`, async () => {
    const { anvil, service } = context();
    const t0 = await service.initiate(slug, "10");
    const due = dueUnits(t0);
    const tx = await pay(t0.payment_address, due);
    await anvil.mine(1);
    let t = await service.until(t0.id, (t) => t.meta.payment?.confirmations === 2, "2 confirmations");
    expect(progress(t).receipts).toEqual([[tx, decimalOf(due, 18), 2, "SEEN"]]);
    await anvil.reorg(2); // the payment's block and the one after it, replaced by empty blocks
    // The receipt is marked in the pass that misses it; the payment's state may follow one pass later (seen once
    // on PostgreSQL under load), so wait for both.
    t = await service.until(
      t0.id,
      (t) => t.receipts[0]?.state === "DROPPED" && t.meta.payment?.state === "awaiting_payment",
      "its receipt dropped and the payment back to awaiting_payment",
    );
    expect(progress(t)).toMatchObject({ status: "PENDING", state: "awaiting_payment", confirmations: null });
    await anvil.mine(required);
    t = await service.until(t0.id, (t) => t.receipts[0]?.state === "DROPPED" && t.status === "PENDING", "still dropped after more blocks");
    expect(t.amount_paid).toBeNull();
  });

  it(`${slug}: tells payment.reversed when a reorganisation takes a payment away after it succeeded`, async () => {
    const { anvil, service } = context();
    const t0 = await service.initiate(slug, "10");
    const due = dueUnits(t0);
    const tx = await pay(t0.payment_address, due);
    await anvil.mine(required - 1);
    let t = await service.until(t0.id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL");
    expect(t.reversed_at).toBeNull();
    await eventArrives(service, t0.reference, "payment.received");

    await anvil.reorg(required); // the payment's block and those after it, replaced by empty blocks
    t = await service.until(t0.id, (t) => t.reversed_at !== null, "reversed");
    expect(progress(t)).toMatchObject({ status: "SUCCESSFUL", state: "reversed", receipts: [[tx, decimalOf(due, 18), required, "REVERSED"]] });
    await eventArrives(service, t0.reference, "payment.reversed");
    expect(service.events(t0.reference)).toEqual(["payment.initiated", "payment.pending", "payment.received", "payment.reversed"]);
  });
}
