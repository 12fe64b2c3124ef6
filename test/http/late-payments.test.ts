// The late-payment policy (issue 29): initialize's optional late_payment.accept_if_rate_moved_below.
// A payment that covers a transaction after its window closed is accepted (SUCCESSFUL, payment.received)
// when the market rate moved less than that percent since it was locked (read through the price port
// when the late payment is seen), else recorded as late (ABANDONED, paid_late) and left to the merchant;
// the decision is stored and shown. Applied by the core's lifecycle on the watcher's path
// (gateway.payments.applyReceipts) and the test helper's. Without it, a late payment is recorded as today.
// On PGlite, and PostgreSQL with DATABASE_URL.
import { GraphQLClient } from "graphql-request";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import type { RateTable } from "../../src/core/test-rates.ts";
import { ModeRoutedFeed } from "../../src/rails/prices/index.ts";
import { TestRatesFeed } from "../../src/rails/prices/test-rates.ts";
import { initializeBody } from "../support/builders.ts";
import { graphqlFailure } from "../support/graphql-errors.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

/** The test rates, changed by the tests between the lock and the late payment. */
const rates: RateTable = { BTC: { USD: "65000", NGN: "97500000" } };
let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
beforeAll(async () => {
  const feed = new TestRatesFeed(rates);
  t = await startTestGateway({ prices: new ModeRoutedFeed({ test: feed, live: feed }) });
  keys = await t.merchant({ name: "Late Shop" });
});
afterAll(() => t?.close());
beforeEach(() => {
  (rates.BTC as Record<string, string>).USD = "65000";
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const secret = () => bearer(keys.testSecretKey);
/** Initialize from the merchant's server (issue 41): the secret key in the header, the public key in the body. */
const initializeAsMerchant = (extra: Record<string, unknown>) =>
  t.post("/v1/transaction", initializeBody({ amount: "100", public_key: keys.testPublicKey, ...extra }), secret());

/** Initialized with `extra`, initiated in BTC at the current test rate, then its window closed. */
async function expiredTransaction(extra: Record<string, unknown>): Promise<{ id: string; due: number }> {
  const init = await initializeAsMerchant(extra);
  expect(init.status).toBe(201);
  const id = init.body.data.id as string;
  const paid = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, secret());
  expect(paid.status).toBe(200);
  const expired = await t.post(`/v1/test_helpers/transaction/${id}/expire`, {}, secret());
  expect(expired.body.data.status).toBe("ABANDONED");
  return { id, due: paid.body.data.payment_amount as number };
}

const moveRate = (percent: string) => {
  (rates.BTC as Record<string, string>).USD = new Decimal("65000").times(new Decimal(1).plus(new Decimal(percent).div(100))).toFixed();
};
const eventsOf = async (id: string) =>
  (await t.db.webhookEvent.findMany({ where: { transactionId: id }, orderBy: { seq: "asc" } })).map((e) => e.type);

describe("a late payment under the late-payment policy", () => {
  it("is accepted when the rate moved less than the policy's percent: SUCCESSFUL, payment.received, the decision shown", async () => {
    const { id, due } = await expiredTransaction({ late_payment: { accept_if_rate_moved_below: "2" } });
    moveRate("1.5");
    const late = await t.post(`/v1/test_helpers/transaction/${id}/payment`, {}, secret());
    expect(late.status).toBe(200);
    expect(late.body.data).toMatchObject({ status: "SUCCESSFUL", amount_paid: due });
    expect(late.body.data.meta.payment.state).toBe("paid");
    expect(late.body.data.policies.late_payment).toEqual({
      accept_if_rate_moved_below: "2",
      decision: { accepted: true, locked_rate: "65000", market_rate: "65975", moved_percent: "1.5", checked_at: expect.any(String) },
    });
    expect(await eventsOf(id)).toEqual(["payment.initiated", "payment.pending", "payment.abandoned", "payment.received"]);
    const shown = await fetch(`${t.url}/v1/transaction/${id}`, { headers: secret() });
    expect(((await shown.json()) as any).data.policies.late_payment.decision.accepted).toBe(true);
  });

  it("is recorded as late when the rate moved as much or more: ABANDONED, paid_late, the decision shown", async () => {
    const { id, due } = await expiredTransaction({ late_payment: { accept_if_rate_moved_below: "2" } });
    moveRate("-2");
    const late = await t.post(`/v1/test_helpers/transaction/${id}/payment`, {}, secret());
    expect(late.status).toBe(200);
    expect(late.body.data).toMatchObject({ status: "ABANDONED", amount_paid: due });
    expect(late.body.data.meta.payment.state).toBe("paid_late");
    expect(late.body.data.policies.late_payment.decision).toMatchObject({ accepted: false, market_rate: "63700", moved_percent: "2" });
    expect(await eventsOf(id)).toEqual(["payment.initiated", "payment.pending", "payment.abandoned"]);

    // Decided once: the rate coming back does not revive it.
    moveRate("0");
    const again = await t.post(`/v1/test_helpers/transaction/${id}/payment`, { amount: "0.0001" }, secret());
    expect(again.body.data.status).toBe("ABANDONED");
    expect(again.body.data.policies.late_payment.decision.accepted).toBe(false);
  });

  it("is decided on the watcher's path too (the core's lifecycle, through the gateway)", async () => {
    const { id, due } = await expiredTransaction({ late_payment: { accept_if_rate_moved_below: "0.5" } });
    moveRate("0.25");
    const recorded = await t.gateway.payments.applyReceipts(id, {
      receipts: [{ key: "a1:0", txHash: "a1", amount: new Decimal(due), confirmations: 3, blockHeight: 100 }],
      requiredConfirmations: 1,
      source: "chain",
      complete: true,
    });
    expect(recorded.status).toBe("SUCCESSFUL");
    const row = await t.db.transaction.findUniqueOrThrow({ where: { id } });
    expect(row.status).toBe("SUCCESSFUL");
    expect(row.latePayment).toMatchObject({ accepted: true, movedPercent: "0.25" });
  });

  it("waits for its decision while no price can be had, and decides once one can", async () => {
    const { id, due } = await expiredTransaction({ late_payment: { accept_if_rate_moved_below: "3" } });
    const btc = rates.BTC as Record<string, string | undefined>;
    btc.USD = undefined;
    const update = {
      receipts: [{ key: "b1:0", txHash: "b1", amount: new Decimal(due), confirmations: 1, blockHeight: 100 }],
      requiredConfirmations: 1,
      source: "chain" as const,
      complete: true,
    };
    const first = await t.gateway.payments.applyReceipts(id, update);
    expect(first.status).toBe("ABANDONED");
    expect(first.latePayment).toBeNull();
    moveRate("1");
    const next = await t.gateway.payments.applyReceipts(id, update);
    expect(next.status).toBe("SUCCESSFUL");
  });

  it("leaves an underpaying late payment undecided until it covers the transaction", async () => {
    const { id, due } = await expiredTransaction({ late_payment: { accept_if_rate_moved_below: "2" } });
    const part = await t.post(`/v1/test_helpers/transaction/${id}/payment`, { amount: new Decimal(due).div(2).toFixed(8) }, secret());
    expect(part.body.data).toMatchObject({ status: "ABANDONED" });
    expect(part.body.data.meta.payment.state).toBe("underpaid");
    expect(part.body.data.policies.late_payment.decision).toBeNull();
    const rest = await t.post(`/v1/test_helpers/transaction/${id}/payment`, {}, secret());
    expect(rest.body.data.status).toBe("SUCCESSFUL");
  });

  it("without the policy, a late payment is recorded as late as before", async () => {
    const { id, due } = await expiredTransaction({});
    const late = await t.post(`/v1/test_helpers/transaction/${id}/payment`, {}, secret());
    expect(late.body.data).toMatchObject({ status: "ABANDONED", amount_paid: due });
    expect(late.body.data.meta.payment.state).toBe("paid_late");
    expect(late.body.data.policies.late_payment).toBeNull();
    expect((await t.db.transaction.findUniqueOrThrow({ where: { id } })).latePayment).toBeNull();
  });
});

describe("initialize's late_payment", () => {
  const count = () => t.db.transaction.count();
  const refusals: [string, unknown, string, string][] = [
    [
      "above the bounds",
      { accept_if_rate_moved_below: "10.01" },
      "late_payment.accept_if_rate_moved_below",
      "late_payment.accept_if_rate_moved_below must be a decimal string from 0 to 10 (percent), with at most 4 decimal places",
    ],
    [
      "negative",
      { accept_if_rate_moved_below: "-1" },
      "late_payment.accept_if_rate_moved_below",
      "late_payment.accept_if_rate_moved_below must be a decimal string from 0 to 10 (percent), with at most 4 decimal places",
    ],
    [
      "not a number",
      { accept_if_rate_moved_below: "a lot" },
      "late_payment.accept_if_rate_moved_below",
      "late_payment.accept_if_rate_moved_below must be a decimal string from 0 to 10 (percent), with at most 4 decimal places",
    ],
    [
      "a JSON number",
      { accept_if_rate_moved_below: 2 },
      "late_payment.accept_if_rate_moved_below",
      'late_payment.accept_if_rate_moved_below must be a percentage as a decimal string such as "2"',
    ],
    ["a string", "2", "late_payment", 'late_payment must be a JSON object such as {"accept_if_rate_moved_below": "2"}'],
  ];
  it.each(refusals)("refuses it %s with 400 naming the field and the bounds, creating nothing", async (_name, latePayment, field, message) => {
    const before = await count();
    const res = await initializeAsMerchant({ late_payment: latePayment });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: "error", message: "Validation Error", errors: [{ field, message }] });
    expect(await count()).toBe(before);
  });

  it("refuses an unknown key inside it", async () => {
    const res = await initializeAsMerchant({ late_payment: { accept_if_rate_moved_below: "1", refund: true } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe("late_payment");
  });

  it("is stored and shown at initialize; the spec's request shows it null", async () => {
    const made = await initializeAsMerchant({ late_payment: { accept_if_rate_moved_below: " 2.50 " } });
    expect(made.status).toBe(201);
    expect(made.body.data.policies.late_payment).toEqual({ accept_if_rate_moved_below: "2.5", decision: null });
    expect((await t.db.transaction.findUniqueOrThrow({ where: { id: made.body.data.id } })).policyLatePaymentPercent?.toString()).toBe("2.5");
    const plain = await t.post("/v1/transaction", initializeBody(), bearer(keys.testPublicKey));
    expect(plain.body.data.policies.late_payment).toBeNull();
  });

  it("GraphQL takes latePayment, stores and shows it, and refuses it out of bounds with the REST message", async () => {
    const client = new GraphQLClient(`${t.url}/graphql`, { headers: secret() });
    const mutation = `mutation Initialize($input: InitializeTransactionInput!) {
      initializeTransaction(input: $input) { id policies { latePayment { acceptIfRateMovedBelow decision { accepted } } } }
    }`;
    const input = (latePayment: unknown) => ({
      customer: { email: "ada@example.com" },
      currency: "USD",
      amount: "10",
      publicKey: keys.testPublicKey,
      latePayment,
    });
    const made = await client.request<{ initializeTransaction: { id: string; policies: unknown } }>(mutation, {
      input: input({ acceptIfRateMovedBelow: "1.25" }),
    });
    expect(made.initializeTransaction.policies).toEqual({ latePayment: { acceptIfRateMovedBelow: "1.25", decision: null } });
    const before = await count();
    const failure = await graphqlFailure(client.request(mutation, { input: input({ acceptIfRateMovedBelow: "25" }) }));
    expect(JSON.stringify(failure)).toContain("late_payment.accept_if_rate_moved_below must be a decimal string from 0 to 10 (percent)");
    expect(await count()).toBe(before);
  });
});
