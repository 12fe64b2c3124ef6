// The environment, parsed and checked once at start. Every variable has a `.describe()` (what it does, its
// default and unit), from which `npm run docs:config` writes docs/configuration.md.
import path from "node:path";
import { z } from "zod";
import ipaddr from "ipaddr.js";
import { Decimal, isNumericString } from "./core/money/amounts.ts";
import { PrivateAllowlist, type PrivateTargets } from "./core/private-targets.ts";
import { DEFAULT_RATE_LIMITS, type RateLimit, type RateLimitPolicy } from "./core/rate-limits.ts";
import type { PolicyBounds } from "./core/policies.ts";
import { DEFAULT_PREPARED_STATEMENTS } from "./db/prepared-statements.ts";
import { ChainEnvSchema, chainConfig, type ChainConfig } from "./rails/chains/config.ts";
import {
  type ConnectionLimits,
  DEFAULT_CONNECTION_LIMITS,
  defaultConnectionTotal,
  defaultLiveTotal,
  DEFAULT_EVENT_STREAM_LIMITS,
  DEFAULT_LIVE_LIMITS,
  type EventStreamLimits,
  type LiveLimits,
  openFileLimit,
} from "./edge/connection-limits.ts";

const boolean = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");

const httpUrl = z
  .string()
  .regex(/^https?:\/\/[^\s]+$/, "must be an http:// or https:// URL")
  .refine((v) => URL.canParse(v), "must be an http:// or https:// URL");

export const PRICE_PROVIDERS = ["coingecko", "kraken", "coinbase", "binance"] as const;
export type PriceProvider = (typeof PRICE_PROVIDERS)[number];

/** Live price feeds (src/rails/prices; docs/wallets-and-chains.md, Prices). */
export const PriceEnvSchema = z.object({
  /** One provider, or several tried in order: `coingecko,kraken`. */
  PAYGATE_PRICE_FEED: z
    .string()
    .default("coingecko")
    .transform((v) => v.split(",").map((name) => name.trim().toLowerCase()))
    .pipe(
      z
        .array(z.enum(PRICE_PROVIDERS, { error: (issue) => `'${String(issue.input)}' is not a provider; use ${PRICE_PROVIDERS.join(", ")}` }))
        .min(1)
        .refine((names) => new Set(names).size === names.length, "names a provider twice"),
    )
    .describe(
      "Live price providers: `coingecko`, `kraken`, `coinbase`, `binance`, or a list (`coingecko,coinbase,kraken`): tried in order with PAYGATE_PRICE_STRATEGY=first, all asked with `median`. Test mode always uses the test rates. Default: `coingecko`.",
    ),
  PAYGATE_COINGECKO_URL: httpUrl
    .optional()
    .describe(
      "CoinGecko base URL; the feed calls `{url}/api/v3/simple/price`. Default: `https://api.coingecko.com` (`https://pro-api.coingecko.com` on the Pro plan).",
    ),
  PAYGATE_COINGECKO_API_KEY: z
    .string()
    .optional()
    .describe("CoinGecko key, sent as `x-cg-demo-api-key` or `x-cg-pro-api-key`. Unset: the keyless public API. Default: unset."),
  PAYGATE_COINGECKO_PLAN: z
    .enum(["demo", "pro"])
    .default("demo")
    .describe("`demo` or `pro`: which header carries the key, and the default URL. `pro` requires the key. Default: `demo`."),
  PAYGATE_KRAKEN_URL: httpUrl
    .default("https://api.kraken.com")
    .describe("Kraken base URL; the feed calls `{url}/0/public/Ticker`. Default: `https://api.kraken.com`."),
  PAYGATE_COINBASE_URL: httpUrl
    .default("https://api.coinbase.com")
    .describe(
      "Coinbase base URL; the feed calls `{url}/v2/exchange-rates?currency=…` once per coin (public, no key). Default: `https://api.coinbase.com`.",
    ),
  PAYGATE_BINANCE_URL: httpUrl
    .default("https://api.binance.com")
    .describe(
      "Binance base URL; the feed calls `{url}/api/v3/ticker/price?symbols=[…]` (public, no key; USDT markets, USDT taken at par with USD). Default: `https://api.binance.com`.",
    ),
  PAYGATE_BINANCE_NGN_SYMBOL: z
    .string()
    .regex(/^[A-Z0-9]{2,20}$/, "must be a Binance symbol such as USDTNGN (capital letters and digits)")
    .optional()
    .describe(
      "Binance's USDT/NGN market (e.g. `USDTNGN`), through which Binance prices NGN (coin/USDT × USDT/NGN). Only if Binance lists it: an unknown symbol fails Binance's whole answer. Default: unset (Binance prices no NGN).",
    ),
  PAYGATE_PRICE_STRATEGY: z
    .enum(["first", "median"])
    .default("first")
    .describe(
      "`first`: the first provider of PAYGATE_PRICE_FEED that has a fresh price sets the rate. `median`: every provider is asked and the rate is the median of the fresh prices, refused (503 quote_unavailable) unless PAYGATE_PRICE_QUORUM of them agree within PAYGATE_PRICE_MAX_SPREAD_PERCENT; the quote records what each gave. Default: `first`.",
    ),
  PAYGATE_PRICE_QUORUM: z.coerce
    .number()
    .int()
    .min(1)
    .max(10)
    .default(2)
    .describe(
      "With PAYGATE_PRICE_STRATEGY=median: how many providers must give a fresh price within the spread of the median (1–10, at most the providers listed). Default: `2`.",
    ),
  PAYGATE_PRICE_MAX_SPREAD_PERCENT: z
    .string()
    .regex(/^\d{1,2}(\.\d{1,4})?$/, "must be a percentage such as 2 or 0.5")
    .default("2")
    .refine((v) => Number(v) > 0 && Number(v) <= 50, "must be more than 0 and at most 50")
    .describe(
      "With PAYGATE_PRICE_STRATEGY=median: how far from the median, in percent of it, a provider's price may be and still count (more than 0, at most 50). Default: `2` percent.",
    ),
  PAYGATE_PRICE_CACHE_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3600)
    .default(30)
    .describe("How long one provider answer is reused by every request of the process (0–3600; 0 asks on every quote). Default: `30` seconds."),
  PAYGATE_PRICE_MAX_AGE_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3600)
    .default(60)
    .describe("The oldest price ever used; must be at least the cache seconds. Default: `60` seconds."),
  PAYGATE_PRICE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(60_000)
    .default(3000)
    .describe("Timeout of one upstream call, headers and body (100–60000). Default: `3000` ms."),
});

export interface PriceConfig {
  /** Tried in order; the first that quotes a pair prices it. */
  feeds: PriceProvider[];
  coingecko: { url: string; apiKey: string | undefined; plan: "demo" | "pro" };
  kraken: { url: string };
  coinbase: { url: string };
  binance: { url: string; ngnSymbol: string | undefined };
  /** first: the first provider that quotes; median: the median of all, with a quorum within a spread. */
  strategy: "first" | "median";
  quorum: number;
  /** A decimal string, percent. */
  maxSpreadPercent: string;
  cacheSeconds: number;
  maxAgeSeconds: number;
  timeoutMs: number;
}

type PriceEnv = z.output<typeof PriceEnvSchema>;

function priceConfig(e: PriceEnv): PriceConfig {
  const problems: string[] = [];
  if (e.PAYGATE_PRICE_MAX_AGE_SECONDS < e.PAYGATE_PRICE_CACHE_SECONDS) {
    problems.push(`  PAYGATE_PRICE_MAX_AGE_SECONDS: must be at least PAYGATE_PRICE_CACHE_SECONDS (${e.PAYGATE_PRICE_CACHE_SECONDS})`);
  }
  if (e.PAYGATE_COINGECKO_PLAN === "pro" && !e.PAYGATE_COINGECKO_API_KEY) {
    problems.push("  PAYGATE_COINGECKO_API_KEY: is required with PAYGATE_COINGECKO_PLAN=pro");
  }
  if (e.PAYGATE_PRICE_STRATEGY === "median" && e.PAYGATE_PRICE_QUORUM > e.PAYGATE_PRICE_FEED.length) {
    problems.push(
      `  PAYGATE_PRICE_QUORUM: ${e.PAYGATE_PRICE_QUORUM} is more than the ${e.PAYGATE_PRICE_FEED.length} provider(s) of PAYGATE_PRICE_FEED; list more providers or lower the quorum`,
    );
  }
  if (problems.length > 0) {
    throw new ConfigError(`Invalid configuration:\n${problems.join("\n")}\nFix these environment variables (see docs/configuration.md).`);
  }
  return {
    feeds: e.PAYGATE_PRICE_FEED,
    coingecko: {
      url: e.PAYGATE_COINGECKO_URL ?? (e.PAYGATE_COINGECKO_PLAN === "pro" ? "https://pro-api.coingecko.com" : "https://api.coingecko.com"),
      apiKey: e.PAYGATE_COINGECKO_API_KEY,
      plan: e.PAYGATE_COINGECKO_PLAN,
    },
    kraken: { url: e.PAYGATE_KRAKEN_URL },
    coinbase: { url: e.PAYGATE_COINBASE_URL },
    binance: { url: e.PAYGATE_BINANCE_URL, ngnSymbol: e.PAYGATE_BINANCE_NGN_SYMBOL },
    strategy: e.PAYGATE_PRICE_STRATEGY,
    quorum: e.PAYGATE_PRICE_QUORUM,
    maxSpreadPercent: e.PAYGATE_PRICE_MAX_SPREAD_PERCENT,
    cacheSeconds: e.PAYGATE_PRICE_CACHE_SECONDS,
    maxAgeSeconds: e.PAYGATE_PRICE_MAX_AGE_SECONDS,
    timeoutMs: e.PAYGATE_PRICE_TIMEOUT_MS,
  };
}

/**
 * PAYGATE_CORS_ORIGINS: `*`, or exact origins as a browser sends them (`https://shop.example.com`,
 * `http://localhost:5173`): scheme, host and port only, lowercase, no path or trailing slash. An
 * origin is compared as a whole string, so anything else would never match and is refused here.
 */
export function parseCorsOrigins(text: string): { origins: "*" | string[] } | { problem: string } {
  const entries = text.split(",").map((e) => e.trim());
  if (entries.length === 1 && entries[0] === "*") return { origins: "*" };
  if (entries.includes("*")) return { problem: "'*' allows every origin and cannot be combined with a list" };
  for (const entry of entries) {
    if (entry === "") return { problem: "has an empty entry; use * or origins separated by commas" };
    if (entry.includes("*")) return { problem: `'${entry}': an origin is matched exactly, without wildcards; list each origin` };
    const origin = URL.canParse(entry) ? new URL(entry).origin : "null";
    if (!/^https?:\/\//i.test(entry) || origin === "null") {
      return { problem: `'${entry}' is not an origin; use * or origins such as https://shop.example.com` };
    }
    if (origin !== entry) {
      return {
        problem: `'${entry}' is not an origin as a browser sends it: write '${origin}' (scheme, host and port only, lowercase, no path or trailing slash)`,
      };
    }
  }
  if (new Set(entries).size !== entries.length) return { problem: "names an origin twice" };
  return { origins: entries };
}

/**
 * PAYGATE_PUBLIC_URL: the base URL customers reach the service at (checkout_url is built on it):
 * http(s), scheme, host and port only; a trailing slash is dropped.
 */
export function parsePublicUrl(text: string): { url: string } | { problem: string } {
  const trimmed = text.trim();
  if (!/^https?:\/\//i.test(trimmed) || !URL.canParse(trimmed)) {
    return { problem: `'${trimmed}' is not an http:// or https:// URL; use one such as https://pay.example.com` };
  }
  const url = new URL(trimmed);
  if (url.username !== "" || url.password !== "") return { problem: "must not contain a username or password" };
  if (url.search !== "" || url.hash !== "" || /[?#]/.test(trimmed)) return { problem: "must not have a query (?…) or fragment (#…)" };
  if (url.pathname !== "/") return { problem: `must be a base URL without a path (got '${url.pathname}'): checkout pages are served at /checkout/…` };
  return { url: url.origin };
}

/** The listening address as a URL, for PAYGATE_PUBLIC_URL's default: every interface is reached at the loopback one. */
export function defaultPublicUrl(host: string, port: number): string {
  const loopback = host === "0.0.0.0" ? "127.0.0.1" : host === "::" || host === "[::]" ? "::1" : host;
  const bracketed = loopback.includes(":") && !loopback.startsWith("[") ? `[${loopback}]` : loopback;
  return `http://${bracketed}:${port}`;
}

const DURATION = /^(\d+)(ms|s|m|h|d)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `5s,5m,30m,2h` → milliseconds. */
export function parseRetrySchedule(text: string): number[] | string {
  const parts = text.split(",").map((p) => p.trim());
  const out: number[] = [];
  for (const part of parts) {
    const m = DURATION.exec(part);
    if (!m) return `'${part}' is not a duration; use a list such as 5s,5m,30m,2h,1d`;
    const ms = Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
    if (ms <= 0 || ms > 7 * UNIT_MS.d) return `'${part}' must be more than 0 and at most 7d`;
    out.push(ms);
  }
  if (out.length > 50) return "at most 50 retries";
  return out;
}

/** Webhook delivery (src/webhooks; docs/webhooks.md). */
export const WebhookEnvSchema = z.object({
  PAYGATE_WEBHOOK_DISPATCHER: boolean
    .default(true)
    .describe("Run the webhook dispatcher in the service. `false` leaves delivery to `paygate worker` processes. Default: `true`."),
  PAYGATE_WEBHOOK_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(60_000)
    .default(10_000)
    .describe("Timeout of one delivery attempt (connect, headers and body). Default: `10000` ms."),
  /** Waits between attempts after the first; about three days in all (Stripe retries for three days). */
  PAYGATE_WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default("5s,5m,30m,2h,5h,10h,10h,24h,24h")
    .transform((v, ctx) => {
      const parsed = parseRetrySchedule(v);
      if (typeof parsed === "string") {
        ctx.addIssue({ code: "custom", message: parsed });
        return z.NEVER;
      }
      return parsed;
    })
    .describe(
      "Waits before each retry (units `ms s m h d`); its length is the number of retries. The default spans about 3 days. Default: `5s,5m,30m,2h,5h,10h,10h,24h,24h`.",
    ),
  PAYGATE_WEBHOOK_POLL_MS: z.coerce
    .number()
    .int()
    .min(10)
    .max(60_000)
    .default(250)
    .describe(
      "How often an idle dispatcher looks for due events. An attempt that falls due wakes it at once ([Live updates](graphql.md#live-updates)), so this paces retries and is the fallback. Default: `250` ms.",
    ),
  PAYGATE_WEBHOOK_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(256)
    .default(16)
    .describe("Deliveries under way at once, per dispatcher. Default: `16`."),
  PAYGATE_WEBHOOK_ALLOW_PRIVATE: boolean
    .default(false)
    .describe(
      "Let live webhook URLs name private, loopback and link-local addresses (an operator's choice for an internal receiver). Default: `false`.",
    ),
  /** Unset: on for the embedded database's local setup only (no DATABASE_URL), see loadConfig. */
  PAYGATE_TEST_WEBHOOK_ALLOW_PRIVATE: boolean
    .optional()
    .describe(
      "Let test webhook URLs name private, loopback and link-local addresses (`http://127.0.0.1:4000/…`): for local development on the embedded database. With PostgreSQL (a shared deployment) they are refused unless set; dashboard users never see what such an address answers ([Webhook destinations](security.md#webhook-destinations)). Default: `true` without `DATABASE_URL`, `false` with it.",
    ),
  PAYGATE_WEBHOOK_TEST_EVENT_DETAILS: boolean
    .default(false)
    .describe(
      "Show the dashboard's test events to private and local webhook URLs with their status code, error text and latency. Off, such a test event says only whether it was delivered, so a dashboard user cannot map which local ports are open ([Webhook destinations](security.md#webhook-destinations)); the body such an address answers is never shown. Default: `false`.",
    ),
  PAYGATE_WEBHOOK_PRIVATE_ALLOWLIST: z
    .string()
    .default("")
    .transform((v, ctx) => {
      const parsed = PrivateAllowlist.parse(v);
      if (parsed instanceof PrivateAllowlist) return parsed;
      ctx.addIssue({ code: "custom", message: parsed.problem });
      return z.NEVER;
    })
    .describe(
      "Private hosts webhooks of both modes may reach all the same: comma-separated host names (exact), IP addresses and CIDR ranges, e.g. `hooks.internal,10.20.0.0/16`. Default: none.",
    ),
  PAYGATE_WEBHOOK_ENDPOINTS_MAX: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(16)
    .describe("The most webhook endpoints a merchant may have per mode ([Webhook endpoints](webhooks.md)). Default: `16`."),
  PAYGATE_WEBHOOK_DISABLE_AFTER_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 365)
    .default(72)
    .describe(
      "A webhook endpoint whose every attempt failed for this long is disabled (said in the log and the API) until its merchant re-enables it; fractions of an hour allowed. Default: `72` hours.",
    ),
});

export interface WebhookConfig {
  /** Run the dispatcher inside the service (`paygate worker` runs it alone). */
  dispatcher: boolean;
  timeoutMs: number;
  /** Milliseconds to wait before each retry; its length is the number of retries. */
  retryScheduleMs: number[];
  pollMs: number;
  concurrency: number;
  /**
   * The private destinations webhooks may reach (an operator's choice): live mode none by default,
   * test mode any on the embedded database's local setup and none with DATABASE_URL, plus an allowlist.
   */
  privateTargets: PrivateTargets;
  /** The most webhook endpoints per merchant and mode. */
  endpointsMax: number;
  /** The dashboard's test events to private targets show status, error and latency (else only delivered or not). */
  testEventDetails: boolean;
  /** An endpoint failing every attempt for this long is disabled. */
  disableAfterMs: number;
}

/** A transaction's life (src/core/transactions/lifecycle.ts; docs/lifecycle.md). */
export const LifecycleEnvSchema = z.object({
  PAYGATE_INITIATED_WINDOW_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(43_200)
    .default(1440)
    .describe("How long an `INITIATED` transaction waits for initiate before it is abandoned. Default: `1440` minutes."),
  PAYGATE_REFUND_CLAIM_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(365)
    .default(30)
    .describe(
      "How long a refund's claim link (`refund_url`, for a transaction without `refund_address`) lets the customer enter an address. Default: `30` days.",
    ),
  PAYGATE_CHECKOUT_WINDOW_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_080)
    .default(30)
    .describe("The checkout window: how long a `PENDING` transaction waits for its payment (`expires_at`). Default: `30` minutes."),
  PAYGATE_UNDERPAYMENT_TOLERANCE_PERCENT: z
    .string()
    .refine(isNumericString, "must be a percentage such as 0.5")
    .refine((v) => Number(v) <= 10, "must be at most 10")
    .default("0")
    .describe("A payment short by at most this percentage (0–10) still completes. Default: `0`."),
  PAYGATE_POLICY_EXPIRES_IN_MIN_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(604_800)
    .default(60)
    .describe("The shortest checkout window a merchant may ask for per payment (initialize's `expires_in`). Default: `60` seconds."),
  PAYGATE_POLICY_EXPIRES_IN_MAX_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(2_592_000)
    .default(604_800)
    .describe(
      "The longest checkout window a merchant may ask for per payment (initialize's `expires_in`), at most 30 days. Default: `604800` seconds (7 days).",
    ),
  PAYGATE_POLICY_UNDERPAYMENT_TOLERANCE_MIN_PERCENT: z
    .string()
    .refine(isNumericString, "must be a percentage such as 0.5")
    .refine((v) => new Decimal(v).lte(100), "must be at most 100")
    .default("0")
    .describe("The least underpayment tolerance a merchant may ask for per payment (initialize's `underpayment_tolerance`). Default: `0` percent."),
  PAYGATE_POLICY_UNDERPAYMENT_TOLERANCE_MAX_PERCENT: z
    .string()
    .refine(isNumericString, "must be a percentage such as 0.5")
    .refine((v) => new Decimal(v).lte(50), "must be at most 50")
    .default("10")
    .describe(
      "The most underpayment tolerance a merchant may ask for per payment (initialize's `underpayment_tolerance`), at most 50. Default: `10` percent.",
    ),
  PAYGATE_POLICY_CONFIRMATIONS_MIN: z.coerce
    .number()
    .int()
    .min(0)
    .max(10_000)
    .default(1)
    .describe(
      "The operator's floor on the confirmations a merchant may ask for per payment and coin (initialize's `confirmations`). Default: `1` block.",
    ),
  PAYGATE_POLICY_CONFIRMATIONS_MAX: z.coerce
    .number()
    .int()
    .min(0)
    .max(10_000)
    .default(1000)
    .describe("The most confirmations a merchant may ask for per payment and coin (initialize's `confirmations`). Default: `1000` blocks."),
  PAYGATE_POLICY_LATE_PAYMENT_MIN_PERCENT: z
    .string()
    .refine(isNumericString, "must be a percentage such as 0.5")
    .refine((v) => new Decimal(v).lte(100), "must be at most 100")
    .default("0")
    .describe(
      "The least rate movement a merchant may name per payment for accepting late payments (initialize's `late_payment.accept_if_rate_moved_below`). Default: `0` percent.",
    ),
  PAYGATE_POLICY_LATE_PAYMENT_MAX_PERCENT: z
    .string()
    .refine(isNumericString, "must be a percentage such as 0.5")
    .refine((v) => new Decimal(v).lte(50), "must be at most 50")
    .default("10")
    .describe(
      "The most rate movement a merchant may name per payment for accepting late payments (initialize's `late_payment.accept_if_rate_moved_below`), at most 50. Default: `10` percent.",
    ),
  PAYGATE_MERCHANT_SPREAD_MAX_PERCENT: z
    .string()
    .refine(isNumericString, "must be a percentage such as 1.5")
    .refine((v) => new Decimal(v).gte(0) && new Decimal(v).lte(50), "must be from 0 to 50")
    .default("10")
    .describe(
      "The largest spread a merchant may set on its rates (merchant pricing: `paygate merchant pricing --spread`, POST /v1/merchant/pricing, the dashboard), taken off the market rate in the merchant's favour; at most 50. Default: `10` percent.",
    ),
  PAYGATE_EXPIRY_SCHEDULER: boolean.default(true).describe("Run the expiry job in the service (`paygate worker` runs it too). Default: `true`."),
  PAYGATE_EXPIRY_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(5000)
    .describe("How often the expiry job looks for closed windows. Default: `5000` ms."),
});

export interface LifecycleConfig {
  initiatedWindowMs: number;
  checkoutWindowMs: number;
  /** A fraction, as a decimal string (0.005 for 0.5 %). */
  underpaymentTolerance: string;
  /** What a merchant may ask for per payment at initialize (PAYGATE_POLICY_…). */
  policyBounds: PolicyBounds;
  expiryScheduler: boolean;
  expiryIntervalMs: number;
}

/** The chain watcher's schedule (src/jobs/payment-watcher.ts); nodes are in src/rails/chains/config.ts. */
export const WatchEnvSchema = z.object({
  PAYGATE_PAYMENT_WATCHER: boolean.default(true).describe("Run the payment watcher in the service (`paygate worker` runs it too). Default: `true`."),
  PAYGATE_WATCH_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(3_600_000)
    .default(15_000)
    .describe("How often each watched address is read from its node. Default: `15000` ms."),
  PAYGATE_WATCH_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(4)
    .describe("Node requests under way at once, per process. Default: `4`."),
  PAYGATE_LATE_PAYMENT_WATCH_HOURS: z.coerce
    .number()
    .int()
    .min(0)
    .max(720)
    .default(24)
    .describe("How long an abandoned transaction's address is still watched for late payments. Default: `24` hours."),
  PAYGATE_FINALITY_WATCH_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(720)
    .default(168)
    .describe(
      "The longest a SUCCESSFUL transaction is watched for its finality depth (PAYGATE_FINALITY_*) after its checkout window closed, for a node that never reports it (1–720 hours). Default: `168` hours.",
    ),
});

export interface WatchConfig {
  enabled: boolean;
  intervalMs: number;
  concurrency: number;
  lateGraceMs: number;
  /** PAYGATE_FINALITY_WATCH_HOURS in milliseconds. */
  finalityWatchMs: number;
}

const RATE_LIMIT = /^(\d+)\s*\/\s*(\d*)\s*(s|m|h)$/;
const WINDOW_MS = { s: 1000, m: 60_000, h: 3_600_000 } as const;

/**
 * `100/s`, `6000/m`, `50/10s`, `1000/h`: at most that many in each window of that length (a bare
 * number counts per `bareWindow`). `0` or `off`: no limit.
 */
export function parseRateLimit(text: string, bareWindow: "s" | "m"): RateLimit | null | string {
  const value = text.trim().toLowerCase();
  if (value === "0" || value === "off") return null;
  const match = RATE_LIMIT.exec(/^\d+$/.test(value) ? `${value}/${bareWindow}` : value);
  if (!match) return `'${text}' is not a limit; use a count per window such as 100/s, 6000/m or 50/10s (0 turns it off)`;
  const limit = Number(match[1]);
  const windowMs = Number(match[2] || 1) * WINDOW_MS[match[3] as keyof typeof WINDOW_MS];
  if (limit < 1 || limit > 1_000_000) return `'${text}': the count must be 1 to 1000000 (0 turns the limit off)`;
  if (windowMs < 1000 || windowMs > 86_400_000) return `'${text}': the window must be 1 s to 24 h`;
  return { limit, windowMs };
}

const rateLimit = (fallback: RateLimit | null, bareWindow: "s" | "m") =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return fallback;
      const parsed = parseRateLimit(v, bareWindow);
      if (typeof parsed === "string") {
        ctx.addIssue({ code: "custom", message: parsed });
        return z.NEVER;
      }
      return parsed;
    });

const PROXY_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);

/**
 * Express's `trust proxy`: `false` (or 0), a number of proxies in front of the service, or a list of
 * their addresses, subnets and Express's names (loopback, linklocal, uniquelocal). Not `true`.
 */
export function parseTrustProxy(text: string): false | number | string[] | { error: string } {
  const value = text.trim().toLowerCase();
  if (value === "false" || value === "0" || value === "off") return false;
  if (value === "true") {
    return {
      error:
        "true would trust every X-Forwarded-For, which any client can write (and so choose its address); give the number of proxies in front of paygate (1) or their addresses (loopback, 10.0.0.0/8)",
    };
  }
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return hops <= 10 ? hops : { error: `${hops} proxies in front of paygate? At most 10` };
  }
  const entries = value.split(",").map((entry) => entry.trim());
  for (const entry of entries) {
    if (PROXY_NAMES.has(entry) || ipaddr.isValid(entry) || isCidr(entry)) continue;
    return { error: `'${entry}' is not an address, a subnet (10.0.0.0/8) or one of loopback, linklocal, uniquelocal` };
  }
  return entries;
}

function isCidr(text: string): boolean {
  try {
    ipaddr.parseCIDR(text);
    return true;
  } catch {
    return false;
  }
}

/** Rate limits (src/core/rate-limits.ts; docs/rest-api.md, Rate limits) and who the client is. */
export const RateLimitEnvSchema = z.object({
  PAYGATE_RATE_LIMIT_LIVE: rateLimit(DEFAULT_RATE_LIMITS.live, "s").describe(
    "Requests per live API key (`pub_live_…`, `sec_live_…`), and per client address for requests without a key: a count per window, `100/s`, `6000/m`, `50/10s`, `1000/h` (a bare number is per second). `0` or `off`: no limit. See [Rate limits](rest-api.md#rate-limits). Default: `100/s`.",
  ),
  PAYGATE_RATE_LIMIT_TEST: rateLimit(DEFAULT_RATE_LIMITS.test, "s").describe(
    "Requests per test API key (`pub_test_…`, `sec_test_…`, and any other bearer token); a count per window, written as for `PAYGATE_RATE_LIMIT_LIVE`. Default: `25/s`.",
  ),
  PAYGATE_RATE_LIMIT_AUTH_FAILURES: rateLimit(DEFAULT_RATE_LIMITS.authFailures, "m").describe(
    "Failed authentications per client address (a bare number is per minute); once reached, every request from that address is refused with 429 until the window ends. `0` or `off`: no limit. Default: `20/m`.",
  ),
  PAYGATE_TRUST_PROXY: z
    .string()
    .default("false")
    .transform((v, ctx) => {
      const parsed = parseTrustProxy(v);
      if (typeof parsed === "object" && !Array.isArray(parsed)) {
        ctx.addIssue({ code: "custom", message: parsed.error });
        return z.NEVER;
      }
      return parsed;
    })
    .describe(
      "Who the client is for the per-address limits. `false`: the connection's peer. Behind a load balancer or reverse proxy, the number of proxies in front of paygate (`1`), or their addresses and subnets (`10.0.0.0/8`, `loopback`, `uniquelocal`): the client is then read from `X-Forwarded-For` as those proxies wrote it. `true` is refused (see [Rate limits](rest-api.md#rate-limits)). Default: `false`.",
    ),
});

/** What a client may hold open (src/edge/connection-limits.ts; docs/security.md, "Connections and live updates"). */
export const ConnectionEnvSchema = z.object({
  PAYGATE_MAX_CONNECTIONS_PER_ADDRESS: z.coerce
    .number()
    .int()
    .min(0)
    .max(100_000)
    .default(DEFAULT_CONNECTION_LIMITS.perAddress)
    .describe(
      "Open TCP connections per client address (a trusted proxy is not capped); past it a new connection is closed at once. `0`: no cap. See [security.md](security.md). Default: `256`.",
    ),
  PAYGATE_HTTP_HEADERS_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(300_000)
    .default(DEFAULT_CONNECTION_LIMITS.headersTimeoutMs)
    .describe("How long a client may take to send a request's headers (then 408 and the connection is closed). Default: `15000` ms."),
  PAYGATE_HTTP_REQUEST_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(600_000)
    .default(DEFAULT_CONNECTION_LIMITS.requestTimeoutMs)
    .describe("How long a client may take to send a whole request; at least the headers timeout. Default: `60000` ms."),
  PAYGATE_LIVE_MAX_PER_ADDRESS: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(DEFAULT_LIVE_LIMITS.perAddress)
    .describe(
      "Open live-update connections (event streams and WebSockets) per client address; past it 429 `too_many_live_connections`. Default: `32`.",
    ),
  PAYGATE_LIVE_MAX_PER_CREDENTIAL: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(DEFAULT_LIVE_LIMITS.perCredential)
    .describe("Open live-update connections per API key or client secret (a WebSocket past it is closed with code 4429). Default: `100`."),
  /** Default: from the process's open-file limit (defaultLiveTotal). */
  PAYGATE_LIVE_MAX_CONNECTIONS: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .optional()
    .describe(
      "Open live-update connections of the instance in all; refused at start above the file limit less 128. Default: from the open-file limit (448 at `ulimit -n` 1024, at most 10000).",
    ),
  PAYGATE_LIVE_MAX_SUBSCRIPTIONS_PER_SOCKET: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(DEFAULT_LIVE_LIMITS.subscriptionsPerSocket)
    .describe("Subscriptions one WebSocket holds at once; each `subscribe` also counts as a request of the rate limits. Default: `5`."),
  PAYGATE_EVENT_STREAM_MAX_PER_KEY: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(DEFAULT_EVENT_STREAM_LIMITS.perKey)
    .describe(
      "Open live event streams (`GET /v1/events/stream`, what `paygate listen` follows) per secret key, per instance; past it 429 `too_many_event_streams`. Default: `5`.",
    ),
  PAYGATE_EVENT_STREAM_MAX_TOTAL: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(DEFAULT_EVENT_STREAM_LIMITS.total)
    .describe(
      "Open live event streams of the instance in all (each also counts as a live-update connection); past it 503 `event_streams_full`. Default: `1000`.",
    ),
  PAYGATE_EVENT_STREAM_HEARTBEAT_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(300)
    .default(DEFAULT_EVENT_STREAM_LIMITS.heartbeatMs / 1000)
    .describe(
      "How often an idle event stream sends a `: heartbeat` comment, so that proxies keep it open and clients see it alive. Default: `15` s.",
    ),
});

export const EnvSchema = z.object({
  ...ConnectionEnvSchema.shape,
  ...PriceEnvSchema.shape,
  ...ChainEnvSchema.shape,
  ...WatchEnvSchema.shape,
  ...LifecycleEnvSchema.shape,
  ...WebhookEnvSchema.shape,
  ...RateLimitEnvSchema.shape,
  PORT: z.coerce.number().int().min(0).max(65535).default(3000).describe("HTTP port. Default: `3000`."),
  HOST: z.string().min(1).default("0.0.0.0").describe("Interface to listen on. Default: `0.0.0.0`."),
  /** Default: the listening address (defaultPublicUrl). */
  PAYGATE_PUBLIC_URL: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return undefined;
      const parsed = parsePublicUrl(v);
      if ("problem" in parsed) {
        ctx.addIssue({ code: "custom", message: parsed.problem });
        return z.NEVER;
      }
      return parsed.url;
    })
    .describe(
      "The base URL customers reach paygate at, behind any proxy: `checkout_url` is `{PAYGATE_PUBLIC_URL}/checkout/<client secret>`. An `http`/`https` URL with scheme, host and port only (no path, query or fragment); a trailing slash is dropped. Set it in production (`https://pay.example.com`). Dashboard security keys are bound to its host (the WebAuthn RP ID): changing it makes registered keys unusable. Default: `http://{HOST}:{PORT}` (`0.0.0.0` → `127.0.0.1`).",
    ),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional()
    .describe("`postgres://…` of a PostgreSQL server. Unset: embedded PGlite under `PAYGATE_DATA_DIR`. Default: unset."),
  PAYGATE_DATA_DIR: z
    .string()
    .min(1)
    .default("./.data")
    .describe("Folder of the embedded database (`pglite/`) and, without `PAYGATE_ENCRYPTION_KEY`, of `encryption.key`. Default: `./.data`."),
  PAYGATE_DB_POOL_MAX: z.coerce.number().int().min(1).max(500).default(10).describe("Connections in the PostgreSQL pool. Default: `10`."),
  PAYGATE_DB_PREPARED_STATEMENTS: z.coerce
    .number()
    .int()
    .min(0)
    .max(1000)
    .default(DEFAULT_PREPARED_STATEMENTS)
    .describe(
      "How many statement texts each PostgreSQL connection keeps prepared (parsed and planned once, then run by name): a text gets a name the third time it runs, up to this many; the rest run unnamed. Cut PostgreSQL's CPU per initiate by about a third ([Benchmarks](benchmarks.md)). `0`: none, for a connection pooler in transaction mode that does not carry prepared statements (PgBouncer before 1.21, or without `max_prepared_statements`). Default: `100`.",
    ),
  /** 32 bytes, base64 or hex: the key that encrypts webhook secrets at rest. */
  PAYGATE_ENCRYPTION_KEY: z
    .string()
    .optional()
    .describe(
      "32 bytes (base64 or 64 hex digits) that encrypt webhook secrets at rest (AES-256-GCM). Required with `DATABASE_URL`, since every instance must share it: `openssl rand -base64 32`. On the embedded database a key file is made in `PAYGATE_DATA_DIR` on first start. Default: generated file.",
    ),
  PAYGATE_LOG_REQUESTS: boolean
    .default(true)
    .describe("Log one JSON line per request (see [Logs](operations.md#logs)). `false` keeps only errors and events. Default: `true`."),
  PAYGATE_METRICS: boolean
    .default(true)
    .describe(
      "Serve `GET /metrics` (Prometheus text format, prom-client). It is unauthenticated: keep it off the internet (bind or firewall it). Metrics, labels and alerts: [metrics.md](metrics.md). Default: `true`.",
    ),
  PAYGATE_LOG_LEVEL: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
    .default("info")
    .describe("Lowest level logged: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`. Default: `info`."),
  PAYGATE_CREDENTIAL_CACHE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(5000)
    .describe(
      "How long a found API key or payment link is remembered in memory (0: never). A revoked key or a deactivated merchant is refused at most this long after the change; unknown keys are never remembered. Default: `5000` ms.",
    ),
  /** Owners and developers must set up a second factor before anything else (docs/security.md). */
  PAYGATE_DASHBOARD_REQUIRE_2FA: boolean
    .default(false)
    .describe(
      "Require a second factor (an authenticator app or a security key) of dashboard owners and developers: until they set one up they can sign in but do nothing else (403 `second_factor_enrolment_required`; the dashboard leads them to its Security page). Viewers are not asked. See [The dashboard](dashboard.md). Default: `false`.",
    ),
  /** Sudo mode: sensitive dashboard changes need the password proved within this many minutes. */
  PAYGATE_DASHBOARD_REAUTHENTICATION_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(1440)
    .default(10)
    .describe(
      "Sudo mode: changing a wallet, a webhook URL or secret, an API key, users or a second factor, or making a refund, asks for the password (and code) again when the session last proved them longer ago than this (1–1440). Default: `10` minutes.",
    ),
  NODE_ENV: z.string().optional().describe("`production` turns the GraphQL introspection and landing page off by default. Default: unset."),
  /** Default: on, except when NODE_ENV=production. */
  PAYGATE_GRAPHQL_INTROSPECTION: boolean.optional().describe("Allow schema introspection on `/graphql`. Default: on, off in production."),
  PAYGATE_GRAPHQL_LANDING_PAGE: boolean
    .optional()
    .describe("The page on `GET /graphql` from a browser (served by paygate itself, works offline). Default: on, off in production."),
  PAYGATE_GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(2).max(50).default(8).describe("Deepest query accepted. Default: `8`."),
  PAYGATE_GRAPHQL_MAX_COST: z.coerce
    .number()
    .int()
    .min(10)
    .max(100_000)
    .default(1000)
    .describe("Costliest query accepted (graphql-armor's cost model). Default: `1000`."),
  /** Which web pages may call the browser routes (src/edge/cors.ts; docs/rest-api.md, Browsers and CORS). */
  PAYGATE_CORS_ORIGINS: z
    .string()
    .default("*")
    .transform((v, ctx) => {
      const parsed = parseCorsOrigins(v);
      if ("problem" in parsed) {
        ctx.addIssue({ code: "custom", message: parsed.problem });
        return z.NEVER;
      }
      return parsed.origins;
    })
    .describe(
      "Which web pages may call the browser routes (CORS, see [Browsers and CORS](rest-api.md#browsers-and-cors)): `*` for any origin, or a comma-separated list of exact origins as browsers send them (`https://shop.example.com,http://localhost:5173`: scheme, host and port only, lowercase, no path or trailing slash, no wildcards). Default: `*`.",
    ),
});

export interface Config {
  port: number;
  host: string;
  /** PAYGATE_PUBLIC_URL, without a trailing slash: checkout_url is `{publicUrl}/checkout/<client secret>`. */
  publicUrl: string;
  /** PAYGATE_REFUND_CLAIM_DAYS: how long a refund's claim link is valid. */
  refundClaimDays: number;
  database: { kind: "postgres"; url: string; poolMax: number; preparedStatements: number } | { kind: "pglite"; dataDir: string };
  dataDir: string;
  encryptionKey: string | undefined;
  logRequests: boolean;
  /** The lowest level logged (pino's levels). */
  logLevel: string;
  /** GET /metrics (Prometheus; unauthenticated: docs/metrics.md). */
  metrics: boolean;
  /** How long a found API key or payment link is remembered (0: never). */
  credentialCacheMs: number;
  prices: PriceConfig;
  webhooks: WebhookConfig;
  lifecycle: LifecycleConfig;
  chains: ChainConfig;
  watch: WatchConfig;
  graphql: { introspection: boolean; landingPage: boolean; maxDepth: number; maxCost: number };
  /** Origins whose pages may call the browser routes: any (`*`) or these exact ones. */
  cors: { origins: "*" | string[] };
  rateLimits: RateLimitPolicy;
  /** Express's `trust proxy`: false, a number of proxies, or their addresses and subnets. */
  trustProxy: false | number | string[];
  /** Dashboard accounts: a second factor required of owners and developers; how recent a proof sensitive changes need. */
  dashboard: { requireSecondFactor: boolean; reauthenticationMs: number };
  /** TCP connections and slow requests at the socket; `total` stays under the open-file limit. */
  connections: ConnectionLimits & { total: number };
  /** Live updates: event streams and WebSockets per address, per credential and in all; subscriptions per WebSocket. */
  live: LiveLimits;
  /** Live event streams (GET /v1/events/stream) per secret key and in all, and their heartbeat. */
  eventStreams: EventStreamLimits;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(emptyToUndefined(env));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}\nFix these environment variables (see docs/configuration.md).`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.PAYGATE_DATA_DIR);
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl: e.PAYGATE_PUBLIC_URL ?? defaultPublicUrl(e.HOST, e.PORT),
    refundClaimDays: e.PAYGATE_REFUND_CLAIM_DAYS,
    database: e.DATABASE_URL
      ? { kind: "postgres", url: e.DATABASE_URL, poolMax: e.PAYGATE_DB_POOL_MAX, preparedStatements: e.PAYGATE_DB_PREPARED_STATEMENTS }
      : { kind: "pglite", dataDir: path.join(dataDir, "pglite") },
    dataDir,
    encryptionKey: e.PAYGATE_ENCRYPTION_KEY,
    logRequests: e.PAYGATE_LOG_REQUESTS,
    logLevel: e.PAYGATE_LOG_LEVEL,
    metrics: e.PAYGATE_METRICS,
    credentialCacheMs: e.PAYGATE_CREDENTIAL_CACHE_MS,
    prices: priceConfig(e),
    chains: chainConfig(e),
    watch: {
      enabled: e.PAYGATE_PAYMENT_WATCHER,
      intervalMs: e.PAYGATE_WATCH_INTERVAL_MS,
      concurrency: e.PAYGATE_WATCH_CONCURRENCY,
      lateGraceMs: e.PAYGATE_LATE_PAYMENT_WATCH_HOURS * 3_600_000,
      finalityWatchMs: e.PAYGATE_FINALITY_WATCH_HOURS * 3_600_000,
    },
    lifecycle: {
      initiatedWindowMs: e.PAYGATE_INITIATED_WINDOW_MINUTES * 60_000,
      checkoutWindowMs: e.PAYGATE_CHECKOUT_WINDOW_MINUTES * 60_000,
      underpaymentTolerance: new Decimal(e.PAYGATE_UNDERPAYMENT_TOLERANCE_PERCENT).div(100).toFixed(),
      policyBounds: {
        expiresIn: { min: e.PAYGATE_POLICY_EXPIRES_IN_MIN_SECONDS, max: e.PAYGATE_POLICY_EXPIRES_IN_MAX_SECONDS },
        underpaymentTolerance: {
          min: new Decimal(e.PAYGATE_POLICY_UNDERPAYMENT_TOLERANCE_MIN_PERCENT),
          max: new Decimal(e.PAYGATE_POLICY_UNDERPAYMENT_TOLERANCE_MAX_PERCENT),
        },
        confirmations: { min: e.PAYGATE_POLICY_CONFIRMATIONS_MIN, max: e.PAYGATE_POLICY_CONFIRMATIONS_MAX },
        latePayment: { min: new Decimal(e.PAYGATE_POLICY_LATE_PAYMENT_MIN_PERCENT), max: new Decimal(e.PAYGATE_POLICY_LATE_PAYMENT_MAX_PERCENT) },
        spread: { min: new Decimal(0), max: new Decimal(e.PAYGATE_MERCHANT_SPREAD_MAX_PERCENT) },
      },
      expiryScheduler: e.PAYGATE_EXPIRY_SCHEDULER,
      expiryIntervalMs: e.PAYGATE_EXPIRY_INTERVAL_MS,
    },
    webhooks: {
      dispatcher: e.PAYGATE_WEBHOOK_DISPATCHER,
      timeoutMs: e.PAYGATE_WEBHOOK_TIMEOUT_MS,
      retryScheduleMs: e.PAYGATE_WEBHOOK_RETRY_SCHEDULE,
      pollMs: e.PAYGATE_WEBHOOK_POLL_MS,
      concurrency: e.PAYGATE_WEBHOOK_CONCURRENCY,
      endpointsMax: e.PAYGATE_WEBHOOK_ENDPOINTS_MAX,
      testEventDetails: e.PAYGATE_WEBHOOK_TEST_EVENT_DETAILS,
      disableAfterMs: Math.round(e.PAYGATE_WEBHOOK_DISABLE_AFTER_HOURS * 3_600_000),
      privateTargets: {
        live: e.PAYGATE_WEBHOOK_ALLOW_PRIVATE,
        // Local development on the embedded database sends test events to http://127.0.0.1:…; a shared
        // PostgreSQL deployment serves other people's users, who must not reach its network.
        test: e.PAYGATE_TEST_WEBHOOK_ALLOW_PRIVATE ?? !e.DATABASE_URL,
        allowlist: e.PAYGATE_WEBHOOK_PRIVATE_ALLOWLIST,
      },
    },
    graphql: {
      introspection: e.PAYGATE_GRAPHQL_INTROSPECTION ?? e.NODE_ENV !== "production",
      landingPage: e.PAYGATE_GRAPHQL_LANDING_PAGE ?? e.NODE_ENV !== "production",
      maxDepth: e.PAYGATE_GRAPHQL_MAX_DEPTH,
      maxCost: e.PAYGATE_GRAPHQL_MAX_COST,
    },
    cors: { origins: e.PAYGATE_CORS_ORIGINS },
    rateLimits: {
      live: e.PAYGATE_RATE_LIMIT_LIVE,
      test: e.PAYGATE_RATE_LIMIT_TEST,
      authFailures: e.PAYGATE_RATE_LIMIT_AUTH_FAILURES,
    },
    trustProxy: e.PAYGATE_TRUST_PROXY,
    dashboard: {
      requireSecondFactor: e.PAYGATE_DASHBOARD_REQUIRE_2FA,
      reauthenticationMs: e.PAYGATE_DASHBOARD_REAUTHENTICATION_MINUTES * 60_000,
    },
    ...connectionConfig(e),
  };
}

function connectionConfig(e: z.output<typeof ConnectionEnvSchema>): Pick<Config, "connections" | "live" | "eventStreams"> {
  const fileLimit = openFileLimit();
  const problems: string[] = [];
  if (e.PAYGATE_HTTP_REQUEST_TIMEOUT_MS < e.PAYGATE_HTTP_HEADERS_TIMEOUT_MS) {
    problems.push(`  PAYGATE_HTTP_REQUEST_TIMEOUT_MS: must be at least PAYGATE_HTTP_HEADERS_TIMEOUT_MS (${e.PAYGATE_HTTP_HEADERS_TIMEOUT_MS})`);
  }
  const total = defaultConnectionTotal(fileLimit);
  if (e.PAYGATE_LIVE_MAX_CONNECTIONS !== undefined && e.PAYGATE_LIVE_MAX_CONNECTIONS > total) {
    problems.push(
      `  PAYGATE_LIVE_MAX_CONNECTIONS: must be at most ${total} (the open-file limit ${fileLimit} less what requests and the database need); raise the limit (ulimit -n) first`,
    );
  }
  if (problems.length > 0) {
    throw new ConfigError(`Invalid configuration:\n${problems.join("\n")}\nFix these environment variables (see docs/configuration.md).`);
  }
  return {
    connections: {
      perAddress: e.PAYGATE_MAX_CONNECTIONS_PER_ADDRESS,
      headersTimeoutMs: e.PAYGATE_HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.PAYGATE_HTTP_REQUEST_TIMEOUT_MS,
      total,
    },
    live: {
      perAddress: e.PAYGATE_LIVE_MAX_PER_ADDRESS,
      perCredential: e.PAYGATE_LIVE_MAX_PER_CREDENTIAL,
      total: e.PAYGATE_LIVE_MAX_CONNECTIONS ?? defaultLiveTotal(fileLimit),
      subscriptionsPerSocket: e.PAYGATE_LIVE_MAX_SUBSCRIPTIONS_PER_SOCKET,
    },
    eventStreams: {
      perKey: e.PAYGATE_EVENT_STREAM_MAX_PER_KEY,
      total: e.PAYGATE_EVENT_STREAM_MAX_TOTAL,
      heartbeatMs: e.PAYGATE_EVENT_STREAM_HEARTBEAT_SECONDS * 1000,
    },
  };
}

/** An empty variable (`PORT=`) means unset, as most shells and .env loaders intend. */
function emptyToUndefined(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) out[k] = v === "" ? undefined : v;
  return out;
}
