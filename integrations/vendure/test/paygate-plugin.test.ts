// The paygate plugin in a real Vendure 3 server on PostgreSQL (issue 44, goal 3), against a real
// paygate (the root's test gateway, test mode, its webhook dispatcher drained by the test): a cart is
// checked out through the Shop API and paid with paygate's test helper; underpaid, overpaid and expired
// checkouts; a refund from the Admin API becomes a paygate refund with a claim link; a webhook with a
// bad signature is refused (401) and changes nothing; a delivery repeated settles once; an order paid
// by another method is never cancelled or touched by paygate's events.
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../../test/support/gateway.ts";
import { admin as adminSql } from "../../../test/support/test-database.ts";
import { decimalMinus } from "../src/money.ts";
import { freePort, startVendure, type VendureShop } from "./shop.ts";

const databaseUrl = process.env.DATABASE_URL ?? "";
let t: TestGateway;
let shop: VendureShop;
let merchant: Awaited<ReturnType<TestGateway["merchant"]>>;
const timings: Record<string, number> = {};

beforeAll(async () => {
  const started = performance.now();
  const port = await freePort();
  t = await startTestGateway();
  merchant = await t.merchant({ name: "Vendure Stores", testWebhookUrl: `http://127.0.0.1:${port}/paygate/webhook` });
  shop = await startVendure({
    databaseUrl,
    adminSql: (sql) => adminSql(databaseUrl, sql),
    port,
    paygate: { apiUrl: t.url, publicKey: merchant.testPublicKey, secretKey: merchant.testSecretKey, webhookSecret: merchant.webhookSecret },
  });
  timings.startup = Math.round(performance.now() - started);
}, 180_000);

afterAll(async () => {
  await shop?.close();
  await t?.close();
  console.log(`vendure e2e: start-up ${timings.startup} ms`);
});

const ORDER_FIELDS = `... on Order { id code state totalWithTax payments { id state method transactionId metadata } }
  ... on ErrorResult { errorCode message }`;

interface ShopOrder {
  id: string;
  code: string;
  state: string;
  totalWithTax: number;
  payments: { id: string; state: string; method: string; transactionId: string; metadata: Record<string, unknown> }[];
  errorCode?: string;
  message?: string;
}

/** A customer's cart up to ArrangingPayment: one item, a customer, an address, the shipping method. */
async function cart(email: string, search?: string) {
  const shopApi = shop.customer(search);
  await shopApi(`mutation($id: ID!) { addItemToOrder(productVariantId: $id, quantity: 1) { ${ORDER_FIELDS} } }`, { id: shop.variantId });
  await shopApi(
    `mutation($email: String!) { setCustomerForOrder(input: { emailAddress: $email, firstName: "Ada", lastName: "Obi" }) { ${ORDER_FIELDS} } }`,
    {
      email,
    },
  );
  await shopApi(`mutation { setOrderShippingAddress(input: { fullName: "Ada Obi", streetLine1: "1 High St", city: "London", postalCode: "N1",
    countryCode: "GB" }) { ${ORDER_FIELDS} } }`);
  const methods = await shopApi<{ eligibleShippingMethods: { id: string }[] }>(`{ eligibleShippingMethods { id } }`);
  await shopApi(`mutation($id: [ID!]!) { setOrderShippingMethod(shippingMethodId: $id) { ${ORDER_FIELDS} } }`, {
    id: [methods.data.eligibleShippingMethods[0].id],
  });
  const arranging = await shopApi<{ transitionOrderToState: ShopOrder }>(
    `mutation { transitionOrderToState(state: "ArrangingPayment") { ${ORDER_FIELDS} } }`,
  );
  expect(arranging.data.transitionOrderToState.state).toBe("ArrangingPayment");
  return shopApi;
}

/** The customer pays the rest of the order with paygate: the order placed (PaymentAuthorized), its paygate payment Authorized. */
async function addPaygatePayment(shopApi: Awaited<ReturnType<typeof cart>>) {
  const paid = await shopApi<{ addPaymentToOrder: ShopOrder }>(
    `mutation { addPaymentToOrder(input: { method: "paygate", metadata: {} }) { ${ORDER_FIELDS}
      ... on PaymentFailedError { paymentErrorMessage } ... on PaymentDeclinedError { paymentErrorMessage } } }`,
  );
  const order = paid.data.addPaymentToOrder;
  expect(order.state, JSON.stringify(order)).toBe("PaymentAuthorized");
  const payment = order.payments.find((p) => p.method === "paygate" && p.state === "Authorized");
  if (!payment) throw new Error(`no authorized paygate payment: ${JSON.stringify(order.payments)}`);
  return { order, payment, transactionId: checkoutTransaction(payment) };
}

/** Checked out with paygate: the order placed (PaymentAuthorized) and paygate's transaction id (from the checkout URL). */
async function checkout(email: string) {
  const shopApi = await cart(email);
  const { order, payment, transactionId } = await addPaygatePayment(shopApi);
  expect(order.totalWithTax).toBe(10000);
  expect(order.payments).toHaveLength(1);
  // The Shop API shows the public part of the metadata: the hosted checkout, where the customer goes.
  // Only the public part: the paygate snapshot and transaction id stay on the Admin API.
  expect(Object.keys(payment.metadata)).toEqual(["public"]);
  const { checkoutUrl, paygateReference } = payment.metadata.public as { checkoutUrl: string; paygateReference: string };
  expect(checkoutUrl).toMatch(new RegExp(`^${t.url}/checkout/[0-9a-f-]{36}_secret_`));
  expect(payment.transactionId).toBe(paygateReference);
  const tx = await paygate("GET", `/v1/transaction/${transactionId}`);
  expect(tx.status).toBe(200);
  expect(tx.body.data).toMatchObject({
    initialized_amount: 100,
    initialized_currency: "USD",
    description: `Order ${order.code}`,
    return_url: `http://127.0.0.1:5173/order/${order.code}`,
  });
  expect(tx.body.meta).toMatchObject({ vendure_order_code: order.code, vendure_order_id: order.id });
  return { order, payment, transactionId, shopApi };
}

/** paygate's transaction id, from the checkout URL the Shop API gives (`/checkout/<id>_secret_…`). */
function checkoutTransaction(payment: ShopOrder["payments"][number]): string {
  const { checkoutUrl } = payment.metadata.public as { checkoutUrl: string };
  return new URL(checkoutUrl).pathname.split("/")[2].split("_secret_")[0];
}

async function paygate(method: "GET" | "POST", route: string, body?: unknown) {
  const response = await fetch(`${t.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${merchant.testSecretKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: paygate's JSON envelope, read field by field below
  return { status: response.status, body: (await response.json()) as any };
}

/** The customer picks LTC on the hosted checkout (initiate), as the page would. */
async function pickLtc(transactionId: string): Promise<string> {
  const initiated = await paygate("POST", `/v1/transaction/${transactionId}/pay`, { currency_id: "7" });
  expect(initiated.status).toBe(200);
  return String(initiated.body.data.payment_amount);
}

async function pay(transactionId: string, amount?: string) {
  const paid = await paygate("POST", `/v1/test_helpers/transaction/${transactionId}/payment`, amount ? { amount } : {});
  expect(paid.status).toBe(200);
  return paid.body.data;
}

/** paygate's webhooks, delivered now; every delivery to the shop must be answered 2xx. */
async function deliver() {
  const reports = await t.dispatcher().drain();
  for (const report of reports) expect(report.attempt?.statusCode, `${report.type} ${report.eventId}`).toBe(200);
  return reports;
}

/** A delivery signed as paygate signs (Standard Webhooks), with the merchant's secret unless told otherwise. */
async function send(id: string, payload: unknown, options: { secret?: string; signed?: string } = {}) {
  const body = JSON.stringify(payload);
  const now = new Date();
  const signature = new Webhook(options.secret ?? merchant.webhookSecret).sign(id, now, options.signed ?? body);
  const response = await fetch(shop.webhookUrl, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "webhook-signature": signature,
    },
    body,
  });
  return { status: response.status, body: (await response.json()) as { ok: boolean; message: string } };
}

interface AdminOrder {
  id: string;
  code: string;
  state: string;
  payments: {
    id: string;
    state: string;
    method: string;
    amount: number;
    metadata: Record<string, unknown>;
    errorMessage: string | null;
    refunds: { id: string; state: string; total: number; transactionId: string; metadata: Record<string, unknown> }[];
  }[];
  history: { items: { type: string; isPublic: boolean; data: Record<string, unknown> }[] };
}

async function adminOrder(id: string): Promise<AdminOrder> {
  const answer = await shop.admin<{ order: AdminOrder }>(
    `query($id: ID!) { order(id: $id) { id code state
      payments { id state method amount metadata errorMessage refunds { id state total transactionId metadata } }
      history(options: { take: 100 }) { items { type isPublic data } } } }`,
    { id },
  );
  return answer.data.order;
}

const transitions = (order: AdminOrder, type: string, to: string) =>
  order.history.items.filter((item) => item.type === type && item.data.to === to).length;
const notes = (order: AdminOrder) => order.history.items.filter((item) => item.type === "ORDER_NOTE").map((item) => String(item.data.note));

describe("a paygate checkout in Vendure", () => {
  let paidOrder: AdminOrder;
  let paidTransaction: string;
  let receivedEvent: string;

  it("places the order with paygate's checkout, and settles it when paygate's webhook says it is paid", async () => {
    const { order, transactionId } = await checkout("ada@example.com");
    const owed = await pickLtc(transactionId);
    // Before the money: the Admin API's "settle" asks paygate and refuses, saying why.
    const early = await shop.admin<{ settlePayment: { errorCode?: string; message?: string; paymentErrorMessage?: string } }>(
      `mutation($id: ID!) { settlePayment(id: $id) { ... on Payment { state } ... on ErrorResult { errorCode message } ... on SettlePaymentError { paymentErrorMessage } } }`,
      { id: order.payments[0].id },
    );
    expect(early.data.settlePayment.errorCode).toBe("SETTLE_PAYMENT_ERROR");
    expect(early.data.settlePayment.paymentErrorMessage).toMatch(/^paygate transaction bq_\w+ is PENDING \(awaiting_payment\): nothing arrived$/);
    expect((await adminOrder(order.id)).state).toBe("PaymentAuthorized");

    const paid = await pay(transactionId);
    expect(paid.status).toBe("SUCCESSFUL");
    const reports = await deliver();
    receivedEvent = reports.find((r) => r.type === "payment.received")?.eventId ?? "";
    expect(receivedEvent).toMatch(/^evt_/);
    paidOrder = await adminOrder(order.id);
    paidTransaction = transactionId;
    expect(paidOrder.state).toBe("PaymentSettled");
    expect(paidOrder.payments[0]).toMatchObject({ state: "Settled", amount: 10000 });
    expect(paidOrder.payments[0].metadata.paygate).toMatchObject({
      status: "SUCCESSFUL",
      state: "paid",
      coin: "LTC",
      paymentAmount: owed,
      amountPaid: owed,
      excess: null,
    });
    expect(transitions(paidOrder, "ORDER_PAYMENT_TRANSITION", "Settled")).toBe(1);
    expect(transitions(paidOrder, "ORDER_STATE_TRANSITION", "PaymentSettled")).toBe(1);
  });

  it("settles once when a delivery is repeated, one after the other or two at a time", async () => {
    // paygate sends the event again (an operator's redelivery: the same webhook-id and body).
    expect((await t.dispatcher().redeliver(receivedEvent))?.attempt?.statusCode).toBe(200);
    // Two deliveries of one event racing each other, and a third with another id, all at once.
    const reference = String((paidOrder.payments[0].metadata.paygate as { reference: string }).reference);
    const body = { event: "payment.received", data: { transaction: { reference } } };
    const answers = await Promise.all([send("evt_race", body), send("evt_race", body), send("evt_race_2", body)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers.map((a) => a.body.message).sort()).toEqual(["already settled", "already settled", "delivery evt_race already applied"]);
    const after = await adminOrder(paidOrder.id);
    expect(after.state).toBe("PaymentSettled");
    expect(transitions(after, "ORDER_PAYMENT_TRANSITION", "Settled")).toBe(1);
    expect(transitions(after, "ORDER_STATE_TRANSITION", "PaymentSettled")).toBe(1);
    expect(after.history.items.length).toBe(paidOrder.history.items.length);
  });

  it("refuses a webhook with a bad signature (401) and changes nothing", async () => {
    const { order, transactionId } = await checkout("eve@example.com");
    await pickLtc(transactionId);
    await deliver();
    const before = await adminOrder(order.id);
    const body = { event: "payment.received", data: { transaction: { reference: order.payments[0].transactionId } } };
    const refused = { status: 401, body: { ok: false, message: "bad signature" } };
    expect(await send("evt_forged", body, { secret: `whsec_${Buffer.from("not the merchant's secret, 32 b").toString("base64")}` })).toEqual(refused);
    // Signed with the right secret, but the body changed on the way.
    expect(await send("evt_forged", body, { signed: JSON.stringify({ ...body, event: "payment.abandoned" }) })).toEqual(refused);
    const unsigned = await fetch(shop.webhookUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect(unsigned.status).toBe(401);
    expect(await unsigned.json()).toEqual({ ok: false, message: "bad signature" });
    const huge = await fetch(shop.webhookUrl, { method: "POST", headers: { "content-type": "application/json" }, body: "x".repeat(1024 * 1024 + 1) });
    expect(huge.status).toBe(413);
    expect(await huge.json()).toEqual({ ok: false, message: "body too large" });
    const after = await adminOrder(order.id);
    expect(after).toEqual(before);
    expect(after.state).toBe("PaymentAuthorized");
  });

  it("keeps an underpaid order unsettled and says how much arrived; when the checkout closes, the order stays for the merchant", async () => {
    const { order, transactionId } = await checkout("bob@example.com");
    const owed = await pickLtc(transactionId);
    await pay(transactionId, "0.1");
    await deliver();
    const settle = await shop.admin<{ settlePayment: { paymentErrorMessage?: string } }>(
      `mutation($id: ID!) { settlePayment(id: $id) { ... on SettlePaymentError { paymentErrorMessage } ... on Payment { state } } }`,
      { id: order.payments[0].id },
    );
    expect(settle.data.settlePayment.paymentErrorMessage).toMatch(
      new RegExp(`is PENDING \\(underpaid\\): 0\\.1 of ${owed.replace(".", "\\.")} LTC arrived$`),
    );
    let seen = await adminOrder(order.id);
    expect(seen.state).toBe("PaymentAuthorized");
    expect(seen.payments[0]).toMatchObject({ state: "Authorized" });
    expect(seen.payments[0].metadata.paygate).toMatchObject({ status: "PENDING", state: "underpaid", amountPaid: "0.1", paymentAmount: owed });

    expect((await paygate("POST", `/v1/test_helpers/transaction/${transactionId}/expire`)).status).toBe(200);
    await deliver();
    seen = await adminOrder(order.id);
    expect(seen.state).toBe("PaymentAuthorized");
    expect(seen.payments[0].state).toBe("Cancelled");
    expect(seen.payments[0].metadata.paygate).toMatchObject({ status: "ABANDONED", state: "underpaid", amountPaid: "0.1" });
    expect(notes(seen)).toEqual([
      `paygate checkout ${order.payments[0].transactionId} closed underpaid: 0.1 of ${owed} LTC arrived. The order was not cancelled: refund that money from paygate, or ask for the rest.`,
    ]);
  });

  it("settles an overpaid order and keeps the excess in the payment's metadata", async () => {
    const { order, transactionId } = await checkout("carol@example.com");
    const owed = await pickLtc(transactionId);
    await pay(transactionId, "10");
    await deliver();
    const seen = await adminOrder(order.id);
    expect(seen.state).toBe("PaymentSettled");
    expect(seen.payments[0].metadata.paygate).toMatchObject({
      state: "overpaid",
      amountPaid: "10",
      paymentAmount: owed,
      excess: decimalMinus("10", owed),
    });
  });

  it("cancels the payment and the order when the checkout expires unpaid", async () => {
    const { order, transactionId } = await checkout("dan@example.com");
    await pickLtc(transactionId);
    expect((await paygate("POST", `/v1/test_helpers/transaction/${transactionId}/expire`)).status).toBe(200);
    await deliver();
    const seen = await adminOrder(order.id);
    expect(seen.state).toBe("Cancelled");
    expect(seen.payments[0]).toMatchObject({ state: "Cancelled" });
    expect(seen.payments[0].metadata.paygate).toMatchObject({ status: "ABANDONED", state: "expired" });
  });

  it("never cancels or changes an order paid by another method, whatever paygate's checkout does later", async () => {
    const expired = await checkout("erin@example.com");
    const late = await checkout("finn@example.com");
    for (const { order } of [expired, late]) {
      // The customer paid by card instead: the merchant cancels the crypto payment and records the card payment.
      const cancelled = await shop.admin<{ cancelPayment: { state?: string } }>(
        `mutation($id: ID!) { cancelPayment(id: $id) { ... on Payment { state } } }`,
        {
          id: order.payments[0].id,
        },
      );
      expect(cancelled.data.cancelPayment.state).toBe("Cancelled");
      await shop.admin(`mutation($id: ID!) { transitionOrderToState(id: $id, state: "ArrangingAdditionalPayment") { ... on Order { state } } }`, {
        id: order.id,
      });
      await shop.admin(
        `mutation($id: ID!) { addManualPaymentToOrder(input: { orderId: $id, method: "card", transactionId: "card-1", metadata: {} }) { ... on Order { state } } }`,
        { id: order.id },
      );
      const settled = await shop.admin<{ transitionOrderToState: { state?: string } }>(
        `mutation($id: ID!) { transitionOrderToState(id: $id, state: "PaymentSettled") { ... on Order { state } ... on OrderStateTransitionError { transitionError } } }`,
        { id: order.id },
      );
      expect(settled.data.transitionOrderToState.state).toBe("PaymentSettled");
    }
    const before = [await adminOrder(expired.order.id), await adminOrder(late.order.id)];
    for (const order of before) order.payments.sort((a, b) => Number(a.id) - Number(b.id));
    const withoutDeliveries = (payments: AdminOrder["payments"]) =>
      payments.map((p) => ({ ...p, metadata: { ...p.metadata, paygateDeliveries: undefined, paygate: undefined } }));
    // One checkout expires; in the other the customer pays all the same.
    await pickLtc(expired.transactionId);
    expect((await paygate("POST", `/v1/test_helpers/transaction/${expired.transactionId}/expire`)).status).toBe(200);
    await pickLtc(late.transactionId);
    await pay(late.transactionId);
    await deliver();
    const after = [await adminOrder(expired.order.id), await adminOrder(late.order.id)];
    for (const [i, order] of after.entries()) {
      expect(order.state).toBe("PaymentSettled");
      order.payments.sort((a, b) => Number(a.id) - Number(b.id));
      expect(order.payments.map((p) => [p.method, p.state])).toEqual([
        ["paygate", "Cancelled"],
        ["card", "Settled"],
      ]);
      // The card payment as it was; the paygate one only gains the plugin's record of what it was told.
      expect(withoutDeliveries(order.payments)).toEqual(withoutDeliveries(before[i].payments));
    }
    expect(notes(after[0])).toEqual([]);
    expect(notes(after[1])).toEqual([
      `paygate transaction ${late.order.payments[0].transactionId} was paid, but this payment is Cancelled: the order is left as it is. Refund the money from paygate, or take it for the order by hand.`,
    ]);
  });

  it("never cancels an order partly paid by another method when its paygate checkout expires", async () => {
    const shopApi = await cart("hana@example.com");
    const gift = await shopApi<{ addPaymentToOrder: ShopOrder }>(
      `mutation { addPaymentToOrder(input: { method: "gift-card", metadata: {} }) { ${ORDER_FIELDS} } }`,
    );
    expect(gift.data.addPaymentToOrder.state).toBe("ArrangingPayment");
    const { order, payment: crypto, transactionId } = await addPaygatePayment(shopApi);
    // paygate asks for the rest only: 100.00 less the gift card's 30.00.
    expect((await paygate("GET", `/v1/transaction/${transactionId}`)).body.data.initialized_amount).toBe(70);
    await pickLtc(transactionId);
    expect((await paygate("POST", `/v1/test_helpers/transaction/${transactionId}/expire`)).status).toBe(200);
    await deliver();
    const seen = await adminOrder(order.id);
    expect(seen.state).toBe("PaymentAuthorized");
    expect(seen.payments.map((p) => [p.method, p.state, p.amount]).sort()).toEqual([
      ["gift-card", "Settled", 3000],
      ["paygate", "Cancelled", 7000],
    ]);
    expect(notes(seen)).toEqual([`paygate checkout ${crypto.transactionId} expired unpaid. The order was not cancelled: another payment is on it.`]);
  });

  it("turns a refund from the Admin API into a paygate refund, its claim link told to the customer; paygate's refund.succeeded settles it", async () => {
    const refunded = await shop.admin<{ refundOrder: { id: string; state: string; transactionId: string; metadata: Record<string, unknown> } }>(
      `mutation($id: ID!) { refundOrder(input: { paymentId: $id, amount: 2500, lines: [], shipping: 0, adjustment: 0, reason: "damaged" }) { ... on Refund { id state transactionId metadata } ... on ErrorResult { errorCode message } } }`,
      { id: paidOrder.payments[0].id },
    );
    const refund = refunded.data.refundOrder;
    expect(refund.state, JSON.stringify(refund)).toBe("Pending");
    expect(refund.transactionId).toMatch(/^re_/);
    const inPaygate = await paygate("GET", `/v1/refunds/${refund.transactionId}`);
    expect(inPaygate.status).toBe(200);
    expect(inPaygate.body.data).toMatchObject({
      transaction_id: paidTransaction,
      state: "pending",
      amount_kind: "custom",
      fiat_amount: "25.00",
      fiat_currency: "USD",
    });
    expect(refund.metadata).toMatchObject({ paygateRefundId: refund.transactionId, amount: inPaygate.body.data.amount, currency: "LTC" });
    const claimUrl = String(refund.metadata.claimUrl);
    expect(claimUrl).toMatch(new RegExp(`^${t.url}/refund/`));
    expect((await fetch(claimUrl)).status).toBe(200);
    const seen = await adminOrder(paidOrder.id);
    const publicNotes = seen.history.items.filter((item) => item.type === "ORDER_NOTE" && item.isPublic).map((item) => item.data.note);
    expect(publicNotes).toEqual([`Your refund of ${inPaygate.body.data.amount} LTC: tell us where to send it at ${claimUrl}`]);
    await deliver(); // refund.created: nothing to do

    // A test-mode refund is never paid on a chain, so paygate never closes it here: its refund.succeeded,
    // signed with the merchant's secret exactly as paygate signs, stands for the watcher's.
    const reference = String((seen.payments[0].metadata.paygate as { reference: string }).reference);
    const body = {
      event: "refund.succeeded",
      data: { refund: { id: refund.transactionId, state: "succeeded", tx_hash: "ab".repeat(32) }, transaction: { id: paidTransaction, reference } },
    };
    expect(await send("evt_refund_succeeded", body)).toEqual({ status: 200, body: { ok: true, message: "refund settled" } });
    expect(await send("evt_refund_succeeded", body)).toEqual({
      status: 200,
      body: { ok: true, message: "delivery evt_refund_succeeded already applied" },
    });
    expect(await send("evt_refund_succeeded_again", body)).toEqual({ status: 200, body: { ok: true, message: "refund is Settled" } });
    const settled = (await adminOrder(paidOrder.id)).payments[0].refunds;
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({ state: "Settled", total: 2500, transactionId: refund.transactionId, metadata: { txHash: "ab".repeat(32) } });

    // A second refund, canceled in paygate: its refund.canceled (paygate's own) fails the Vendure refund.
    const second = await shop.admin<{ refundOrder: { id: string; state: string; transactionId: string } }>(
      `mutation($id: ID!) { refundOrder(input: { paymentId: $id, amount: 1000, lines: [], shipping: 0, adjustment: 0, reason: "goodwill" }) { ... on Refund { id state transactionId } } }`,
      { id: paidOrder.payments[0].id },
    );
    expect(second.data.refundOrder.state).toBe("Pending");
    expect((await paygate("POST", `/v1/refunds/${second.data.refundOrder.transactionId}/cancel`)).status).toBe(200);
    const delivered = await deliver();
    expect(delivered.map((r) => r.type)).toEqual(["refund.created", "refund.canceled"]);
    const after = await adminOrder(paidOrder.id);
    expect(after.payments[0].refunds.find((r) => r.id === second.data.refundOrder.id)?.state).toBe("Failed");
    expect(notes(after)).toContain(
      `paygate refund ${second.data.refundOrder.transactionId} was canceled in paygate: the Vendure refund is Failed, and its amount can be refunded again.`,
    );
  });

  it("notes a reversal on the order and changes nothing else", async () => {
    const before = await adminOrder(paidOrder.id);
    const reference = String((before.payments[0].metadata.paygate as { reference: string }).reference);
    // paygate reverses a payment that left the chain; a test-helper payment never does: its event, signed as paygate signs.
    const answer = await send("evt_reversed", {
      event: "payment.reversed",
      data: { transaction: { reference, status: "SUCCESSFUL", state: "reversed" } },
    });
    expect(answer).toEqual({ status: 200, body: { ok: true, message: "reversal noted" } });
    const after = await adminOrder(paidOrder.id);
    expect(after.state).toBe("PaymentSettled");
    expect(after.payments[0].state).toBe("Settled");
    expect(notes(after).at(-1)).toBe(
      `paygate transaction ${reference}: the payment left the chain after it was counted (payment.reversed). Hold the order's fulfilment.`,
    );
  });

  it("refuses what paygate cannot take: a wrong key or a currency it does not price in fails addPaymentToOrder, a paid payment is not cancelled, paygate unreachable is 502", async () => {
    await shop.admin(`mutation($input: CreatePaymentMethodInput!) { createPaymentMethod(input: $input) { id } }`, {
      input: {
        code: "paygate-wrong-key",
        enabled: true,
        handler: {
          code: "paygate",
          arguments: [
            { name: "apiUrl", value: t.url },
            { name: "publicKey", value: merchant.testPublicKey },
            { name: "secretKey", value: "sec_test_not_a_key" },
            { name: "webhookSecret", value: `whsec_${Buffer.from("another endpoint's secret, 32 b.").toString("base64")}` },
          ],
        },
        translations: [{ languageCode: "en", name: "paygate (wrong key)" }],
      },
    });
    const shopApi = await cart("gina@example.com");
    const failed = await shopApi<{ addPaymentToOrder: ShopOrder & { paymentErrorMessage?: string } }>(
      `mutation { addPaymentToOrder(input: { method: "paygate-wrong-key", metadata: {} }) { ... on PaymentFailedError { errorCode paymentErrorMessage } } }`,
    );
    expect(failed.data.addPaymentToOrder).toEqual({
      errorCode: "PAYMENT_FAILED_ERROR",
      paymentErrorMessage: "paygate POST /v1/transaction answered 401: Invalid Secret Key",
    });
    // An order in a currency paygate does not price in (EUR) is declined, saying so.
    const eur = await shop.admin<{ channels: { items: { id: string }[] } }>(`{ channels { items { id } } }`);
    await shop.admin(`mutation($id: ID!) { updateChannel(input: { id: $id, availableCurrencyCodes: [USD, EUR] }) { ... on Channel { id } } }`, {
      id: eur.data.channels.items[0]?.id,
    });
    await shop.admin(`mutation($id: ID!) { updateProductVariants(input: [{ id: $id, prices: [{ currencyCode: EUR, price: 9000 }] }]) { id } }`, {
      id: shop.variantId,
    });
    const euroCart = await cart("ines@example.com", "?currencyCode=EUR");
    const declined = await euroCart<{ addPaymentToOrder: { errorCode?: string; paymentErrorMessage?: string } }>(
      `mutation { addPaymentToOrder(input: { method: "paygate", metadata: {} }) { ... on PaymentDeclinedError { errorCode paymentErrorMessage } } }`,
    );
    expect(declined.data.addPaymentToOrder).toEqual({
      errorCode: "PAYMENT_DECLINED_ERROR",
      paymentErrorMessage: "paygate prices orders in USD or NGN, not EUR",
    });

    // The customer tries again with the right method: a new transaction, the order placed.
    const { order, payment, transactionId } = await addPaygatePayment(shopApi);
    expect(order.payments.map((p) => [p.method, p.state]).sort()).toEqual([
      ["paygate", "Authorized"],
      ["paygate-wrong-key", "Error"],
    ]);

    // Paid in paygate, webhook not here yet: the merchant's "cancel payment" is refused, saying why.
    await pickLtc(transactionId);
    await pay(transactionId);
    const cancel = await shop.admin<{ cancelPayment: { errorCode?: string; paymentErrorMessage?: string } }>(
      `mutation($id: ID!) { cancelPayment(id: $id) { ... on CancelPaymentError { errorCode paymentErrorMessage } ... on Payment { state } } }`,
      { id: payment.id },
    );
    expect(cancel.data.cancelPayment).toEqual({
      errorCode: "CANCEL_PAYMENT_ERROR",
      paymentErrorMessage: `paygate transaction ${payment.transactionId} is paid: settle the payment (or refund it)`,
    });
    // paygate's webhook arrives while the shop cannot reach paygate: 502, nothing changed, and paygate retries later.
    const methods = await shop.admin<{
      paymentMethods: { items: { id: string; code: string; handler: { args: { name: string; value: string }[] } }[] };
    }>(`{ paymentMethods { items { id code handler { args { name value } } } } }`);
    const method = methods.data.paymentMethods.items.find((m) => m.code === "paygate");
    if (!method) throw new Error("no paygate method");
    const setApiUrl = (apiUrl: string) =>
      shop.admin(`mutation($input: UpdatePaymentMethodInput!) { updatePaymentMethod(input: $input) { id } }`, {
        input: {
          id: method.id,
          handler: { code: "paygate", arguments: method.handler.args.map((a) => (a.name === "apiUrl" ? { name: a.name, value: apiUrl } : a)) },
        },
      });
    await setApiUrl(`http://127.0.0.1:${await freePort()}`);
    const failedDeliveries = await t.dispatcher().drain();
    expect(failedDeliveries.map((r) => [r.type, r.attempt?.statusCode])).toEqual([
      ["payment.initiated", 200],
      ["payment.pending", 200],
      ["payment.received", 502],
    ]);
    expect((await adminOrder(order.id)).state).toBe("PaymentAuthorized");
    await setApiUrl(t.url);
    const received = failedDeliveries[2]?.eventId ?? "";
    expect((await t.dispatcher().redeliver(received))?.attempt?.statusCode).toBe(200);
    expect((await adminOrder(order.id)).state).toBe("PaymentSettled");
  });
});
