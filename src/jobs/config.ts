// The jobs' configuration: a transaction's windows and the expiry job (PAYGATE_…_WINDOW_…, PAYGATE_POLICY_…,
// PAYGATE_EXPIRY_…) and the payment watcher's schedule (PAYGATE_WATCH_…); src/config.ts composes them.
import { z } from "zod";
import { Decimal, isNumericString } from "../core/money/amounts.ts";
import type { PolicyBounds } from "../core/policies.ts";
import { boolean } from "../env.ts";

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
  PAYGATE_OWN_ADDRESS_MAX_EXTRA_UNITS: z.coerce
    .number()
    .int()
    .min(1)
    .max(999_999)
    .default(999)
    .describe(
      "TRON own-address mode (docs/settlement.md): the most base units added to a payment's amount to tell it apart (N; `999` is at most 0.000999 USDT). Each own address holds N open payments at once. Default: `999`.",
    ),
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
