// End to end for TRON own-address mode (issue 40; docs/settlement.md, Own addresses) through the
// service in test mode, on anvil started with Nile's chain id (as tron-anvil.test.ts): the merchant
// turns the mode on over REST, two open payments get different amounts on the same own address, an
// exact transfer pays its payment only, a transfer of no open amount becomes an unmatched receipt
// (webhook) that the merchant assigns, and a full address answers 503. With no payment on an own
// address, the watcher's idle scan finds a transfer to it all the same (unmatched, with its webhook),
// and leaves out one made before the mode was turned on.
import { randomBytes } from "node:crypto";
import { HDKey } from "@scure/bip32";
import { Decimal } from "decimal.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { deriveTronAddress, tronAddressFromBytes, tronOwnChain } from "../../src/rails/wallets/tron.ts";
import type { Anvil } from "../support/anvil.ts";
import { serializeKey } from "../support/hd-keys.ts";
import { allVerifiedPayloads } from "../support/webhook-receiver.ts";
import { payUsdt, startNileWithUsdt } from "./tron.ts";
import { startE2eService, type E2eService, type Transaction } from "./service.ts";

const USDT = cryptoBySlug("USDT") as CryptoCurrency;
/** N: three amounts per address, so that a test can fill one. */
const MAX_EXTRA = 3;

let anvil: Anvil;
let service: E2eService;
let tronKey: string;

beforeAll(async () => {
  anvil = await startNileWithUsdt();
  service = await startE2eService(
    { PAYGATE_TRON_TEST_RPC_URL: anvil.url, PAYGATE_CONFIRMATIONS_TRON: "1", PAYGATE_OWN_ADDRESS_MAX_EXTRA_UNITS: String(MAX_EXTRA) },
    [],
  );
  tronKey = serializeKey(HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/195'/0'"), "tpub");
  await service.runtime.gateway.operator.updateMerchant(service.merchant.id, {
    wallets: [{ currency: USDT, network: "tron", isLive: false, extendedPublicKey: tronKey }],
  });
});
afterAll(async () => {
  await service?.close();
  await anvil?.stop();
});

async function call(method: string, path: string, key: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function initiate(usd: string) {
  const created = await call("POST", "/v1/transaction", service.merchant.testPublicKey, {
    customer: { email: "ada@example.com" },
    currency: "USD",
    amount: usd,
  });
  expect(created.status).toBe(201);
  const id = (created.body.data as Transaction).id;
  return { id, ...(await service.pay(id, { currency_id: String(USDT.id), network: "tron" })) };
}

const units = (amount: string | number) => BigInt(new Decimal(String(amount)).mul(1_000_000).toFixed(0));
const ownAddress = (index: number) => deriveTronAddress(tronOwnChain(false, tronKey), index);

describe("TRON own addresses with unique amounts, on anvil as Nile's JSON-RPC", () => {
  let first: Transaction;
  let second: Transaction;

  it("refuses a setting that is not one, with a 400 naming the field; a publishable key cannot set it", async () => {
    const key = service.merchant.testSecretKey;
    const zero = await call("PUT", "/v1/settlements/own-addresses/tron", key, { address_count: 0 });
    expect([zero.status, zero.body.reason, JSON.stringify(zero.body)]).toEqual([
      400,
      "invalid_own_address_setting",
      expect.stringContaining("address_count must be an integer from 1 to 10"),
    ]);
    const many = await call("PUT", "/v1/settlements/own-addresses/tron", key, { address_count: 11 });
    expect(JSON.stringify(many.body)).toContain("address_count must be an integer from 1 to 10");
    const evm = await call("PUT", "/v1/settlements/own-addresses/ethereum", key, { address_count: 1 });
    expect([evm.status, JSON.stringify(evm.body)]).toEqual([400, expect.stringContaining("network must be one of tron (got 'ethereum')")]);
    const publishable = await call("PUT", "/v1/settlements/own-addresses/tron", service.merchant.testPublicKey, { address_count: 1 });
    expect(publishable.status).toBe(401);
    const none = await call("DELETE", "/v1/settlements/own-addresses/tron", key);
    expect([none.status, none.body.message]).toEqual([404, "No own-address setting for network 'tron' in this mode"]);
    expect((await call("GET", "/v1/settlements/own-addresses", key)).body.data).toEqual([]);
  });

  it("turns the mode on in test mode only: the test key's setting is not the live mode's", async () => {
    const set = await call("PUT", "/v1/settlements/own-addresses/tron", service.merchant.testSecretKey, { address_count: 1 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.data).toMatchObject({
      object: "own_address_setting",
      network: "tron",
      is_live: false,
      address_count: 1,
      addresses: [ownAddress(0)],
      max_extra_units: MAX_EXTRA,
    });
    const live = await call("GET", "/v1/settlements/own-addresses", service.merchant.liveSecretKey);
    expect([live.status, live.body.data]).toEqual([200, []]);
  });

  it("gives two open payments the same own address and different amounts; an exact transfer pays its own only", async () => {
    const a = await initiate("25");
    const b = await initiate("25");
    expect([a.status, b.status], JSON.stringify([a.body, b.body])).toEqual([200, 200]);
    first = a.body.data as Transaction;
    second = b.body.data as Transaction;
    expect(first.payment_address).toBe(ownAddress(0));
    expect(second.payment_address).toBe(ownAddress(0));
    expect(first.payment_amount).not.toBe(second.payment_amount);
    // The locked 25 USDT (test rate 1) plus 1 to N base units.
    for (const t of [first, second]) {
      const extra = units(t.payment_amount as number) - 25_000_000n;
      expect(extra >= 1n && extra <= BigInt(MAX_EXTRA)).toBe(true);
      expect(t.payment_uri).toBe(t.payment_address);
    }
    await payUsdt(anvil, first.payment_address, units(first.payment_amount as number));
    const paid = await service.until(first.id, (t) => t.status === "SUCCESSFUL", "the exact amount paid");
    expect(paid.receipts.map((r) => r.amount)).toEqual([new Decimal(String(first.payment_amount)).toFixed()]);
    // The other payment saw nothing of it.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const other = await service.get(second.id);
    expect([other.status, other.receipts]).toEqual(["PENDING", []]);
  });

  it("gives a refund of a payment to an own address its instructions, paid from that own address", async () => {
    const key = service.merchant.testSecretKey;
    const customer = tronAddressFromBytes(randomBytes(20));
    const refunded = await call("POST", `/v1/transaction/${first.id}/refunds`, key, {});
    expect(refunded.status, JSON.stringify(refunded.body)).toBe(201);
    const made = refunded.body.data as { id: string; refund_url: string };
    // The customer claims it on its link (the service's public URL is its origin), which sets the destination.
    const link = new URL(made.refund_url);
    const claimed = await fetch(`${service.url}${link.pathname}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: link.origin },
      body: new URLSearchParams({ address: customer }).toString(),
    });
    expect(claimed.status).toBe(200);
    const shown = await call("GET", `/v1/refunds/${made.id}`, key);
    const payment = (shown.body.data as { payment: Record<string, unknown> | null }).payment;
    expect(payment).toMatchObject({ psbt: null, evm_transaction: null, paid_from: null, problem: null });
    expect(String(payment?.uri)).toContain(customer);
    expect(payment?.gas_needed).toEqual({ coin: "TRX", amount: expect.stringMatching(/^\d+(\.\d+)?$/) });
    expect((await call("POST", `/v1/refunds/${made.id}/cancel`, key)).status).toBe(200);
  });

  it("makes a transfer of no open amount an unmatched receipt with its webhook; assigned, its transaction counts it", async () => {
    const key = service.merchant.testSecretKey;
    const sent = units(second.payment_amount as number) + 1_000_000n; // one USDT more than due: an amount no payment holds
    const tx = await payUsdt(anvil, ownAddress(0), sent);
    let receipt: Record<string, unknown> | undefined;
    const deadline = Date.now() + 15_000;
    while (receipt === undefined && Date.now() < deadline) {
      const listed = await call("GET", "/v1/settlements/unmatched-receipts", key);
      receipt = (listed.body.data as Record<string, unknown>[])[0];
      if (receipt === undefined) await new Promise((resolve) => setTimeout(resolve, 150));
    }
    expect(receipt).toMatchObject({
      object: "unmatched_receipt",
      address: ownAddress(0),
      currency: "USDT",
      amount: new Decimal(sent.toString()).div(1_000_000).toFixed(),
      tx_hash: tx.slice(2),
      log_index: 0,
      state: "open",
    });
    const id = String(receipt?.id);
    const until = Date.now() + 10_000;
    const hooks = () =>
      allVerifiedPayloads(service.receiver, service.merchant.webhookSecret).filter((p) => p.event === "settlement.unmatched_receipt.created");
    while (hooks().length === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(hooks().map((p) => p.data.unmatched_receipt?.id)).toEqual([id]);

    // Refusals first: nothing changes.
    const missing = await call("POST", `/v1/settlements/unmatched-receipts/${id}/assign`, key, {});
    expect([missing.status, JSON.stringify(missing.body)]).toEqual([400, expect.stringContaining("transaction_id is required")]);
    const unknown = await call("POST", "/v1/settlements/unmatched-receipts/ur_00000000-0000-4000-8000-000000000000/assign", key, {
      transaction_id: second.id,
    });
    expect([unknown.status, unknown.body.message]).toEqual([404, "No unmatched receipt with id 'ur_00000000-0000-4000-8000-000000000000'"]);
    const otherMode = await call("POST", `/v1/settlements/unmatched-receipts/${id}/assign`, service.merchant.liveSecretKey, {
      transaction_id: second.id,
    });
    expect([otherMode.status, otherMode.body.message]).toEqual([404, `No unmatched receipt with id '${id}'`]);
    const noTransaction = await call("POST", `/v1/settlements/unmatched-receipts/${id}/assign`, key, { transaction_id: "nope" });
    expect([noTransaction.status, noTransaction.body.message]).toEqual([404, "No transaction with id 'nope'"]);

    const assigned = await call("POST", `/v1/settlements/unmatched-receipts/${id}/assign`, key, { transaction_id: second.id });
    expect([assigned.status, assigned.body.data], JSON.stringify(assigned.body)).toEqual([
      200,
      expect.objectContaining({ state: "assigned", transaction_id: second.id }),
    ]);
    const counted = await service.until(second.id, (t) => t.status === "SUCCESSFUL", "the assigned receipt counted");
    expect(counted.receipts.map((r) => [r.tx_hash, r.amount, r.state])).toEqual([
      [tx.slice(2), new Decimal(sent.toString()).div(1_000_000).toFixed(), "CONFIRMED"],
    ]);
    const again = await call("POST", `/v1/settlements/unmatched-receipts/${id}/assign`, key, { transaction_id: first.id });
    expect([again.status, again.body.message]).toEqual([
      409,
      "The unmatched receipt is assigned, not open: only an open one can be assigned or refunded",
    ]);
    const refundAssigned = await call("POST", `/v1/settlements/unmatched-receipts/${id}/refund`, key, { tx_hash: "ab".repeat(32) });
    expect(refundAssigned.status).toBe(409);
  });

  it("marks an unmatched receipt refunded with the merchant's refund transaction; a malformed hash is refused", async () => {
    const key = service.merchant.testSecretKey;
    await payUsdt(anvil, ownAddress(0), 7_000_000n);
    let open: Record<string, unknown> | undefined;
    const deadline = Date.now() + 15_000;
    while (open === undefined && Date.now() < deadline) {
      const listed = await call("GET", "/v1/settlements/unmatched-receipts?state=open", key);
      open = (listed.body.data as Record<string, unknown>[])[0];
      if (open === undefined) await new Promise((resolve) => setTimeout(resolve, 150));
    }
    expect(open?.amount).toBe("7");
    const bad = await call("POST", `/v1/settlements/unmatched-receipts/${String(open?.id)}/refund`, key, { tx_hash: "12" });
    expect([bad.status, JSON.stringify(bad.body)]).toEqual([
      400,
      expect.stringContaining("tx_hash must be a transaction hash: 64 hexadecimal digits"),
    ]);
    const refunded = await call("POST", `/v1/settlements/unmatched-receipts/${String(open?.id)}/refund`, key, { tx_hash: `0x${"AB".repeat(32)}` });
    expect([refunded.status, refunded.body.data]).toEqual([200, expect.objectContaining({ state: "refunded", refund_tx_hash: "ab".repeat(32) })]);
    const badState = await call("GET", "/v1/settlements/unmatched-receipts?state=lost", key);
    expect([badState.status, JSON.stringify(badState.body)]).toEqual([400, expect.stringContaining("must be one of open, assigned, refunded")]);
  });

  it("answers 503 once every amount of every own address is held, and frees nothing that is still held", async () => {
    // Held: the two payments above (until their windows and late windows close); one amount is left of N = 3.
    const third = await initiate("25");
    expect(third.status, JSON.stringify(third.body)).toBe(200);
    const full = await initiate("25");
    expect(full.status).toBe(503);
    expect(full.body).toMatchObject({
      reason: "own_addresses_full",
      message:
        "Every unique amount of the merchant's 1 own USDT on TRON Nile testnet address is held by an open payment (3 per address); retry once one closes, or raise the address count",
    });
    const t = await service.get(full.id);
    expect([t.status, t.payment_address]).toEqual(["INITIATED", null]);
  });

  it("turns the mode off: new payments get a fresh address each again", async () => {
    const removed = await call("DELETE", "/v1/settlements/own-addresses/tron", service.merchant.testSecretKey);
    expect([removed.status, removed.body.data]).toEqual([200, { network: "tron", is_live: false, mode: "unique_address" }]);
    const fresh = await initiate("25");
    expect(fresh.status).toBe(200);
    expect((fresh.body.data as Transaction).payment_address).not.toBe(ownAddress(0));
    expect(units((fresh.body.data as Transaction).payment_amount as number)).toBe(25_000_000n);
  });

  it("finds a transfer to an own address no payment is on (the idle scan), and not one made before the mode was turned on", async () => {
    const key = service.merchant.testSecretKey;
    const idle = ownAddress(1); // k was 1 so far: no payment was ever given this address
    const before = await payUsdt(anvil, idle, 4_000_000n);
    // Blocks tell whole seconds: the mode is turned on in a later second than the block before it.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const set = await call("PUT", "/v1/settlements/own-addresses/tron", key, { address_count: 2 });
    expect([set.status, (set.body.data as { addresses: string[] }).addresses]).toEqual([200, [ownAddress(0), idle]]);
    const after = await payUsdt(anvil, idle, 6_000_000n);

    const onIdle = async () =>
      ((await call("GET", "/v1/settlements/unmatched-receipts", key)).body.data as Record<string, unknown>[]).filter((r) => r.address === idle);
    let found = await onIdle();
    // A pass and its scan take well under a second here; the margin is for a loaded CI machine.
    const deadline = Date.now() + 30_000;
    while (found.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      found = await onIdle();
    }
    // On failure, what the service said and what it holds for the address, to tell a read from a filter.
    const said = async () =>
      JSON.stringify({ logs: service.logs.slice(-20), setting: (await call("GET", "/v1/settlements/own-addresses", key)).body.data, before, after });
    expect(found, found.length === 0 ? await said() : undefined).toEqual([
      expect.objectContaining({ object: "unmatched_receipt", address: idle, currency: "USDT", amount: "6", tx_hash: after.slice(2), state: "open" }),
    ]);
    const hooks = () =>
      allVerifiedPayloads(service.receiver, service.merchant.webhookSecret).filter(
        (p) => p.event === "settlement.unmatched_receipt.created" && p.data.unmatched_receipt?.address === idle,
      );
    const until = Date.now() + 10_000;
    while (hooks().length === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(hooks().map((p) => p.data.unmatched_receipt?.id)).toEqual([found[0]?.id]);
    // More passes read the same stretch again (the log search starts 30 min before the cursor): the
    // earlier transfer stays out, and the later one is not recorded twice.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const again = await onIdle();
    expect(again.map((r) => r.tx_hash)).toEqual([after.slice(2)]);
    expect(again.map((r) => r.tx_hash)).not.toContain(before.slice(2));
    expect(hooks()).toHaveLength(1);
  }, 60_000); // the wait for the scan (30 s at most) and the steps around it, past the default 30 s
});
