// Per-payment policies (issue 29): a merchant may set, at initialize, how long the checkout stays
// payable (`expires_in`), how much underpayment completes (`underpayment_tolerance`) and how many
// confirmations a coin needs (`confirmations`), each within the operator's bounds
// (PAYGATE_POLICY_…). Absent, the operator's instance-wide setting applies, as before.
import { z } from "zod";
import { errors, type FieldError } from "./errors.ts";
import { Decimal, isNumericString } from "./money/amounts.ts";
import { CRYPTO_CURRENCIES } from "./money/currencies.ts";
import type { LatePaymentDecision } from "./records/transactions.ts";

/** The operator's bounds on what a merchant may ask for. */
export interface PolicyBounds {
  /** Seconds. */
  expiresIn: { min: number; max: number };
  /** Percent. */
  underpaymentTolerance: { min: Decimal; max: Decimal };
  /** Per coin; the minimum is the operator's floor. */
  confirmations: { min: number; max: number };
  /** Percent: the rate movement below which a late payment is accepted (late_payment.accept_if_rate_moved_below). */
  latePayment?: { min: Decimal; max: Decimal };
  /** Percent: the spread a merchant may set on its rates (merchant pricing, src/core/merchants/pricing.ts). */
  spread?: { min: Decimal; max: Decimal };
}

export const DEFAULT_LATE_PAYMENT_BOUNDS = { min: new Decimal(0), max: new Decimal(10) };
export const DEFAULT_SPREAD_BOUNDS = { min: new Decimal(0), max: new Decimal(10) };

export const DEFAULT_POLICY_BOUNDS: PolicyBounds = {
  expiresIn: { min: 60, max: 7 * 24 * 3600 },
  underpaymentTolerance: { min: new Decimal(0), max: new Decimal(10) },
  confirmations: { min: 1, max: 1000 },
  latePayment: DEFAULT_LATE_PAYMENT_BOUNDS,
  spread: DEFAULT_SPREAD_BOUNDS,
};

/** The tolerance's precision: the column is DECIMAL(7, 4). */
const TOLERANCE_DECIMALS = 4;
const COIN_SLUGS: readonly string[] = [...new Set(CRYPTO_CURRENCIES.map((c) => c.slug))];

/** Said in each field's description: who may send it (issue 41; requests.ts, merchantRulesOf). */
const MERCHANT_RULE =
  " The merchant's rule: send it with the secret key in `Authorization: Bearer sec_…` and the public key in `public_key`; a public key or payment link alone is refused (403).";

/** The request fields (types only; the bounds are the operator's, checked by policiesOf). The merchant's rules: only its secret key sets them. */
export const PolicyFields = {
  expires_in: z
    .number({ error: "expires_in must be a number of seconds" })
    .nullish()
    .meta({
      description: `Seconds the checkout stays payable once initiated, within the operator's bounds (PAYGATE_POLICY_EXPIRES_IN_…). Absent: PAYGATE_CHECKOUT_WINDOW_MINUTES.${MERCHANT_RULE}`,
      example: 900,
    }),
  underpayment_tolerance: z
    .string({ error: 'underpayment_tolerance must be a percentage as a decimal string such as "2.5"' })
    .trim()
    .nullish()
    .meta({
      description: `Percent a payment may fall short and still complete, a decimal string, within the operator's bounds. Absent: PAYGATE_UNDERPAYMENT_TOLERANCE_PERCENT.${MERCHANT_RULE}`,
      example: "2.5",
    }),
  confirmations: z
    .record(z.string(), z.number({ error: "must be a number of confirmations" }), {
      error: 'confirmations must be a JSON object of coin to confirmations, such as {"BTC": 2}',
    })
    .nullish()
    .meta({
      description: `Confirmations a payment needs, by coin (${COIN_SLUGS.join(", ")}), within the operator's bounds; the coins not named keep the operator's setting.${MERCHANT_RULE}`,
      example: { BTC: 2 },
    }),
  late_payment: z
    .object(
      {
        accept_if_rate_moved_below: z.string({
          error: 'late_payment.accept_if_rate_moved_below must be a percentage as a decimal string such as "2"',
        }),
      },
      { error: 'late_payment must be a JSON object such as {"accept_if_rate_moved_below": "2"}' },
    )
    .strict()
    .nullish()
    .meta({
      description:
        "What to do with a payment that covers the transaction after its checkout window closed: accept it (SUCCESSFUL) when the market rate moved less than `accept_if_rate_moved_below` percent since the rate was locked, within the operator's bounds (PAYGATE_POLICY_LATE_PAYMENT_…); otherwise it is recorded as late (`paid_late`) and left to the merchant. Absent: every late payment is left to the merchant." +
        MERCHANT_RULE,
      example: { accept_if_rate_moved_below: "2" },
    }),
};

export interface PaymentPolicies {
  expiresIn: number | null;
  /** Percent, a normalised decimal string. */
  underpaymentTolerance: string | null;
  confirmations: Record<string, number> | null;
  /** Percent, a normalised decimal string: a late payment is accepted when the rate moved less. */
  latePaymentPercent: string | null;
}

type PolicyInput = {
  expires_in?: number | null;
  underpayment_tolerance?: string | null;
  confirmations?: Record<string, number> | null;
  late_payment?: { accept_if_rate_moved_below: string } | null;
};

/** The request's policies checked against the operator's bounds; a 400 naming the field and the bounds otherwise. */
export function policiesOf(body: PolicyInput, bounds: PolicyBounds = DEFAULT_POLICY_BOUNDS): PaymentPolicies {
  const problems: FieldError[] = [];
  const { expiresIn, underpaymentTolerance: tolerance, confirmations } = bounds;
  const expires = body.expires_in ?? null;
  if (expires !== null && !within(expires, expiresIn)) {
    problems.push({ field: "expires_in", message: `expires_in must be a whole number of seconds from ${expiresIn.min} to ${expiresIn.max}` });
  }
  // One message for a malformed, negative, out-of-bounds or too precise value: each gets the bounds.
  const given = body.underpayment_tolerance ?? null;
  const percent = given !== null && isNumericString(given) ? new Decimal(given) : null;
  if (
    given !== null &&
    (percent === null || percent.lt(tolerance.min) || percent.gt(tolerance.max) || percent.decimalPlaces() > TOLERANCE_DECIMALS)
  ) {
    problems.push({
      field: "underpayment_tolerance",
      message: `underpayment_tolerance must be a decimal string from ${tolerance.min.toFixed()} to ${tolerance.max.toFixed()} (percent), with at most ${TOLERANCE_DECIMALS} decimal places`,
    });
  }
  const byCoin: Record<string, number> = {};
  for (const [coin, count] of Object.entries(body.confirmations ?? {})) {
    const slug = coin.toUpperCase();
    const field = `confirmations.${coin}`;
    if (!COIN_SLUGS.includes(slug)) problems.push({ field, message: `${field}: unknown coin; use ${COIN_SLUGS.join(", ")}` });
    else if (!within(count, confirmations)) {
      problems.push({ field, message: `${field} must be a whole number of confirmations from ${confirmations.min} to ${confirmations.max}` });
    } else byCoin[slug] = count;
  }
  const late = bounds.latePayment ?? DEFAULT_LATE_PAYMENT_BOUNDS;
  const lateGiven = body.late_payment?.accept_if_rate_moved_below.trim() ?? null;
  const latePercent = lateGiven !== null && isNumericString(lateGiven) ? new Decimal(lateGiven) : null;
  if (
    lateGiven !== null &&
    (latePercent === null || latePercent.lt(late.min) || latePercent.gt(late.max) || latePercent.decimalPlaces() > TOLERANCE_DECIMALS)
  ) {
    problems.push({
      field: "late_payment.accept_if_rate_moved_below",
      message: `late_payment.accept_if_rate_moved_below must be a decimal string from ${late.min.toFixed()} to ${late.max.toFixed()} (percent), with at most ${TOLERANCE_DECIMALS} decimal places`,
    });
  }
  if (problems.length > 0) throw errors.initializeValidation(problems);
  return {
    expiresIn: expires,
    underpaymentTolerance: percent?.toFixed() ?? null,
    confirmations: body.confirmations && Object.keys(byCoin).length > 0 ? byCoin : null,
    latePaymentPercent: latePercent?.toFixed() ?? null,
  };
}

function within(value: number, bounds: { min: number; max: number }): boolean {
  return Number.isSafeInteger(value) && value >= bounds.min && value <= bounds.max;
}

/** The confirmations a receipt of `coin` needs on this transaction: its own policy, else the operator's. */
export function requiredConfirmationsOf(t: { policyConfirmations?: unknown }, coin: string, operators: number): number {
  const own = t.policyConfirmations;
  if (typeof own !== "object" || own === null) return operators;
  const count = (own as Record<string, unknown>)[coin];
  return typeof count === "number" ? count : operators;
}

/** The fraction a payment may fall short: the transaction's own percent, else the operator's fraction. */
export function toleranceOf(policyPercent: { toString(): string } | null | undefined, operators: Decimal): Decimal {
  return policyPercent === null || policyPercent === undefined ? operators : new Decimal(policyPercent.toString()).div(100);
}

/** The policies as the APIs show them. */
export function policiesView(t: {
  policyExpiresIn: number | null;
  policyUnderpaymentTolerance: { toString(): string } | null;
  policyConfirmations: unknown;
  policyLatePaymentPercent?: { toString(): string } | null;
  latePayment?: unknown;
}) {
  const late = t.policyLatePaymentPercent ?? null;
  return {
    latePayment:
      late === null ? null : { acceptIfRateMovedBelow: new Decimal(late.toString()).toFixed(), decision: latePaymentDecisionOf(t.latePayment) },
    expiresIn: t.policyExpiresIn,
    underpaymentTolerance: t.policyUnderpaymentTolerance === null ? null : new Decimal(t.policyUnderpaymentTolerance.toString()).toFixed(),
    confirmations:
      typeof t.policyConfirmations === "object" && t.policyConfirmations !== null ? (t.policyConfirmations as Record<string, number>) : null,
  };
}

/** The stored decision read back; null when absent or not the shape written. */
export function latePaymentDecisionOf(stored: unknown): LatePaymentDecision | null {
  if (typeof stored !== "object" || stored === null) return null;
  const d = stored as Record<string, unknown>;
  if (typeof d.accepted !== "boolean" || typeof d.marketRate !== "string" || typeof d.movedPercent !== "string") return null;
  return {
    accepted: d.accepted,
    lockedRate: typeof d.lockedRate === "string" ? d.lockedRate : "",
    marketRate: d.marketRate,
    movedPercent: d.movedPercent,
    checkedAt: typeof d.checkedAt === "string" ? d.checkedAt : "",
  };
}

/** Windows and tolerance of a transaction's life (transactions/lifecycle.ts applies them). */
export interface LifecyclePolicy {
  /** How long an INITIATED transaction waits for initiate. */
  initiatedWindowMs: number;
  /** The checkout window: how long a PENDING transaction waits for its payment. */
  checkoutWindowMs: number;
  /** A payment short by at most this fraction still completes (BTCPay's "payment tolerance"); 0 by default. */
  underpaymentTolerance: Decimal;
  /** What a merchant may ask for per payment at initialize (PAYGATE_POLICY_…). */
  policyBounds?: PolicyBounds;
}

export const DEFAULT_LIFECYCLE: LifecyclePolicy = {
  initiatedWindowMs: 24 * 60 * 60_000,
  checkoutWindowMs: 30 * 60_000,
  underpaymentTolerance: new Decimal(0),
  policyBounds: DEFAULT_POLICY_BOUNDS,
};
