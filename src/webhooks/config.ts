// Webhook delivery's configuration (PAYGATE_WEBHOOK_…): its schema, with each variable's description, and
// what the dispatcher and the core are given (src/config.ts composes it into the service's).
import { z } from "zod";
import { PrivateAllowlist, type PrivateTargets } from "../core/private-targets.ts";
import { boolean } from "../env.ts";

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
