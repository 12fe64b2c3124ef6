// The receipts of a transaction (issue 24): each payment at its address, with its hash, index, exact
// amount, block, confirmations and state, in REST (retrieve, list, initiate), GraphQL and the webhook
// payloads; a list reads them in one query per page, and initiate reads none.
import { GraphQLClient } from "graphql-request";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import { gatewayAndReceiverForFile, type TestGateway } from "../support/gateway.ts";
import { verifiedPayloads, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { GetTransactionReceiptsDocument, InitiatePaymentReceiptsDocument, ListTransactionReceiptsDocument } from "../graphql/generated/operations.ts";
import { initializeBody } from "../support/builders.ts";

let t: TestGateway;
let receiver: WebhookReceiver;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;

gatewayAndReceiverForFile(async (started) => {
  ({ t, receiver } = started);
  keys = await t.merchant({ name: "Receipts Ltd", testWebhookUrl: receiver.url });
});
afterEach(() => vi.restoreAllMocks());

const secret = () => ({ authorization: `Bearer ${keys.testSecretKey}` });
const graph = () => new GraphQLClient(`${t.url}/graphql`, { headers: secret() });

async function initialized(amount = "100"): Promise<string> {
  const init = await t.post("/v1/transaction", initializeBody({ amount }), { authorization: `Bearer ${keys.testPublicKey}` });
  expect(init.status).toBe(201);
  return init.body.data.id;
}

async function pending(currencyId: string, amount = "100"): Promise<{ id: string; due: string; body: any }> {
  const id = await initialized(amount);
  const pay = await t.post(`/v1/transaction/${id}/pay`, { currency_id: currencyId }, secret());
  expect(pay.status).toBe(200);
  return { id, due: new Decimal(pay.body.data.payment_amount).toFixed(), body: pay.body };
}

const payTest = async (id: string, body: unknown = {}) => {
  const res = await t.post(`/v1/test_helpers/transaction/${id}/payment`, body, secret());
  expect(res.status).toBe(200);
  return res.body.data;
};

const get = async (path: string) => {
  const res = await fetch(`${t.url}${path}`, { headers: secret() });
  return { status: res.status, body: (await res.json()) as any };
};

/** The receipts query of the store, watched (it still runs). */
const spyReceipts = () => vi.spyOn(t.stores.transactions, "receiptsOf");

/** The webhook payloads the receiver got for one transaction, verified, after delivering what is due. */
async function deliveredFor(id: string) {
  await t.dispatcher().drain();
  const reference = (await t.db.transaction.findUniqueOrThrow({ where: { id } })).reference;
  return verifiedPayloads(receiver, keys.webhookSecret, reference);
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe("REST", () => {
  it("shows each payment of a split BTC payment on retrieve, exactly and first seen first", async () => {
    const { id, due } = await pending("4");
    const first = await payTest(id, { amount: "0.00000001" });
    const rest = new Decimal(due).minus("0.00000001").toFixed();
    const second = await payTest(id, { amount: rest });
    expect(second.status).toBe("SUCCESSFUL");

    const res = await get(`/v1/transaction/${id}`);
    expect(res.status).toBe(200);
    const receipts = res.body.data.receipts;
    expect(receipts).toHaveLength(2);
    const [a, b] = receipts;
    expect(Object.keys(a).sort()).toEqual(
      [
        "key",
        "tx_hash",
        "output_index",
        "log_index",
        "amount",
        "block_height",
        "confirmations",
        "state",
        "replaceable",
        "source",
        "first_seen_at",
        "updated_at",
      ].sort(),
    );
    // Exact decimal strings, never 1e-8 nor a float.
    expect(a).toMatchObject({ amount: "0.00000001", output_index: 0, log_index: null, block_height: null, confirmations: 1, state: "CONFIRMED" });
    expect(b).toMatchObject({ amount: rest, output_index: 0, log_index: null, state: "CONFIRMED", source: "test_helper" });
    expect(a.tx_hash).toMatch(/^test_/);
    expect(a.key).toBe(`${a.tx_hash}:0`);
    expect(b.tx_hash).not.toBe(a.tx_hash);
    expect(a.first_seen_at).toMatch(ISO);
    expect(a.updated_at).toMatch(ISO);
    // The test helper's own reply carried them as they were then.
    expect(first.receipts).toEqual([a]);
    expect(second.receipts).toEqual([a, b]);
    // As stored.
    const stored = await t.db.paymentReceipt.findMany({ where: { transactionId: id }, orderBy: { id: "asc" } });
    expect(stored.map((r) => [r.key, r.amount.toFixed(), r.status])).toEqual([
      [a.key, "0.00000001", "CONFIRMED"],
      [b.key, rest, "CONFIRMED"],
    ]);
  });

  it("names a token payment's log index, and an ETH transfer neither index", async () => {
    const usdt = await pending("3", "10");
    await payTest(usdt.id, { amount: "3.333333" });
    const eth = await pending("6");
    await payTest(eth.id);
    const [token] = (await get(`/v1/transaction/${usdt.id}`)).body.data.receipts;
    expect(token).toMatchObject({ amount: "3.333333", output_index: null, log_index: 0 });
    const [native] = (await get(`/v1/transaction/${eth.id}`)).body.data.receipts;
    expect(native).toMatchObject({ amount: eth.due, output_index: null, log_index: null });
  });

  it("shows a chain receipt's block and confirmations as they grow, and a dropped one as DROPPED", async () => {
    const { id, due } = await pending("7");
    const txHash = "ab".repeat(32);
    const seen = { key: `${txHash}:1`, txHash, amount: new Decimal(due), blockHeight: 812_345 };
    await t.gateway.payments.applyReceipts(id, {
      receipts: [{ ...seen, confirmations: 1 }],
      requiredConfirmations: 6,
      source: "chain",
      complete: true,
    });
    let [r] = (await get(`/v1/transaction/${id}`)).body.data.receipts;
    expect(r).toMatchObject({
      key: seen.key,
      tx_hash: seen.txHash,
      output_index: 1,
      block_height: 812_345,
      confirmations: 1,
      state: "SEEN",
      source: "chain",
    });
    await t.gateway.payments.applyReceipts(id, {
      receipts: [{ ...seen, confirmations: 2 }],
      requiredConfirmations: 6,
      source: "chain",
      complete: true,
    });
    [r] = (await get(`/v1/transaction/${id}`)).body.data.receipts;
    expect(r).toMatchObject({ confirmations: 2, state: "SEEN" });
    // Reorganised away: absent from the node's next view.
    await t.gateway.payments.applyReceipts(id, { receipts: [], requiredConfirmations: 6, source: "chain", complete: true });
    const after = (await get(`/v1/transaction/${id}`)).body.data;
    expect(after.receipts).toEqual([expect.objectContaining({ key: seen.key, state: "DROPPED", amount: due })]);
    expect(after.amount_paid).toBeNull();
  });

  it("lists each transaction with its receipts, read in one query for the page", async () => {
    const paid = await pending("4");
    await payTest(paid.id, { amount: "0.0001" });
    const paidToo = await pending("3", "10");
    await payTest(paidToo.id, { amount: "1.5" });
    await payTest(paidToo.id, { amount: "2.25" });
    const unpaid = await pending("4");
    const created = await initialized();
    const spy = spyReceipts();
    const res = await get("/v1/transactions?limit=4");
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: { id: string }) => d.id)).toEqual([created, unpaid.id, paidToo.id, paid.id]);
    const byId = new Map<string, { amount: string }[]>(res.body.data.map((d: { id: string; receipts: { amount: string }[] }) => [d.id, d.receipts]));
    expect(byId.get(created)).toEqual([]);
    expect(byId.get(unpaid.id)).toEqual([]);
    expect(byId.get(paid.id)).toEqual([expect.objectContaining({ amount: "0.0001", state: "CONFIRMED" })]);
    expect(byId.get(paidToo.id)?.map((r) => r.amount)).toEqual(["1.5", "2.25"]);
    // One query for the page, for the transactions that can have receipts.
    expect(spy).toHaveBeenCalledTimes(1);
    expect(new Set(spy.mock.calls[0]?.[0])).toEqual(new Set([paid.id, paidToo.id]));
  });

  it("reads no receipts for a page, an initiate or a poll where nothing can have arrived", async () => {
    await pending("4");
    const spy = spyReceipts();
    const id = await initialized();
    const pay = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, secret());
    expect(pay.body.data.receipts).toEqual([]);
    expect((await get(`/v1/transaction/${id}`)).body.data.receipts).toEqual([]);
    expect((await get("/v1/transactions?limit=2")).body.data.map((d: { receipts: unknown[] }) => d.receipts)).toEqual([[], []]);
    expect(spy).not.toHaveBeenCalled();
  });
});

describe("GraphQL", () => {
  it("shows Transaction.receipts as REST does, with exact Decimal amounts", async () => {
    const { id, due } = await pending("4");
    await payTest(id, { amount: "0.00000001" });
    await payTest(id);
    const rest = (await get(`/v1/transaction/${id}`)).body.data.receipts;
    const { transaction } = await graph().request(GetTransactionReceiptsDocument, { id });
    expect(transaction?.receipts).toEqual(
      rest.map((r: Record<string, unknown>) => ({
        key: r.key,
        transactionHash: r.tx_hash,
        outputIndex: r.output_index,
        logIndex: r.log_index,
        amount: r.amount,
        blockHeight: r.block_height,
        confirmations: r.confirmations,
        state: r.state,
        source: r.source,
        firstSeenAt: r.first_seen_at,
        updatedAt: r.updated_at,
      })),
    );
    expect(transaction?.receipts.map((r) => r.amount)).toEqual(["0.00000001", new Decimal(due).minus("0.00000001").toFixed()]);
  });

  it("reads a page's receipts in one query, only when asked for them", async () => {
    const a = await pending("4");
    await payTest(a.id, { amount: "0.0002" });
    const b = await pending("7");
    await payTest(b.id, { amount: "0.0003" });
    const spy = spyReceipts();
    const { transactions } = await graph().request(ListTransactionReceiptsDocument, { first: 2 });
    const byId = new Map(transactions.edges.map((e) => [e.node.id, e.node.receipts.map((r) => r.amount)]));
    expect(byId.get(b.id)).toEqual(["0.0003"]);
    expect(byId.get(a.id)).toEqual(["0.0002"]);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(new Set(spy.mock.calls[0]?.[0])).toEqual(new Set([a.id, b.id]));

    spy.mockClear();
    await graph().request(`query { transactions(first: 2) { edges { node { id amountPaid } } } }`);
    expect(spy).not.toHaveBeenCalled();
  });

  it("answers initiatePayment with no receipts, without reading any", async () => {
    const id = await initialized();
    const spy = spyReceipts();
    const { initiatePayment } = await graph().request(InitiatePaymentReceiptsDocument, { transactionId: id, input: { currencyId: "4" } });
    expect(initiatePayment.receipts).toEqual([]);
    expect(spy).not.toHaveBeenCalled();
  });
});

describe("webhooks", () => {
  it("carries the receipts in the transaction data: none before payment, each one in payment.received", async () => {
    const { id } = await pending("4");
    await payTest(id, { amount: "0.0005" });
    await payTest(id);
    const rest = (await get(`/v1/transaction/${id}`)).body.data.receipts;
    expect(rest).toHaveLength(2);
    const events = await deliveredFor(id);
    expect(events.map((e) => [e.event, e.data.transaction.receipts])).toEqual([
      ["payment.initiated", []],
      ["payment.pending", []],
      // As the change that completed it left them (first seen first), which is what REST shows now.
      ["payment.received", rest],
    ]);
  });

  it("carries what arrived in payment.abandoned too", async () => {
    const { id } = await pending("4");
    await payTest(id, { amount: "0.0001" });
    const expired = await t.post(`/v1/test_helpers/transaction/${id}/expire`, {}, secret());
    expect(expired.body.data.status).toBe("ABANDONED");
    const events = await deliveredFor(id);
    const abandoned = events.find((e) => e.event === "payment.abandoned");
    expect(abandoned?.data.transaction.receipts).toEqual(expired.body.data.receipts);
    expect(abandoned?.data.transaction.receipts).toEqual([expect.objectContaining({ amount: "0.0001", state: "CONFIRMED" })]);
  });
});
