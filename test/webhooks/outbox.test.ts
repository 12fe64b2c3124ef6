// The transactional outbox: every state change writes its spec-6 event in the same database
// transaction; a rolled-back change leaves neither.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { initializeBody } from "../support/builders.ts";
import { firstDelivery } from "../support/first-delivery.ts";

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;

beforeAll(async () => {
  t = await startTestGateway();
  // A URL for test mode: its events wait for the dispatcher (PENDING); a mode without one has its
  // events written SKIPPED (test/webhooks/dispatcher.test.ts). No dispatcher runs here.
  keys = await t.merchant({ name: "Acme Stores", testWebhookUrl: "https://hooks.example.com/paygate" });
});
afterAll(() => t.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function initialize(body: Record<string, unknown> = {}): Promise<string> {
  const res = await t.post(
    "/v1/transaction",
    initializeBody({ customer: { email: "ada@example.com", name: "Ada Lovelace" }, description: "Order 7", ...body }),
    bearer(keys.testPublicKey),
  );
  expect(res.status).toBe(201);
  return res.body.data.id;
}
const pay = (id: string, currencyId = "4") => t.post(`/v1/transaction/${id}/pay`, { currency_id: currencyId }, bearer(keys.testSecretKey));
const eventsOf = (transactionId: string) => t.db.webhookEvent.findMany({ where: { transactionId }, orderBy: { seq: "asc" } });

const SPEC_FIELDS = [
  "reference",
  "merchant_name",
  "payment_currency",
  "payment_currency_name",
  "payment_currency_slug",
  // Not in spec 6: the network it is paid on, and that network's name.
  "payment_network",
  "payment_network_name",
  "status",
  "customer_email",
  "customer_name",
  "payment_amount",
  "amount_paid",
  "description",
  "is_live",
  "created_at",
  "meta",
  // Not in spec 6, added (an extension adds fields): the receipts, for reconciling.
  "receipts",
  // Not in spec 6: when a counted payment was taken back after SUCCESSFUL (null until then).
  "reversed_at",
  // Not in spec 6 (issue 42): the payment state as REST's meta.payment.state shows it (null before initiate).
  "state",
].sort();

describe("events written with their state change", () => {
  it("initialize writes payment.initiated with the payload of spec 6", async () => {
    const id = await initialize({ meta: { order: "A-1" } });
    const row = await t.db.transaction.findUniqueOrThrow({ where: { id } });
    const [event, ...more] = await eventsOf(id);
    expect(more).toEqual([]);
    expect(event).toMatchObject({ type: "payment.initiated", isLive: false });
    expect(await firstDelivery(t.db, event!.id)).toMatchObject({ state: "PENDING", attemptCount: 0 });
    expect(event!.id).toMatch(/^evt_[0-9A-Za-z]{24}$/);
    const payload = JSON.parse(event!.body);
    expect(Object.keys(payload).sort()).toEqual(["data", "event"]);
    expect(Object.keys(payload.data)).toEqual(["transaction"]);
    expect(Object.keys(payload.data.transaction).sort()).toEqual(SPEC_FIELDS);
    expect(payload).toEqual({
      event: "payment.initiated",
      data: {
        transaction: {
          reference: row.reference,
          merchant_name: "Acme Stores",
          payment_currency: null,
          payment_currency_name: null,
          payment_currency_slug: null,
          payment_network: null,
          payment_network_name: null,
          status: "INITIATED",
          customer_email: "ada@example.com",
          customer_name: "Ada Lovelace",
          payment_amount: null,
          amount_paid: null,
          description: "Order 7",
          is_live: false,
          created_at: row.createdAt.toISOString(),
          meta: { order: "A-1" },
          receipts: [],
          reversed_at: null,
          state: null,
        },
      },
    });
    expect(payload.data.transaction.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(payload.data.transaction.reference).toMatch(/^bq_/);
  });

  it("gives empty meta as {}, no description as null and no customer name as an empty string", async () => {
    const res = await t.post(
      "/v1/transaction",
      initializeBody({ customer: { email: "bo@example.com" }, currency: "NGN", amount: "1500" }),
      bearer(keys.testPublicKey),
    );
    const [event] = await eventsOf(res.body.data.id);
    const tx = JSON.parse(event!.body).data.transaction;
    expect(tx.meta).toEqual({});
    expect(tx.description).toBeNull();
    expect(tx.customer_name).toBe("");
  });

  it("initiate writes payment.pending with the chosen currency and amount", async () => {
    const id = await initialize();
    const res = await pay(id, "4");
    expect(res.status).toBe(200);
    const events = await eventsOf(id);
    expect(events.map((e) => e.type)).toEqual(["payment.initiated", "payment.pending"]);
    const tx = JSON.parse(events[1]!.body).data.transaction;
    expect(tx).toMatchObject({
      status: "PENDING",
      payment_currency: 4,
      payment_currency_name: "Bitcoin",
      payment_currency_slug: "BTC",
      payment_amount: res.body.data.payment_amount,
      amount_paid: null,
    });
    expect(typeof tx.payment_amount).toBe("number");
    expect(tx.state).toBe("awaiting_payment");
  });

  it("payment.received keeps spec 6's fields as they are and adds the payment state REST shows", async () => {
    const id = await initialize({ meta: { order: "B-2" } });
    const due = (await pay(id, "4")).body.data.payment_amount;
    await t.db.transaction.update({ where: { id }, data: { status: "SUCCESSFUL", amountPaid: String(due) } });
    const [initiated, , received] = (await eventsOf(id)).map((e) => JSON.parse(e.body));
    expect(received.event).toBe("payment.received");
    expect(Object.keys(received.data.transaction).sort()).toEqual(SPEC_FIELDS);
    // What initialize told, with what initiate and the payment changed: the spec's fields, and state.
    expect(received.data.transaction).toEqual({
      ...initiated.data.transaction,
      payment_currency: 4,
      payment_currency_name: "Bitcoin",
      payment_currency_slug: "BTC",
      payment_network: "bitcoin",
      payment_network_name: "Bitcoin testnet",
      status: "SUCCESSFUL",
      payment_amount: due,
      amount_paid: due,
      state: "paid",
    });
    expect(initiated.data.transaction).toMatchObject({ meta: { order: "B-2" }, customer_name: "Ada Lovelace", description: "Order 7" });
    const rest = await fetch(`${t.url}/v1/transaction/${id}`, { headers: bearer(keys.testSecretKey) });
    expect(rest.status).toBe(200);
    expect(((await rest.json()) as { data: { meta: { payment: { state: string } } } }).data.meta.payment.state).toBe(received.data.transaction.state);
  });

  it("a refused initiate (422) writes no event", async () => {
    const id = await initialize();
    expect((await pay(id)).status).toBe(200);
    expect((await pay(id)).status).toBe(422);
    expect((await eventsOf(id)).map((e) => e.type)).toEqual(["payment.initiated", "payment.pending"]);
  });

  it("concurrent initiates write exactly one payment.pending", async () => {
    const id = await initialize();
    const statuses = (await Promise.all([pay(id), pay(id), pay(id)])).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 422, 422]);
    expect((await eventsOf(id)).filter((e) => e.type === "payment.pending")).toHaveLength(1);
  });

  it("a lone update writes its event in a transaction of its own", async () => {
    const id = await initialize();
    await pay(id);
    await t.db.transaction.update({ where: { id }, data: { status: "SUCCESSFUL", amountPaid: "0.5" } });
    const events = await eventsOf(id);
    expect(events.map((e) => e.type)).toEqual(["payment.initiated", "payment.pending", "payment.received"]);
    expect(JSON.parse(events[2]!.body).data.transaction).toMatchObject({ status: "SUCCESSFUL", amount_paid: 0.5 });
  });

  it("a write that keeps the state adds no event", async () => {
    const id = await initialize();
    await t.db.transaction.update({ where: { id }, data: { description: "changed" }, select: { status: true } });
    expect((await eventsOf(id)).map((e) => e.type)).toEqual(["payment.initiated"]);
  });

  it("a rolled-back state change leaves neither the change nor its event", async () => {
    const id = await initialize();
    await pay(id);
    await expect(
      t.db.$transaction(async (tx) => {
        await tx.transaction.updateManyAndReturn({ where: { id, status: "PENDING" }, data: { status: "ABANDONED" } });
        expect(await tx.webhookEvent.count({ where: { transactionId: id, type: "payment.abandoned" } })).toBe(1);
        throw new Error("rolled back on purpose");
      }),
    ).rejects.toThrow("rolled back on purpose");
    expect((await t.db.transaction.findUniqueOrThrow({ where: { id } })).status).toBe("PENDING");
    expect((await eventsOf(id)).map((e) => e.type)).toEqual(["payment.initiated", "payment.pending"]);
  });

  it("refuses writes that would hide which rows changed", async () => {
    const id = await initialize();
    await expect(t.db.transaction.updateMany({ where: { id }, data: { status: "ABANDONED" } })).rejects.toThrow(
      /transaction.updateMany is refused: .* use updateManyAndReturn/,
    );
    expect((await t.db.transaction.findUniqueOrThrow({ where: { id } })).status).toBe("INITIATED");
  });

  it("every stored transaction has the event of its state", async () => {
    const missing = await t.db.transaction.findMany({
      where: { webhookEvents: { none: {} } },
      select: { id: true },
    });
    expect(missing).toEqual([]);
    const all = await t.db.transaction.findMany({ include: { webhookEvents: true } });
    const expected = { INITIATED: "payment.initiated", PENDING: "payment.pending", SUCCESSFUL: "payment.received", ABANDONED: "payment.abandoned" };
    for (const row of all) expect(row.webhookEvents.map((e) => e.type)).toContain(expected[row.status]);
  });
});
