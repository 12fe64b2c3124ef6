// The webhook, lifecycle and watcher variables of the environment: defaults, parsing, and errors
// that name the variable.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { availableParallelism } from "node:os";
import { defaultPoolMax } from "../src/db/config.ts";
import { ConfigError } from "../src/env.ts";
import { PrivateAllowlist } from "../src/core/private-targets.ts";
import { Decimal } from "../src/core/money/amounts.ts";
import { DEFAULT_POLICY_BOUNDS } from "../src/core/policies.ts";

describe("webhook, lifecycle and watcher configuration", () => {
  it("has the documented defaults", () => {
    const config = loadConfig({});
    expect(config.webhooks).toEqual({
      dispatcher: true,
      timeoutMs: 10_000,
      retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000, 86_400_000, 86_400_000],
      pollMs: 250,
      concurrency: 16,
      privateTargets: { live: false, test: true, allowlist: PrivateAllowlist.NONE },
      endpointsMax: 16,
      testEventDetails: false,
      disableAfterMs: 259_200_000,
    });
    const days = config.webhooks.retryScheduleMs.reduce((a, b) => a + b, 0) / 86_400_000;
    expect(days).toBeGreaterThan(3);
    expect(days).toBeLessThan(3.5);
    expect(config.lifecycle).toEqual({
      initiatedWindowMs: 86_400_000,
      checkoutWindowMs: 1_800_000,
      underpaymentTolerance: "0",
      policyBounds: DEFAULT_POLICY_BOUNDS,
      expiryScheduler: true,
      expiryIntervalMs: 5000,
    });
    expect(config.watch).toEqual({ enabled: true, intervalMs: 15_000, concurrency: 4, lateGraceMs: 86_400_000, finalityWatchMs: 604_800_000 });
    expect(config.chains.requiredConfirmations("BTC")).toBe(2);
    expect(config.chains.requiredConfirmations("USDT")).toBe(12);
    // Finality depths: BTC 6, LTC 12, ETH (and USDT on Ethereum) 64, BNB 15.
    expect((["BTC", "LTC", "ETH", "USDT", "BNB"] as const).map((c) => config.chains.finalityConfirmations(c))).toEqual([6, 12, 64, 64, 15]);
  });

  it("reads every variable", () => {
    const config = loadConfig({
      PAYGATE_WEBHOOK_DISPATCHER: "false",
      PAYGATE_WEBHOOK_TIMEOUT_MS: "2500",
      PAYGATE_WEBHOOK_RETRY_SCHEDULE: "500ms, 10s,1m,2h,1d",
      PAYGATE_WEBHOOK_POLL_MS: "50",
      PAYGATE_WEBHOOK_CONCURRENCY: "4",
      PAYGATE_WEBHOOK_ALLOW_PRIVATE: "1",
      PAYGATE_WEBHOOK_ENDPOINTS_MAX: "4",
      PAYGATE_WEBHOOK_TEST_EVENT_DETAILS: "true",
      PAYGATE_WEBHOOK_DISABLE_AFTER_HOURS: "1.5",
      PAYGATE_INITIATED_WINDOW_MINUTES: "60",
      PAYGATE_CHECKOUT_WINDOW_MINUTES: "15",
      PAYGATE_UNDERPAYMENT_TOLERANCE_PERCENT: "0.5",
      PAYGATE_POLICY_EXPIRES_IN_MIN_SECONDS: "120",
      PAYGATE_POLICY_EXPIRES_IN_MAX_SECONDS: "3600",
      PAYGATE_POLICY_UNDERPAYMENT_TOLERANCE_MIN_PERCENT: "0.5",
      PAYGATE_POLICY_UNDERPAYMENT_TOLERANCE_MAX_PERCENT: "2.25",
      PAYGATE_POLICY_CONFIRMATIONS_MIN: "3",
      PAYGATE_POLICY_CONFIRMATIONS_MAX: "50",
      PAYGATE_POLICY_LATE_PAYMENT_MIN_PERCENT: "1",
      PAYGATE_POLICY_LATE_PAYMENT_MAX_PERCENT: "7.5",
      PAYGATE_MERCHANT_SPREAD_MAX_PERCENT: "4",
      PAYGATE_EXPIRY_SCHEDULER: "false",
      PAYGATE_EXPIRY_INTERVAL_MS: "1000",
      PAYGATE_PAYMENT_WATCHER: "0",
      PAYGATE_WATCH_INTERVAL_MS: "30000",
      PAYGATE_WATCH_CONCURRENCY: "8",
      PAYGATE_LATE_PAYMENT_WATCH_HOURS: "2",
      PAYGATE_FINALITY_WATCH_HOURS: "3",
      PAYGATE_FINALITY_BTC: "3",
      PAYGATE_CONFIRMATIONS_LTC: "20",
      PAYGATE_FINALITY_LTC: "10",
    });
    // A finality depth below the required confirmations is the required confirmations.
    expect([config.chains.finalityConfirmations("BTC"), config.chains.finalityConfirmations("LTC")]).toEqual([3, 20]);
    expect(config.webhooks).toEqual({
      dispatcher: false,
      timeoutMs: 2500,
      retryScheduleMs: [500, 10_000, 60_000, 7_200_000, 86_400_000],
      pollMs: 50,
      concurrency: 4,
      privateTargets: { live: true, test: true, allowlist: PrivateAllowlist.NONE },
      endpointsMax: 4,
      testEventDetails: true,
      disableAfterMs: 5_400_000,
    });
    expect(config.lifecycle).toEqual({
      initiatedWindowMs: 3_600_000,
      checkoutWindowMs: 900_000,
      underpaymentTolerance: "0.005",
      policyBounds: {
        expiresIn: { min: 120, max: 3600 },
        underpaymentTolerance: { min: new Decimal("0.5"), max: new Decimal("2.25") },
        confirmations: { min: 3, max: 50 },
        latePayment: { min: new Decimal("1"), max: new Decimal("7.5") },
        spread: { min: new Decimal("0"), max: new Decimal("4") },
      },
      expiryScheduler: false,
      expiryIntervalMs: 1000,
    });
    expect(config.watch).toEqual({ enabled: false, intervalMs: 30_000, concurrency: 8, lateGraceMs: 7_200_000, finalityWatchMs: 10_800_000 });
  });

  const bad: [string, Record<string, string>, RegExp][] = [
    ["a schedule entry without a unit", { PAYGATE_WEBHOOK_RETRY_SCHEDULE: "5s,10" }, /PAYGATE_WEBHOOK_RETRY_SCHEDULE: '10' is not a duration/],
    [
      "a schedule entry over 7 days",
      { PAYGATE_WEBHOOK_RETRY_SCHEDULE: "8d" },
      /PAYGATE_WEBHOOK_RETRY_SCHEDULE: '8d' must be more than 0 and at most 7d/,
    ],
    ["a tolerance over 10 %", { PAYGATE_UNDERPAYMENT_TOLERANCE_PERCENT: "12" }, /PAYGATE_UNDERPAYMENT_TOLERANCE_PERCENT: must be at most 10/],
    ["a negative tolerance", { PAYGATE_UNDERPAYMENT_TOLERANCE_PERCENT: "-1" }, /PAYGATE_UNDERPAYMENT_TOLERANCE_PERCENT: must be a percentage/],
    ["a zero checkout window", { PAYGATE_CHECKOUT_WINDOW_MINUTES: "0" }, /PAYGATE_CHECKOUT_WINDOW_MINUTES/],
    ["a bad boolean", { PAYGATE_WEBHOOK_DISPATCHER: "yes" }, /PAYGATE_WEBHOOK_DISPATCHER/],
    ["a finality depth of 0", { PAYGATE_FINALITY_ETH: "0" }, /PAYGATE_FINALITY_ETH: must be at least 1 block/],
    ["a finality depth that is no whole number", { PAYGATE_FINALITY_BTC: "2.5" }, /PAYGATE_FINALITY_BTC: must be a whole number of blocks/],
    ["a finality watch of 0 hours", { PAYGATE_FINALITY_WATCH_HOURS: "0" }, /PAYGATE_FINALITY_WATCH_HOURS/],
  ];
  for (const [name, env, message] of bad) {
    it(`refuses ${name}, naming the variable`, () => {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(message);
    });
  }
});

describe("PAYGATE_CORS_ORIGINS", () => {
  it("is * by default (and when empty)", () => {
    expect(loadConfig({}).cors).toEqual({ origins: "*" });
    expect(loadConfig({ PAYGATE_CORS_ORIGINS: "" }).cors).toEqual({ origins: "*" });
    expect(loadConfig({ PAYGATE_CORS_ORIGINS: " * " }).cors).toEqual({ origins: "*" });
  });

  it("reads a comma-separated list of exact origins", () => {
    expect(loadConfig({ PAYGATE_CORS_ORIGINS: "https://shop.example.com, http://localhost:5173,https://pay.example.com:8443" }).cors).toEqual({
      origins: ["https://shop.example.com", "http://localhost:5173", "https://pay.example.com:8443"],
    });
    expect(loadConfig({ PAYGATE_CORS_ORIGINS: "http://[::1]:3000" }).cors).toEqual({ origins: ["http://[::1]:3000"] });
  });

  const NOT_AS_SENT =
    " is not an origin as a browser sends it: write 'https://shop.example.com' (scheme, host and port only, lowercase, no path or trailing slash)";
  const bad: [string, string, string][] = [
    ["a trailing slash", "https://shop.example.com/", `'https://shop.example.com/'${NOT_AS_SENT}`],
    ["a path", "https://shop.example.com/checkout", `'https://shop.example.com/checkout'${NOT_AS_SENT}`],
    ["capitals", "https://Shop.example.com", `'https://Shop.example.com'${NOT_AS_SENT}`],
    ["a default port", "https://shop.example.com:443", `'https://shop.example.com:443'${NOT_AS_SENT}`],
    ["no scheme", "shop.example.com", "'shop.example.com' is not an origin; use * or origins such as https://shop.example.com"],
    ["another scheme", "ftp://shop.example.com", "'ftp://shop.example.com' is not an origin; use * or origins such as https://shop.example.com"],
    ["the null origin", "null", "'null' is not an origin; use * or origins such as https://shop.example.com"],
    ["a wildcard", "https://*.example.com", "'https://*.example.com': an origin is matched exactly, without wildcards; list each origin"],
    ["* in a list", "*,https://shop.example.com", "'*' allows every origin and cannot be combined with a list"],
    ["an empty entry", "https://shop.example.com,,https://pay.example.com", "has an empty entry; use * or origins separated by commas"],
    ["an origin twice", "https://shop.example.com,https://shop.example.com", "names an origin twice"],
  ];
  for (const [name, value, message] of bad) {
    it(`refuses ${name}, naming the variable`, () => {
      expect(() => loadConfig({ PAYGATE_CORS_ORIGINS: value })).toThrow(ConfigError);
      expect(() => loadConfig({ PAYGATE_CORS_ORIGINS: value })).toThrow(`\n  PAYGATE_CORS_ORIGINS: ${message}\n`);
    });
  }
});

describe("rate limit configuration", () => {
  it("has Stripe's limits by default, and trusts no proxy", () => {
    const config = loadConfig({});
    expect(config.rateLimits).toEqual({
      live: { limit: 100, windowMs: 1000 },
      test: { limit: 25, windowMs: 1000 },
      authFailures: { limit: 20, windowMs: 60_000 },
    });
    expect(config.trustProxy).toBe(false);
  });

  it("reads counts per window, bare numbers per second (per minute for failures), and 0 or off to turn a limit off", () => {
    expect(
      loadConfig({ PAYGATE_RATE_LIMIT_LIVE: "6000/m", PAYGATE_RATE_LIMIT_TEST: "50 / 10s", PAYGATE_RATE_LIMIT_AUTH_FAILURES: "100/h" }).rateLimits,
    ).toEqual({
      live: { limit: 6000, windowMs: 60_000 },
      test: { limit: 50, windowMs: 10_000 },
      authFailures: { limit: 100, windowMs: 3_600_000 },
    });
    expect(loadConfig({ PAYGATE_RATE_LIMIT_LIVE: "200", PAYGATE_RATE_LIMIT_TEST: "0", PAYGATE_RATE_LIMIT_AUTH_FAILURES: "5" }).rateLimits).toEqual({
      live: { limit: 200, windowMs: 1000 },
      test: null,
      authFailures: { limit: 5, windowMs: 60_000 },
    });
    expect(loadConfig({ PAYGATE_RATE_LIMIT_LIVE: "off", PAYGATE_RATE_LIMIT_TEST: "OFF", PAYGATE_RATE_LIMIT_AUTH_FAILURES: "0" }).rateLimits).toEqual({
      live: null,
      test: null,
      authFailures: null,
    });
    // Empty means unset: the default.
    expect(loadConfig({ PAYGATE_RATE_LIMIT_TEST: "" }).rateLimits.test).toEqual({ limit: 25, windowMs: 1000 });
  });

  it("reads PAYGATE_TRUST_PROXY as a number of proxies or their addresses", () => {
    expect(loadConfig({ PAYGATE_TRUST_PROXY: "1" }).trustProxy).toBe(1);
    expect(loadConfig({ PAYGATE_TRUST_PROXY: "0" }).trustProxy).toBe(false);
    expect(loadConfig({ PAYGATE_TRUST_PROXY: "false" }).trustProxy).toBe(false);
    expect(loadConfig({ PAYGATE_TRUST_PROXY: "loopback, 10.0.0.0/8,fd00::1" }).trustProxy).toEqual(["loopback", "10.0.0.0/8", "fd00::1"]);
  });

  const bad: [string, Record<string, string>, RegExp][] = [
    [
      "a limit that is not a count per window",
      { PAYGATE_RATE_LIMIT_LIVE: "fast" },
      /PAYGATE_RATE_LIMIT_LIVE: 'fast' is not a limit; use a count per window such as 100\/s/,
    ],
    ["a limit in an unknown unit", { PAYGATE_RATE_LIMIT_TEST: "25/d" }, /PAYGATE_RATE_LIMIT_TEST: '25\/d' is not a limit/],
    ["a negative limit", { PAYGATE_RATE_LIMIT_TEST: "-5/s" }, /PAYGATE_RATE_LIMIT_TEST: '-5\/s' is not a limit/],
    [
      "a window over a day",
      { PAYGATE_RATE_LIMIT_AUTH_FAILURES: "20/25h" },
      /PAYGATE_RATE_LIMIT_AUTH_FAILURES: '20\/25h': the window must be 1 s to 24 h/,
    ],
    ["a count over a million", { PAYGATE_RATE_LIMIT_LIVE: "2000000/s" }, /PAYGATE_RATE_LIMIT_LIVE: '2000000\/s': the count must be 1 to 1000000/],
    ["a zero window", { PAYGATE_RATE_LIMIT_LIVE: "5/0s" }, /PAYGATE_RATE_LIMIT_LIVE: '5\/0s': the window must be 1 s to 24 h/],
    [
      "trusting every proxy",
      { PAYGATE_TRUST_PROXY: "true" },
      /PAYGATE_TRUST_PROXY: true would trust every X-Forwarded-For, which any client can write/,
    ],
    [
      "a proxy that is not an address",
      { PAYGATE_TRUST_PROXY: "loopback,proxy.local" },
      /PAYGATE_TRUST_PROXY: 'proxy.local' is not an address, a subnet/,
    ],
    ["too many proxies", { PAYGATE_TRUST_PROXY: "11" }, /PAYGATE_TRUST_PROXY: 11 proxies in front of paygate\? At most 10/],
  ];
  for (const [name, env, message] of bad) {
    it(`refuses ${name}, naming the variable`, () => {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(message);
    });
  }
});

describe("PAYGATE_PUBLIC_URL", () => {
  it("defaults to the listening address, every interface reached at the loopback one", () => {
    expect(loadConfig({}).publicUrl).toBe("http://127.0.0.1:3000");
    expect(loadConfig({ HOST: "0.0.0.0", PORT: "8080" }).publicUrl).toBe("http://127.0.0.1:8080");
    expect(loadConfig({ HOST: "192.168.1.20", PORT: "3001" }).publicUrl).toBe("http://192.168.1.20:3001");
    expect(loadConfig({ HOST: "::", PORT: "3000" }).publicUrl).toBe("http://[::1]:3000");
    expect(loadConfig({ HOST: "::1" }).publicUrl).toBe("http://[::1]:3000");
    expect(loadConfig({ HOST: "localhost", PAYGATE_PUBLIC_URL: "" }).publicUrl).toBe("http://localhost:3000");
  });

  it("reads an http(s) base URL, dropping a trailing slash", () => {
    expect(loadConfig({ PAYGATE_PUBLIC_URL: "https://pay.example.com" }).publicUrl).toBe("https://pay.example.com");
    expect(loadConfig({ PAYGATE_PUBLIC_URL: "https://pay.example.com/" }).publicUrl).toBe("https://pay.example.com");
    expect(loadConfig({ PAYGATE_PUBLIC_URL: "http://Pay.Example.com:8443/" }).publicUrl).toBe("http://pay.example.com:8443");
  });

  const bad: [string, string, string][] = [
    ["no scheme", "pay.example.com", "'pay.example.com' is not an http:// or https:// URL; use one such as https://pay.example.com"],
    ["another scheme", "ftp://pay.example.com", "'ftp://pay.example.com' is not an http:// or https:// URL; use one such as https://pay.example.com"],
    ["a path", "https://pay.example.com/paygate", "must be a base URL without a path (got '/paygate'): checkout pages are served at /checkout/…"],
    ["a query", "https://pay.example.com/?a=1", "must not have a query (?…) or fragment (#…)"],
    ["a fragment", "https://pay.example.com#top", "must not have a query (?…) or fragment (#…)"],
    ["credentials", "https://user:pw@pay.example.com", "must not contain a username or password"],
  ];
  for (const [name, value, message] of bad) {
    it(`refuses ${name}, naming the variable`, () => {
      expect(() => loadConfig({ PAYGATE_PUBLIC_URL: value })).toThrow(ConfigError);
      expect(() => loadConfig({ PAYGATE_PUBLIC_URL: value })).toThrow(`\n  PAYGATE_PUBLIC_URL: ${message}\n`);
    });
  }
});

describe("the PostgreSQL pool", () => {
  const url = "postgres://paygate@db.example.com/paygate";

  it("opens twice the CPUs plus one connections by default, at most 10, or as many as set", () => {
    expect([1, 2, 4, 5, 64].map((cpus) => defaultPoolMax(cpus))).toEqual([3, 5, 9, 10, 10]);
    expect(loadConfig({ DATABASE_URL: url }).database).toMatchObject({ poolMax: defaultPoolMax(availableParallelism()) });
    expect(loadConfig({ DATABASE_URL: url, PAYGATE_DB_POOL_MAX: "20" }).database).toMatchObject({ poolMax: 20 });
    expect(() => loadConfig({ DATABASE_URL: url, PAYGATE_DB_POOL_MAX: "0" })).toThrow(
      "\n  PAYGATE_DB_POOL_MAX: Too small: expected number to be >=1\n",
    );
  });

  it("keeps 100 statements prepared per connection by default, as many as set, or none with 0", () => {
    expect(loadConfig({ DATABASE_URL: url }).database).toEqual({ kind: "postgres", url, poolMax: defaultPoolMax(), preparedStatements: 100 });
    expect(loadConfig({ DATABASE_URL: url, PAYGATE_DB_PREPARED_STATEMENTS: "0" }).database).toMatchObject({ preparedStatements: 0 });
    expect(loadConfig({ DATABASE_URL: url, PAYGATE_DB_PREPARED_STATEMENTS: "250" }).database).toMatchObject({ preparedStatements: 250 });
  });

  const bad: [string, string][] = [
    ["-1", "Too small: expected number to be >=0"],
    ["1001", "Too big: expected number to be <=1000"],
    ["many", "Invalid input: expected number, received NaN"],
    ["2.5", "Invalid input: expected int, received number"],
  ];
  for (const [value, message] of bad) {
    it(`refuses PAYGATE_DB_PREPARED_STATEMENTS=${value}, naming the variable`, () => {
      expect(() => loadConfig({ DATABASE_URL: url, PAYGATE_DB_PREPARED_STATEMENTS: value })).toThrow(ConfigError);
      expect(() => loadConfig({ DATABASE_URL: url, PAYGATE_DB_PREPARED_STATEMENTS: value })).toThrow(
        `\n  PAYGATE_DB_PREPARED_STATEMENTS: ${message}\n`,
      );
    });
  }
});

describe("dashboard account settings", () => {
  it("has the documented defaults: no second factor required, 10 minutes of sudo mode", () => {
    expect(loadConfig({}).dashboard).toEqual({ requireSecondFactor: false, reauthenticationMs: 600_000 });
  });

  it("reads PAYGATE_DASHBOARD_REQUIRE_2FA and PAYGATE_DASHBOARD_REAUTHENTICATION_MINUTES", () => {
    expect(loadConfig({ PAYGATE_DASHBOARD_REQUIRE_2FA: "true", PAYGATE_DASHBOARD_REAUTHENTICATION_MINUTES: "5" }).dashboard).toEqual({
      requireSecondFactor: true,
      reauthenticationMs: 300_000,
    });
  });

  it("refuses a bad value, naming the variable", () => {
    expect(() => loadConfig({ PAYGATE_DASHBOARD_REQUIRE_2FA: "yes" })).toThrow(ConfigError);
    expect(() => loadConfig({ PAYGATE_DASHBOARD_REQUIRE_2FA: "yes" })).toThrow(/PAYGATE_DASHBOARD_REQUIRE_2FA/);
    expect(() => loadConfig({ PAYGATE_DASHBOARD_REAUTHENTICATION_MINUTES: "0" })).toThrow(/PAYGATE_DASHBOARD_REAUTHENTICATION_MINUTES/);
  });
});

describe("TRON's HTTP API (recording TRON sweeps)", () => {
  it("is the JSON-RPC's host without /jsonrpc by default, none beside a bare node URL, and what the variable says", () => {
    expect(loadConfig({}).chains.tronHttp).toEqual({ live: "https://api.trongrid.io", test: "https://nile.trongrid.io" });
    expect(
      loadConfig({ PAYGATE_TRON_RPC_URL: "https://tron.example.com/v1/key/jsonrpc/", PAYGATE_TRON_TEST_RPC_URL: "http://127.0.0.1:8545" }).chains
        .tronHttp,
    ).toEqual({
      live: "https://tron.example.com/v1/key",
      test: undefined,
    });
    const set = loadConfig({ PAYGATE_TRON_HTTP_URL: "http://10.0.0.5:8090", PAYGATE_TRON_TEST_HTTP_URL: "none" }).chains.tronHttp;
    expect(set).toEqual({ live: "http://10.0.0.5:8090", test: undefined });
    expect(loadConfig({ PAYGATE_TRON_TEST_RPC_URL: "none" }).chains.tronHttp?.test).toBeUndefined();
  });

  it("refuses what is no http(s) URL, naming the variable", () => {
    expect(() => loadConfig({ PAYGATE_TRON_HTTP_URL: "tron.example.com:8090" })).toThrow(
      /PAYGATE_TRON_HTTP_URL.*must be an http\(s\) URL of the node's HTTP API, or none/,
    );
  });
});
