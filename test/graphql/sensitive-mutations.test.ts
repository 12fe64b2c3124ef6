// Mutations that move money or hand out a one-time secret, one per request (issue 41): five aliased
// createRefund made two refunds and answered `data: null` with one error, losing both claim links
// (shown in the creation reply only). Now such a mutation beside any other is refused (400) before
// anything runs; alone it works, and mutations of neither kind still batch.
import { describe, expect, it } from "vitest";
import { initializeBody } from "../support/builders.ts";
import { gatewayAndReceiverForFile, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;

gatewayAndReceiverForFile(async (started) => {
  ({ t } = started);
  keys = await t.merchant({ name: "One At A Time" });
});

interface Answer {
  status: number;
  body: {
    data?: Record<string, Record<string, unknown> | null> | null;
    errors?: { message: string; extensions: Record<string, unknown> }[];
  };
}

async function graph(query: string, variables: Record<string, unknown> = {}, key = keys.testSecretKey): Promise<Answer> {
  const res = await fetch(`${t.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, body: (await res.json()) as Answer["body"] };
}

async function paidTransaction(): Promise<string> {
  const init = await t.post("/v1/transaction", initializeBody(), { authorization: `Bearer ${keys.testPublicKey}` });
  const id: string = init.body.data.id;
  const auth = { authorization: `Bearer ${keys.testSecretKey}` };
  expect((await t.post(`/v1/transaction/${id}/pay`, { currency_id: "7" }, auth)).status).toBe(200);
  expect((await t.post(`/v1/test_helpers/transaction/${id}/payment`, {}, auth)).status).toBe(200);
  return id;
}

const refund = (alias: string) =>
  `${alias}: createRefund(transactionId: $id, input: { amountKind: CUSTOM, amount: "0.001", amountCurrency: "LTC" }) { id refundUrl }`;
const refunds = (transactionId: string) => t.db.refund.count({ where: { transactionId } });

function expectRefused(answer: Answer, fields: string) {
  expect(answer.status).toBe(400);
  expect(answer.body.data).toBeUndefined();
  expect(answer.body.errors).toHaveLength(1);
  expect(answer.body.errors?.[0]?.message).toBe(
    `A mutation that moves money or hands out a one-time secret must be the only mutation in its request; this one holds ${fields}. ` +
      "Send each in its own request; nothing was run",
  );
  expect(answer.body.errors?.[0]?.extensions).toMatchObject({ code: "BAD_REQUEST", status: 400, reason: "sensitive_mutations_batched" });
}

describe("mutations that move money or hand out a one-time secret", () => {
  it("refuses five aliased createRefund with 400 before any refund is made", async () => {
    const id = await paidTransaction();
    const query = `mutation($id: ID!) { ${Array.from({ length: 5 }, (_, i) => refund(`r${i}`)).join(" ")} }`;
    expectRefused(await graph(query, { id }), "createRefund 5 times");
    expect(await refunds(id)).toBe(0);
    const listed = await fetch(`${t.url}/v1/transaction/${id}/refunds`, { headers: { authorization: `Bearer ${keys.testSecretKey}` } });
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { data: unknown[] }).data).toEqual([]);
  });

  it("refuses two different ones, counting through fragments, with nothing changed", async () => {
    const id = await paidTransaction();
    const made = await graph(`mutation($id: ID!) { ${refund("first")} }`, { id });
    const refundId = made.body.data?.first?.id;
    expect(typeof refundId).toBe("string");
    const query = `mutation($id: ID!, $refund: ID!) { ...Make ... on Mutation { cancelRefund(id: $refund) { state } } }
      fragment Make on Mutation { ${refund("again")} }`;
    expectRefused(await graph(query, { id, refund: refundId }), "createRefund and cancelRefund");
    expect(await refunds(id)).toBe(1);
    expect(await t.db.refund.count({ where: { transactionId: id, state: "pending" } })).toBe(1);
  });

  it("refuses one beside a mutation of neither kind, whose failure would hide the claim link", async () => {
    const id = await paidTransaction();
    const query = `mutation($id: ID!) { ${refund("r")} t: initializeTransaction(input: { customer: { email: "ada@example.com" }, currency: USD, amount: "10" }) { id } }`;
    expectRefused(await graph(query, { id }), "createRefund and initializeTransaction");
    expect(await refunds(id)).toBe(0);
  });

  it("refuses two webhook secrets in one request", async () => {
    const endpoint = (alias: string) =>
      `${alias}: createWebhookEndpoint(input: { url: "https://example.com/${alias}", enabledEvents: ["*"] }) { id secret }`;
    const before = await t.db.webhookEndpoint.count({ where: { merchantId: keys.id } });
    expectRefused(await graph(`mutation { ${endpoint("a")} ${endpoint("b")} }`), "createWebhookEndpoint 2 times");
    expect(await t.db.webhookEndpoint.count({ where: { merchantId: keys.id } })).toBe(before);
  });

  it("runs one createRefund alone, with what it reads, and answers its claim link", async () => {
    const id = await paidTransaction();
    const answer = await graph(
      `mutation($id: ID!) { __typename ${refund("only")} ...Read } fragment Read on Mutation { __typename }`.replace(
        "{ id refundUrl }",
        "{ id refundUrl state transactionId amount }",
      ),
      { id },
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data?.only).toMatchObject({ state: "PENDING", transactionId: id, amount: "0.001" });
    expect(answer.body.data?.only?.refundUrl).toMatch(/\/refund\/[0-9A-Za-z]{32}$/);
    expect(await refunds(id)).toBe(1);
  });

  it("still runs several mutations of neither kind in one request", async () => {
    const initialize = (alias: string) =>
      `${alias}: initializeTransaction(input: { customer: { email: "ada@example.com" }, currency: USD, amount: "10" }) { id }`;
    const before = await t.db.transaction.count({ where: { merchantId: keys.id } });
    const answer = await graph(`mutation { ${initialize("a")} ${initialize("b")} }`, {}, keys.testPublicKey);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(Object.keys(answer.body.data ?? {})).toEqual(["a", "b"]);
    expect(await t.db.transaction.count({ where: { merchantId: keys.id } })).toBe(before + 2);
  });
});
