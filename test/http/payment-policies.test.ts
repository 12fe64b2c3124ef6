// Issue 29: per-payment policies at initialize (expires_in, underpayment_tolerance, confirmations), on
// REST and GraphQL: stored, shown, used by the lifecycle, bounded by the operator (DEFAULT_POLICY_BOUNDS
// here: 60–604800 s, 0–10 %, 1–1000 confirmations), refused with a 400 naming the field and the bounds.
import { GraphQLClient } from "graphql-request";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import { manualClock } from "../support/clock.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { initializeBody } from "../support/builders.ts";
import { graphqlFailure } from "../support/graphql-errors.ts";

const clock = manualClock();
let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
beforeAll(async () => {
  t = await startTestGateway({ clock });
  keys = await t.merchant({ kyb: "VERIFIED" });
});
afterAll(() => t.close());

const secret = () => ({ authorization: `Bearer ${keys.testSecretKey}` });
// The merchant's server (issue 41): its secret key in the header, the public key in the body.
const initialize = (extra: Record<string, unknown>) =>
  t.post(
    "/v1/transaction",
    initializeBody({ customer: { email: "ada@example.com" }, amount: "100", public_key: keys.testPublicKey, ...extra }),
    secret(),
  );
const count = () => t.db.transaction.count();
async function read(id: string) {
  const res = await fetch(`${t.url}/v1/transaction/${id}`, { headers: secret() });
  return (await res.json()) as { data: { status: string; policies: unknown } };
}

async function pending(extra: Record<string, unknown>): Promise<{ id: string; due: Decimal; expiresAt: string }> {
  const init = await initialize(extra);
  expect(init.status).toBe(201);
  const pay = await t.post(`/v1/transaction/${init.body.data.id}/pay`, { currency_id: "4" }, secret());
  expect(pay.status).toBe(200);
  return { id: init.body.data.id, due: new Decimal(String(pay.body.data.payment_amount)), expiresAt: pay.body.data.expires_at };
}
const payTest = (id: string, body: unknown) => t.post(`/v1/test_helpers/transaction/${id}/payment`, body, secret());
const ninetySix = (due: Decimal) => due.times("0.96").toDecimalPlaces(8, Decimal.ROUND_UP).toFixed();

describe("REST initialize with per-payment policies", () => {
  it("stores them and shows them in initialize's, initiate's and the read's replies", async () => {
    const policies = { expires_in: 900, underpayment_tolerance: "2.50", confirmations: { BTC: 2 } };
    const init = await initialize(policies);
    expect(init.status).toBe(201);
    const shown = { expires_in: 900, underpayment_tolerance: "2.5", confirmations: { BTC: 2 }, late_payment: null };
    expect(init.body.data.policies).toEqual(shown);
    const stored = await t.db.transaction.findUniqueOrThrow({ where: { id: init.body.data.id } });
    expect([stored.policyExpiresIn, stored.policyUnderpaymentTolerance?.toString(), stored.policyConfirmations]).toEqual([900, "2.5", { BTC: 2 }]);
    const pay = await t.post(`/v1/transaction/${init.body.data.id}/pay`, { currency_id: "4" }, secret());
    expect(pay.body.data.policies).toEqual(shown);
    expect((await read(init.body.data.id)).data.policies).toEqual(shown);
  });

  it("without them behaves as before: the operator's 30-minute window, no tolerance, one confirmation", async () => {
    const before = clock.now().getTime();
    const { id, due, expiresAt } = await pending({});
    expect(new Date(expiresAt).getTime() - before).toBe(30 * 60_000);
    const short = await payTest(id, { amount: ninetySix(due) });
    expect(short.body.data).toMatchObject({ status: "PENDING", policies: { expires_in: null, underpayment_tolerance: null, confirmations: null } });
    expect(short.body.data.meta.payment.state).toBe("underpaid");
  });

  it("underpayment_tolerance 5 completes a payment of 96 %", async () => {
    const { id, due } = await pending({ underpayment_tolerance: "5" });
    const paid = await payTest(id, { amount: ninetySix(due) });
    expect(paid.status).toBe(200);
    expect(paid.body.data.status).toBe("SUCCESSFUL");
  });

  it("expires_in 60 ends the checkout window 60 s after initiate on the test clock", async () => {
    const before = clock.now().getTime();
    const { id, expiresAt } = await pending({ expires_in: 60 });
    expect(new Date(expiresAt).getTime() - before).toBe(60_000);
    clock.advance(59_000);
    expect((await t.gateway.payments.expireDue()).map((r) => r.id)).not.toContain(id);
    clock.advance(1_000);
    expect((await t.gateway.payments.expireDue()).map((r) => r.id)).toContain(id);
    expect((await read(id)).data.status).toBe("ABANDONED");
  });

  it("confirmations {BTC: 2}: a payment at 1 confirmation waits, one at 2 completes", async () => {
    const { id, due } = await pending({ confirmations: { BTC: 2 } });
    const shallow = await payTest(id, { amount: due.toFixed(), confirmations: 1 });
    expect(shallow.body.data).toMatchObject({ status: "PENDING" });
    expect(shallow.body.data.meta.payment).toMatchObject({ state: "confirming", required_confirmations: 2 });
    const other = await pending({ confirmations: { BTC: 2 } });
    const deep = await payTest(other.id, { amount: other.due.toFixed(), confirmations: 2 });
    expect(deep.body.data.status).toBe("SUCCESSFUL");
  });

  it("the test helper refuses a bad confirmations with 400 naming the field, recording nothing", async () => {
    const { id } = await pending({});
    for (const confirmations of [-1, 1001, 1.5, "2"]) {
      const res = await payTest(id, { confirmations });
      expect(res.status, String(confirmations)).toBe(400);
      expect(res.body.errors, String(confirmations)).toEqual([
        { field: "confirmations", message: "confirmations must be an integer from 0 to 1000" },
      ]);
    }
    expect(await t.db.paymentReceipt.count({ where: { transactionId: id } })).toBe(0);
  });

  const refusals: [string, Record<string, unknown>, string, string][] = [
    ["expires_in below the bound", { expires_in: 59 }, "expires_in", "expires_in must be a whole number of seconds from 60 to 604800"],
    ["expires_in above the bound", { expires_in: 604_801 }, "expires_in", "expires_in must be a whole number of seconds from 60 to 604800"],
    ["expires_in negative", { expires_in: -60 }, "expires_in", "expires_in must be a whole number of seconds from 60 to 604800"],
    ["expires_in absurd", { expires_in: 1e300 }, "expires_in", "expires_in must be a whole number of seconds from 60 to 604800"],
    ["expires_in a string", { expires_in: "60" }, "expires_in", "expires_in must be a number of seconds"],
    ["expires_in a fraction", { expires_in: 60.5 }, "expires_in", "expires_in must be a whole number of seconds from 60 to 604800"],
    [
      "tolerance above",
      { underpayment_tolerance: "10.01" },
      "underpayment_tolerance",
      "underpayment_tolerance must be a decimal string from 0 to 10 (percent), with at most 4 decimal places",
    ],
    [
      "tolerance negative",
      { underpayment_tolerance: "-1" },
      "underpayment_tolerance",
      "underpayment_tolerance must be a decimal string from 0 to 10 (percent), with at most 4 decimal places",
    ],
    [
      "tolerance too precise",
      { underpayment_tolerance: "0.00001" },
      "underpayment_tolerance",
      "underpayment_tolerance must be a decimal string from 0 to 10 (percent), with at most 4 decimal places",
    ],
    [
      "tolerance a number",
      { underpayment_tolerance: 5 },
      "underpayment_tolerance",
      'underpayment_tolerance must be a percentage as a decimal string such as "2.5"',
    ],
    [
      "tolerance text",
      { underpayment_tolerance: "5%" },
      "underpayment_tolerance",
      "underpayment_tolerance must be a decimal string from 0 to 10 (percent), with at most 4 decimal places",
    ],
    [
      "confirmations below the floor",
      { confirmations: { BTC: 0 } },
      "confirmations.BTC",
      "confirmations.BTC must be a whole number of confirmations from 1 to 1000",
    ],
    [
      "confirmations absurd",
      { confirmations: { LTC: 1_000_000 } },
      "confirmations.LTC",
      "confirmations.LTC must be a whole number of confirmations from 1 to 1000",
    ],
    [
      "confirmations of an unknown coin",
      { confirmations: { DOGE: 2 } },
      "confirmations.DOGE",
      "confirmations.DOGE: unknown coin; use USDT, BTC, BNB, ETH, LTC, USDC",
    ],
    [
      "confirmations a fraction",
      { confirmations: { BTC: 1.5 } },
      "confirmations.BTC",
      "confirmations.BTC must be a whole number of confirmations from 1 to 1000",
    ],
    [
      "confirmations a list",
      { confirmations: [2] },
      "confirmations",
      'confirmations must be a JSON object of coin to confirmations, such as {"BTC": 2}',
    ],
  ];
  it.each(refusals)("refuses %s with 400 naming the field and the bounds, creating nothing", async (_name, body, field, message) => {
    const before = await count();
    const res = await initialize(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: "error", message: "Validation Error", errors: [{ field, message }] });
    expect(await count()).toBe(before);
  });
});

const INITIALIZE = `mutation Initialize($input: InitializeTransactionInput!) {
  initializeTransaction(input: $input) { id policies { expiresIn underpaymentTolerance confirmations } }
}`;
const graphInput = (extra: Record<string, unknown>) => ({
  customer: { email: "ada@example.com" },
  currency: "USD",
  amount: "10",
  publicKey: keys.testPublicKey,
  ...extra,
});

describe("GraphQL initializeTransaction with per-payment policies", () => {
  it("stores and shows them", async () => {
    const client = new GraphQLClient(`${t.url}/graphql`, { headers: secret() });
    const { initializeTransaction: made } = await client.request<{ initializeTransaction: { id: string; policies: unknown } }>(INITIALIZE, {
      input: graphInput({ expiresIn: 120, underpaymentTolerance: "1.25", confirmations: { LTC: 3 } }),
    });
    expect(made.policies).toEqual({ expiresIn: 120, underpaymentTolerance: "1.25", confirmations: { LTC: 3 } });
    const stored = await t.db.transaction.findUniqueOrThrow({ where: { id: made.id } });
    expect(stored.policyConfirmations).toEqual({ LTC: 3 });
  });

  it("refuses a policy outside the bounds with the REST message, creating nothing", async () => {
    const client = new GraphQLClient(`${t.url}/graphql`, { headers: secret() });
    const before = await count();
    const failure = await graphqlFailure(client.request(INITIALIZE, { input: graphInput({ expiresIn: 30 }) }));
    expect(JSON.stringify(failure)).toContain("expires_in must be a whole number of seconds from 60 to 604800");
    expect(await count()).toBe(before);
  });
});
