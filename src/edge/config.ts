// The HTTP port's configuration: rate limits and trusted proxies, what a client may hold open, and which pages
// may call the browser routes (CORS); src/config.ts composes it into the service's.
import { z } from "zod";
import ipaddr from "ipaddr.js";
import { DEFAULT_RATE_LIMITS, type RateLimit } from "../core/rate-limits.ts";
import {
  type ConnectionLimits,
  DEFAULT_CONNECTION_LIMITS,
  DEFAULT_EVENT_STREAM_LIMITS,
  DEFAULT_LIVE_LIMITS,
  defaultConnectionTotal,
  defaultLiveTotal,
  type EventStreamLimits,
  type LiveLimits,
  openFileLimit,
} from "./connection-limits.ts";
import { ConfigError } from "../env.ts";

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

/** Which web pages may call the browser routes (src/edge/cors.ts; docs/rest-api.md, Browsers and CORS). */
export const CorsEnvSchema = z.object({
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

/** The Config's connections, live updates and event streams. */
export interface ConnectionConfig {
  /** TCP connections and slow requests at the socket; `total` stays under the open-file limit. */
  connections: ConnectionLimits & { total: number };
  /** Live updates: event streams and WebSockets per address, per credential and in all; subscriptions per WebSocket. */
  live: LiveLimits;
  /** Live event streams (GET /v1/events/stream) per secret key and in all, and their heartbeat. */
  eventStreams: EventStreamLimits;
}

/** What a client may hold open, checked against the open-file limit. */
export function connectionConfig(e: z.output<typeof ConnectionEnvSchema>): ConnectionConfig {
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
