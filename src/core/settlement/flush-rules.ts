// When the flush job flushes a merchant's settled forwarders (issue 40, goal 1: "per merchant: count,
// value or age"; docs/settlement.md, Flush rules): a rule per EVM network and mode, whichever threshold
// is reached first. A threshold left out is the operator's default (PAYGATE_FLUSH_MIN_PAYMENTS and
// PAYGATE_FLUSH_MAX_AGE_HOURS); value has no default. On-demand flushes ignore rules.
import { z } from "zod";
import { auditEntry } from "../access/audit-log.ts";
import { errors } from "../errors.ts";
import { Decimal } from "../money/amounts.ts";
import { fiatById, fiatBySlug, FIAT_CURRENCIES } from "../money/currencies.ts";
import { CHAINS, isNetworkSlug, type NetworkSlug } from "../networks.ts";
import type { FlushRuleRecord } from "../records/forwarders.ts";
import type { FlushBacklog } from "../stores/forwarders.ts";
import { parseBody } from "../transactions/requests.ts";
import type { SettlementOwner } from "./consolidations.ts";
import { FORWARDER_NETWORKS, type ForwarderDeps } from "./forwarders.ts";

/** The operator's thresholds (configuration), used where a merchant's rule leaves one out. */
export interface FlushThresholds {
  /** Flush once a merchant has this many settled forwarders on a network… */
  minPayments: number;
  /** …or once the oldest has waited this long since it became final. */
  maxAgeMs: number;
}

/** A flush takes 100 forwarders at most: a larger count would never be reached by one flush's worth. */
const MAX_MIN_PAYMENTS = 100;
/** 90 days: money left longer on forwarders is a setting mistake, not a choice. */
const MAX_AGE_HOURS = 2160;
const fiatSlugs = FIAT_CURRENCIES.map((f) => f.slug).join(", ");

/** A whole-number threshold from 1 to `max`; null or left out: the operator's default. */
function wholeThreshold(field: string, max: number) {
  const range = `${field} must be a whole number from 1 to ${max}`;
  return z
    .number({ error: `${range}, or null for the operator's default` })
    .int(range)
    .min(1, range)
    .max(max, range)
    .nullable()
    .optional();
}

const RuleBody = z
  .object({
    min_payments: wholeThreshold("min_payments", MAX_MIN_PAYMENTS),
    min_value: z
      .object(
        {
          amount: z.string({ error: 'min_value.amount must be a decimal string such as "500.00"' }).regex(/^\d{1,26}(\.\d{1,2})?$/, {
            error: 'min_value.amount must be a positive decimal string with at most 2 decimals, such as "500.00"',
          }),
          currency: z.string({ error: `min_value.currency must be one of ${fiatSlugs}` }),
        },
        { error: "min_value must be an object { amount, currency }, or null for none" },
      )
      .strict()
      .nullable()
      .optional(),
    max_age_hours: wholeThreshold("max_age_hours", MAX_AGE_HOURS),
  })
  .strict();

export interface FlushRuleView {
  object: "flush_rule";
  network: string;
  is_live: boolean;
  /** null: the operator's default. */
  min_payments: number | null;
  /** null: no value threshold. */
  min_value: { amount: string; currency: string } | null;
  /** null: the operator's default. */
  max_age_hours: number | null;
  updated_at: string;
}

export function flushRuleView(r: FlushRuleRecord): FlushRuleView {
  const fiat = r.valueCurrencyId === null ? undefined : fiatById(r.valueCurrencyId);
  return {
    object: "flush_rule",
    network: r.network,
    is_live: r.isLive,
    min_payments: r.minPayments,
    min_value: r.minValue === null || fiat === undefined ? null : { amount: r.minValue.toFixed(fiat.decimals), currency: fiat.slug },
    max_age_hours: r.maxAgeHours,
    updated_at: r.updatedAt.toISOString(),
  };
}

const modeText = (isLive: boolean) => (isLive ? "live mode" : "test mode");

function forwarderNetwork(raw: string): NetworkSlug {
  const network = raw.trim().toLowerCase();
  if (!isNetworkSlug(network) || !(FORWARDER_NETWORKS as readonly string[]).includes(network) || CHAINS[network].family !== "evm")
    throw errors.flushRuleValidation([{ field: "network", message: `network must be one of ${FORWARDER_NETWORKS.join(", ")} (got '${raw}')` }]);
  return network;
}

/** GET /v1/settlements/flush-rules: the merchant's rules in the key's mode. */
export async function flushRules(deps: ForwarderDeps, owner: SettlementOwner): Promise<FlushRuleView[]> {
  return (await deps.stores.forwarders.flushRules(owner.merchantId, owner.isLive)).map(flushRuleView);
}

/** PUT /v1/settlements/flush-rules/{network}: the whole rule (a threshold left out is the default). */
export async function setFlushRule(deps: ForwarderDeps, owner: SettlementOwner, rawNetwork: string, body: unknown): Promise<FlushRuleView> {
  const network = forwarderNetwork(rawNetwork);
  const parsed = parseBody(RuleBody, body);
  if (!parsed.ok) throw errors.flushRuleValidation(parsed.errors);
  const { min_payments = null, min_value = null, max_age_hours = null } = parsed.value;
  const fiat = min_value === null ? null : fiatBySlug(min_value.currency.trim().toUpperCase());
  if (fiat === undefined)
    throw errors.flushRuleValidation([{ field: "min_value.currency", message: `min_value.currency must be one of ${fiatSlugs}` }]);
  const minValue = min_value === null ? null : new Decimal(min_value.amount);
  if (minValue?.isZero()) throw errors.flushRuleValidation([{ field: "min_value.amount", message: "min_value.amount must be more than 0" }]);
  if (min_payments === null && minValue === null && max_age_hours === null)
    throw errors.flushRuleValidation([
      {
        field: "body",
        message: "give at least one of min_payments, min_value, max_age_hours (DELETE the rule to go back to the operator's defaults)",
      },
    ]);
  const now = deps.clock.now();
  const text = [
    min_payments === null ? null : `${min_payments} payments`,
    minValue === null || fiat === null ? null : `${minValue.toFixed(fiat.decimals)} ${fiat.slug}`,
    max_age_hours === null ? null : `${max_age_hours} h`,
  ].filter((part) => part !== null);
  const saved = await deps.stores.forwarders.putFlushRule(
    {
      merchantId: owner.merchantId,
      network,
      isLive: owner.isLive,
      minPayments: min_payments,
      minValue,
      valueCurrencyId: fiat === null ? null : fiat.id,
      maxAgeHours: max_age_hours,
      updatedAt: now,
    },
    owner.by === null
      ? null
      : auditEntry(owner.by, owner.merchantId, now, "flush_rule.set", `${network} in ${modeText(owner.isLive)}: flush at ${text.join(" or ")}`),
  );
  return flushRuleView(saved);
}

/** DELETE /v1/settlements/flush-rules/{network}: the operator's defaults again. 404 when there was none. */
export async function removeFlushRule(deps: ForwarderDeps, owner: SettlementOwner, rawNetwork: string): Promise<void> {
  const network = forwarderNetwork(rawNetwork);
  const audit =
    owner.by === null
      ? null
      : auditEntry(owner.by, owner.merchantId, deps.clock.now(), "flush_rule.remove", `${network} in ${modeText(owner.isLive)}`);
  if (!(await deps.stores.forwarders.removeFlushRule(owner.merchantId, network, owner.isLive, audit))) throw errors.flushRuleNotFound(network);
}

/** Whether the flush job flushes this backlog now: any threshold of the merchant's rule, or the operator's where it left one out. */
export function isFlushDue(due: FlushBacklog, defaults: FlushThresholds, now: Date): boolean {
  const minPayments = due.rule?.minPayments ?? defaults.minPayments;
  const maxAgeMs = due.rule?.maxAgeHours == null ? defaults.maxAgeMs : due.rule.maxAgeHours * 3_600_000;
  if (due.count >= minPayments) return true;
  if (now.getTime() - due.oldestFinalAt.getTime() >= maxAgeMs) return true;
  const minValue = due.rule?.minValue ?? null;
  return minValue !== null && due.value.greaterThanOrEqualTo(minValue);
}
