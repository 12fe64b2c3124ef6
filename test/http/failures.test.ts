// 503 when the price quote fails, 500 on the unexpected, and /healthz.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { SwitchableFeed } from "../support/prices.ts";
import { initializeBody } from "../support/builders.ts";

const feed = new SwitchableFeed();
let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;

beforeAll(async () => {
  t = await startTestGateway({ prices: feed });
  keys = await t.merchant();
});
afterAll(() => t.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe("upstream failure", () => {
  it("answers 503 when no quote can be had, changes nothing, and works on retry", async () => {
    const init = await t.post("/v1/transaction", initializeBody({ customer: { email: "a@example.com" }, amount: "5" }), bearer(keys.testPublicKey));
    const id = init.body.data.id as string;
    const walletBefore = await t.db.wallet.findFirstOrThrow({ where: { merchantId: keys.id, currencyId: 4, isLive: false } });

    feed.down = true;
    const res = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.testSecretKey));
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ status: "error", code: "upstream_unavailable", reason: "quote_unavailable" });
    expect(res.body.message).toMatch(/retry/);
    const row = await t.db.transaction.findUniqueOrThrow({ where: { id } });
    expect(row.status).toBe("INITIATED");
    expect(row.paymentAddress).toBeNull();
    // The index leased for it is free again (no slot held), and the next initiate takes it: no gap.
    const held = await t.db.walletIndexSlot.count({ where: { walletId: walletBefore.id, leasedUntil: { gt: new Date() } } });
    expect(held).toBe(0);

    feed.down = false;
    const retry = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.testSecretKey));
    expect(retry.status).toBe(200);
    const paid = await t.db.transaction.findUniqueOrThrow({ where: { id } });
    expect(paid.derivationIndex).toBe(walletBefore.nextIndex);
  });

  it("answers 404 for a coin the merchant has no wallet for, even while no quote can be had", async () => {
    const live = await t.merchant({ name: "No Live ETH", kyb: "VERIFIED" });
    const init = await t.post("/v1/transaction", initializeBody({ customer: { email: "a@example.com" }, amount: "5" }), bearer(live.livePublicKey));
    expect(init.status).toBe(201);
    feed.down = true;
    try {
      const res = await t.post(`/v1/transaction/${init.body.data.id as string}/pay`, { currency_id: "6" }, bearer(live.liveSecretKey));
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ status: "error", reason: "processor_not_configured" });
      expect(res.body.message).toMatch(/No ETH wallet is configured for live mode/);
    } finally {
      feed.down = false;
    }
  });
});

describe("health and unknown routes", () => {
  it("answers /healthz with 200 while the database answers", async () => {
    const res = await fetch(`${t.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok", database: "ok", migrations: "applied" });
  });

  it("answers an unknown route with the error shape", async () => {
    const res = await t.post("/v1/nothing", {});
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: "error", code: "not_found" });
  });
});

describe("unexpected errors", () => {
  it("answers 500 Internal Server Error on both endpoints without leaking details", async () => {
    const init = await t.post("/v1/transaction", initializeBody({ customer: { email: "a@example.com" }, amount: "5" }), bearer(keys.testPublicKey));
    const id = init.body.data.id as string;
    // A failure nobody planned for: every write of a transaction now raises inside the database.
    await t.db.$executeRawUnsafe(`CREATE FUNCTION refuse_transactions() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'transactions refused by a test trigger'; END $$`);
    await t.db.$executeRawUnsafe(`CREATE TRIGGER refuse BEFORE INSERT OR UPDATE ON transactions
      FOR EACH ROW EXECUTE FUNCTION refuse_transactions()`);
    try {
      const initialize = await t.post(
        "/v1/transaction",
        initializeBody({ customer: { email: "a@example.com" }, amount: "5" }),
        bearer(keys.testPublicKey),
      );
      const initiate = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.testSecretKey));
      for (const res of [initialize, initiate]) {
        expect(res.status).toBe(500);
        expect(res.body).toEqual({ status: "error", message: "Internal Server Error", code: "internal_error", reason: "internal_error", errors: [] });
      }
      // One error line per request, with its request id, the class and the stack.
      const errorLines = t.logs.map((line) => JSON.parse(line)).filter((line) => line.level === "error" && line.err);
      expect(errorLines.length).toBeGreaterThanOrEqual(2);
      for (const line of errorLines) {
        expect(line.request_id).toMatch(/^[0-9a-f-]{36}$/);
        // Prisma's error, or on PostgreSQL pg's own for the statements that go to the driver directly (src/db/direct-sql.ts).
        expect(["PrismaClientKnownRequestError", "DatabaseError"]).toContain(line.err.type);
        expect(line.err.stack).toContain("transactions refused by a test trigger");
      }
      expect(t.logs.join("\n")).not.toContain(keys.testSecretKey);
    } finally {
      await t.db.$executeRawUnsafe("DROP TRIGGER refuse ON transactions");
      await t.db.$executeRawUnsafe("DROP FUNCTION refuse_transactions()");
    }
  });
});
