// Two instances on one PostgreSQL database (runs with DATABASE_URL only): a subscriber on instance A
// hears what instance B records, as the payment watcher would (unconfirmed, then confirmed), through
// LISTEN/NOTIFY; A's listening connection killed by the server is re-made, and what changed
// meanwhile still arrives.
import pg from "pg";
import { Decimal } from "decimal.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { subscribeWs } from "../support/subscriptions.ts";
import { TransactionUpdatedDocument } from "../graphql/generated/operations.ts";
import { initializeBody } from "../support/builders.ts";

let a: TestGateway;
let b: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;

beforeAll(async () => {
  a = await startTestGateway();
  b = await startTestGateway({ sameDatabaseAs: a });
  keys = await a.merchant({ name: "Acme Stores" });
});
afterAll(async () => {
  await b?.close(); // the second instance first: the first one drops the database
  await a?.close();
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const OWED = "0.00153847"; // 100 USD at the test rate of 65,000 USD/BTC

async function initializeAndInitiate(): Promise<string> {
  const created = await a.post("/v1/transaction", initializeBody(), bearer(keys.testPublicKey));
  expect(created.status).toBe(201);
  return created.body.data.id;
}

/** What instance B's payment watcher records when the node shows a payment with `confirmations`. */
const watcherSees = (id: string, confirmations: number) =>
  b.gateway.payments.applyReceipts(id, {
    receipts: [{ key: "ab12:0", txHash: "ab12", amount: new Decimal(OWED), confirmations, blockHeight: confirmations > 0 ? 100 : null }],
    requiredConfirmations: 2,
    source: "chain",
    complete: true,
  });

it("a subscriber on A receives the initiate and the payment recorded through B", async () => {
  const id = await initializeAndInitiate();
  const updates = subscribeWs(a.url, TransactionUpdatedDocument, { id }, { authorization: `Bearer ${keys.testPublicKey}` });
  try {
    expect((await updates.data()).transactionUpdated.status).toBe("INITIATED");

    const initiated = await b.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.testSecretKey));
    expect(initiated.status).toBe(200);
    expect((await updates.data()).transactionUpdated).toMatchObject({ status: "PENDING", paymentAmount: OWED });

    await watcherSees(id, 0);
    expect((await updates.data()).transactionUpdated).toMatchObject({
      status: "PENDING",
      paymentState: "CONFIRMING",
      amountUnconfirmed: OWED,
      confirmations: 0,
      requiredConfirmations: 2,
    });
    // One more confirmation, still short of two: the checkout shows "1 of 2".
    await watcherSees(id, 1);
    expect((await updates.data()).transactionUpdated).toMatchObject({ status: "PENDING", paymentState: "CONFIRMING", confirmations: 1 });
    await watcherSees(id, 2);
    expect((await updates.data()).transactionUpdated).toMatchObject({
      status: "SUCCESSFUL",
      paymentState: "PAID",
      amountPaid: OWED,
      amountUnconfirmed: null,
    });
    await updates.nothingWithin(200);
  } finally {
    await updates.close();
  }
});

it("re-listens after the server drops A's connection, and A's subscriber still gets what B changed", async () => {
  const id = await initializeAndInitiate();
  const updates = subscribeWs(a.url, TransactionUpdatedDocument, { id }, { authorization: `Bearer ${keys.testPublicKey}` });
  try {
    expect((await updates.data()).transactionUpdated.status).toBe("INITIATED");
    const admin = new pg.Client({ connectionString: a.store.url ?? "" });
    await admin.connect();
    try {
      const killed = await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN paygate_changes'",
      );
      expect(killed.rowCount).toBeGreaterThanOrEqual(1);
    } finally {
      await admin.end();
    }
    // Changed while A may not be listening: A re-reads once it listens again.
    const initiated = await b.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.testSecretKey));
    expect(initiated.status).toBe(200);
    expect((await updates.data(8000)).transactionUpdated.status).toBe("PENDING");
    expect(a.logs.some((line) => line.includes("change notifications: connection lost"))).toBe(true);

    await watcherSees(id, 2);
    expect((await updates.data()).transactionUpdated.status).toBe("SUCCESSFUL");
    expect(a.logs.some((line) => line.includes("change notifications: listening again"))).toBe(true);
  } finally {
    await updates.close();
  }
});
