// Deposit forwarders' leftovers on anvil (issue 40; docs/settlement.md, In payments): a payment made to
// a forwarder is refunded from the merchant's settlement address (a forwarder can send nowhere else),
// with a real transaction signed by that address's key (anvil's second dev account) and closed by the
// refund watcher; and a confirmed flush whose block a reorganisation takes away (evm_snapshot and
// evm_revert) goes back to sending, is sent again with its same signed bytes, and is confirmed again,
// with its events in order, the money at the destination once and the fee payer's nonce used once.
// One node for the file; both databases.
import { randomBytes } from "node:crypto";
import { hexToBytes } from "@noble/hashes/utils.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressOfPrivateKey, signEip1559 } from "../../src/rails/evm/signing.ts";
import { toChecksumAddress } from "../../src/rails/wallets/addresses.ts";
import { USDT_SEPOLIA_CONTRACT } from "../../src/rails/wallets/networks.ts";
import { DEV_ACCOUNT, startAnvil, type Anvil } from "../support/anvil.ts";
import { abiCall, balanceOf, coinBalance, deployFactory, mint, receiptOf, TEST_TOKENS } from "../support/forwarders.ts";
import { decimalOf, dueUnits } from "./evm.ts";
import { startE2eService, type E2eService, type Transaction } from "./service.ts";

const CHAIN_ID = 31_337;
const REQUIRED = 2;
const FINALITY = 3;
/** anvil's second dev account (its well-known test key): the settlement address, whose key signs the refunds. */
const SETTLEMENT_KEY = hexToBytes("59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const settlement = addressOfPrivateKey(SETTLEMENT_KEY);

let anvil: Anvil;
let service: E2eService;
let factory: string;
let feePayer: string;

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID });
  await anvil.setCode(USDT_SEPOLIA_CONTRACT, (TEST_TOKENS.contracts.UsdtLike as { deployedBytecode: string }).deployedBytecode);
  await mint(anvil, USDT_SEPOLIA_CONTRACT, DEV_ACCOUNT, 10n ** 15n);
  factory = await deployFactory(anvil);
  const key = randomBytes(32);
  feePayer = addressOfPrivateKey(key);
  await anvil.sendTransaction({ to: feePayer, value: 10n ** 18n });
  service = await startE2eService(
    {
      PAYGATE_ETH_TEST_RPC_URL: anvil.url,
      PAYGATE_ETH_TEST_CHAIN_ID: String(CHAIN_ID),
      PAYGATE_CONFIRMATIONS_ETH: String(REQUIRED),
      PAYGATE_FINALITY_ETH: String(FINALITY),
      PAYGATE_ETH_TEST_FORWARDER_FACTORY: factory,
      PAYGATE_ETH_TEST_FEE_PAYER_KEY: key.toString("hex"),
      // The tests run the flush job's passes themselves.
      PAYGATE_FLUSH_INTERVAL_MS: "3600000",
      PAYGATE_FLUSH_MIN_PAYMENTS: "100",
      PAYGATE_FLUSH_MAX_AGE_HOURS: "1000",
    },
    ["ETH", "USDT"],
  );
  const set = await call("PUT", "/v1/settlements/forwarders/ethereum", { destination: settlement });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
});
afterAll(async () => {
  await service?.close();
  await anvil?.stop();
});

interface Reply {
  status: number;
  body: any;
}

async function call(method: string, route: string, body?: unknown): Promise<Reply> {
  const response = await fetch(`${service.url}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${service.merchant.testSecretKey}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** Pays the payment in full (the coin or the USDT-like token) and waits until it is SUCCESSFUL and final. */
async function paidAndFinal(payments: { transaction: Transaction; coin: "ETH" | "USDT" }[]): Promise<void> {
  for (const { transaction: t, coin } of payments) {
    const due = dueUnits(t);
    if (coin === "USDT")
      await anvil.sendTransaction({ to: USDT_SEPOLIA_CONTRACT, data: abiCall("transfer(address,uint256)", t.payment_address, due) });
    else await anvil.sendTransaction({ to: t.payment_address, value: due });
  }
  await anvil.mine(REQUIRED);
  for (const { transaction: t } of payments) await service.until(t.id, (r) => r.status === "SUCCESSFUL", "SUCCESSFUL");
  await anvil.mine(FINALITY + 1);
  const db = service.runtime.database.db;
  for (let waited = 0; ; waited += 100) {
    const rows = await db.transaction.findMany({ where: { id: { in: payments.map((p) => p.transaction.id) } }, select: { finalAt: true } });
    if (rows.length === payments.length && rows.every((r) => r.finalAt !== null)) return;
    if (waited > 20_000) throw new Error("the payments did not become final within 20 s");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function refundUntil(id: string, done: (r: any) => boolean, what: string): Promise<any> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const refund = (await call("GET", `/v1/refunds/${id}`)).body.data;
    if (done(refund)) return refund;
    if (Date.now() > deadline) throw new Error(`refund ${id} did not reach ${what}: ${JSON.stringify(refund)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Signs the refund's unsigned EIP-1559 transaction with the settlement address's key, as the merchant's wallet would, and sends it. */
async function signAndSend(tx: any): Promise<string> {
  const nonce = BigInt(String(await anvil.send("eth_getTransactionCount", [settlement, "pending"])));
  const raw = signEip1559(
    {
      chainId: BigInt(tx.chainId),
      nonce,
      maxPriorityFeePerGas: BigInt(tx.maxPriorityFeePerGas),
      maxFeePerGas: BigInt(tx.maxFeePerGas),
      gas: BigInt(tx.gas),
      to: tx.to,
      value: BigInt(tx.value),
      data: tx.data,
    },
    SETTLEMENT_KEY,
  );
  return String(await anvil.send("eth_sendRawTransaction", [raw]));
}

describe("a payment made to a forwarder, refunded", () => {
  it("names the settlement address as the sender, says so, and closes once a transaction signed by that address pays the customer", async () => {
    const customer = toChecksumAddress(`0x${randomBytes(20).toString("hex")}`);
    const usdt = await service.initiate("USDT", "25", customer);
    const eth = await service.initiate("ETH", "10", customer);
    await paidAndFinal([
      { transaction: usdt, coin: "USDT" },
      { transaction: eth, coin: "ETH" },
    ]);
    const flushed = await call("POST", "/v1/settlements/flushes", { network: "ethereum" });
    expect([flushed.status, flushed.body.data?.state]).toEqual([201, "confirmed"]);
    expect(await balanceOf(anvil, USDT_SEPOLIA_CONTRACT, settlement)).toBe(dueUnits(usdt));

    const tokenRefund = await call("POST", `/v1/transaction/${usdt.id}/refunds`, { amount_kind: "full" });
    expect(tokenRefund.status, JSON.stringify(tokenRefund.body)).toBe(201);
    const token = tokenRefund.body.data;
    const note =
      "The payment went to a deposit forwarder, which can send only to the settlement address: pay the refund from the " +
      "settlement address, once the forwarder is flushed, or from the merchant's own funds there.";
    expect(token.payment.paid_from).toEqual({ kind: "settlement_address", address: settlement, note });
    expect(token.payment.evm_transaction).toMatchObject({ from: settlement, to: toChecksumAddress(USDT_SEPOLIA_CONTRACT), value: "0", type: 2 });
    expect(token.payment.evm_transaction.data).toBe(abiCall("transfer(address,uint256)", customer, dueUnits(usdt)));
    expect(token.amount_to_customer).toBe(decimalOf(dueUnits(usdt), 6));

    // The coin: the settlement address holds more than this payment, so its gas is paid beside the amount, not out of it.
    const coinRefund = await call("POST", `/v1/transaction/${eth.id}/refunds`, { amount_kind: "full" });
    expect(coinRefund.status, JSON.stringify(coinRefund.body)).toBe(201);
    const coin = coinRefund.body.data;
    expect(coin.payment.paid_from?.address).toBe(settlement);
    expect(coin.payment.evm_transaction).toMatchObject({ from: settlement, to: customer, value: dueUnits(eth).toString(), data: "0x" });
    expect(coin.amount_to_customer).toBe(decimalOf(dueUnits(eth), 18));
    // GraphQL's refund says the same.
    const graphql = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { authorization: `Bearer ${service.merchant.testSecretKey}`, "content-type": "application/json" },
      body: JSON.stringify({ query: `{ refund(id: "${coin.id}") { payment { paidFrom evmTransaction } } }` }),
    });
    const graphqlBody = (await graphql.json()) as any;
    expect(graphqlBody.data?.refund?.payment?.paidFrom, JSON.stringify(graphqlBody)).toEqual({
      kind: "settlement_address",
      address: settlement,
      note,
    });

    // A refusal keeps its status and message: nothing is left to refund.
    const again = await call("POST", `/v1/transaction/${eth.id}/refunds`, { amount_kind: "full" });
    expect([again.status, again.body.message]).toEqual([422, "The refund is more than what is left to refund: 0 ETH can still be refunded"]);

    const customerEthBefore = await coinBalance(anvil, customer);
    const tokenHash = await signAndSend(token.payment.evm_transaction);
    const coinHash = await signAndSend(coin.payment.evm_transaction);
    await anvil.mine(REQUIRED);
    const closedToken = await refundUntil(token.id, (r) => r.state === "succeeded", "succeeded");
    const closedCoin = await refundUntil(coin.id, (r) => r.state === "succeeded", "succeeded");
    expect([closedToken.tx_hash, closedToken.paid_by]).toEqual([tokenHash.toLowerCase(), "watcher"]);
    expect([closedCoin.tx_hash, closedCoin.paid_by]).toEqual([coinHash.toLowerCase(), "watcher"]);
    expect(await balanceOf(anvil, USDT_SEPOLIA_CONTRACT, customer)).toBe(dueUnits(usdt));
    expect((await coinBalance(anvil, customer)) - customerEthBefore).toBe(dueUnits(eth));
    expect(await balanceOf(anvil, USDT_SEPOLIA_CONTRACT, settlement)).toBe(0n);
  });
});

describe("a flush a reorganisation undoes", () => {
  it("goes back to sending, is sent again with the same bytes, and is confirmed again: events in order, money moved once, one nonce", async () => {
    const eth = await service.initiate("ETH", "10");
    await paidAndFinal([{ transaction: eth, coin: "ETH" }]);
    const held = await coinBalance(anvil, settlement);
    const nonceBefore = BigInt(String(await anvil.send("eth_getTransactionCount", [feePayer, "latest"])));
    const snapshot = await anvil.snapshot();

    const flushed = await call("POST", "/v1/settlements/flushes", { network: "ethereum" });
    expect([flushed.status, flushed.body.data?.state]).toEqual([201, "confirmed"]);
    const flush = flushed.body.data;
    const receipt = (await anvil.send("eth_getTransactionReceipt", [flush.tx_hash])) as { blockNumber: string; blockHash: string };
    // The block it was mined in is recorded.
    expect([flush.block_number, flush.block_hash, flush.reorganizations]).toEqual([BigInt(receipt.blockNumber).toString(), receipt.blockHash, 0]);
    expect(await coinBalance(anvil, settlement)).toBe(held + dueUnits(eth));
    const db = service.runtime.database.db;
    const ledgerFlushes = async () =>
      (await call("GET", "/v1/ledger/entries?kind=flush&limit=100")).body.data.filter((e: any) => e.tx_hash === flush.tx_hash);
    expect(await ledgerFlushes()).toHaveLength(1);

    // The reorganisation: back to before the flush's block; the flush's transaction is gone with it.
    await anvil.revert(snapshot);
    expect(await anvil.send("eth_getTransactionReceipt", [flush.tx_hash])).toBeNull();
    const signed = (await db.forwarderFlush.findUniqueOrThrow({ where: { id: flush.id } })).rawTx;
    expect(await coinBalance(anvil, settlement)).toBe(held);

    // The job's pass (the node not mining for now): the flush goes back to sending, its same bytes are sent again.
    await anvil.send("evm_setAutomine", [false]);
    let sending: any;
    try {
      const report = await service.runtime.gateway.settlement.flushPass({ minPayments: 100, maxAgeMs: 3_600_000_000 });
      expect([report.reorganized, report.failures]).toEqual([1, []]);
      sending = (await call("GET", `/v1/settlements/flushes/${flush.id}`)).body.data;
      // Its ledger entries go with its confirmation, until it is confirmed again.
      expect(await ledgerFlushes()).toHaveLength(0);
      expect((await anvil.send("eth_getTransactionByHash", [flush.tx_hash])) as unknown).not.toBeNull();
    } finally {
      await anvil.send("evm_setAutomine", [true]);
    }
    expect(sending).toMatchObject({ state: "sending", reorganizations: 1, block_number: null, block_hash: null, gas_used: null, fee: null });
    expect(sending.payments.map((p: any) => p.moved)).toEqual([null]);
    await anvil.mine(1);
    const resumed = await service.runtime.gateway.settlement.flushPass({ minPayments: 100, maxAgeMs: 3_600_000_000 });
    expect([resumed.resumed, resumed.failures]).toEqual([1, []]);
    const again = (await call("GET", `/v1/settlements/flushes/${flush.id}`)).body.data;
    const remined = (await anvil.send("eth_getTransactionReceipt", [flush.tx_hash])) as { blockNumber: string; blockHash: string };
    expect(again).toMatchObject({ state: "confirmed", tx_hash: flush.tx_hash, reorganizations: 1, block_hash: remined.blockHash });
    expect(again.payments).toEqual(flush.payments);
    // The same signed bytes: the transaction mined again is the one recorded before the first send.
    const mined = (await anvil.send("eth_getTransactionByHash", [flush.tx_hash])) as { nonce: string };
    expect([(await db.forwarderFlush.findUniqueOrThrow({ where: { id: flush.id } })).rawTx, BigInt(mined.nonce)]).toEqual([signed, nonceBefore]);

    // Money at the destination once; the fee payer's nonce used once.
    expect(await coinBalance(anvil, settlement)).toBe(held + dueUnits(eth));
    expect(await coinBalance(anvil, eth.payment_address)).toBe(0n);
    expect(BigInt(String(await anvil.send("eth_getTransactionCount", [feePayer, "latest"])))).toBe(nonceBefore + 1n);
    expect(await ledgerFlushes()).toHaveLength(1);

    // Its events in order, each with the flush as it was then: confirmed, reorganized (sending), confirmed again.
    const deadline = Date.now() + 20_000;
    while (service.flushEvents(flush.id).length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const events = service.flushEvents(flush.id);
    expect(events.map((e) => [e.event, e.data.flush?.state, e.data.flush?.reorganizations])).toEqual([
      ["settlement.flush.confirmed", "confirmed", 0],
      ["settlement.flush.reorganized", "sending", 1],
      ["settlement.flush.confirmed", "confirmed", 1],
    ]);
    const listed = await call("GET", "/v1/events?type=settlement.flush.reorganized");
    expect(listed.body.data.map((e: any) => [e.type, e.subject, e.transaction])).toEqual([["settlement.flush.reorganized", flush.id, null]]);

    // Past the finality depth the flush is read no more: a later pass leaves it alone.
    await anvil.mine(FINALITY + 1);
    const final = await service.runtime.gateway.settlement.flushPass({ minPayments: 100, maxAgeMs: 3_600_000_000 });
    expect([final.reorganized, final.failures]).toEqual([0, []]);
    expect((await db.forwarderFlush.findUniqueOrThrow({ where: { id: flush.id } })).finalAt).not.toBeNull();
    expect(await service.runtime.database.db.forwarderFlush.count({ where: { state: "confirmed", finalAt: null } })).toBe(0);
  });
});

describe("a flush mined again in another block", () => {
  it("stays confirmed with the block it is in now: no event, nothing sent, its ledger entries kept", async () => {
    const eth = await service.initiate("ETH", "10");
    await paidAndFinal([{ transaction: eth, coin: "ETH" }]);
    const snapshot = await anvil.snapshot();
    const flushed = await call("POST", "/v1/settlements/flushes", { network: "ethereum" });
    expect([flushed.status, flushed.body.data?.state]).toEqual([201, "confirmed"]);
    const flush = flushed.body.data;
    const db = service.runtime.database.db;
    const { rawTx } = await db.forwarderFlush.findUniqueOrThrow({ where: { id: flush.id } });

    // The reorganisation mines the same transaction again, in another block (a block with another hash).
    await anvil.revert(snapshot);
    await anvil.mine(1);
    // Anvil answers with the hash, then mines its block: wait for the receipt.
    const moved = await receiptOf(anvil, String(await anvil.send("eth_sendRawTransaction", [rawTx])));
    expect(moved.blockHash).not.toBe(flush.block_hash);

    const report = await service.runtime.gateway.settlement.flushPass({ minPayments: 100, maxAgeMs: 3_600_000_000 });
    expect([report.reorganized, report.resumed, report.failures]).toEqual([0, 0, []]);
    const now = (await call("GET", `/v1/settlements/flushes/${flush.id}`)).body.data;
    expect(now).toMatchObject({
      state: "confirmed",
      reorganizations: 0,
      block_number: BigInt(moved.blockNumber).toString(),
      block_hash: moved.blockHash,
      gas_used: flush.gas_used,
      payments: flush.payments,
    });
    const ledger = (await call("GET", "/v1/ledger/entries?kind=flush&limit=100")).body.data.filter((e: any) => e.tx_hash === flush.tx_hash);
    expect(ledger).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(service.flushEvents(flush.id).map((e) => e.event)).toEqual(["settlement.flush.confirmed"]);
  });
});
