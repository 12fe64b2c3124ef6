// A real receiver that answers 429 or 503 with Retry-After: the dispatcher reschedules the delivery no
// earlier than asked and at most 24 hours ahead (src/core/webhooks/deliveries.ts), records what was asked,
// says it in its log, and loses nothing whatever the header holds.
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_RETRY_AFTER_MS } from "../../src/core/webhooks/deliveries.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { manualClock } from "../support/clock.ts";
import { initializeBody } from "../support/builders.ts";
import { useRecordingServers } from "../support/recording-server.ts";
import { firstDeliveryOf } from "../support/first-delivery.ts";

let t: TestGateway;
const serve = useRecordingServers();

beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

const MINUTE = 60_000;
// random 0.5: no jitter, so the schedule's first retry is exactly a minute after the attempt.
const SCHEDULE = [MINUTE, 60 * MINUTE];

/** A merchant whose receiver answers each request with `answers[i]` (the last one again after them), and one event for it. */
async function eventFor(answers: Array<(res: ServerResponse) => void>, start?: number) {
  const server = await serve((res) => answers[Math.min(server.requests.length - 1, answers.length - 1)]!(res), "/webhooks");
  const keys = await t.merchant({ name: "Busy Receiver Ltd", testWebhookUrl: server.url });
  const res = await t.post("/v1/transaction", initializeBody({ amount: "25" }), { authorization: `Bearer ${keys.testPublicKey}` });
  expect(res.status).toBe(201);
  // The clock starts once the event is written (so it is due), or at `start`, later.
  const clock = manualClock(start ?? Date.now());
  const log: string[] = [];
  const dispatcher = t.dispatcher({ retryScheduleMs: SCHEDULE }, { clock, random: () => 0.5, log: (line) => log.push(line) });
  const stored = () => firstDeliveryOf(t.db, { transactionId: res.body.data.id });
  return { server, clock, log, dispatcher, stored };
}

const wait = (status: number, retryAfter: string) => (res: ServerResponse) => res.writeHead(status, { "retry-after": retryAfter }).end("busy");
const ok = (res: ServerResponse) => res.writeHead(200).end("ok");

describe("a receiver asking for time with Retry-After", () => {
  it("gets it: 429 with delta-seconds holds the delivery until then, and it is delivered after", async () => {
    const { server, clock, log, dispatcher, stored } = await eventFor([wait(429, "7200"), ok]);
    const start = clock.now().getTime();
    const [first] = await dispatcher.drain();
    expect(first).toMatchObject({ outcome: { state: "PENDING", nextAttemptAt: new Date(start + 7_200_000) } });
    const afterFirst = await stored();
    expect(afterFirst).toMatchObject({ state: "PENDING", attemptCount: 1, nextAttemptAt: new Date(start + 7_200_000) });
    expect(afterFirst.attempts).toEqual([expect.objectContaining({ statusCode: 429, succeeded: false, retryAfter: "7200" })]);
    expect(log).toEqual([
      expect.stringContaining(`failed (HTTP 429 asking to retry after "7200"); retry at ${new Date(start + 7_200_000).toISOString()}`),
    ]);

    // The schedule alone would have tried again after a minute: not yet.
    clock.advance(MINUTE);
    expect(await dispatcher.drain()).toEqual([]);
    clock.advance(7_200_000 - MINUTE);
    const [second] = await dispatcher.drain();
    expect(second).toMatchObject({ outcome: { state: "DELIVERED" } });
    expect(server.requests).toHaveLength(2);
    const final = await stored();
    expect(final).toMatchObject({ state: "DELIVERED", attemptCount: 2 });
    expect(final.attempts[1]).toMatchObject({ statusCode: 200, succeeded: true, retryAfter: null });
  });

  it("gets it from a 503 with an HTTP-date, bounded to 24 hours when the date is years ahead", async () => {
    // A whole second, after the event is written: the HTTP-date names the time 90 minutes later exactly.
    const start = (Math.floor(Date.now() / 1000) + 3600) * 1000;
    const { dispatcher, stored } = await eventFor([wait(503, new Date(start + 90 * MINUTE).toUTCString())], start);
    await dispatcher.drain();
    expect((await stored()).nextAttemptAt).toEqual(new Date(start + 90 * MINUTE));

    const yearsAhead = await eventFor([wait(503, "Fri, 01 Jan 2100 00:00:00 GMT")]);
    await yearsAhead.dispatcher.drain();
    const held = await yearsAhead.stored();
    expect(held.nextAttemptAt).toEqual(new Date(yearsAhead.clock.now().getTime() + MAX_RETRY_AFTER_MS));
    expect(held.attempts[0]).toMatchObject({ statusCode: 503, retryAfter: "Fri, 01 Jan 2100 00:00:00 GMT" });
  });

  it("never brings an attempt forward nor crashes: past, negative, non-numeric and oversized values keep the schedule", async () => {
    // Huge digits that fit in 64 characters are "as late as allowed": the 24-hour bound; anything longer is not read.
    const hostile: Array<[string, number]> = [
      ["0", MINUTE],
      ["-3600", MINUTE],
      ["soon", MINUTE],
      ["Sun, 06 Nov 1994 08:49:37 GMT", MINUTE],
      ["9".repeat(64), MAX_RETRY_AFTER_MS],
      ["9".repeat(300), MINUTE],
      ["x".repeat(4000), MINUTE],
    ];
    for (const [value, expected] of hostile) {
      const { clock, dispatcher, stored } = await eventFor([wait(429, value)]);
      const [report] = await dispatcher.drain();
      const event = await stored();
      expect(report?.outcome, value.slice(0, 20)).toEqual({ state: "PENDING", nextAttemptAt: new Date(clock.now().getTime() + expected) });
      expect(event).toMatchObject({ state: "PENDING", attemptCount: 1 });
      // What was asked is kept, cut to 64 characters.
      expect(event.attempts[0]!.retryAfter).toBe(value.slice(0, 64));
    }
  });

  it("adds no attempt: when the schedule is spent the event fails for good, and redelivery still works", async () => {
    const { server, clock, dispatcher, stored } = await eventFor([wait(429, "60"), wait(429, "60"), wait(429, "60"), ok]);
    for (let i = 0; i < 3; i++) {
      await dispatcher.drain();
      clock.advance(2 * 60 * MINUTE);
    }
    expect(await stored()).toMatchObject({ state: "FAILED", attemptCount: 3 });
    expect(server.requests).toHaveLength(3);
    const redelivered = await dispatcher.redeliver((await stored()).eventId);
    expect(redelivered).toMatchObject({ outcome: { state: "DELIVERED" } });
  });
});
