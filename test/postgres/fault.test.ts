// PostgreSQL only (included when DATABASE_URL is set; an embedded PGlite cannot go away and come
// back): the database goes away in the middle of a load of initializes and initiates, refusing
// connections for a few seconds. Meanwhile the API answers 503 database_unavailable; afterwards it
// recovers by itself, no transaction is half-moved, and every event is written and delivered.
import { describe, expect, it } from "vitest";
import { gatewayAndReceiverForFile, type TestGateway } from "../support/gateway.ts";
import { takeDatabaseAway } from "../support/outage.ts";
import type { WebhookReceiver } from "../support/webhook-receiver.ts";
import { initializeBody } from "../support/builders.ts";

let t: TestGateway;
let receiver: WebhookReceiver;
gatewayAndReceiverForFile((started) => {
  ({ t, receiver } = started);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the database goes away under load", () => {
  it("answers 503 meanwhile, recovers by itself, and loses or half-moves nothing", async () => {
    const keys = await t.merchant({ testWebhookUrl: receiver.url });
    const dispatcher = t.dispatcher({ retryScheduleMs: [200, 200, 200, 200, 200] });
    dispatcher.start();

    const statuses: number[] = [];
    const unexpected: string[] = [];
    let stop = false;
    const call = async (path: string, body: unknown, key: string) => {
      const res = await t.post(path, body, { authorization: `Bearer ${key}` });
      statuses.push(res.status);
      const fine = res.status === 200 || res.status === 201 || (res.status === 503 && res.body.code === "database_unavailable");
      if (!fine) unexpected.push(`${path} ${res.status} ${JSON.stringify(res.body)}`);
      return res;
    };
    const client = async () => {
      while (!stop) {
        const init = await call("/v1/transaction", initializeBody({ amount: "12.50" }), keys.testPublicKey);
        if (init.status === 201) await call(`/v1/transaction/${init.body.data.id}/pay`, { currency_id: "4" }, keys.testSecretKey);
      }
    };
    const clients = Array.from({ length: 6 }, client);

    await sleep(800);
    const outage = await takeDatabaseAway(t.store);
    await sleep(2500);
    await outage.restore?.();
    await sleep(2000);
    stop = true;
    await Promise.all(clients);

    expect(unexpected).toEqual([]);
    const during = statuses.filter((s) => s === 503).length;
    expect(during).toBeGreaterThan(0);
    // Recovered by itself: the last requests succeeded.
    expect(statuses.slice(-10).every((s) => s !== 503)).toBe(true);

    // Nothing half-moved: INITIATED has no payment fields; PENDING has all of them, one index each.
    const rows = await t.db.transaction.findMany({ where: { merchantId: keys.id } });
    for (const row of rows) {
      if (row.status === "INITIATED") {
        expect([row.paymentAddress, row.paymentAmount, row.walletId, row.derivationIndex, row.quoteRate]).toEqual([null, null, null, null, null]);
      } else {
        expect(row.status).toBe("PENDING");
        expect(row.paymentAddress).not.toBeNull();
        expect(row.paymentAmount).not.toBeNull();
      }
    }
    const pending = rows.filter((row) => row.status === "PENDING");
    const wallet = await t.db.wallet.findFirstOrThrow({ where: { merchantId: keys.id, currencyId: 4, isLive: false } });
    expect(new Set(pending.map((row) => row.derivationIndex)).size).toBe(pending.length);
    // No gap: every index below the next is a pending transaction's, or unused in one of the wallet's
    // slots (leased by a request the outage cut short, free again when its lease runs out).
    const unused = await t.db.walletIndexSlot.findMany({ where: { walletId: wallet.id, derivationIndex: { not: null } } });
    const indexes = [...pending.map((row) => row.derivationIndex), ...unused.map((s) => s.derivationIndex)];
    expect(indexes.sort((x, y) => (x ?? 0) - (y ?? 0))).toEqual(Array.from({ length: wallet.nextIndex }, (_, i) => i));

    // Every state change has its event, and every event reaches the receiver.
    const events = await t.db.webhookEvent.findMany({ where: { merchantId: keys.id } });
    expect(events.filter((e) => e.type === "payment.initiated")).toHaveLength(rows.length);
    expect(events.filter((e) => e.type === "payment.pending")).toHaveLength(pending.length);
    await receiver.waitForIds(
      events.map((e) => e.id),
      30_000,
    );
    await dispatcher.stop();
    expect(new Set(receiver.ids())).toEqual(new Set(events.map((e) => e.id)));
  }, 60_000);
});
