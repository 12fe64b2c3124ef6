// Query.transaction and Query.transactions show a transaction and its receipts as of one moment, by the
// core's one read (details.ts, as REST's): a receipt's write committed between the row's read and the
// receipts' read is not shown beside the row it changed (never a DROPPED receipt beside an amount
// still unconfirmed). The write is made exactly there, by the store the gateway reads through.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import type { ObservedReceipt } from "../../src/core/ports.ts";
import { initializeBody } from "../support/builders.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

const seen = (amount: Decimal): ObservedReceipt => ({
  key: `${"ef".repeat(32)}:0`,
  txHash: "ef".repeat(32),
  amount,
  confirmations: 0,
  blockHeight: null,
});
const record = (id: string, receipts: ObservedReceipt[]) =>
  t.gateway.payments.applyReceipts(id, { receipts, requiredConfirmations: 2, source: "chain", complete: true });

/** A BTC transaction with a payment seen, and the merchant's secret key. */
async function seenPayment(): Promise<{ id: string; secretKey: string }> {
  const keys = await t.merchant();
  const created = await t.post("/v1/transaction", initializeBody(), bearer(keys.testPublicKey));
  expect(created.status).toBe(201);
  const id = created.body.data.id as string;
  const paid = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.testSecretKey));
  expect(paid.status).toBe(200);
  await record(id, [seen(new Decimal(String(paid.body.data.payment_amount)))]);
  return { id, secretKey: keys.testSecretKey };
}

/** Until restored, the first read of receipts is preceded by a write that drops the payment: after the row was read. */
function dropBeforeFirstReceiptsRead(id: string): { restore: () => void; dropped: () => boolean } {
  const store = t.stores.transactions;
  const original = store.receiptsOf;
  let dropped = false;
  store.receiptsOf = async (ids) => {
    if (!dropped) {
      dropped = true;
      await record(id, []);
    }
    return original.call(store, ids);
  };
  return { restore: () => void (store.receiptsOf = original), dropped: () => dropped };
}

const FIELDS = "id amountUnconfirmed paymentState receipts { state }";

async function graph(secretKey: string, query: string, variables: Record<string, unknown>) {
  const res = await t.post("/graphql", { query, variables }, bearer(secretKey));
  expect(res.status).toBe(200);
  expect(res.body.errors).toBeUndefined();
  return res.body.data;
}

describe("a transaction and its receipts in GraphQL", () => {
  it("Query.transaction reads the row again when a receipt's write came between: DROPPED with nothing unconfirmed", async () => {
    const { id, secretKey } = await seenPayment();
    const write = dropBeforeFirstReceiptsRead(id);
    try {
      const data = await graph(secretKey, `query ($id: ID!) { transaction(id: $id) { ${FIELDS} } }`, { id });
      expect(write.dropped()).toBe(true);
      expect(data.transaction).toEqual({ id, amountUnconfirmed: null, paymentState: "AWAITING_PAYMENT", receipts: [{ state: "DROPPED" }] });
    } finally {
      write.restore();
    }
  });

  it("Query.transactions does the same for each row of the page", async () => {
    const { id, secretKey } = await seenPayment();
    const write = dropBeforeFirstReceiptsRead(id);
    try {
      const data = await graph(secretKey, `{ transactions(first: 5) { edges { node { ${FIELDS} } } } }`, {});
      expect(write.dropped()).toBe(true);
      expect(data.transactions.edges.map((e: { node: unknown }) => e.node)).toEqual([
        { id, amountUnconfirmed: null, paymentState: "AWAITING_PAYMENT", receipts: [{ state: "DROPPED" }] },
      ]);
    } finally {
      write.restore();
    }
  });

  it("reads receipts when a fragment selects them, and none when the query does not", async () => {
    const { id, secretKey } = await seenPayment();
    const reads = vi.spyOn(t.stores.transactions, "receiptsOf");
    try {
      const viaFragment = await graph(
        secretKey,
        "query ($id: ID!) { transaction(id: $id) { ...Paid } } fragment Paid on Transaction { ... on Transaction { receipts { state } } }",
        { id },
      );
      expect(viaFragment.transaction.receipts).toEqual([{ state: "SEEN" }]);
      expect(reads).toHaveBeenCalledTimes(1);
      reads.mockClear();
      const without = await graph(secretKey, "query ($id: ID!) { transaction(id: $id) { id paymentState } }", { id });
      expect(without.transaction).toEqual({ id, paymentState: "CONFIRMING" });
      expect(reads).not.toHaveBeenCalled();
    } finally {
      reads.mockRestore();
    }
  });

  it("shows the seen payment with its receipt when nothing comes between", async () => {
    const { id, secretKey } = await seenPayment();
    const data = await graph(secretKey, `query ($id: ID!) { transaction(id: $id) { ${FIELDS} } }`, { id });
    expect(data.transaction.receipts).toEqual([{ state: "SEEN" }]);
    expect(data.transaction.amountUnconfirmed).not.toBeNull();
    expect(data.transaction.paymentState).not.toBe("AWAITING_PAYMENT");
  });
});
