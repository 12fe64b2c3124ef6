// REST and GraphQL are two doors to one core: the same scenarios leave the same stored transactions.
import { GraphQLClient } from "graphql-request";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { InitializeTransactionDocument, InitiatePaymentDocument } from "./generated/operations.ts";

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
beforeAll(async () => {
  t = await startTestGateway();
  keys = await t.merchant();
});
afterAll(() => t.close());

const scenarios = [
  {
    customer: { email: "ada@example.com", name: "Ada" },
    currency: "USD",
    amount: "100",
    description: "A",
    meta: { n: 1 },
    currencyId: "4",
    refund: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx",
  },
  { customer: { email: "bo@example.com" }, currency: "NGN", amount: "15000.50", description: null, meta: null, currencyId: "6", refund: null },
  {
    customer: { email: "cy@example.com", name: "Cy" },
    currency: "USD",
    amount: "0.01",
    description: "tiny",
    meta: { deep: { a: [1] } },
    currencyId: "3",
    refund: null,
  },
] as const;

async function viaRest(s: (typeof scenarios)[number]): Promise<string> {
  const init = await t.post(
    "/v1/transaction",
    { customer: s.customer, currency: s.currency, amount: s.amount, description: s.description, meta: s.meta },
    { authorization: `Bearer ${keys.testPublicKey}` },
  );
  expect(init.status).toBe(201);
  const pay = await t.post(
    `/v1/transaction/${init.body.data.id}/pay`,
    { currency_id: s.currencyId, refund_address: s.refund },
    { authorization: `Bearer ${keys.testSecretKey}` },
  );
  expect(pay.status).toBe(200);
  return init.body.data.id;
}

async function viaGraphQL(s: (typeof scenarios)[number]): Promise<string> {
  const endpoint = `${t.url}/graphql`;
  const init = await new GraphQLClient(endpoint, { headers: { authorization: `Bearer ${keys.testPublicKey}` } }).request(
    InitializeTransactionDocument,
    {
      input: { customer: s.customer, currency: s.currency, amount: s.amount, description: s.description, meta: s.meta },
    },
  );
  const id = init.initializeTransaction.id;
  await new GraphQLClient(endpoint, { headers: { authorization: `Bearer ${keys.testSecretKey}` } }).request(InitiatePaymentDocument, {
    transactionId: id,
    input: { currencyId: s.currencyId, refundAddress: s.refund },
  });
  return id;
}

/** A stored transaction without what is unique to each one. */
async function comparable(id: string) {
  const row = await t.db.transaction.findUniqueOrThrow({ where: { id } });
  const {
    id: _id,
    reference,
    paymentAddress,
    derivationIndex,
    quotedAt,
    initiatedAt,
    createdAt,
    updatedAt,
    expiresAt,
    clientSecretEnc,
    ...rest
  } = row;
  expect(reference).toMatch(/^bq_/);
  expect(clientSecretEnc).toMatch(/^v1\./); // sealed with a random IV: never equal twice
  expect(paymentAddress).not.toBeNull();
  expect(derivationIndex).not.toBeNull();
  expect(quotedAt && initiatedAt && createdAt && updatedAt && expiresAt).toBeTruthy();
  return JSON.parse(JSON.stringify(rest));
}

it("stores the same transactions whichever API drives the scenario", async () => {
  for (const scenario of scenarios) {
    const rest = await comparable(await viaRest(scenario));
    const graph = await comparable(await viaGraphQL(scenario));
    expect(graph).toEqual(rest);
    expect(rest.status).toBe("PENDING");
  }
});
