// A receiver that asks for time (429 or 503 with Retry-After) gets it, bounded: the rule of
// src/core/webhooks/deliveries.ts, with every hostile form of the header.
import { describe, expect, it } from "vitest";
import { type DeliveryQueue, MAX_RETRY_AFTER_MS, nextAttemptAfter, retryAfterTime, WebhookDeliveries } from "../../src/core/webhooks/deliveries.ts";

const now = new Date("2026-11-26T10:00:00.000Z");
const MINUTE = 60_000;
// No jitter (random 0.5 gives the wait itself): the schedule's next attempt is exactly a minute away.
const policy = { scheduleMs: [MINUTE, 60 * MINUTE], random: () => 0.5 };
const scheduled = new Date(now.getTime() + MINUTE);
const at = (ms: number) => new Date(now.getTime() + ms);
const nextFor = (statusCode: number | null, retryAfter: string) => nextAttemptAfter(now, 1, policy, { statusCode, retryAfter });

describe("reading Retry-After", () => {
  it("reads delta-seconds and the three HTTP-date forms (RFC 9110 §5.6.7)", () => {
    expect(retryAfterTime("120", now)).toEqual(at(120_000));
    expect(retryAfterTime(" 0 ", now)).toEqual(now);
    expect(retryAfterTime("Thu, 26 Nov 2026 12:30:00 GMT", now)).toEqual(new Date("2026-11-26T12:30:00Z"));
    expect(retryAfterTime("Thursday, 26-Nov-26 12:30:00 GMT", now)).toEqual(new Date("2026-11-26T12:30:00Z"));
    expect(retryAfterTime("Thu Nov 26 12:30:00 2026", now)).toEqual(new Date("2026-11-26T12:30:00Z"));
    expect(retryAfterTime("Sun Nov  6 08:49:37 1994", now)).toEqual(new Date("1994-11-06T08:49:37Z"));
    // A two-digit year more than 50 years ahead is last century's.
    expect(retryAfterTime("Sunday, 06-Nov-94 08:49:37 GMT", now)).toEqual(new Date("1994-11-06T08:49:37Z"));
  });

  it("reads nothing from a value that is neither", () => {
    for (const value of [
      "",
      "soon",
      "-5",
      "1.5",
      "1e3",
      "0x10",
      "Infinity",
      "NaN",
      "120 s",
      "Thu, 31 Feb 2026 10:00:00 GMT",
      "Thu, 26 Nov 2026 25:00:00 GMT",
      "Thu, 26 Foo 2026 10:00:00 GMT",
      "Thu, 26 Nov 2026 12:30:00 PST",
      "2026-11-26T12:30:00Z",
      "9".repeat(65),
    ]) {
      expect(retryAfterTime(value, now), JSON.stringify(value)).toBeNull();
    }
  });

  it("reads a huge delta as a valid time, whatever its digits", () => {
    for (const value of ["99999999999", "9".repeat(64)]) {
      const time = retryAfterTime(value, now);
      expect(Number.isNaN(time?.getTime()), value).toBe(false);
      expect(time!.getTime()).toBeGreaterThan(now.getTime() + MAX_RETRY_AFTER_MS);
    }
  });
});

describe("the next attempt when the receiver asks for time", () => {
  it("is the time asked when later than the schedule's, for 429 and for 503", () => {
    expect(nextFor(429, "3600")).toEqual(at(3_600_000));
    expect(nextFor(503, "Thu, 26 Nov 2026 12:30:00 GMT")).toEqual(new Date("2026-11-26T12:30:00Z"));
  });

  it("is never earlier than the schedule's next attempt: a short wait, zero, a date in the past", () => {
    for (const value of ["10", "0", "Sun, 06 Nov 1994 08:49:37 GMT", "Thu, 26 Nov 2026 09:59:59 GMT"]) {
      expect(nextFor(429, value), value).toEqual(scheduled);
    }
  });

  it("is at most 24 hours away: huge deltas, a date years ahead", () => {
    for (const value of ["86401", "99999999999", "9".repeat(64), "Fri, 01 Jan 9999 00:00:00 GMT", "Thu, 26 Nov 2026 10:00:01 GMT"]) {
      const next = nextFor(503, value);
      expect(next, value).toEqual(value.endsWith("10:00:01 GMT") ? scheduled : at(MAX_RETRY_AFTER_MS));
    }
  });

  it("is the schedule's for unreadable values (negative, non-numeric) and for other statuses", () => {
    for (const value of ["-3600", "soon", "3600.5", "", "\u0000"]) expect(nextFor(429, value), JSON.stringify(value)).toEqual(scheduled);
    expect(nextFor(500, "3600")).toEqual(scheduled);
    expect(nextFor(200, "3600")).toEqual(scheduled);
    expect(nextFor(null, "3600")).toEqual(scheduled);
    expect(nextAttemptAfter(now, 1, policy, { statusCode: 429 })).toEqual(scheduled);
    expect(nextAttemptAfter(now, 1, policy)).toEqual(scheduled);
  });

  it("adds no attempt: the event fails for good when the schedule is spent", () => {
    expect(nextAttemptAfter(now, 3, policy, { statusCode: 429, retryAfter: "60" })).toBeNull();
    const deliveries = new WebhookDeliveries({} as DeliveryQueue, { now: () => now }, policy);
    expect(deliveries.outcomeOf({ attemptCount: 2 }, false, { statusCode: 429, retryAfter: "60" })).toEqual({ state: "FAILED" });
    expect(deliveries.outcomeOf({ attemptCount: 0 }, false, { statusCode: 429, retryAfter: "7200" })).toEqual({
      state: "PENDING",
      nextAttemptAt: at(7_200_000),
    });
  });
});
