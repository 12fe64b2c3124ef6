// Change notifications (src/db/notifications.ts): every write of a transaction is announced by NOTIFY
// inside its database transaction, with whether it wrote a webhook event; what is rolled back is
// never announced. On PGlite and on PostgreSQL (a LISTEN connection of its own).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TransactionChange } from "../../src/core/stores/transaction-changes.ts";
import { ChangeFeed, changePayload, type NotificationSource, parsePayload } from "../../src/db/notifications.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { initializeBody } from "../support/builders.ts";
import { countFirstDeliveries, firstDeliveryOf, setFirstDelivery } from "../support/first-delivery.ts";

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
const heard: TransactionChange[] = [];
let stopHearing: () => void;

beforeAll(async () => {
  t = await startTestGateway();
  keys = await t.merchant({ name: "Acme Stores" });
  stopHearing = t.changes.subscribe((change) => heard.push(change));
  await until(() => heard.some((c) => c.kind === "resync")); // listening
});
afterAll(async () => {
  stopHearing();
  await t.close();
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("not heard in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
const changesOf = (id: string) => heard.filter((c) => c.kind === "changed" && c.transactionId === id);

async function initialize(): Promise<string> {
  const res = await t.post("/v1/transaction", initializeBody(), bearer(keys.testPublicKey));
  expect(res.status).toBe(201);
  return res.body.data.id;
}

describe("notifications", () => {
  it("announce initialize's one-statement insert, with its event", async () => {
    const id = await initialize();
    await until(() => changesOf(id).length === 1);
    expect(changesOf(id)).toEqual([{ kind: "changed", transactionId: id, eventWritten: true }]);
  });

  it("announce a payment that changes amounts but not the state, without an event", async () => {
    const id = await initialize();
    expect((await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.testSecretKey))).status).toBe(200);
    await until(() => changesOf(id).length === 2);
    const partial = await t.post(`/v1/test_helpers/transaction/${id}/payment`, { amount: "0.0001" }, bearer(keys.testSecretKey));
    expect(partial.status).toBe(200);
    expect(partial.body.data.status).toBe("PENDING");
    await until(() => changesOf(id).length === 3);
    expect(changesOf(id).map((c) => c.kind === "changed" && c.eventWritten)).toEqual([true, true, false]);
  });

  it("announce nothing that was rolled back", async () => {
    const rolledBack = await initialize();
    const committed = await initialize();
    await until(() => changesOf(committed).length === 1);
    await expect(
      t.db.$transaction(async (tx) => {
        await tx.transaction.updateManyAndReturn({ where: { id: rolledBack }, data: { description: "never seen" } });
        throw new Error("rolled back on purpose");
      }),
    ).rejects.toThrow("rolled back on purpose");
    // A later committed change is heard; the rolled-back one before it never is.
    await t.db.transaction.update({ where: { id: committed }, data: { description: "seen" } });
    await until(() => changesOf(committed).length === 2);
    expect(changesOf(rolledBack)).toHaveLength(1); // its initialize only
  });

  it("announce an attempt due only when the outbox has one: an event for a URL, a delivery to an endpoint, one set back to PENDING", async () => {
    const hooked = await t.merchant({ name: "Hooked Stores", testWebhookUrl: "https://hooks.example.com/paygate" });
    const due = () => heard.filter((c) => c.kind === "deliveries-due").length;
    // Notifications arrive in commit order: once a later commit's are heard, an earlier one's would have been.
    const dueAfter = async (write: () => Promise<string>): Promise<number> => {
      const before = due();
      const id = await write();
      await until(() => changesOf(id).length > 0);
      const marker = await t.post("/v1/transaction", initializeBody(), bearer(hooked.testPublicKey));
      expect(marker.status).toBe(201);
      await until(() => changesOf(marker.body.data.id).length === 1 && due() > before);
      await new Promise((resolve) => setTimeout(resolve, 50));
      return due() - before - 1; // the marker's own
    };

    // A mode without a URL: no endpoint takes its event, nothing is queued, and no dispatcher wakes.
    expect(await dueAfter(initialize)).toBe(0);
    const unsent = await t.db.webhookEvent.findFirstOrThrow({ where: { merchantId: keys.id }, orderBy: { seq: "desc" } });
    expect(await countFirstDeliveries(t.db, { event: { id: unsent.id } })).toBe(0);

    // A delivery set back to PENDING (a redelivery) is due again; a PENDING row updated in place is not.
    const { eventId } = await firstDeliveryOf(t.db, { merchantId: hooked.id });
    const transactionId = (await t.db.webhookEvent.findUniqueOrThrow({ where: { id: eventId } })).transactionId as string; // a payment event's
    await setFirstDelivery(t.db, eventId, { state: "SKIPPED" });
    expect(
      await dueAfter(async () => {
        await setFirstDelivery(t.db, eventId, { state: "PENDING" });
        await t.db.transaction.update({ where: { id: transactionId }, data: { description: "redelivered" } });
        return transactionId;
      }),
    ).toBe(1);
    expect(
      await dueAfter(async () => {
        await setFirstDelivery(t.db, eventId, { attemptCount: 1 });
        await t.db.transaction.update({ where: { id: transactionId }, data: { description: "retried" } });
        return transactionId;
      }),
    ).toBe(0);

    // An endpoint of the mode without a URL takes the event: the delivery to it is due.
    const endpoint = await t.post(
      "/v1/webhook_endpoints",
      { url: "https://books.example.com/hooks", enabled_events: ["*"] },
      bearer(keys.testSecretKey),
    );
    expect(endpoint.status).toBe(201);
    expect(await dueAfter(initialize)).toBe(1);
  });

  it("are asked of the database only for the topics a subscriber hears: a dispatcher alone is sent no transaction's change", async () => {
    // A feed of its own, named on PostgreSQL so that its session's last statement can be read.
    const source = t.store.notifications;
    const named: NotificationSource =
      source.kind === "postgres"
        ? { kind: "postgres", url: `${source.url}${source.url.includes("?") ? "&" : "?"}application_name=paygate_topics_test` }
        : source;
    const feed = new ChangeFeed(named);
    const lastStatement = async (): Promise<string | null> => {
      if (named.kind !== "postgres") return null;
      const rows = await t.db.$queryRaw<{ query: string }[]>`SELECT query FROM pg_stat_activity WHERE application_name = 'paygate_topics_test'`;
      return rows.length === 1 ? (rows[0]?.query ?? null) : `${rows.length} sessions`;
    };
    // A merchant without URL or endpoint: its events fall due for no one.
    const quiet = await t.merchant({ name: "Quiet Stores" });
    const initializeQuietly = async (): Promise<string> => {
      const res = await t.post("/v1/transaction", initializeBody(), bearer(quiet.testPublicKey));
      expect(res.status).toBe(201);
      return res.body.data.id;
    };
    const dispatcherHeard: TransactionChange[] = [];
    const followerHeard: TransactionChange[] = [];
    try {
      feed.subscribe((change) => dispatcherHeard.push(change), ["deliveries-due"]);
      await until(() => dispatcherHeard.some((c) => c.kind === "resync"));
      if (named.kind === "postgres") expect(await lastStatement()).toBe("LISTEN paygate_deliveries_due");

      // A change no subscriber of the feed hears: heard by the gateway's feed (all topics), not by this one.
      const unheard = await initializeQuietly();
      await until(() => changesOf(unheard).length === 1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(dispatcherHeard.filter((c) => c.kind !== "resync")).toEqual([]);

      // A live update arrives: the feed listens to changes from now on, and tells that subscriber to re-read.
      feed.subscribe((change) => followerHeard.push(change), ["changed"]);
      await until(() => followerHeard.some((c) => c.kind === "resync"));
      if (named.kind === "postgres") expect(await lastStatement()).toBe("LISTEN paygate_changes");
      const heardNow = await initializeQuietly();
      await until(() => followerHeard.some((c) => c.kind === "changed" && c.transactionId === heardNow));
      expect(followerHeard.some((c) => c.kind === "changed" && c.transactionId === unheard)).toBe(false);
      // The dispatcher's subscriber still hears neither the change nor a second resync.
      expect(dispatcherHeard).toEqual([{ kind: "resync" }]);
    } finally {
      await feed.close();
    }
  });

  it("travel as a small payload, and a foreign one is ignored", () => {
    const payload = changePayload("3f0e8d4a-6c1b-4e0f-9a57-0d2b3c4e5f60", true);
    expect(Buffer.byteLength(payload)).toBeLessThan(100);
    expect(parsePayload(payload)).toEqual({ kind: "changed", transactionId: "3f0e8d4a-6c1b-4e0f-9a57-0d2b3c4e5f60", eventWritten: true });
    expect(parsePayload("not json")).toBeNull();
    expect(parsePayload(JSON.stringify({ other: 1 }))).toBeNull();
  });
});
