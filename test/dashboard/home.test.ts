// The dashboard home's figures (src/core/dashboard/home.ts over src/db/stores/home-figures.ts), on
// the test's database (PGlite, or PostgreSQL with DATABASE_URL): exact decimal sums per fiat
// currency and UTC day, the 30-day window's edges, zero-filled days and statuses, coins and the share
// paid, failing webhook endpoints (given up and retrying), and nothing of another mode or merchant.
import { Decimal } from "decimal.js";
import { describe, expect, it } from "vitest";
import { HOME_DAYS } from "../../src/core/dashboard/home.ts";
import { systemClock } from "../../src/core/gateway.ts";
import { initializeBody } from "../support/builders.ts";
import { freshActor } from "../support/dashboard.ts";
import { makeFirstDeliveriesDue } from "../support/first-delivery.ts";
import { gatewayAndReceiverForFile, type TestGateway } from "../support/gateway.ts";
import type { WebhookReceiver } from "../support/webhook-receiver.ts";

let t: TestGateway;
let receiver: WebhookReceiver;
gatewayAndReceiverForFile((started) => {
  ({ t, receiver } = started);
});

type Keys = Awaited<ReturnType<TestGateway["merchant"]>>;
const DAY_MS = 86_400_000;
const utcDay = (time: number) => new Date(time).toISOString().slice(0, 10);

async function order(keys: Keys, currency: string, amount: string, coin: string | null, paid: boolean): Promise<string> {
  const res = await t.post("/v1/transaction", initializeBody({ currency, amount }), { authorization: `Bearer ${keys.testPublicKey}` });
  expect(res.status).toBe(201);
  const id = res.body.data.id as string;
  const auth = { authorization: `Bearer ${keys.testSecretKey}` };
  if (coin) expect((await t.post(`/v1/transaction/${id}/pay`, { currency_id: coin }, auth)).status).toBe(200);
  if (paid) expect((await t.post(`/v1/test_helpers/transaction/${id}/payment`, {}, auth)).status).toBe(200);
  return id;
}

describe("the dashboard home's figures", () => {
  it("sums exactly per currency and UTC day over 30 days, edges included, and counts statuses, coins and the share paid", async () => {
    const keys = await t.merchant({ name: "Home figures" });
    const other = await t.merchant({ name: "Someone else" });
    await order(keys, "USD", "0.10", "4", true);
    await order(keys, "USD", "0.20", "6", true);
    await order(keys, "NGN", "1000.05", "4", true);
    await order(keys, "USD", "5", "4", false);
    await order(keys, "USD", "9", null, false);
    await order(other, "USD", "77", "4", true);
    // The first day of the window from its first millisecond; the millisecond before is outside.
    const today = Date.parse(`${utcDay(Date.now())}T00:00:00Z`);
    const first = today - (HOME_DAYS - 1) * DAY_MS;
    const edge = await order(keys, "USD", "1.01", "4", true);
    const before = await order(keys, "USD", "50", "4", true);
    await t.db.transaction.update({ where: { id: edge }, data: { createdAt: new Date(first) } });
    await t.db.transaction.update({ where: { id: before }, data: { createdAt: new Date(first - 1) } });

    const home = await t.gateway.payments.dashboardHome(t.gateway.access.dashboard(freshActor(keys.id, "viewer", systemClock), false));
    expect(home.from).toBe(utcDay(first));
    expect(home.to).toBe(utcDay(today));
    expect(home.volume.map((v) => [v.currency, v.total, v.payments])).toEqual([
      ["NGN", "1000.05", 1],
      ["USD", "1.31", 3],
    ]);
    const usd = home.volume[1];
    expect(usd?.days).toHaveLength(HOME_DAYS);
    expect(usd?.days[0]).toEqual({ day: utcDay(first), amount: "1.01", payments: 1 });
    expect(usd?.days[HOME_DAYS - 1]).toEqual({ day: utcDay(today), amount: "0.3", payments: 2 });
    expect(usd?.days.slice(1, HOME_DAYS - 1).every((d) => d.amount === "0" && d.payments === 0)).toBe(true);
    expect(home.statuses).toEqual([
      { status: "INITIATED", count: 1 },
      { status: "PENDING", count: 1 },
      { status: "SUCCESSFUL", count: 4 },
      { status: "ABANDONED", count: 0 },
    ]);
    expect(home.coins.map((c) => [c.currency, c.checkouts, c.payments])).toEqual([
      ["BTC", 4, 3],
      ["ETH", 1, 1],
    ]);
    // What the coins paid: the sum of the transactions' amount_paid, exactly.
    const rows = await t.db.transaction.findMany({
      where: { merchantId: keys.id, status: "SUCCESSFUL", paymentCurrencyId: 4, createdAt: { gte: new Date(first) } },
      select: { amountPaid: true },
    });
    const btc = rows.reduce((sum, r) => sum.plus(r.amountPaid?.toString() ?? "0"), new Decimal(0));
    expect(home.coins[0]?.amountPaid).toBe(btc.toFixed());
    expect(home.conversion).toEqual({ initiated: 5, paid: 4, share: "80.0" });

    // Live mode is another business: nothing there.
    const live = await t.gateway.payments.dashboardHome(t.gateway.access.dashboard(freshActor(keys.id, "viewer", systemClock), true));
    expect(live.volume).toEqual([]);
    expect(live.statuses.every((s) => s.count === 0)).toBe(true);
    expect(live.coins).toEqual([]);
    expect(live.conversion).toEqual({ initiated: 0, paid: 0, share: null });
    expect(live.failingEndpoints).toEqual([]);
  });

  it("names the endpoints whose deliveries still fail: given up, and waiting for a retry; delivered ones are not", async () => {
    const keys = await t.merchant({ name: "Failing hooks", testWebhookUrl: receiver.url });
    receiver.answer = () => ({ status: 500, body: "no" });
    await order(keys, "USD", "1", null, false);
    await t.dispatcher({ retryScheduleMs: [] }).drain(); // given up: FAILED
    await order(keys, "USD", "2", null, false);
    await t.dispatcher({ retryScheduleMs: [3_600_000] }).drain(); // failed once, retried in an hour: PENDING
    const home = await t.gateway.payments.dashboardHome(t.gateway.access.dashboard(freshActor(keys.id, "owner", systemClock), false));
    expect(home.failingEndpoints).toHaveLength(1);
    const [endpoint] = home.failingEndpoints;
    expect(endpoint).toMatchObject({ url: receiver.url, failed: 1, retrying: 1, lastStatusCode: 500 });
    expect(endpoint?.lastAttemptAt).toBeInstanceOf(Date);

    // Once the receiver answers and the retry is sent, only the given-up event is left.
    receiver.answer = () => ({ status: 200, body: "ok" });
    await makeFirstDeliveriesDue(t.db, { event: { merchantId: keys.id }, state: "PENDING" });
    await t.dispatcher({ retryScheduleMs: [3_600_000] }).drain();
    const after = await t.gateway.payments.dashboardHome(t.gateway.access.dashboard(freshActor(keys.id, "owner", systemClock), false));
    expect(after.failingEndpoints.map((f) => [f.failed, f.retrying])).toEqual([[1, 0]]);
  });

  it("names a failing endpoint added through the API (issue 27), with its own deliveries' counts", async () => {
    // No webhook URL of its own: the only receiver is an endpoint created through /v1/webhook_endpoints.
    const keys = await t.merchant({ name: "Second endpoint fails" });
    const created = await t.post(
      "/v1/webhook_endpoints",
      { url: receiver.url, enabled_events: ["payment.initiated"] },
      {
        authorization: `Bearer ${keys.testSecretKey}`,
      },
    );
    expect(created.status).toBe(201);
    receiver.answer = () => ({ status: 503, body: "busy" });
    await order(keys, "USD", "1", null, false);
    await t.dispatcher({ retryScheduleMs: [] }).drain(); // given up: FAILED
    await order(keys, "USD", "2", null, false);
    await t.dispatcher({ retryScheduleMs: [3_600_000] }).drain(); // failed once, retried in an hour: PENDING
    const home = await t.gateway.payments.dashboardHome(t.gateway.access.dashboard(freshActor(keys.id, "owner", systemClock), false));
    expect(home.failingEndpoints).toEqual([
      { url: receiver.url, failed: 1, retrying: 1, lastAttemptAt: expect.any(Date), lastStatusCode: 503, lastError: null },
    ]);
  });
});
