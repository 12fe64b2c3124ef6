// Initialize's and initiate's events are written without ON CONFLICT (src/db/outbox.ts, firstOfItsKind):
// their statement makes the state the event tells, so no such event can be there already. Were one
// there (by hand here: no code path writes it), the unique index fails the whole statement: the
// transaction does not move and the initiate answers an error, rather than moving with its event lost.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { initializeBody } from "../support/builders.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe("events that cannot be there already", () => {
  it("initialize writes its payment.initiated event once, with the transaction", async () => {
    const keys = await t.merchant();
    const created = await t.post("/v1/transaction", initializeBody(), bearer(keys.testPublicKey));
    expect(created.status).toBe(201);
    const events = await t.db.$queryRaw<{ type: string }[]>`SELECT type FROM webhook_events WHERE transaction_id = ${created.body.data.id}`;
    expect(events.map((e) => e.type)).toEqual(["payment.initiated"]);
  });

  it("an initiate whose payment.pending event is somehow there already moves nothing, then moves once it is gone", async () => {
    const keys = await t.merchant();
    const created = await t.post("/v1/transaction", initializeBody(), bearer(keys.testPublicKey));
    const id = created.body.data.id as string;
    await t.db.$executeRaw`
      INSERT INTO webhook_events (id, merchant_id, transaction_id, type, is_live, body, created_at)
      VALUES ('evt_by_hand', ${keys.id}, ${id}, 'payment.pending', false, '{}', now())`;

    const refused = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.testSecretKey));
    expect(refused.status).toBe(500);
    expect(refused.body).toMatchObject({ status: "error", code: "internal_error", message: "Internal Server Error" });
    const [row] = await t.db.$queryRaw<{ status: string; payment_address: string | null }[]>`
      SELECT status::text, payment_address FROM transactions WHERE id = ${id}`;
    expect(row).toEqual({ status: "INITIATED", payment_address: null });

    await t.db.$executeRaw`DELETE FROM webhook_events WHERE id = 'evt_by_hand'`;
    const paid = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.testSecretKey));
    expect(paid.status).toBe(200);
    expect(paid.body.data.status).toBe("PENDING");
    const events = await t.db.$queryRaw<{ type: string }[]>`SELECT type FROM webhook_events WHERE transaction_id = ${id} ORDER BY seq`;
    expect(events.map((e) => e.type)).toEqual(["payment.initiated", "payment.pending"]);
  });
});
