// The delivery rules the dispatcher follows (src/core/webhooks/deliveries.ts): what an attempt's result
// means for its delivery, on the configured schedule with its jitter.
import { describe, expect, it } from "vitest";
import { type DeliveryQueue, JITTER, nextAttemptAt, WebhookDeliveries } from "../../src/core/webhooks/deliveries.ts";

const now = new Date("2026-11-26T10:00:00.000Z");
const clock = { now: () => now };
// outcomeOf reads no store: none of its methods is called here.
const noStore = {} as DeliveryQueue;

describe("the webhook retry policy", () => {
  it("delivers on success whatever the attempts so far", () => {
    const deliveries = new WebhookDeliveries(noStore, clock, { scheduleMs: [] });
    expect(deliveries.outcomeOf({ attemptCount: 7 }, true)).toEqual({ state: "DELIVERED", at: now });
  });

  it("retries a failure after the schedule's next wait, then fails for good when it is spent", () => {
    const deliveries = new WebhookDeliveries(noStore, clock, { scheduleMs: [60_000, 300_000], random: () => 0.5 });
    expect(deliveries.outcomeOf({ attemptCount: 0 }, false)).toEqual({ state: "PENDING", nextAttemptAt: new Date(now.getTime() + 60_000) });
    expect(deliveries.outcomeOf({ attemptCount: 1 }, false)).toEqual({ state: "PENDING", nextAttemptAt: new Date(now.getTime() + 300_000) });
    expect(deliveries.outcomeOf({ attemptCount: 2 }, false)).toEqual({ state: "FAILED" });
  });

  it("spreads each wait by up to a fifth either way", () => {
    expect(nextAttemptAt(now, 1, [100_000], () => 0)?.getTime()).toBe(now.getTime() + 100_000 * (1 - JITTER));
    expect(nextAttemptAt(now, 1, [100_000], () => 0.999_999)?.getTime()).toBe(now.getTime() + Math.round(100_000 * (1 + JITTER * 0.999_998)));
    expect(nextAttemptAt(now, 2, [100_000], () => 0.5)).toBeNull();
  });
});
