// Merchant pricing (issue 29): the merchant's margin on the locked rate (a spread in percent, within
// the operator's bounds, PAYGATE_MERCHANT_SPREAD_MAX_PERCENT) and its choice of price providers and
// their order (a subset of PAYGATE_PRICE_FEED). Set through the CLI, REST (secret key) and the
// dashboard (owners), each change in the audit log; initiate applies both (initiate.ts).
//
// The spread lowers the rate used (fiat per coin) below the market rate: the customer sends that
// much more coin for the same fiat amount, so the merchant receives the margin (docs/pricing.md).
import type { ChangeAuthor } from "../access/audit-log.ts";
import { auditEntry } from "../access/audit-log.ts";
import type { CoreDeps } from "../deps.ts";
import { errors, type FieldError } from "../errors.ts";
import { Decimal, isNumericString, RATE_DECIMALS } from "../money/amounts.ts";
import type { QuoteOptions } from "../ports.ts";
import { DEFAULT_SPREAD_BOUNDS } from "../policies.ts";

/** The spread's precision: the column is DECIMAL(6, 4). */
const SPREAD_DECIMALS = 4;

export interface MerchantPricing {
  /** Percent, a normalised decimal string; "0": no spread. */
  spreadPercent: string;
  /** The providers the merchant chose, in its order; empty: the operator's (PAYGATE_PRICE_FEED, in its order). */
  sources: string[];
  /** The providers the merchant may choose from, in the operator's order, and how many a choice must name. */
  available: string[];
  minimumSources: number;
  /** The spread's bounds, percent. */
  spreadBounds: { min: string; max: string };
}

export type PricingDeps = Pick<CoreDeps, "stores" | "prices" | "lifecycle" | "clock">;

export async function merchantPricing(deps: PricingDeps, merchantId: number): Promise<MerchantPricing> {
  const row = await deps.stores.merchants.pricing(merchantId);
  if (!row) throw errors.merchantNotFound(merchantId);
  const offered = deps.prices.providers;
  const bounds = spreadBounds(deps);
  return {
    spreadPercent: row.spreadPercent === null ? "0" : new Decimal(row.spreadPercent.toString()).toFixed(),
    sources: row.sources,
    available: [...(offered?.names ?? [])],
    minimumSources: offered?.atLeast ?? 1,
    spreadBounds: { min: bounds.min.toFixed(), max: bounds.max.toFixed() },
  };
}

/**
 * Sets the spread and/or the providers (a field left out keeps its value; `sources` null or [] gives
 * the choice back to the operator). Bad input: 400 naming each field and what it may be, nothing changed.
 */
export async function setMerchantPricing(
  deps: PricingDeps,
  merchantId: number,
  input: { spread?: unknown; sources?: unknown },
  by: ChangeAuthor,
): Promise<MerchantPricing> {
  const current = await merchantPricing(deps, merchantId);
  const problems: FieldError[] = [];
  const spread = input.spread === undefined ? current.spreadPercent : checkedSpread(deps, input.spread, problems);
  const sources = input.sources === undefined ? current.sources : checkedSources(deps, input.sources, problems);
  if (problems.length > 0) throw errors.invalidPricing(problems);
  const spreadPercent = spread === null || new Decimal(spread).isZero() ? null : spread;
  const now = deps.clock.now();
  const target = `spread ${spreadPercent ?? "0"}%, sources ${sources.length > 0 ? sources.join(",") : "the operator's"}`;
  const changed = await deps.stores.merchants.setPricing(
    merchantId,
    { spreadPercent, sources },
    now,
    auditEntry(by, merchantId, now, "pricing.set", target),
  );
  if (!changed) throw errors.merchantNotFound(merchantId);
  return merchantPricing(deps, merchantId);
}

function spreadBounds(deps: Pick<CoreDeps, "lifecycle">) {
  return deps.lifecycle.policyBounds?.spread ?? DEFAULT_SPREAD_BOUNDS;
}

function checkedSpread(deps: Pick<CoreDeps, "lifecycle">, value: unknown, problems: FieldError[]): string | null {
  if (value === null) return null;
  const bounds = spreadBounds(deps);
  const text = typeof value === "string" ? value.trim() : null;
  const percent = text !== null && isNumericString(text) ? new Decimal(text) : null;
  if (percent === null || percent.lt(bounds.min) || percent.gt(bounds.max) || percent.decimalPlaces() > SPREAD_DECIMALS) {
    problems.push({
      field: "spread",
      message: `spread must be a decimal string from ${bounds.min.toFixed()} to ${bounds.max.toFixed()} (percent), with at most ${SPREAD_DECIMALS} decimal places`,
    });
    return null;
  }
  return percent.toFixed();
}

function checkedSources(deps: Pick<CoreDeps, "prices">, value: unknown, problems: FieldError[]): string[] {
  if (value === null) return [];
  const offered = deps.prices.providers;
  const known = offered?.names ?? [];
  const knownText = known.length > 0 ? known.join(", ") : "none (this instance offers no choice of providers)";
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    problems.push({ field: "sources", message: `sources must be a list of price providers, from: ${knownText}` });
    return [];
  }
  const names = value.map((v: string) => v.trim().toLowerCase());
  if (names.length === 0) return [];
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length > 0) {
    problems.push({
      field: "sources",
      message: `sources: unknown provider${unknown.length > 1 ? "s" : ""} ${unknown.map((u) => `'${u}'`).join(", ")}; the known ones are ${knownText}`,
    });
    return [];
  }
  if (new Set(names).size !== names.length) {
    problems.push({ field: "sources", message: "sources: name each provider once" });
    return [];
  }
  const atLeast = offered?.atLeast ?? 1;
  if (names.length < atLeast) {
    problems.push({
      field: "sources",
      message: `sources must name at least ${atLeast} providers (the quorum of PAYGATE_PRICE_QUORUM), from: ${knownText}`,
    });
    return [];
  }
  return names;
}

/** What a quote of this merchant asks the feed: its providers in its order (none chosen: the operator's). */
export function quoteOptionsOf(pricing: { sources: string[] } | null): QuoteOptions | undefined {
  return pricing && pricing.sources.length > 0 ? { providers: pricing.sources } : undefined;
}

/**
 * The rate used from the market rate and the merchant's spread: lower by the spread, so the customer
 * sends more coin for the same fiat (the merchant's favour), rounded down to the rate's 18 decimals
 * for the same reason. A spread of 0 leaves the rate as it is.
 */
export function rateWithSpread(market: Decimal, spreadPercent: string): Decimal {
  const spread = new Decimal(spreadPercent);
  if (spread.isZero()) return market;
  return market.times(new Decimal(1).minus(spread.div(100))).toDecimalPlaces(RATE_DECIMALS, Decimal.ROUND_DOWN);
}
