// Initialize's group commit (src/db/stores/initialize-groups.ts): the initializes that wait for a
// statement slot are written together, each with its own event and announcement, exactly as one
// written alone; a group the database refuses goes again one by one, so only the refused request
// fails; an outage fails the whole group; a statement that never ends does not hold the rest.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errors, PaygateError } from "../../src/core/errors.ts";
import type { NewTransaction } from "../../src/core/stores/transactions.ts";
import type { TransactionChange } from "../../src/core/stores/transaction-changes.ts";
import type { GroupCommitOptions } from "../../src/db/stores/group-commit.ts";
import { initializeGroups, type InitializeWrite } from "../../src/db/stores/initialize-groups.ts";
import { initializedWrite, insertInitialized } from "../../src/db/stores/transactions.ts";
import type { Database } from "../../src/db/types.ts";
import { hearChanges, heardEvent, until } from "../support/changes.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { initializeBody } from "../support/builders.ts";

let t: TestGateway;
let merchantId: number;
let heard: TransactionChange[];
let stopHearing: () => void;

beforeAll(async () => {
  t = await startTestGateway();
  merchantId = (await t.merchant({ name: "Grouped Goods" })).id;
  ({ heard, stop: stopHearing } = await hearChanges(t));
});
afterAll(async () => {
  stopHearing();
  await t.close();
});

const ONE_AT_A_TIME: GroupCommitOptions = { inFlight: 1, maxGroup: 32, waitMs: 60_000 };

/** A transaction as initialize hands it to the store, with every optional column set unless told otherwise. */
function newTransaction(overrides: Partial<NewTransaction> = {}): NewTransaction {
  const id = randomUUID();
  const createdAt = new Date(Date.UTC(2026, 11, 5, 7, 30, 1, 234));
  return {
    id,
    reference: `ref_${id.slice(0, 18)}`,
    merchantId,
    customerEmail: "Ada@Example.com",
    customerName: "Ada 'Lovelace' \"Byron\", {x}",
    paymentLinkId: null,
    isLive: false,
    description: 'two {"quoted"} words, and a backslash \\',
    initializedAmount: "1234567.89",
    initializedCurrencyId: 1,
    requestMeta: { order: "A-1", nested: { list: [1, "two", null] } },
    createdAt,
    expiresAt: new Date(createdAt.getTime() + 3_600_000),
    clientSecretEnc: `sealed:${id}`,
    returnUrl: "https://shop.example/return?a=1&b=2",
    cancelUrl: "https://shop.example/cancel",
    locale: "fr",
    policyExpiresIn: 1800,
    policyUnderpaymentTolerance: "1.2500",
    policyConfirmations: { BTC: 2, LTC: 6 },
    policyLatePaymentPercent: "0.5",
    ...overrides,
  };
}

const writeOf = (transaction: NewTransaction) => initializedWrite(t.db, transaction, { name: "Grouped Goods" });

/** Alone as the store writes it, counting its calls. */
function countedAlone(db: Database = t.db) {
  const calls: string[] = [];
  const alone = async (write: InitializeWrite) => {
    calls.push(write.row.id);
    await insertInitialized(db, write, null);
  };
  return { calls, alone };
}

async function rowsOf(ids: string[]) {
  return t.db.$queryRaw<Record<string, unknown>[]>`
    SELECT t.*, t.status::text AS status, e.type AS event_type, e.body AS event_body, e.created_at AS event_created_at, e.is_live AS event_is_live,
      e.merchant_id AS event_merchant_id, e.subject_round AS event_subject_round, e.refund_id AS event_refund_id
    FROM transactions t LEFT JOIN webhook_events e ON e.transaction_id = t.id
    WHERE t.id = ANY(${ids}::text[]) ORDER BY t.created_at, t.id`;
}

describe("initialize's group commit", () => {
  it("writes the initializes that wait for the slot in one statement, each row and event as one written alone", async () => {
    const { calls, alone } = countedAlone();
    const groups = initializeGroups(t.db, alone, ONE_AT_A_TIME);
    const first = newTransaction();
    const waiting = [
      newTransaction(),
      newTransaction({ customerName: null, description: null, returnUrl: null, cancelUrl: null, locale: null }),
      newTransaction({
        policyExpiresIn: null,
        policyUnderpaymentTolerance: null,
        policyConfirmations: null,
        policyLatePaymentPercent: null,
        isLive: true,
        requestMeta: {},
      }),
    ];
    const writes = [first, ...waiting].map(writeOf);
    await Promise.all(writes.map((w) => groups.write(w)));
    // The first had the slot and went alone; the three that waited went together.
    expect(calls).toEqual([first.id]);

    // The same transactions written alone, for comparison column by column.
    const alones = [first, ...waiting].map((w) =>
      newTransaction({ ...w, id: randomUUID(), reference: `ref_${randomUUID().slice(0, 18)}`, clientSecretEnc: `sealed:other` }),
    );
    for (const a of alones) await insertInitialized(t.db, writeOf(a), null);

    const inOrder = async (ids: string[]) => {
      const rows = new Map((await rowsOf(ids)).map((r) => [r.id, r]));
      return ids.map((id) => rows.get(id) ?? {});
    };
    const grouped = await inOrder(writes.map((w) => w.row.id));
    const single = await inOrder(alones.map((a) => a.id));
    expect(grouped.map((r) => r.id)).toEqual(writes.map((w) => w.row.id));
    const comparable = (row: Record<string, unknown>) => {
      const { id: _id, reference: _reference, client_secret_enc: _secret, event_body: _body, ...rest } = row;
      return rest;
    };
    for (const [i, row] of grouped.entries()) {
      expect(comparable(row)).toEqual(comparable(single[i] as Record<string, unknown>));
      expect(row.event_type).toBe("payment.initiated");
      expect(row.event_body).toBe(writes[i]?.event.body);
      expect(row.client_secret_enc).toBe(writes[i]?.row.clientSecretEnc);
    }
    expect(grouped[1]).toMatchObject({
      customer_email: "Ada@Example.com",
      customer_email_key: "ada@example.com",
      locale: "fr",
      policy_expires_in: 1800,
    });
    expect(String(grouped[1]?.initialized_amount)).toBe("1234567.89");
    expect(String(grouped[1]?.policy_underpayment_tolerance)).toBe("1.25");
    expect(grouped[1]?.request_meta).toEqual({ order: "A-1", nested: { list: [1, "two", null] } });
    expect(grouped[1]?.policy_confirmations).toEqual({ BTC: 2, LTC: 6 });
    expect((grouped[1]?.created_at as Date).toISOString()).toBe("2026-12-05T07:30:01.234Z");
    expect(grouped[3]).toMatchObject({ is_live: true, policy_confirmations: null, policy_expires_in: null, request_meta: {} });

    // Each announced, with its event.
    for (const w of writes) await until(() => heardEvent(heard, w.row.id));
    for (const w of writes) {
      expect(heard.filter((c) => c.kind === "changed" && c.transactionId === w.row.id)).toEqual([
        { kind: "changed", transactionId: w.row.id, eventWritten: true },
      ]);
    }
  });

  it("sends a request alone at once while a slot is free", async () => {
    const { calls, alone } = countedAlone();
    const groups = initializeGroups(t.db, alone, { inFlight: 2, maxGroup: 32, waitMs: 60_000 });
    const a = writeOf(newTransaction());
    const b = writeOf(newTransaction());
    await Promise.all([groups.write(a), groups.write(b)]);
    expect(calls).toEqual([a.row.id, b.row.id]);
    expect(await rowsOf([a.row.id, b.row.id])).toHaveLength(2);
  });

  it("splits what waits into groups of at most maxGroup", async () => {
    const { calls, alone } = countedAlone();
    const groups = initializeGroups(t.db, alone, { inFlight: 1, maxGroup: 2, waitMs: 60_000 });
    const writes = Array.from({ length: 6 }, () => writeOf(newTransaction()));
    await Promise.all(writes.map((w) => groups.write(w)));
    // 1 alone, then 2 + 2, then the last one alone.
    expect(calls).toEqual([writes[0]?.row.id, writes[5]?.row.id]);
    expect(await rowsOf(writes.map((w) => w.row.id))).toHaveLength(6);
  });

  it("a group the database refuses goes again one by one: only the refused request fails", async () => {
    const { calls, alone } = countedAlone();
    const groups = initializeGroups(t.db, alone, ONE_AT_A_TIME);
    const first = writeOf(newTransaction());
    const good = [writeOf(newTransaction()), writeOf(newTransaction())];
    const refused = writeOf(newTransaction({ paymentLinkId: 987_654_321 })); // no such payment link: a foreign key refuses it
    const outcomes = await Promise.allSettled([first, good[0], refused, good[1]].map((w) => groups.write(w as InitializeWrite)));
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    const reason = (outcomes[2] as PromiseRejectedResult).reason as Error;
    expect(String(reason.message)).toMatch(/foreign key|payment_link/i);
    // The group of three was refused whole, then each went alone.
    expect(calls).toEqual([first.row.id, good[0]?.row.id, refused.row.id, good[1]?.row.id]);
    const written = await rowsOf([first, ...good, refused].map((w) => w.row.id));
    expect(written.map((r) => r.id).sort()).toEqual([first, ...good].map((w) => w.row.id).sort());
    expect(written.every((r) => r.event_type === "payment.initiated")).toBe(true);
  });

  it("an outage fails the whole group with database_unavailable, without going again alone", async () => {
    const outage = errors.databaseUnavailable("database_unreachable");
    // A database that answers nothing: the group's statement meets the outage.
    const down = {
      $queryRaw: () => Promise.reject(outage),
    } as unknown as Database;
    let release: () => void = () => {};
    const calls: string[] = [];
    const groups = initializeGroups(
      down,
      async (write) => {
        calls.push(write.row.id);
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      },
      ONE_AT_A_TIME,
    );
    const first = writeOf(newTransaction());
    const rest = [writeOf(newTransaction()), writeOf(newTransaction())];
    const firstDone = groups.write(first);
    const restDone = Promise.allSettled(rest.map((w) => groups.write(w)));
    release();
    await firstDone;
    const outcomes = await restDone;
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
    for (const o of outcomes) {
      const reason = (o as PromiseRejectedResult).reason as PaygateError;
      expect(reason).toBeInstanceOf(PaygateError);
      expect(reason.code).toBe("database_unavailable");
      expect(reason.message).toBe("The database is unavailable right now; nothing was changed, retry in a few seconds");
    }
    expect(calls).toEqual([first.row.id]);
  });

  it("requests that wait longer than waitMs for a statement that never ends go anyway", async () => {
    const { calls, alone } = countedAlone();
    const stuck = writeOf(newTransaction());
    const groups = initializeGroups(t.db, (write) => (write === stuck ? new Promise<void>(() => {}) : alone(write)), {
      inFlight: 1,
      maxGroup: 32,
      waitMs: 50,
    });
    void groups.write(stuck);
    const waiting = [writeOf(newTransaction()), writeOf(newTransaction())];
    await Promise.all(waiting.map((w) => groups.write(w)));
    expect(calls).toEqual([]); // they went as one group beside the stuck statement
    expect(await rowsOf(waiting.map((w) => w.row.id))).toHaveLength(2);
  });

  it("through the API: concurrent initializes each get their own transaction, event and answer", async () => {
    const keys = await t.merchant({ name: "Busy Shop" });
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        t.post("/v1/transaction", initializeBody({ amount: `${i + 1}.00` }), { authorization: `Bearer ${keys.testPublicKey}` }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 201));
    const ids = answers.map((a) => a.body.data.id as string);
    expect(new Set(ids).size).toBe(24);
    const rows = await rowsOf(ids);
    expect(rows).toHaveLength(24);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const [i, id] of ids.entries()) {
      expect(String(byId.get(id)?.initialized_amount)).toBe(`${i + 1}`);
      expect(byId.get(id)?.event_type).toBe("payment.initiated");
      const got = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, { authorization: `Bearer ${keys.testSecretKey}` });
      expect(got.status).toBe(200);
    }
  });
});
