// GET /v1/events and /v1/events/:id (issue 13; Stripe's Events API): the secret key's merchant's webhook
// events of its mode, newest first, with the body exactly as delivered; pruned after 30 days.
import { describe, expect, it } from "vitest";
import { PaymentGateway } from "../../src/core/gateway.ts";
import { Credentials } from "../../src/core/credentials.ts";
import { ExpiryScheduler } from "../../src/jobs/expiry-scheduler.ts";
import { PngQrRenderer } from "../../src/rails/qr/index.ts";
import { HdWalletRails } from "../../src/rails/wallets/index.ts";
import { fixedFeeds, gatewayAndReceiverForFile, type TestGateway } from "../support/gateway.ts";
import type { WebhookReceiver } from "../support/webhook-receiver.ts";
import { initializeBody } from "../support/builders.ts";

let t: TestGateway;
let receiver: WebhookReceiver;
gatewayAndReceiverForFile((started) => {
  ({ t, receiver } = started);
});

const get = async (path: string, key?: string) => {
  const res = await fetch(`${t.url}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  return { status: res.status, body: (await res.json()) as any };
};

const init = async (publicKey: string) => {
  const res = await t.post("/v1/transaction", initializeBody({ amount: "10" }), { authorization: `Bearer ${publicKey}` });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; client_secret: string };
};

const ids = (body: { data: { id: string }[] }) => body.data.map((d) => d.id);

describe("GET /v1/events", () => {
  it("shows each event with the body exactly as delivered, and its delivery", async () => {
    const keys = await t.merchant({ name: "Delivered", testWebhookUrl: receiver.url });
    const { id } = await init(keys.testPublicKey);
    await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, { authorization: `Bearer ${keys.testSecretKey}` });
    const dispatcher = t.dispatcher();
    await dispatcher.drain();
    await dispatcher.drain(); // the second event waits for the first (order per transaction)
    const eventIds = ids((await get("/v1/events", keys.testSecretKey)).body);
    const sent = receiver.received.filter((r) => eventIds.includes(String(r.headers["webhook-id"])));
    expect(sent).toHaveLength(2);

    const page = await get("/v1/events", keys.testSecretKey);
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ status: "success", has_more: false, meta: {} });
    expect(page.body.data.map((e: { type: string }) => e.type)).toEqual(["payment.pending", "payment.initiated"]);
    for (const event of page.body.data) {
      const delivered = sent.find((r) => r.headers["webhook-id"] === event.id);
      expect(delivered).toBeDefined();
      expect(event.data).toEqual(JSON.parse(delivered?.body ?? ""));
      expect(JSON.stringify(event.data)).toBe(delivered?.body);
      expect(event).toMatchObject({
        transaction: id,
        subject: null,
        is_live: false,
        delivery: { state: "delivered", attempts: 1, next_attempt_at: null },
      });
      expect(Date.parse(event.delivery.delivered_at)).toBeGreaterThanOrEqual(Date.parse(event.created_at));
    }

    const one = await get(`/v1/events/${page.body.data[1].id}`, keys.testSecretKey);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ status: "success", data: page.body.data[1], meta: {} });
  });

  it("shows an undelivered event as pending with its next attempt", async () => {
    const keys = await t.merchant({ name: "Waiting", testWebhookUrl: receiver.url });
    await init(keys.testPublicKey);
    const page = await get("/v1/events", keys.testSecretKey);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.data[0]).toMatchObject({ type: "payment.initiated", delivery: { state: "pending", attempts: 0, delivered_at: null } });
    expect(page.body.data[0].delivery.next_attempt_at).toEqual(expect.any(String));
  });

  it("shows a delivery that failed for good, and one skipped for want of a URL", async () => {
    const failing = await t.merchant({ name: "Failing", testWebhookUrl: receiver.url });
    const skipped = await t.merchant({ name: "No URL" });
    await init(failing.testPublicKey);
    await init(skipped.testPublicKey);
    // A mode without a URL: the event is skipped as it is written, before any dispatcher runs.
    const asWritten = (await get("/v1/events", skipped.testSecretKey)).body.data[0];
    expect(asWritten.delivery).toEqual({ state: "skipped", attempts: 0, next_attempt_at: null, delivered_at: null });
    receiver.answer = () => ({ status: 500, body: "down" });
    try {
      await t.dispatcher({ retryScheduleMs: [] }).drain();
    } finally {
      receiver.answer = () => ({ status: 200, body: "ok" });
    }
    const failed = (await get("/v1/events", failing.testSecretKey)).body.data[0];
    expect(failed.delivery).toEqual({ state: "failed", attempts: 1, next_attempt_at: null, delivered_at: null });
    const notSent = (await get("/v1/events", skipped.testSecretKey)).body.data[0];
    expect(notSent.delivery).toEqual({ state: "skipped", attempts: 0, next_attempt_at: null, delivered_at: null });
  });

  it("pages newest first without duplicates or gaps while events are written between pages", async () => {
    const keys = await t.merchant({ name: "Paged" });
    for (let i = 0; i < 5; i++) await init(keys.testPublicKey);
    const all = ids((await get("/v1/events?limit=100", keys.testSecretKey)).body);
    expect(all).toHaveLength(5);
    const first = await get("/v1/events?limit=2", keys.testSecretKey);
    expect(first.body.has_more).toBe(true);
    expect(ids(first.body)).toEqual(all.slice(0, 2));
    await init(keys.testPublicKey);
    const second = await get(`/v1/events?limit=2&starting_after=${first.body.data[1].id}`, keys.testSecretKey);
    expect(ids(second.body)).toEqual(all.slice(2, 4));
    await init(keys.testPublicKey);
    const third = await get(`/v1/events?limit=2&starting_after=${second.body.data[1].id}`, keys.testSecretKey);
    expect(third.body.has_more).toBe(false);
    expect(ids(third.body)).toEqual(all.slice(4));
  });

  it("filters by type and by transaction", async () => {
    const keys = await t.merchant({ name: "Filtered" });
    const a = await init(keys.testPublicKey);
    const b = await init(keys.testPublicKey);
    await t.post(`/v1/transaction/${a.id}/pay`, { currency_id: "4" }, { authorization: `Bearer ${keys.testSecretKey}` });
    const pending = await get("/v1/events?type=payment.pending", keys.testSecretKey);
    expect(pending.body.data.map((e: { transaction: string; type: string }) => [e.transaction, e.type])).toEqual([[a.id, "payment.pending"]]);
    const ofB = await get(`/v1/events?transaction=${b.id.toUpperCase()}`, keys.testSecretKey);
    expect(ofB.body.data.map((e: { transaction: string; type: string }) => [e.transaction, e.type])).toEqual([[b.id, "payment.initiated"]]);
    const both = await get(`/v1/events?transaction=${a.id}&type=payment.initiated`, keys.testSecretKey);
    expect(both.body.data).toHaveLength(1);
  });

  it("shows only the key's merchant and mode", async () => {
    const keys = await t.merchant({ name: "Own events", kyb: "VERIFIED" });
    const other = await t.merchant({ name: "Other events" });
    const mine = await init(keys.testPublicKey);
    const theirs = await init(other.testPublicKey);
    const live = await init(keys.livePublicKey);
    const test = await get("/v1/events", keys.testSecretKey);
    expect(test.body.data.map((e: { transaction: string }) => e.transaction)).toEqual([mine.id]);
    const liveEvents = await get("/v1/events", keys.liveSecretKey);
    expect(liveEvents.body.data.map((e: { transaction: string; is_live: boolean }) => [e.transaction, e.is_live])).toEqual([[live.id, true]]);
    const theirEvent = (await get("/v1/events", other.testSecretKey)).body.data[0];
    expect(theirEvent.transaction).toBe(theirs.id);
    for (const [path, key] of [
      [`/v1/events/${theirEvent.id}`, keys.testSecretKey],
      [`/v1/events/${liveEvents.body.data[0].id}`, keys.testSecretKey],
    ] as const) {
      const res = await get(path, key);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        status: "error",
        code: "not_found",
        reason: "event_not_found",
        message: `No event with id '${path.slice(11)}'`,
        errors: [],
      });
    }
    const cursor = await get(`/v1/events?starting_after=${theirEvent.id}`, keys.testSecretKey);
    expect(cursor.status).toBe(400);
    expect(cursor.body).toMatchObject({ code: "validation_error", reason: "unknown_cursor", errors: [{ field: "starting_after" }] });
    expect((await get(`/v1/events?transaction=${theirs.id}`, keys.testSecretKey)).body.data).toEqual([]);
  });
});

describe("GET /v1/events: refusals", () => {
  it("refuses every credential but a secret key with 401, on the list and on one event", async () => {
    const keys = await t.merchant({ name: "Refused events" });
    const { client_secret } = await init(keys.testPublicKey);
    for (const path of ["/v1/events", "/v1/events/evt_abc"]) {
      for (const [key, message] of [
        [keys.testPublicKey, "Invalid Secret Key: this operation needs a secret key (sec_…)"],
        [client_secret, "Invalid Secret Key: this operation needs a secret key (sec_…)"],
        [undefined, "Missing secret key: send Authorization: Bearer sec_…"],
      ] as const) {
        const res = await get(path, key);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ status: "error", code: "unauthenticated", reason: "invalid_secret_key", message, errors: [] });
      }
    }
  });

  it("answers 404 for an unknown or malformed event id", async () => {
    const keys = await t.merchant({ name: "Unknown event" });
    for (const id of ["evt_doesnotexist", "nope"]) {
      const res = await get(`/v1/events/${id}`, keys.testSecretKey);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ status: "error", code: "not_found", reason: "event_not_found", message: `No event with id '${id}'`, errors: [] });
    }
  });

  it.each([
    ["limit=0", "limit", "must be an integer from 1 to 100"],
    ["limit=1&limit=1", "limit", "must be given once, as a single value"],
    [
      "type=payment.refunded",
      "type",
      "must be one of payment.initiated, payment.pending, payment.received, payment.abandoned, payment.reversed, refund.created, refund.succeeded, refund.canceled, settlement.consolidation.seen, settlement.consolidation.confirmed, settlement.consolidation.canceled, settlement.flush.confirmed, settlement.flush.failed, settlement.flush.reorganized, settlement.unmatched_receipt.created, settlement.sweep.recorded, invoice.finalized, invoice.voided, invoice.paid, invoice.partially_paid, invoice.overdue",
    ],
    ["transaction=bq_123", "transaction", "must be a transaction id (a UUID)"],
    ["starting_after=123", "starting_after", "must be the id (evt_…) of an event of the previous page"],
    ["status=PENDING", "status", "is not a parameter of this list"],
  ])("answers 400 naming the parameter for ?%s", async (query, field, message) => {
    const keys = await t.merchant({ name: "Bad query" });
    const res = await get(`/v1/events?${query}`, keys.testSecretKey);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      status: "error",
      code: "validation_error",
      reason: "invalid_list_parameter",
      message: `Invalid query parameter: ${field} ${message}`,
      errors: [{ field, message }],
    });
  });
});

describe("retention", () => {
  /** This gateway's database and keys, with the clock moved on by `ms`. */
  const later = (ms: number) =>
    new PaymentGateway({
      stores: t.stores,
      credentials: new Credentials(t.stores.credentials, { secrets: t.secrets }),
      prices: fixedFeeds(),
      rails: new HdWalletRails(),
      qr: new PngQrRenderer(),
      clock: { now: () => new Date(Date.now() + ms) },
      secrets: t.secrets,
    });
  const DAY = 24 * 3_600_000;

  it("keeps events 30 days; the expiry job deletes older ones", async () => {
    const keys = await t.merchant({ name: "Retained" });
    const { id } = await init(keys.testPublicKey);
    const expired = await t.post(`/v1/test_helpers/transaction/${id}/expire`, {}, { authorization: `Bearer ${keys.testSecretKey}` });
    expect(expired.body.data.status).toBe("ABANDONED");
    const events = ids((await get("/v1/events", keys.testSecretKey)).body);
    expect(events).toHaveLength(2);

    await new ExpiryScheduler(later(29 * DAY), 1000).tick();
    expect(ids((await get("/v1/events", keys.testSecretKey)).body)).toEqual(events);

    await new ExpiryScheduler(later(30 * DAY + 60_000), 1000).tick();
    expect((await get("/v1/events", keys.testSecretKey)).body.data).toEqual([]);
    const gone = await get(`/v1/events/${events[0]}`, keys.testSecretKey);
    expect(gone.status).toBe(404);
    expect(gone.body.message).toBe(`No event with id '${events[0]}'`);
    // The transaction stays: only its events are gone.
    expect((await get(`/v1/transaction/${id}`, keys.testSecretKey)).status).toBe(200);
  });
});
