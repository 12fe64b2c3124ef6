// A receipt and the payment's state change in one database transaction (recordReceipts), and a reader
// sees them as of one moment: never a DROPPED receipt beside a payment still "confirming" (issue 24).
// PostgreSQL's xmin (the transaction that wrote a row version) shows which write made each row.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import type { ObservedReceipt } from "../../src/core/ports.ts";
import { detailsOf, type DetailsDeps } from "../../src/core/transactions/details.ts";
import { DEFAULT_LIFECYCLE } from "../../src/core/policies.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { initializeBody } from "../support/builders.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** A PENDING BTC transaction and its amount due. */
async function pending(): Promise<{ id: string; merchantId: number; due: Decimal }> {
  const keys = await t.merchant();
  const created = await t.post("/v1/transaction", initializeBody(), bearer(keys.testPublicKey));
  expect(created.status).toBe(201);
  const paid = await t.post(`/v1/transaction/${created.body.data.id}/pay`, { currency_id: "4" }, bearer(keys.testSecretKey));
  expect(paid.status).toBe(200);
  return { id: created.body.data.id as string, merchantId: keys.id, due: new Decimal(String(paid.body.data.payment_amount)) };
}

const seen = (amount: Decimal): ObservedReceipt => ({
  key: `${"ab".repeat(32)}:0`,
  txHash: "ab".repeat(32),
  amount,
  confirmations: 0,
  blockHeight: null,
});
const record = (id: string, receipts: ObservedReceipt[]) =>
  t.gateway.payments.applyReceipts(id, { receipts, requiredConfirmations: 2, source: "chain", complete: true });

/** Which database transaction last wrote the transaction's row, and each of its receipts. */
async function writers(id: string) {
  const [row] = await t.db.$queryRaw<{ xmin: string }[]>`SELECT xmin::text AS xmin FROM transactions WHERE id = ${id}`;
  const receipts = await t.db.$queryRaw<{ xmin: string; status: string }[]>`
    SELECT xmin::text AS xmin, status::text AS status FROM payment_receipts WHERE transaction_id = ${id} ORDER BY id`;
  return { row: row?.xmin, receipts };
}

describe("a receipt and the payment's state", () => {
  it("are written by one database transaction: the receipt seen, then dropped, each with the totals", async () => {
    const { id, due } = await pending();
    const before = await writers(id);
    await record(id, [seen(due)]);
    const counted = await writers(id);
    expect(counted.receipts).toEqual([{ xmin: counted.row, status: "SEEN" }]);
    expect(counted.row).not.toBe(before.row);

    const dropped = await record(id, []);
    expect(dropped.amountUnconfirmed).toBeNull();
    const after = await writers(id);
    expect(after.receipts).toEqual([{ xmin: after.row, status: "DROPPED" }]);
    expect(after.row).not.toBe(counted.row);
  });

  it("are read as of one moment: a row read before a write is read again with the receipts that write made", async () => {
    const { id, merchantId, due } = await pending();
    await record(id, [seen(due)]);
    const stale = await t.stores.transactions.findFor(id, merchantId, false);
    if (stale === null) throw new Error("the transaction is gone");
    await record(id, []); // committed between the reader's row and its receipts
    // Nothing of the payment request or checkout is shown: only the stores and the lifecycle are used.
    const deps = { stores: t.stores, lifecycle: DEFAULT_LIFECYCLE } as unknown as DetailsDeps;
    const [details] = await detailsOf(deps, [stale], { clientSecret: false, paymentRequest: false });
    expect(details?.receipts.map((r) => r.state)).toEqual(["DROPPED"]);
    expect(details?.view.payment?.state).toBe("awaiting_payment");
    expect(details?.transaction.amountUnconfirmed).toBeNull();
  });
});
