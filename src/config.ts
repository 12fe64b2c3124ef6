// The environment, parsed and checked once at start. Every variable is documented in the README.
import path from "node:path";
import { z } from "zod";
import ipaddr from "ipaddr.js";
import { Decimal, isNumericString } from "./core/money/amounts.ts";
import { PrivateAllowlist, type PrivateTargets } from "./core/merchants/private-targets.ts";
import { DEFAULT_RATE_LIMITS, type RateLimit, type RateLimitPolicy } from "./core/rate-limits.ts";
import { DEFAULT_PREPARED_STATEMENTS } from "./db/prepared-statements.ts";
import { ChainEnvSchema, chainConfig, type ChainConfig } from "./rails/chains/config.ts";
import {
  type ConnectionLimits,
  DEFAULT_CONNECTION_LIMITS,
  defaultConnectionTotal,
  defaultLiveTotal,
  DEFAULT_LIVE_LIMITS,
  type LiveLimits,
  openFileLimit,
} from "./http/connection-limits.ts";

const boolean = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");

const httpUrl = z
  .string()
  .regex(/^https?:\/\/[^\s]+$/, "must be an http:// or https:// URL")
  .refine((v) => URL.canParse(v), "must be an http:// or https:// URL");

export const PRICE_PROVIDERS = ["coingecko", "kraken"] as const;
export type PriceProvider = (typeof PRICE_PROVIDERS)[number];

/** Live price feeds (src/rails/prices; README "Prices"). */
const PriceEnvSchema = z.object({
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
    ),
  PAYGATE_COINGECKO_URL: httpUrl.optional(),
  PAYGATE_COINGECKO_API_KEY: z.string().optional(),
  PAYGATE_COINGECKO_PLAN: z.enum(["demo", "pro"]).default("demo"),
  PAYGATE_KRAKEN_URL: httpUrl.default("https://api.kraken.com"),
  PAYGATE_PRICE_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  PAYGATE_PRICE_MAX_AGE_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  PAYGATE_PRICE_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(3000),
});

export interface PriceConfig {
  /** Tried in order; the first that quotes a pair prices it. */
  feeds: PriceProvider[];
  coingecko: { url: string; apiKey: string | undefined; plan: "demo" | "pro" };
  kraken: { url: string };
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
  if (problems.length > 0) {
    throw new ConfigError(`Invalid configuration:\n${problems.join("\n")}\nFix these environment variables (see README, "Configuration").`);
  }
  return {
    feeds: e.PAYGATE_PRICE_FEED,
    coingecko: {
      url: e.PAYGATE_COINGECKO_URL ?? (e.PAYGATE_COINGECKO_PLAN === "pro" ? "https://pro-api.coingecko.com" : "https://api.coingecko.com"),
      apiKey: e.PAYGATE_COINGECKO_API_KEY,
      plan: e.PAYGATE_COINGECKO_PLAN,
    },
    kraken: { url: e.PAYGATE_KRAKEN_URL },
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

/** Webhook delivery (src/webhooks; README "Webhooks"). */
const WebhookEnvSchema = z.object({
  PAYGATE_WEBHOOK_DISPATCHER: boolean.default(true),
  PAYGATE_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
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
    }),
  PAYGATE_WEBHOOK_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(250),
  PAYGATE_WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  PAYGATE_WEBHOOK_ALLOW_PRIVATE: boolean.default(false),
  /** Unset: on for the embedded database's local setup only (no DATABASE_URL), see loadConfig. */
  PAYGATE_TEST_WEBHOOK_ALLOW_PRIVATE: boolean.optional(),
  PAYGATE_WEBHOOK_PRIVATE_ALLOWLIST: z
    .string()
    .default("")
    .transform((v, ctx) => {
      const parsed = PrivateAllowlist.parse(v);
      if (parsed instanceof PrivateAllowlist) return parsed;
      ctx.addIssue({ code: "custom", message: parsed.problem });
      return z.NEVER;
    }),
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
}

/** A transaction's life (src/core/transactions/lifecycle.ts; README "Lifecycle"). */
const LifecycleEnvSchema = z.object({
  PAYGATE_INITIATED_WINDOW_MINUTES: z.coerce.number().int().min(1).max(43_200).default(1440),
  PAYGATE_CHECKOUT_WINDOW_MINUTES: z.coerce.number().int().min(1).max(10_080).default(30),
  PAYGATE_UNDERPAYMENT_TOLERANCE_PERCENT: z
    .string()
    .refine(isNumericString, "must be a percentage such as 0.5")
    .refine((v) => Number(v) <= 10, "must be at most 10")
    .default("0"),
  PAYGATE_EXPIRY_SCHEDULER: boolean.default(true),
  PAYGATE_EXPIRY_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
});

export interface LifecycleConfig {
  initiatedWindowMs: number;
  checkoutWindowMs: number;
  /** A fraction, as a decimal string (0.005 for 0.5 %). */
  underpaymentTolerance: string;
  expiryScheduler: boolean;
  expiryIntervalMs: number;
}

/** The chain watcher's schedule (src/jobs/payment-watcher.ts); nodes are in src/rails/chains/config.ts. */
const WatchEnvSchema = z.object({
  PAYGATE_PAYMENT_WATCHER: boolean.default(true),
  PAYGATE_WATCH_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
  PAYGATE_WATCH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  PAYGATE_LATE_PAYMENT_WATCH_HOURS: z.coerce.number().int().min(0).max(720).default(24),
});

export interface WatchConfig {
  enabled: boolean;
  intervalMs: number;
  concurrency: number;
  lateGraceMs: number;
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

/** Rate limits (src/core/rate-limits.ts; README "Rate limits") and who the client is. */
const RateLimitEnvSchema = z.object({
  PAYGATE_RATE_LIMIT_LIVE: rateLimit(DEFAULT_RATE_LIMITS.live, "s"),
  PAYGATE_RATE_LIMIT_TEST: rateLimit(DEFAULT_RATE_LIMITS.test, "s"),
  PAYGATE_RATE_LIMIT_AUTH_FAILURES: rateLimit(DEFAULT_RATE_LIMITS.authFailures, "m"),
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
    }),
});

/** What a client may hold open (src/http/connection-limits.ts; docs/security.md, "Connections and live updates"). */
const ConnectionEnvSchema = z.object({
  PAYGATE_MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(0).max(100_000).default(DEFAULT_CONNECTION_LIMITS.perAddress),
  PAYGATE_HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1000).max(300_000).default(DEFAULT_CONNECTION_LIMITS.headersTimeoutMs),
  PAYGATE_HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(DEFAULT_CONNECTION_LIMITS.requestTimeoutMs),
  PAYGATE_LIVE_MAX_PER_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(DEFAULT_LIVE_LIMITS.perAddress),
  PAYGATE_LIVE_MAX_PER_CREDENTIAL: z.coerce.number().int().min(1).max(100_000).default(DEFAULT_LIVE_LIMITS.perCredential),
  /** Default: from the process's open-file limit (defaultLiveTotal). */
  PAYGATE_LIVE_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).optional(),
  PAYGATE_LIVE_MAX_SUBSCRIPTIONS_PER_SOCKET: z.coerce.number().int().min(1).max(1000).default(DEFAULT_LIVE_LIMITS.subscriptionsPerSocket),
});

const EnvSchema = z.object({
  ...ConnectionEnvSchema.shape,
  ...PriceEnvSchema.shape,
  ...ChainEnvSchema.shape,
  ...WatchEnvSchema.shape,
  ...LifecycleEnvSchema.shape,
  ...WebhookEnvSchema.shape,
  ...RateLimitEnvSchema.shape,
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
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
    }),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  PAYGATE_DATA_DIR: z.string().min(1).default("./.data"),
  PAYGATE_DB_POOL_MAX: z.coerce.number().int().min(1).max(500).default(10),
  PAYGATE_DB_PREPARED_STATEMENTS: z.coerce.number().int().min(0).max(1000).default(DEFAULT_PREPARED_STATEMENTS),
  /** 32 bytes, base64 or hex: the key that encrypts webhook secrets at rest. */
  PAYGATE_ENCRYPTION_KEY: z.string().optional(),
  PAYGATE_LOG_REQUESTS: boolean.default(true),
  PAYGATE_METRICS: boolean.default(true),
  PAYGATE_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  PAYGATE_CREDENTIAL_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(5000),
  /** Owners and developers must set up a second factor before anything else (docs/security.md). */
  PAYGATE_DASHBOARD_REQUIRE_2FA: boolean.default(false),
  /** Sudo mode: sensitive dashboard changes need the password proved within this many minutes. */
  PAYGATE_DASHBOARD_REAUTHENTICATION_MINUTES: z.coerce.number().int().min(1).max(1440).default(10),
  NODE_ENV: z.string().optional(),
  /** Default: on, except when NODE_ENV=production. */
  PAYGATE_GRAPHQL_INTROSPECTION: boolean.optional(),
  PAYGATE_GRAPHQL_LANDING_PAGE: boolean.optional(),
  PAYGATE_GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(2).max(50).default(8),
  PAYGATE_GRAPHQL_MAX_COST: z.coerce.number().int().min(10).max(100_000).default(1000),
  /** Which web pages may call the browser routes (src/http/cors.ts; README "Browsers and CORS"). */
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
    }),
});

export interface Config {
  port: number;
  host: string;
  /** PAYGATE_PUBLIC_URL, without a trailing slash: checkout_url is `{publicUrl}/checkout/<client secret>`. */
  publicUrl: string;
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
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(emptyToUndefined(env));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}\nFix these environment variables (see README, "Configuration").`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.PAYGATE_DATA_DIR);
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl: e.PAYGATE_PUBLIC_URL ?? defaultPublicUrl(e.HOST, e.PORT),
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
    },
    lifecycle: {
      initiatedWindowMs: e.PAYGATE_INITIATED_WINDOW_MINUTES * 60_000,
      checkoutWindowMs: e.PAYGATE_CHECKOUT_WINDOW_MINUTES * 60_000,
      underpaymentTolerance: new Decimal(e.PAYGATE_UNDERPAYMENT_TOLERANCE_PERCENT).div(100).toFixed(),
      expiryScheduler: e.PAYGATE_EXPIRY_SCHEDULER,
      expiryIntervalMs: e.PAYGATE_EXPIRY_INTERVAL_MS,
    },
    webhooks: {
      dispatcher: e.PAYGATE_WEBHOOK_DISPATCHER,
      timeoutMs: e.PAYGATE_WEBHOOK_TIMEOUT_MS,
      retryScheduleMs: e.PAYGATE_WEBHOOK_RETRY_SCHEDULE,
      pollMs: e.PAYGATE_WEBHOOK_POLL_MS,
      concurrency: e.PAYGATE_WEBHOOK_CONCURRENCY,
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

function connectionConfig(e: z.output<typeof ConnectionEnvSchema>): Pick<Config, "connections" | "live"> {
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
    throw new ConfigError(`Invalid configuration:\n${problems.join("\n")}\nFix these environment variables (see README, "Configuration").`);
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
  };
}

/** An empty variable (`PORT=`) means unset, as most shells and .env loaders intend. */
function emptyToUndefined(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) out[k] = v === "" ? undefined : v;
  return out;
}
