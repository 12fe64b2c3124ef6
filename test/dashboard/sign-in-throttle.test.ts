// The per-e-mail sign-in limit under a burst, over real HTTP on the test database (PGlite, or
// PostgreSQL with DATABASE_URL): an attempt counts against its e-mail when it is let in, so however
// many wrong passwords arrive at once, no more than the limit are checked (401) and the rest are
// refused before their check (429 sign_in_throttled, Retry-After). A sign-in that succeeds gives
// its count back; an address over its own limit uses up no one's e-mail.
import { describe, expect, it } from "vitest";
import { DEFAULT_SIGN_IN_LIMITS, type SignInLimits } from "../../src/core/dashboard/throttle.ts";
import { dashboardFetch, dashboardUser, TEST_PASSWORD, type DashboardAnswer } from "../support/dashboard.ts";
import { manualClock } from "../support/clock.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import type { RateLimitCounters } from "../../src/core/rate-limits.ts";
import { rateLimitCounters } from "../../src/db/stores/rate-limit-counters.ts";
import type { Database } from "../../src/db/types.ts";

/**
 * A gateway of its own database (the counters are shared by every gateway on one), taking
 * X-Forwarded-For from 127.0.0.1, on a test clock (a fixed window cannot end halfway through).
 */
const limitedGateway = (signInLimits: SignInLimits) =>
  startTestGateway({ clock: manualClock(), dashboard: { signInLimits }, rateLimits: { trustProxy: ["loopback"] } });

const signInFrom = (g: TestGateway, address: string, email: string, password: string) =>
  dashboardFetch(g, "POST", "/dashboard/api/session", { email, password }, { "x-forwarded-for": address });

const EMAIL_THROTTLED = /^Too many failed sign-ins for this e-mail \(10 per 15 minutes\); retry after \d+ s$/;

function expectBurst(answers: DashboardAnswer[], checked: number) {
  const statuses = answers.map((a) => a.status);
  expect(statuses.filter((s) => s === 401)).toHaveLength(checked);
  expect(statuses.filter((s) => s === 429)).toHaveLength(answers.length - checked);
  for (const answer of answers.filter((a) => a.status === 429)) {
    expect(answer.body).toMatchObject({ status: "error", reason: "sign_in_throttled" });
    expect(answer.body.message).toMatch(EMAIL_THROTTLED);
    expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(answer.headers.get("set-cookie")).toBeNull();
  }
  for (const answer of answers.filter((a) => a.status === 401)) expect(answer.body).toMatchObject({ reason: "sign_in_failed" });
}

describe("a burst of wrong passwords for one e-mail", () => {
  it("checks 10 of 30 sent at once from one address (10 × 401, 20 × 429), and then refuses the right password too", async () => {
    const g = await limitedGateway(DEFAULT_SIGN_IN_LIMITS);
    try {
      const user = await dashboardUser(g, (await g.merchant()).id, "owner");
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => signInFrom(g, "198.51.100.7", user.email, `wrong password ${i}`)));
      expectBurst(answers, 10);
      const right = await signInFrom(g, "198.51.100.8", user.email, TEST_PASSWORD);
      expect(right.status).toBe(429);
      expect(right.body.message).toMatch(EMAIL_THROTTLED);
    } finally {
      await g.close();
    }
  });

  it("checks 10 of 120 sent at once from four addresses (10 × 401, 110 × 429)", async () => {
    const g = await limitedGateway(DEFAULT_SIGN_IN_LIMITS);
    try {
      const user = await dashboardUser(g, (await g.merchant()).id, "owner");
      const addresses = ["198.51.100.1", "198.51.100.2", "2001:db8:1::1", "2001:db8:2::1"];
      const answers = await Promise.all(
        Array.from({ length: 120 }, (_, i) => signInFrom(g, addresses[i % 4] as string, user.email, `wrong password ${i}`)),
      );
      expectBurst(answers, 10);
    } finally {
      await g.close();
    }
  });
});

describe("what counts against an e-mail", () => {
  it("gives a successful sign-in's count back: signing in often never locks the e-mail, failures still do", async () => {
    const g = await limitedGateway({ perAddress: null, perEmail: { limit: 3, windowMs: 600_000 } });
    try {
      const user = await dashboardUser(g, (await g.merchant()).id, "viewer");
      for (let i = 0; i < 6; i++) expect((await signInFrom(g, "198.51.100.9", user.email, TEST_PASSWORD)).status).toBe(201);
      for (let i = 0; i < 3; i++) expect((await signInFrom(g, "198.51.100.9", user.email, "wrong password")).status).toBe(401);
      const throttled = await signInFrom(g, "198.51.100.9", user.email, TEST_PASSWORD);
      expect(throttled.status).toBe(429);
      expect(throttled.body.message).toMatch(/^Too many failed sign-ins for this e-mail \(3 per 10 minutes\)/);
    } finally {
      await g.close();
    }
  });

  it("does not count attempts an address over its limit makes: that address cannot lock someone else's e-mail", async () => {
    const g = await limitedGateway({ perAddress: { limit: 2, windowMs: 600_000 }, perEmail: { limit: 3, windowMs: 600_000 } });
    try {
      const victim = await dashboardUser(g, (await g.merchant()).id, "owner");
      for (let i = 0; i < 2; i++) expect((await signInFrom(g, "203.0.113.66", victim.email, "wrong password")).status).toBe(401);
      const refused = await Promise.all(Array.from({ length: 20 }, () => signInFrom(g, "203.0.113.66", victim.email, "wrong password")));
      for (const answer of refused) {
        expect(answer.status).toBe(429);
        expect(answer.body.message).toMatch(/^Too many sign-in attempts from this address \(2 per 10 minutes\)/);
      }
      // The e-mail has 2 of its 3: the owner, elsewhere, still signs in.
      expect((await signInFrom(g, "192.0.2.10", victim.email, TEST_PASSWORD)).status).toBe(201);
    } finally {
      await g.close();
    }
  });

  it("counts an unknown e-mail as a known one (no difference that tells which exist)", async () => {
    const g = await limitedGateway({ perAddress: null, perEmail: { limit: 2, windowMs: 600_000 } });
    try {
      const answers = await Promise.all(Array.from({ length: 6 }, () => signInFrom(g, "198.51.100.3", "nobody@example.com", "wrong password")));
      expect(answers.map((a) => a.status).sort()).toEqual([401, 401, 429, 429, 429, 429]);
    } finally {
      await g.close();
    }
  });
});

describe("the throttles' clock", () => {
  it("is the rate limiter's too: the limiter prunes the counters the throttles write, so one clock ends their windows", async () => {
    // An hour behind the system's: had the limiter its own (the system's) clock, its prune would
    // delete the windows this clock has open, and an address's attempts would start again from none.
    const clock = manualClock(Date.now() - 3_600_000);
    const prunedAt: Date[] = [];
    const counters = (db: Database): RateLimitCounters => {
      const real = rateLimitCounters(db);
      return {
        ...real,
        prune: (now) => {
          prunedAt.push(now);
          return real.prune(now);
        },
      };
    };
    const limits: SignInLimits = { perEmail: null, perAddress: { limit: 2, windowMs: 60_000 } };
    const g = await startTestGateway({ clock, dashboard: { signInLimits: limits }, rateLimits: { trustProxy: ["loopback"], counters } });
    try {
      const answers = [];
      for (const email of ["a@example.com", "b@example.com", "c@example.com"]) answers.push(await signInFrom(g, "198.51.100.9", email, "wrong"));
      expect(answers.map((a) => a.status)).toEqual([401, 401, 429]);
      expect(prunedAt.map((at) => at.getTime())).toEqual([clock.now().getTime()]);
    } finally {
      await g.close();
    }
  });
});
