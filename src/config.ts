// The environment, parsed and checked once at start. Each adapter owns its variables' schema (src/db/config.ts,
// src/edge/config.ts, src/rails/prices/config.ts, src/rails/chains/config.ts, src/jobs/config.ts,
// src/webhooks/config.ts, src/graphql/config.ts, src/http/dashboard/config.ts); this file composes them with the
// service's own (port, public URL, encryption key, logs) and builds the Config. Every variable has a `.describe()`
// (what it does, its default and unit), from which `npm run docs:config` writes docs/configuration.md.
import path from "node:path";
import { z } from "zod";
import { Decimal } from "./core/money/amounts.ts";
import type { RateLimitPolicy } from "./core/rate-limits.ts";
import { DatabaseEnvSchema } from "./db/config.ts";
import { type ConnectionConfig, connectionConfig, ConnectionEnvSchema, CorsEnvSchema, RateLimitEnvSchema } from "./edge/config.ts";
import { boolean, ConfigError } from "./env.ts";
import { GraphqlEnvSchema } from "./graphql/config.ts";
import { DashboardEnvSchema } from "./http/dashboard/config.ts";
import { type LifecycleConfig, LifecycleEnvSchema, type WatchConfig, WatchEnvSchema } from "./jobs/config.ts";
import { ChainEnvSchema, chainConfig, type ChainConfig } from "./rails/chains/config.ts";
import { type ForwarderConfig, forwarderConfig, ForwarderEnvSchema } from "./rails/evm/config.ts";
import { type PriceConfig, priceConfig, PriceEnvSchema } from "./rails/prices/config.ts";
import { type WebhookConfig, WebhookEnvSchema } from "./webhooks/config.ts";
import { type EmailConfig, emailConfig, EmailEnvSchema } from "./email/config.ts";

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

export const EnvSchema = z.object({
  ...ConnectionEnvSchema.shape,
  ...PriceEnvSchema.shape,
  ...ChainEnvSchema.shape,
  ...ForwarderEnvSchema.shape,
  ...WatchEnvSchema.shape,
  ...LifecycleEnvSchema.shape,
  ...WebhookEnvSchema.shape,
  ...EmailEnvSchema.shape,
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
  ...DatabaseEnvSchema.shape,
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
      "How long a found API key or payment link is remembered in memory (0: never). A revoked key or a deactivated merchant is refused at most this long after the change; unknown keys are never remembered. Initiate remembers the merchant's pricing and default networks as long, and the transactions this instance initialized, so that their initiate is one statement (docs/wallets-and-chains.md): a change made in this instance applies at once, one made in another at most this long after. Default: `5000` ms.",
    ),
  ...DashboardEnvSchema.shape,
  ...GraphqlEnvSchema.shape,
  ...CorsEnvSchema.shape,
});

export interface Config {
  port: number;
  host: string;
  /** PAYGATE_PUBLIC_URL, without a trailing slash: checkout_url is `{publicUrl}/checkout/<client secret>`. */
  publicUrl: string;
  /** PAYGATE_REFUND_CLAIM_DAYS: how long a refund's claim link is valid. */
  refundClaimDays: number;
  /** TRON own-address mode: PAYGATE_OWN_ADDRESS_MAX_EXTRA_UNITS, and the late window an amount stays held (PAYGATE_LATE_PAYMENT_WATCH_HOURS). */
  ownAddresses: { maxExtraUnits: number; holdAfterWindowMs: number };
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
  /** Customers' e-mails (issue 44): the SMTP server, the From, the retries. */
  email: EmailConfig;
  lifecycle: LifecycleConfig;
  chains: ChainConfig;
  /** Deposit forwarders on EVM networks (issue 40): factories, fee payers, the flush job. */
  forwarders: ForwarderConfig;
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
  connections: ConnectionConfig["connections"];
  /** Live updates: event streams and WebSockets per address, per credential and in all; subscriptions per WebSocket. */
  live: ConnectionConfig["live"];
  /** Live event streams (GET /v1/events/stream) per secret key and in all, and their heartbeat. */
  eventStreams: ConnectionConfig["eventStreams"];
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(emptyToUndefined(env));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}\nFix these environment variables (see docs/configuration.md).`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.PAYGATE_DATA_DIR);
  const publicUrl = e.PAYGATE_PUBLIC_URL ?? defaultPublicUrl(e.HOST, e.PORT);
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl,
    email: emailConfig(e, publicUrl),
    refundClaimDays: e.PAYGATE_REFUND_CLAIM_DAYS,
    ownAddresses: { maxExtraUnits: e.PAYGATE_OWN_ADDRESS_MAX_EXTRA_UNITS, holdAfterWindowMs: e.PAYGATE_LATE_PAYMENT_WATCH_HOURS * 3_600_000 },
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
    forwarders: forwarderConfig(e),
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

/** An empty variable (`PORT=`) means unset, as most shells and .env loaders intend. */
function emptyToUndefined(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) out[k] = v === "" ? undefined : v;
  return out;
}
