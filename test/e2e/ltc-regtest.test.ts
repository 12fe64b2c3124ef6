// End to end on a real Litecoin Core node (regtest): the service in test mode with
// PAYGATE_LTC_TEST_CHAIN=regtest and its own node (PAYGATE_LTC_TEST_NODE_URL), a merchant with its own
// test account key. Payments are real transactions signed by the node's wallet, blocks are mined with
// generatetoaddress; everything is read back through the REST API and the webhooks a real receiver
// gets. One node for the file, each test on transactions of its own.
import { Decimal } from "decimal.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FUNDER, startLitecoind, type Litecoind } from "../support/litecoind.ts";
import { freePort } from "../support/anvil.ts";
import { amountOf, funderCoin, payFromFreshCoinbase, watchedBy } from "./ltc.ts";
import { eventArrives as arrives, literal, progress, startE2eService, type E2eService, type Transaction } from "./service.ts";
import { initializeBody } from "../support/builders.ts";

const REQUIRED = 3;
let node: Litecoind;
let service: E2eService;

beforeAll(async () => {
  node = await startLitecoind();
  service = await startE2eService(
    { PAYGATE_LTC_TEST_NODE_URL: node.url, PAYGATE_LTC_TEST_CHAIN: "regtest", PAYGATE_CONFIRMATIONS_LTC: String(REQUIRED) },
    ["LTC"],
  );
});
afterAll(async () => {
  await service?.close();
  await node?.stop();
});

/** The node's wallet pays `amount` LTC to `address`: a signed transaction in its mempool. */
const pay = async (address: string, amount: Decimal, replaceable = false) =>
  String(await node.send("sendtoaddress", [address, amount.toFixed(8), "", "", false, replaceable], FUNDER));
const watched = (t: Transaction) => watchedBy(node, "paygate", t);
const seen = (t: Transaction, count: number) => t.receipts.filter((r) => r.state !== "DROPPED").length === count;

describe("LTC through the service on a regtest node", () => {
  it("checks the node when it starts, before any payment: one line saying it is fine, no warning", async () => {
    const lines = await service.logged(/LTC test/);
    expect(lines).toEqual([
      `payment watcher: LTC test: LTC test node (${new URL(node.url).host}) answers: chain regtest, legacy watch-only wallet "paygate"`,
    ]);
  });

  it("hands out a regtest address and URI, is paid by a signed transaction, counts 0, 1, 2 of 3 confirmations, then succeeds with its events", async () => {
    const refund = await node.newAddress();
    const initiated = await watched(await service.initiate("LTC", "50", refund));
    expect(initiated.status).toBe("PENDING");
    expect(initiated.payment_address).toMatch(/^rltc1q[02-9ac-hj-np-z]{38}$/);
    expect(initiated.payment_uri).toBe(`litecoin:${initiated.payment_address}?amount=${initiated.payment_amount}`);
    expect(initiated.meta.refund_address).toBe(refund);
    const { id, reference } = initiated;

    const txid = await pay(initiated.payment_address, amountOf(initiated));
    const amount = amountOf(initiated).toFixed();
    let t = await service.until(id, (t) => t.receipts.length === 1, "its payment seen");
    expect(progress(t)).toEqual({
      status: "PENDING",
      state: "confirming",
      confirmations: 0,
      required: REQUIRED,
      receipts: [[txid, amount, 0, "SEEN"]],
    });
    for (const count of [1, 2]) {
      await node.mine(1);
      t = await service.until(id, (t) => t.meta.payment?.confirmations === count, `${count} of ${REQUIRED} confirmations`);
      expect(progress(t)).toEqual({
        status: "PENDING",
        state: "confirming",
        confirmations: count,
        required: REQUIRED,
        receipts: [[txid, amount, count, "SEEN"]],
      });
    }
    const [block] = await node.mine(1);
    t = await service.until(id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL");
    expect(progress(t)).toEqual({
      status: "SUCCESSFUL",
      state: "paid",
      confirmations: null,
      required: REQUIRED,
      receipts: [[txid, amount, 3, "CONFIRMED"]],
    });
    expect(new Decimal(t.amount_paid ?? 0).toFixed()).toBe(amount);
    const height = ((await node.send("getblock", [block])) as { height: number }).height;
    expect(t.receipts[0]?.block_height).toBe(height - 2);

    await eventArrives(reference, "payment.received");
    expect(service.events(reference)).toEqual(["payment.initiated", "payment.pending", "payment.received"]);
  });

  it("refuses a testnet refund address in regtest test mode, naming the field, and changes nothing", async () => {
    const other = await fresh();
    const refused = await service.pay(other.id, { currency_id: "7", refund_address: "tltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kwcyyyx" });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      message: "Missing or invalid payload fields",
      errors: [{ field: "refund_address", message: "refund_address is not a valid LTC address for test mode" }],
    });
    const unchanged = await service.get(other.id);
    expect([unchanged.status, unchanged.payment_address, unchanged.meta.refund_address]).toEqual(["INITIATED", null, null]);
  });

  it("stays PENDING (underpaid) on a part payment, and succeeds once a second payment tops it up", async () => {
    const t0 = await watched(await service.initiate("LTC", "20"));
    const due = amountOf(t0);
    const part = due.times(0.4).toDecimalPlaces(8);
    const first = await pay(t0.payment_address, part);
    await node.mine(REQUIRED);
    let t = await service.until(t0.id, (t) => t.receipts[0]?.state === "CONFIRMED", "its part payment confirmed");
    expect(progress(t)).toMatchObject({ status: "PENDING", state: "underpaid", receipts: [[first, part.toFixed(), REQUIRED, "CONFIRMED"]] });
    expect(new Decimal(t.amount_paid ?? 0).toFixed()).toBe(part.toFixed());

    const rest = due.minus(part);
    const second = await pay(t0.payment_address, rest);
    t = await service.until(t0.id, (t) => t.receipts.length === 2, "the top-up seen");
    expect(progress(t), JSON.stringify(t)).toMatchObject({ status: "PENDING", state: "confirming", confirmations: 0 });
    await node.mine(REQUIRED);
    t = await service.until(t0.id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL");
    expect(progress(t).receipts).toEqual([
      [first, part.toFixed(), expect.any(Number), "CONFIRMED"],
      [second, rest.toFixed(), REQUIRED, "CONFIRMED"],
    ]);
    expect(new Decimal(t.amount_paid ?? 0).toFixed()).toBe(due.toFixed());
    await eventArrives(t0.reference, "payment.received");
  });

  it("succeeds as overpaid on a payment above the amount, counting all of it", async () => {
    const t0 = await watched(await service.initiate("LTC", "10"));
    const sent = amountOf(t0).times(1.5).toDecimalPlaces(8);
    await pay(t0.payment_address, sent);
    await node.mine(REQUIRED);
    const t = await service.until(t0.id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL");
    expect(t.meta.payment?.state).toBe("overpaid");
    expect(new Decimal(t.amount_paid ?? 0).toFixed()).toBe(sent.toFixed());
  });

  it("drops a payment that a reorganisation invalidates before it has its confirmations", async () => {
    const t0 = await watched(await service.initiate("LTC", "10"));
    const due = amountOf(t0);
    const { txid, maturing } = await payFromFreshCoinbase(node, t0.payment_address, due);
    await node.mine(1);
    let t = await service.until(t0.id, (t) => t.meta.payment?.confirmations === 1, "1 confirmation");
    expect(progress(t).receipts).toEqual([[txid, due.toFixed(), 1, "SEEN"]]);

    await node.send("invalidateblock", [maturing]);
    t = await service.until(t0.id, (t) => t.receipts[0]?.state === "DROPPED", "its receipt dropped");
    expect(progress(t)).toMatchObject({ status: "PENDING", state: "awaiting_payment", confirmations: null });
    expect(t.meta.payment?.amount_unconfirmed).toBe("0");
    await node.mine(REQUIRED);
    await service.until(t0.id, (t) => t.receipts[0]?.state === "DROPPED" && t.status === "PENDING", "still dropped after more blocks");
  });

  it("tells payment.reversed when a reorganisation takes a payment away after it succeeded", async () => {
    const t0 = await watched(await service.initiate("LTC", "10"));
    const due = amountOf(t0);
    const { txid, maturing } = await payFromFreshCoinbase(node, t0.payment_address, due);
    await node.mine(REQUIRED);
    let t = await service.until(t0.id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL");
    expect(t.reversed_at).toBeNull();
    await eventArrives(t0.reference, "payment.received");

    await node.send("invalidateblock", [maturing]); // below the payment's block: it is invalid on the new chain
    t = await service.until(t0.id, (t) => t.reversed_at !== null, "reversed");
    expect(progress(t)).toMatchObject({ status: "SUCCESSFUL", state: "reversed", receipts: [[txid, due.toFixed(), REQUIRED, "REVERSED"]] });
    await eventArrives(t0.reference, "payment.reversed");
    expect(service.events(t0.reference)).toEqual(["payment.initiated", "payment.pending", "payment.received", "payment.reversed"]);
  });

  it("keeps one receipt when a payment is replaced by fee (RBF, bumpfee), and counts the replacement once", async () => {
    const t0 = await watched(await service.initiate("LTC", "10"));
    const due = amountOf(t0);
    const original = await pay(t0.payment_address, due, true);
    await service.until(t0.id, (t) => t.receipts.some((r) => r.tx_hash === original), "the original seen");
    const bumped = String(((await node.send("bumpfee", [original], FUNDER)) as { txid: string }).txid);
    let t = await service.until(t0.id, (t) => t.receipts.some((r) => r.tx_hash === bumped), "the replacement seen");
    expect(progress(t).receipts).toEqual([
      [original, due.toFixed(), 0, "DROPPED"],
      [bumped, due.toFixed(), 0, "SEEN"],
    ]);
    expect(t.meta.payment?.amount_unconfirmed).toBe(due.toFixed());
    await node.mine(REQUIRED);
    t = await service.until(t0.id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL");
    expect(t.receipts.filter((r) => r.state === "CONFIRMED").map((r) => r.tx_hash)).toEqual([bumped]);
    expect(new Decimal(t.amount_paid ?? 0).toFixed()).toBe(due.toFixed());
    expect(t.meta.payment?.state).toBe("paid");
  });

  it("removes a payment when a conflicting transaction spending the same coins is mined instead", async () => {
    const t0 = await watched(await service.initiate("LTC", "10"));
    const due = amountOf(t0);
    const coin = await funderCoin(node);
    const input = [{ txid: coin.txid, vout: coin.vout }];
    const left = new Decimal(coin.amount).minus("0.001");
    const sign = async (outputs: Record<string, string>) => {
      const raw = await node.send("createrawtransaction", [input, outputs]);
      return ((await node.send("signrawtransactionwithwallet", [raw], FUNDER)) as { hex: string }).hex;
    };
    const payment = await sign({ [t0.payment_address]: due.toFixed(8), [await node.newAddress()]: left.minus(due).toFixed(8) });
    const txid = String(await node.send("sendrawtransaction", [payment]));
    await service.until(t0.id, (t) => seen(t, 1), "the payment seen");
    // The same coin to the payer's own address, mined straight into a block (never in the mempool).
    const conflict = await sign({ [await node.newAddress()]: left.toFixed(8) });
    await node.send("generateblock", [await node.newAddress(), [conflict]]);
    expect(await node.send("getrawmempool")).not.toContain(txid);
    const t = await service.until(t0.id, (t) => t.receipts[0]?.state === "DROPPED", "its receipt dropped");
    expect(progress(t)).toMatchObject({ status: "PENDING", state: "awaiting_payment", receipts: [[txid, due.toFixed(), 0, "DROPPED"]] });
  });

  it("names each misconfigured node at start, with no payment yet, in one line naming the variable to fix", async () => {
    // The same regtest node: for LTC with test mode left on testnet (PAYGATE_LTC_TEST_CHAIN unset), and
    // for BTC on regtest but with the node's spending wallet as paygate's; and an ETH node nobody runs.
    const wallets = await node.send("listwallets");
    const host = new URL(node.url).host;
    const port = await freePort();
    const wrong = await startE2eService(
      {
        PAYGATE_LTC_TEST_NODE_URL: node.url,
        PAYGATE_BTC_TEST_NODE_URL: node.url,
        PAYGATE_BTC_TEST_CHAIN: "regtest",
        PAYGATE_NODE_WALLET: FUNDER,
        PAYGATE_ETH_TEST_RPC_URL: `http://127.0.0.1:${port}`,
      },
      ["LTC"],
    );
    try {
      const ltc = [
        expect.stringMatching(
          `^${literal(`payment watcher: LTC test: LTC test node (${host}): the node is on chain "regtest", not "test": nothing is read from it (fix PAYGATE_LTC_TEST_NODE_URL or PAYGATE_LTC_TEST_CHAIN)`)}`,
        ),
      ];
      expect(await wrong.logged(/LTC test node/)).toEqual(ltc);
      expect(await wrong.logged(/BTC test node/)).toEqual([
        expect.stringMatching(
          `^${literal(`payment watcher: BTC test: BTC test node (${host}): the wallet "${FUNDER}" holds private keys, not only watched addresses: set PAYGATE_NODE_WALLET to a new name (it is created) or to a watch-only wallet`)}`,
        ),
      ]);
      expect(await wrong.logged(/127\.0\.0\.1:\d+\) eth_chainId/)).toEqual([
        expect.stringMatching(
          `^payment watcher: ETH test, USDT test, USDC test: .+ JSON-RPC \\(127\\.0\\.0\\.1:${port}\\) eth_chainId: .+ \\(set PAYGATE_ETH_TEST_RPC_URL to a node this machine can reach, or to none to stop watching ETH test, USDT test, USDC test\\)$`,
        ),
      ]);
      // A payment's passes fail alike: said once, not again within the minute.
      const t0 = await wrong.initiate("LTC", "10");
      expect(t0.payment_address).toMatch(/^tltc1q/);
      expect(await wrong.loggedOnce(/LTC test node/)).toEqual(ltc);
      // Nothing was read from it, nor written to it: no wallet made there.
      expect(await node.send("listwallets")).toEqual(wallets);
      expect((await wrong.get(t0.id)).receipts).toEqual([]);
    } finally {
      await wrong.close();
    }
  });
});

/** Another initialized transaction, not yet initiated. */
async function fresh(): Promise<{ id: string }> {
  const response = await fetch(`${service.url}/v1/transaction`, {
    method: "POST",
    headers: { authorization: `Bearer ${service.merchant.testPublicKey}`, "content-type": "application/json" },
    body: JSON.stringify(initializeBody({ customer: { email: "bob@example.com" }, amount: "5" })),
  });
  return ((await response.json()) as { data: { id: string } }).data;
}

const eventArrives = (reference: string, event: string) => arrives(service, reference, event);
