// The raw read of a transaction (findRowFor: every poll and initiate) gives exactly what Prisma's
// model query gives: the same fields, values and types, before and after initiate.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prismaStores } from "../../src/db/stores/index.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { initializeBody } from "../support/builders.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe("TransactionStore.findRowFor", () => {
  it("reads every field as the model query does, in its type", async () => {
    const keys = await t.merchant();
    const body = initializeBody({
      customer: { email: "Ada.Obi@Example.com", name: "Ada Obi" },
      currency: "NGN",
      amount: "150000.50",
      description: "Order #42",
      meta: { order: { id: 42, lines: ["a", "b"] }, note: null },
    });
    const created = await t.post("/v1/transaction", body, bearer(keys.testPublicKey));
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const { transactions } = prismaStores(t.db);

    const compare = async () => {
      const model = await t.db.transaction.findFirst({ where: { id, merchantId: keys.id, isLive: false } });
      const raw = await transactions.findRowFor(id, keys.id, false);
      expect(model).not.toBeNull();
      expect(raw).toEqual(model);
      expect(Object.keys(raw ?? {}).sort()).toEqual(Object.keys(model ?? {}).sort());
      return raw;
    };
    const initiated = await compare();
    expect(initiated?.initializedAmount.toFixed()).toBe("150000.5");

    const paid = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.testSecretKey));
    expect(paid.status).toBe(200);
    const pending = await compare();
    expect(pending).toMatchObject({ status: "PENDING", paymentCurrencyId: 4, paymentAddress: paid.body.data.payment_address });
    expect(pending?.quotedAt).toBeInstanceOf(Date);

    // Another merchant's key or the other mode finds nothing.
    expect(await transactions.findRowFor(id, keys.id, true)).toBeNull();
    expect(await transactions.findRowFor(id, keys.id + 1000, false)).toBeNull();
  });
});
