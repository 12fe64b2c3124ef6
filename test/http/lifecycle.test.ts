// The whole life of a transaction over REST, for each ending, with the merchant's webhook receiver
// checking each event against spec section 6.
import { describe, expect, it } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import { ExpiryScheduler } from "../../src/jobs/expiry-scheduler.ts";
import { gatewayAndReceiverForFile, type TestGateway } from "../support/gateway.ts";
import { verifiedPayloads, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { initializeBody } from "../support/builders.ts";

let t: TestGateway;
let receiver: WebhookReceiver;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;

gatewayAndReceiverForFile(async (started) => {
  ({ t, receiver } = started);
  keys = await t.merchant({ name: "Lifecycle Ltd", testWebhookUrl: receiver.url, kyb: "VERIFIED" });
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const secret = () => bearer(keys.testSecretKey);

async function pendingTransaction(currencyId = "4", amount = "100"): Promise<{ id: string; reference: string; due: number }> {
  const init = await t.post(
    "/v1/transaction",
    initializeBody({ customer: { email: "ada@example.com", name: "Ada" }, amount, meta: { order: 9 } }),
    bearer(keys.testPublicKey),
  );
  expect(init.status).toBe(201);
  const pay = await t.post(`/v1/transaction/${init.body.data.id}/pay`, { currency_id: currencyId }, secret());
  expect(pay.status).toBe(200);
  return { id: init.body.data.id, reference: init.body.data.reference, due: pay.body.data.payment_amount };
}
const payTest = (id: string, body: unknown = {}, headers = secret()) => t.post(`/v1/test_helpers/transaction/${id}/payment`, body, headers);
const expireTest = (id: string, headers = secret()) => t.post(`/v1/test_helpers/transaction/${id}/expire`, {}, headers);

/** Delivers what is due and returns the events the receiver got for one transaction, verified. */
async function eventsFor(reference: string) {
  await t.dispatcher().drain();
  return verifiedPayloads(receiver, keys.webhookSecret, reference);
}

const SPEC_6_FIELDS = [
  "amount_paid",
  "created_at",
  "customer_email",
  "customer_name",
  "description",
  "is_live",
  "merchant_name",
  "meta",
  "payment_amount",
  "payment_currency",
  "payment_currency_name",
  "payment_currency_slug",
  // Not in spec 6: the network it is paid on, and that network's name.
  "payment_network",
  "payment_network_name",
  "reference",
  "status",
  // Not in spec 6, added (an extension adds fields): the receipts, for reconciling.
  "receipts",
  // Not in spec 6 either: when a SUCCESSFUL payment was reversed (payment.reversed), else null.
  "reversed_at",
  // Not in spec 6 either (issue 42): the payment's state as REST's meta.payment.state says it (paid, reversed, …).
  "state",
].sort();

describe("paid", () => {
  it("INITIATED → PENDING → SUCCESSFUL, with payment.initiated, payment.pending and payment.received in order", async () => {
    const { id, reference, due } = await pendingTransaction("4");
    const res = await payTest(id);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("success");
    expect(res.body.data).toMatchObject({ id, status: "SUCCESSFUL", amount_paid: due, payment_amount: due });
    // The test helper's payment needs and has one confirmation: none is waiting.
    expect(res.body.data.meta.payment).toEqual({
      state: "paid",
      amount_confirmed: String(due),
      amount_unconfirmed: "0",
      confirmations: null,
      required_confirmations: 1,
    });
    expect(res.body.meta).toEqual({ order: 9 });

    const events = await eventsFor(reference);
    expect(events.map((e) => [e.event, e.data.transaction.status])).toEqual([
      ["payment.initiated", "INITIATED"],
      ["payment.pending", "PENDING"],
      ["payment.received", "SUCCESSFUL"],
    ]);
    for (const e of events) expect(Object.keys(e.data.transaction).sort()).toEqual(SPEC_6_FIELDS);
    expect(events[0]!.data.transaction).toMatchObject({
      payment_currency: null,
      payment_currency_name: null,
      payment_currency_slug: null,
      payment_amount: null,
      amount_paid: null,
    });
    expect(events[1]!.data.transaction).toMatchObject({ payment_currency: 4, payment_currency_slug: "BTC", payment_amount: due, amount_paid: null });
    expect(events[2]!.data.transaction).toMatchObject({
      reference,
      merchant_name: "Lifecycle Ltd",
      payment_currency: 4,
      payment_currency_name: "Bitcoin",
      payment_currency_slug: "BTC",
      status: "SUCCESSFUL",
      customer_email: "ada@example.com",
      customer_name: "Ada",
      payment_amount: due,
      amount_paid: due,
      is_live: false,
      meta: { order: 9 },
    });
  });

  it("adds up a payment split over two transfers, exactly", async () => {
    const { id, reference } = await pendingTransaction("3", "10"); // 10 USDT at 1 USD
    const first = await payTest(id, { amount: "3.333333" });
    expect(first.body.data).toMatchObject({ status: "PENDING", amount_paid: 3.333333 });
    expect(first.body.data.meta.payment.state).toBe("underpaid");
    const second = await payTest(id, { amount: "6.666667" });
    expect(second.body.data).toMatchObject({ status: "SUCCESSFUL", amount_paid: 10 });
    const row = await t.db.transaction.findUniqueOrThrow({ where: { id } });
    expect(row.amountPaid?.toString()).toBe("10");
    expect((await eventsFor(reference)).map((e) => e.event)).toEqual(["payment.initiated", "payment.pending", "payment.received"]);
  });

  it("records an overpayment and says so", async () => {
    const { id, due } = await pendingTransaction("6");
    const more = new Decimal(due).plus("0.01").toFixed();
    const res = await payTest(id, { amount: more });
    expect(res.body.data).toMatchObject({ status: "SUCCESSFUL", amount_paid: Number(more) });
    expect(res.body.data.meta.payment.state).toBe("overpaid");
  });

  it("counts a payment after success as more paid, without a second payment.received", async () => {
    const { id, reference, due } = await pendingTransaction("7");
    await payTest(id);
    const again = await payTest(id, { amount: "0.1" });
    expect(again.body.data).toMatchObject({ status: "SUCCESSFUL", amount_paid: Number(new Decimal(due).plus("0.1")) });
    expect((await eventsFor(reference)).filter((e) => e.event === "payment.received")).toHaveLength(1);
  });
});

describe("abandoned", () => {
  it("PENDING → ABANDONED when the window ends unpaid, with payment.abandoned", async () => {
    const { id, reference } = await pendingTransaction("4");
    const res = await expireTest(id);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id, status: "ABANDONED", amount_paid: null });
    expect(res.body.data.meta.payment.state).toBe("expired");
    expect(new Date(res.body.data.expires_at).getTime()).toBeLessThanOrEqual(Date.now());
    const events = await eventsFor(reference);
    expect(events.map((e) => e.event)).toEqual(["payment.initiated", "payment.pending", "payment.abandoned"]);
    expect(Object.keys(events[2]!.data.transaction).sort()).toEqual(SPEC_6_FIELDS);
    expect(events[2]!.data.transaction).toMatchObject({ status: "ABANDONED", amount_paid: null, payment_currency: 4 });
  });

  it("INITIATED → ABANDONED when never initiated", async () => {
    const init = await t.post(
      "/v1/transaction",
      initializeBody({ customer: { email: "bo@example.com" }, currency: "NGN", amount: "5000" }),
      bearer(keys.testPublicKey),
    );
    const res = await expireTest(init.body.data.id);
    expect(res.body.data).toMatchObject({ status: "ABANDONED", payment_amount: null, payment_address: null, qrCode: null });
    expect(res.body.data.meta.payment).toBeNull();
    const events = await eventsFor(init.body.data.reference);
    expect(events.map((e) => e.event)).toEqual(["payment.initiated", "payment.abandoned"]);
    expect(events[1]!.data.transaction).toMatchObject({ status: "ABANDONED", payment_currency: null, payment_amount: null });
  });

  it("pays what is still owed when the test payment names no amount, and refuses when nothing is", async () => {
    const { id, due } = await pendingTransaction("3", "10");
    await payTest(id, { amount: "4" });
    const rest = await payTest(id);
    expect(rest.status).toBe(200);
    expect(rest.body.data).toMatchObject({ status: "SUCCESSFUL", amount_paid: due });
    expect(rest.body.data.meta.payment.state).toBe("paid");
    const receipts = await t.db.paymentReceipt.findMany({ where: { transactionId: id }, orderBy: { id: "asc" } });
    expect(receipts.map((r) => r.amount.toString())).toEqual(["4", new Decimal(due).minus(4).toFixed()]);
    const nothing = await payTest(id);
    expect(nothing.status).toBe(422);
    expect(nothing.body).toMatchObject({ code: "invalid_state", reason: "nothing_owed", message: expect.stringContaining("Send amount") });
    expect(await t.db.paymentReceipt.count({ where: { transactionId: id } })).toBe(2);
  });

  it("keeps a partial payment on an abandoned transaction, marked underpaid", async () => {
    const { id } = await pendingTransaction("3", "10");
    await payTest(id, { amount: "4" });
    const res = await expireTest(id);
    expect(res.body.data).toMatchObject({ status: "ABANDONED", amount_paid: 4 });
    expect(res.body.data.meta.payment.state).toBe("underpaid");
  });

  it("records a payment that arrives after expiry, without reviving the transaction", async () => {
    const { id, reference, due } = await pendingTransaction("4");
    await expireTest(id);
    const late = await payTest(id);
    expect(late.status).toBe(200);
    expect(late.body.data).toMatchObject({ status: "ABANDONED", amount_paid: due });
    expect(late.body.data.meta.payment.state).toBe("paid_late");
    expect((await eventsFor(reference)).map((e) => e.event)).toEqual(["payment.initiated", "payment.pending", "payment.abandoned"]);
  });
});

describe("expiry in the background", () => {
  it("abandons what is past its window, and waits for confirmations of a payment already seen", async () => {
    const unpaid = await pendingTransaction("4");
    const seen = await pendingTransaction("4");
    const future = await pendingTransaction("4");
    await t.gateway.payments.applyReceipts(seen.id, {
      receipts: [{ key: "ab:0", txHash: "ab", amount: new Decimal(seen.due), confirmations: 0, blockHeight: null }],
      requiredConfirmations: 2,
      source: "chain",
      complete: true,
    });
    const past = new Date(Date.now() - 1000);
    for (const id of [unpaid.id, seen.id]) await t.db.transaction.update({ where: { id }, data: { expiresAt: past } });

    const scheduler = new ExpiryScheduler(t.gateway, 20);
    expect(await scheduler.tick()).toBe(1);
    const status = async (id: string) => (await t.db.transaction.findUniqueOrThrow({ where: { id } })).status;
    expect(await status(unpaid.id)).toBe("ABANDONED");
    expect(await status(seen.id)).toBe("PENDING"); // confirming
    expect(await status(future.id)).toBe("PENDING");
    expect(await scheduler.tick()).toBe(0); // nothing twice

    const get = (await fetch(`${t.url}/v1/transaction/${seen.id}`, { headers: secret() }).then((r) => r.json())) as {
      data: { meta: { payment: unknown }; amount_paid: unknown };
    };
    expect(get.data.meta.payment).toEqual({
      state: "confirming",
      amount_confirmed: "0",
      amount_unconfirmed: String(seen.due),
      confirmations: 0,
      required_confirmations: 2,
    });
    expect(get.data.amount_paid).toBeNull();
  });

  it("abandons each transaction once when several instances expire at the same time", async () => {
    const ids = await Promise.all([1, 2, 3, 4, 5].map(async () => (await pendingTransaction("4")).id));
    await t.db.transaction.updateManyAndReturn({ where: { id: { in: ids } }, data: { expiresAt: new Date(Date.now() - 1) } });
    const counts = await Promise.all([1, 2, 3].map(() => new ExpiryScheduler(t.gateway, 20).tick()));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(5);
    const abandoned = await t.db.webhookEvent.count({ where: { transactionId: { in: ids }, type: "payment.abandoned" } });
    expect(abandoned).toBe(5);
  });

  it("runs on its own once started", async () => {
    const { id } = await pendingTransaction("4");
    await t.db.transaction.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1) } });
    const scheduler = new ExpiryScheduler(t.gateway, 20);
    scheduler.start();
    try {
      const deadline = Date.now() + 5000;
      while ((await t.db.transaction.findUniqueOrThrow({ where: { id } })).status !== "ABANDONED" && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await scheduler.stop();
    }
    expect((await t.db.transaction.findUniqueOrThrow({ where: { id } })).status).toBe("ABANDONED");
  });
});

describe("receipts from a chain", () => {
  it("confirms, then un-counts a receipt that a reorganisation removed", async () => {
    const { id, due } = await pendingTransaction("4");
    const receipt = { key: "cafe:1", txHash: "cafe", amount: new Decimal(due).div(2), confirmations: 1, blockHeight: 100 };
    const update = (receipts: (typeof receipt)[]) =>
      t.gateway.payments.applyReceipts(id, { receipts, requiredConfirmations: 1, source: "chain", complete: true });
    expect((await update([receipt])).amountPaid?.toString()).toBe(new Decimal(due).div(2).toFixed());
    const afterReorg = await update([]);
    expect(afterReorg.amountPaid).toBeNull();
    expect(afterReorg.status).toBe("PENDING");
    const stored = await t.db.paymentReceipt.findFirstOrThrow({ where: { transactionId: id, key: "cafe:1" } });
    expect(stored.status).toBe("DROPPED");
  });
});

describe("test helper errors", () => {
  it("answers live keys with 404: live payments arrive on chain", async () => {
    const { id } = await pendingTransaction("4");
    const res = await payTest(id, {}, bearer(keys.liveSecretKey));
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: "error", code: "not_found", reason: "test_mode_only" });
    expect(res.body.message).toMatch(/^Test helpers exist in test mode only/);
    expect((await expireTest(id, bearer(keys.liveSecretKey))).status).toBe(404);
  });

  it("answers an unknown transaction with 404 and a public key with 401", async () => {
    const missing = await payTest("00000000-0000-0000-0000-000000000000");
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe("No transaction with id '00000000-0000-0000-0000-000000000000'");
    const { id } = await pendingTransaction("4");
    const publicKey = await payTest(id, {}, bearer(keys.testPublicKey));
    expect(publicKey.status).toBe(401);
  });

  it("answers a payment on an INITIATED transaction with 422", async () => {
    const init = await t.post("/v1/transaction", initializeBody({ customer: { email: "cy@example.com" }, amount: "5" }), bearer(keys.testPublicKey));
    const res = await payTest(init.body.data.id);
    expect(res.status).toBe(422);
    // Issue 46: it said the spec's initiate message, "The transaction is not initiated", which says the opposite.
    expect(res.body.message).toBe(
      "This transaction has no coin or payment address yet: initiate it first (POST /v1/transaction/:id/pay with a currency_id), then record its test payment",
    );
  });

  it("answers a bad amount with 400 and changes nothing", async () => {
    const { id } = await pendingTransaction("4");
    for (const amount of ["-1", "abc", "0", "0.000000001"]) {
      const res = await payTest(id, { amount });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ message: "Missing or invalid payload fields", errors: [{ field: "amount" }] });
    }
    expect(await t.db.paymentReceipt.count({ where: { transactionId: id } })).toBe(0);
  });

  it("answers expiring an ended transaction with 422", async () => {
    const { id } = await pendingTransaction("4");
    await payTest(id);
    const res = await expireTest(id);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ message: "The transaction is no longer open: it has already ended", reason: "transaction_closed" });
  });
});
