// Refunds over GraphQL (issue 26): the same core as REST, the same rules and messages, secret key only.
import { describe, expect, it } from "vitest";
import { initializeBody } from "../support/builders.ts";
import { gatewayAndReceiverForFile, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;

gatewayAndReceiverForFile(async (started) => {
  ({ t } = started);
  keys = await t.merchant({ name: "Graph Refunds" });
});

const REFUND_FIELDS = "id state amountKind amount currency valuation destination destinationSource refundUrl txHash paidBy verification";

async function graph(query: string, variables: Record<string, unknown>, key = keys.testSecretKey, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as {
    data?: any;
    errors?: { message: string; extensions: { code: string; status: number; errors: { field: string; message: string }[] } }[];
  };
}

async function paidTransaction(refundAddress?: string): Promise<string> {
  const init = await t.post("/v1/transaction", initializeBody(), { authorization: `Bearer ${keys.testPublicKey}` });
  const id: string = init.body.data.id;
  const auth = { authorization: `Bearer ${keys.testSecretKey}` };
  const pay = { currency_id: "7", ...(refundAddress === undefined ? {} : { refund_address: refundAddress }) };
  expect((await t.post(`/v1/transaction/${id}/pay`, pay, auth)).status).toBe(200);
  expect((await t.post(`/v1/test_helpers/transaction/${id}/payment`, {}, auth)).status).toBe(200);
  return id;
}

const CREATE = `mutation($id: ID!, $input: CreateRefundInput!) { createRefund(transactionId: $id, input: $input) { ${REFUND_FIELDS} } }`;

describe("refunds over GraphQL", () => {
  it("creates, reads, lists on the transaction, and cancels a refund", async () => {
    const id = await paidTransaction();
    const made = await graph(CREATE, { id, input: { amountKind: "CUSTOM", amount: "0.01", amountCurrency: "LTC" } });
    expect(made.errors).toBeUndefined();
    const r = made.data.createRefund;
    expect(r).toMatchObject({
      state: "PENDING",
      amountKind: "CUSTOM",
      amount: "0.01",
      currency: "LTC",
      valuation: "LOCKED_RATE",
      destinationSource: "CLAIM",
    });
    expect(r.refundUrl).toMatch(/\/refund\/[0-9A-Za-z]{32}$/);

    const read = await graph(`query($id: ID!) { refund(id: $id) { ${REFUND_FIELDS} } }`, { id: r.id });
    expect(read.data.refund).toMatchObject({ id: r.id, refundUrl: null });
    const tx = await graph(`query($id: ID!) { transaction(id: $id) { amountPaid amountRefundable refunds { id state } } }`, { id });
    expect(tx.data.transaction.refunds).toEqual([{ id: r.id, state: "PENDING" }]);
    expect(Number(tx.data.transaction.amountRefundable)).toBeCloseTo(Number(tx.data.transaction.amountPaid) - 0.01, 8);
    // A public key sees no refunds.
    const publicView = await graph(`query($id: ID!) { transaction(id: $id) { refunds { id } amountRefundable } }`, { id }, keys.testPublicKey);
    expect(publicView.data.transaction).toEqual({ refunds: null, amountRefundable: null });

    const canceled = await graph(`mutation($id: ID!) { cancelRefund(id: $id) { state } }`, { id: r.id });
    expect(canceled.data.cancelRefund.state).toBe("CANCELED");
    const again = await graph(`mutation($id: ID!) { cancelRefund(id: $id) { state } }`, { id: r.id });
    expect(again.errors?.[0]?.message).toBe("The refund is canceled, not pending: only a pending refund can change");
    expect(again.errors?.[0]?.extensions).toMatchObject({ code: "CONFLICT", status: 409 });
  });

  it("answers the REST rules' errors in the graph's names, with nothing changed", async () => {
    const id = await paidTransaction();
    const before = await t.db.refund.count();
    const over = await graph(CREATE, { id, input: { amountKind: "CUSTOM", amount: "1000", amountCurrency: "LTC" } });
    expect(over.errors?.[0]?.message).toMatch(/^The refund is more than what is left to refund: [0-9.]+ LTC can still be refunded$/);
    expect(over.errors?.[0]?.extensions.status).toBe(422);
    const bad = await graph(CREATE, { id, input: { amountKind: "CUSTOM", amount: "1" } });
    expect(bad.errors?.[0]?.extensions.errors).toEqual([{ field: "amountCurrency", message: expect.stringMatching(/amount_currency is required/) }]);
    const publicKey = await graph(CREATE, { id, input: {} }, keys.testPublicKey);
    expect(publicKey.errors?.[0]?.extensions.status).toBe(401);
    const unknown = await graph(`query($id: ID!) { refund(id: $id) { id } }`, { id: "re_00000000-0000-0000-0000-000000000000" });
    expect(unknown.data.refund).toBeNull();
    const mark = await graph(`mutation($id: ID!) { markRefundPaid(id: $id, txHash: "xyz") { id } }`, {
      id: "re_00000000-0000-0000-0000-000000000000",
    });
    expect(mark.errors?.[0]?.extensions.status).toBe(400);
    expect(await t.db.refund.count()).toBe(before);
  });

  it("refuses markRefundPaid with a transaction that closed another refund (409), with nothing changed", async () => {
    const id = await paidTransaction("tltc1q33andx3shykl4uhyerlfhkl7u64mwvz9sa0pdn");
    const input = { amountKind: "CUSTOM", amount: "0.001", amountCurrency: "LTC" };
    const first = (await graph(CREATE, { id, input })).data.createRefund;
    const second = (await graph(CREATE, { id, input })).data.createRefund;
    const hash = "5a".repeat(32);
    const closed = await t.gateway.refunds.refundSucceeded(first.id, hash, "watcher");
    expect(closed !== "tx_taken" && closed?.state).toBe("succeeded");
    const mark = await graph(`mutation($id: ID!, $hash: String!) { markRefundPaid(id: $id, txHash: $hash) { id } }`, { id: second.id, hash });
    expect(mark.errors?.[0]?.message).toBe(
      `The transaction ${hash} already closed another refund: one chain transaction closes one refund; pay this refund with a transaction of its own`,
    );
    expect(mark.errors?.[0]?.extensions).toMatchObject({ code: "CONFLICT", status: 409 });
    const read = await graph(`query($id: ID!) { refund(id: $id) { ${REFUND_FIELDS} } }`, { id: second.id });
    expect(read.data.refund).toMatchObject({ state: "PENDING", txHash: null, paidBy: null, verification: null });
  });

  it("honours the Idempotency-Key", async () => {
    const id = await paidTransaction();
    const headers = { "idempotency-key": `graph-${id}` };
    const first = await graph(CREATE, { id, input: { amountKind: "FULL" } }, keys.testSecretKey, headers);
    const second = await graph(CREATE, { id, input: { amountKind: "FULL" } }, keys.testSecretKey, headers);
    expect(second.data.createRefund.id).toBe(first.data.createRefund.id);
    const other = await graph(CREATE, { id, input: { amountKind: "FULL", deductNetworkFee: true } }, keys.testSecretKey, headers);
    expect(other.errors?.[0]?.extensions).toMatchObject({ code: "IDEMPOTENCY_CONFLICT", status: 409 });
    expect(await t.db.refund.count({ where: { transactionId: id } })).toBe(1);
  });
});
