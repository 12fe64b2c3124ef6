// The dashboard API's transactions (/dashboard/api/transactions…, /events/:id/redeliver) over HTTP
// with a signed-in session: the JSON list and detail, the streamed CSV and redelivery, each refusal
// with its status and message.
import { randomUUID } from "node:crypto";
import { parse } from "csv-parse/sync";
import { afterEach, describe, expect, it } from "vitest";
import { EXPORT_CSV_HEADER } from "../support/csv-export.ts";
import { dashboardFetch, signedInAs, type DashboardClient } from "../support/dashboard.ts";
import { gatewayAndReceiverForFile, type TestGateway } from "../support/gateway.ts";
import type { WebhookReceiver } from "../support/webhook-receiver.ts";
import { initializeBody } from "../support/builders.ts";

let t: TestGateway;
let receiver: WebhookReceiver;
gatewayAndReceiverForFile((started) => {
  ({ t, receiver } = started);
});
afterEach(() => {
  receiver.answer = () => ({ status: 200, body: "ok" });
});

const API = "/dashboard/api";

const init = async (publicKey: string, email = "ada@example.com") => {
  const res = await t.post("/v1/transaction", initializeBody({ customer: { email }, amount: "10" }), { authorization: `Bearer ${publicKey}` });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; reference: string };
};

const csv = async (client: DashboardClient, query: string) => {
  const res = await fetch(`${t.url}${API}/transactions.csv${query}`, { headers: { cookie: client.cookie } });
  return { res, text: await res.text() };
};

describe("the list and one transaction", () => {
  it("lists the merchant's transactions of the mode asked, filtered and paged", async () => {
    const keys = await t.merchant({ name: "Routes list", kyb: "VERIFIED" });
    const a = await init(keys.testPublicKey, "ada@example.com");
    const b = await init(keys.testPublicKey, "bo@example.com");
    const live = await init(keys.livePublicKey);
    const viewer = await signedInAs(t, keys.id, "viewer");

    const page = await viewer.get(`${API}/transactions?limit=1`);
    expect(page.status).toBe(200);
    expect(page.body.data.has_more).toBe(true);
    expect(page.body.data.transactions).toEqual([
      {
        id: b.id,
        reference: b.reference,
        created_at: expect.any(String),
        status: "INITIATED",
        is_live: false,
        amount: "10",
        currency: "USD",
        payment_amount: null,
        payment_currency: null,
        amount_paid: null,
        customer_email: "bo@example.com",
        customer_name: null,
        refunded: null,
        refunds_pending: 0,
      },
    ]);
    const next = await viewer.get(`${API}/transactions?limit=1&starting_after=${b.id}&mode=test`);
    expect(next.body.data.transactions.map((x: { id: string }) => x.id)).toEqual([a.id]);
    const search = await viewer.get(`${API}/transactions?q=ADA%40example.com`);
    expect(search.body.data.transactions.map((x: { id: string }) => x.id)).toEqual([a.id]);
    const liveList = await viewer.get(`${API}/transactions?mode=live`);
    expect(liveList.body.data.transactions.map((x: { id: string }) => x.id)).toEqual([live.id]);
  });

  it("refuses a bad mode or filter with 400 naming it, and a request without a session with 401", async () => {
    const keys = await t.merchant({ name: "Routes refusals" });
    const owner = await signedInAs(t, keys.id, "owner");
    const mode = await owner.get(`${API}/transactions?mode=production`);
    expect(mode.status).toBe(400);
    expect(mode.body).toMatchObject({ code: "validation_error", message: "Invalid query parameter: mode must be test or live" });
    const status = await owner.get(`${API}/transactions?status=PAID`);
    expect(status.status).toBe(400);
    expect(status.body.message).toBe("Invalid query parameter: status must be one of INITIATED, PENDING, SUCCESSFUL, ABANDONED");
    const anonymous = await dashboardFetch(t, "GET", `${API}/transactions`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ status: "error", code: "unauthenticated" });
    const csvAnonymous = await dashboardFetch(t, "GET", `${API}/transactions.csv`);
    expect(csvAnonymous.status).toBe(401);
    // A key never reaches the dashboard.
    const keyed = await dashboardFetch(t, "GET", `${API}/transactions`, undefined, {
      authorization: `Bearer ${keys.testSecretKey}`,
      cookie: owner.cookie,
    });
    expect(keyed.status).toBe(401);
  });

  it("shows a transaction with its quote, receipts and events with attempts; 404 for another merchant's", async () => {
    const keys = await t.merchant({ name: "Routes detail", testWebhookUrl: receiver.url });
    const other = await t.merchant({ name: "Routes detail other" });
    const { id } = await init(keys.testPublicKey);
    const auth = { authorization: `Bearer ${keys.testSecretKey}` };
    await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, auth);
    await t.post(`/v1/test_helpers/transaction/${id}/payment`, {}, auth);
    receiver.answer = () => ({ status: 500, body: "down for maintenance" });
    await t.dispatcher({ retryScheduleMs: [] }).drain();

    const viewer = await signedInAs(t, keys.id, "viewer");
    const detail = await viewer.get(`${API}/transactions/${id}`);
    expect(detail.status).toBe(200);
    const data = detail.body.data;
    expect(data).toMatchObject({ id, status: "SUCCESSFUL", payment_currency: "BTC", payment: { state: expect.any(String) } });
    expect(data.quote).toEqual({
      rate: expect.any(String),
      market_rate: expect.any(String),
      spread_percent: "0",
      source: expect.any(String),
      quoted_at: expect.any(String),
    });
    expect(data.receipts).toEqual([expect.objectContaining({ amount: data.payment_amount, status: "CONFIRMED" })]);
    expect(data.events.map((e: { type: string }) => e.type)).toEqual(["payment.initiated", "payment.pending", "payment.received"]);
    expect(data.events[0]).toMatchObject({ state: "FAILED", attempt_count: 1 });
    expect(data.events[0].attempts).toEqual([
      {
        attempted_at: expect.any(String),
        url: receiver.url,
        status_code: 500,
        latency_ms: expect.any(Number),
        // The receiver is on 127.0.0.1: a private address's answer is never kept nor shown.
        response_body: null,
        response_body_withheld: true,
        error: null,
        succeeded: false,
        trigger: "schedule",
      },
    ]);

    const stranger = await signedInAs(t, other.id, "owner");
    const refused = await stranger.get(`${API}/transactions/${id}`);
    expect(refused.status).toBe(404);
    expect(refused.body).toMatchObject({ code: "not_found", reason: "transaction_not_found", message: `No transaction with id '${id}'` });
  });
});

describe("redelivery", () => {
  it("redelivers for a developer (with the CSRF token), refuses a viewer with 403 and a missing token", async () => {
    const keys = await t.merchant({ name: "Routes redeliver", testWebhookUrl: receiver.url });
    const { id } = await init(keys.testPublicKey);
    receiver.answer = () => ({ status: 500 });
    await t.dispatcher({ retryScheduleMs: [] }).drain();
    const developer = await signedInAs(t, keys.id, "developer");
    const viewer = await signedInAs(t, keys.id, "viewer");
    const eventId: string = (await developer.get(`${API}/transactions/${id}`)).body.data.events[0].id;
    const sent = receiver.received.length;

    const forbidden = await viewer.post(`${API}/events/${eventId}/redeliver`);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({
      code: "forbidden",
      reason: "role_forbidden",
      message: "Your role (viewer) cannot manage webhooks; ask an owner of this merchant for the owner or developer role",
    });
    const noToken = await developer.request("POST", `${API}/events/${eventId}/redeliver`, {}, { "x-csrf-token": "" });
    expect(noToken.status).toBe(403);
    expect(receiver.received).toHaveLength(sent);

    receiver.answer = () => ({ status: 200, body: "ok" });
    const done = await developer.post(`${API}/events/${eventId}/redeliver`);
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({
      event_id: eventId,
      type: "payment.initiated",
      state: "DELIVERED",
      attempt: { status_code: 200, trigger: "manual" },
    });
    expect(receiver.received).toHaveLength(sent + 1);

    const unknown = await developer.post(`${API}/events/evt_nothing/redeliver`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ reason: "event_not_found", message: "No event with id 'evt_nothing'" });
  });
});

describe("the CSV download", () => {
  it("streams the filtered set as an attachment, over several database pages, newest first", async () => {
    const keys = await t.merchant({ name: "Routes csv" });
    // More than two export pages (500 each), written directly: initialize would take minutes.
    const base = Date.parse("2026-10-01T00:00:00Z");
    const rows = Array.from({ length: 1203 }, (_, i) => ({
      id: randomUUID(),
      reference: `bq_csv${i}`,
      merchantId: keys.id,
      customerEmail: i % 2 === 0 ? "even@example.com" : "odd@example.com",
      customerEmailKey: i % 2 === 0 ? "even@example.com" : "odd@example.com",
      isLive: false,
      initializedAmount: "1.5",
      initializedCurrencyId: 1,
      // Pairs share a millisecond: the keyset cursor orders them by id.
      createdAt: new Date(base + Math.floor(i / 2) * 1000),
    }));
    await t.db.transaction.createManyAndReturn({ data: rows, select: { id: true } });
    const owner = await signedInAs(t, keys.id, "owner");

    const { res, text } = await csv(owner, "?mode=test");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="transactions-test-\d{4}-\d{2}-\d{2}\.csv"$/);
    const records = parse(text) as string[][];
    expect(records[0]).toEqual(EXPORT_CSV_HEADER);
    const expected = [...rows].sort((x, y) => y.createdAt.getTime() - x.createdAt.getTime() || (y.id < x.id ? -1 : 1)).map((r) => r.id);
    expect(records.slice(1).map((r) => r[0])).toEqual(expected);

    const odd = parse((await csv(owner, "?q=odd%40example.com")).text) as string[][];
    expect(odd).toHaveLength(1 + 601);
    expect(new Set(odd.slice(1).map((r) => r[EXPORT_CSV_HEADER.indexOf("customer_email")]))).toEqual(new Set(["odd@example.com"]));
  });

  it("answers a bad filter with a 400 JSON error, not a file", async () => {
    const keys = await t.merchant({ name: "Routes csv refusal" });
    const owner = await signedInAs(t, keys.id, "viewer");
    const { res, text } = await csv(owner, "?created%5Bgte%5D=yesterday");
    expect(res.status).toBe(400);
    expect(res.headers.get("content-disposition")).toBeNull();
    expect(JSON.parse(text)).toMatchObject({
      code: "validation_error",
      message: "Invalid query parameter: created[gte] must be an ISO 8601 date-time with a time zone, e.g. 2026-11-01T00:00:00Z",
    });
  });
});
