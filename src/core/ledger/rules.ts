// The ledger's rules (issue 40, goal 5; docs/ledger.md): which query a list, an export or the totals
// take, the period they cover, and every refusal of a bad one (400, naming each parameter).
import { z } from "zod";
import { errors, type FieldError } from "../errors.ts";
import { limitParam, single } from "../lists.ts";
import { CRYPTO_CURRENCIES } from "../money/currencies.ts";
import { COIN_NETWORKS, NETWORK_SLUGS } from "../networks.ts";
import { LEDGER_KINDS } from "../records/ledger.ts";
import type { LedgerFilters } from "../stores/ledger.ts";

/** An entry's id: its kind and its source's id. */
export const LEDGER_ENTRY_ID =
  /^(receipt:\d{1,20}|refund:re_[0-9a-f-]{36}|consolidation:co_[0-9a-f-]{36}|flush:\d{1,18}:[A-Za-z0-9]{1,42}|sweep:sw_[0-9a-f-]{36})$/;

/** A day (`2026-12-01`, midnight UTC) or an ISO 8601 date-time with its offset (`2026-12-01T09:30:00Z`). */
const MOMENT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;
const MOMENT_MESSAGE = "must be a day (2026-12-01, midnight UTC) or an ISO 8601 date-time with its offset (2026-12-01T09:30:00Z)";

/** Of the right form and a real day: Date.parse would roll 2026-02-30 over to March 2nd. */
function isMoment(text: string): boolean {
  const day = text.slice(0, 10);
  return MOMENT.test(text) && !Number.isNaN(Date.parse(text)) && new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) === day;
}
const moment = single.refine(isMoment, MOMENT_MESSAGE);
const coins = CRYPTO_CURRENCIES.map((c) => c.slug);

const FilterParams = {
  from: moment.optional(),
  to: moment.optional(),
  coin: single
    .transform((s) => s.toUpperCase())
    .refine((s) => (coins as string[]).includes(s), `must be one of ${coins.join(", ")}`)
    .optional(),
  network: single
    .transform((s) => s.toLowerCase())
    .refine((s) => (NETWORK_SLUGS as string[]).includes(s), `must be one of ${NETWORK_SLUGS.join(", ")}`)
    .optional(),
  kind: z.enum(LEDGER_KINDS, { error: `must be one of ${LEDGER_KINDS.join(", ")}` }).optional(),
  mode: z.enum(["test", "live"], { error: "must be test or live" }).optional(),
};

export const LedgerListParams = z.object({
  limit: limitParam.optional(),
  starting_after: single
    .regex(LEDGER_ENTRY_ID, "must be the id of a ledger entry of the previous page (receipt:…, refund:re_…, consolidation:co_…)")
    .optional(),
  ...FilterParams,
});
export const LedgerTotalsParams = z.object(FilterParams);
export const LedgerExportParams = z.object(FilterParams);

type Filters = z.output<typeof LedgerTotalsParams>;

/** Where the caller stands: its merchant and the mode its key (or `--mode`) reaches. */
export interface LedgerOwner {
  merchantId: number;
  isLive: boolean;
}

/**
 * The filters checked together: a period whose end is not after its start, a mode other than the
 * caller's (a test key reads test mode only), a network the coin is not paid on. `needsPeriod`: an
 * export covers a stated period.
 */
export function filtersOf(owner: LedgerOwner, query: Filters, needsPeriod = false): LedgerFilters {
  const problems: FieldError[] = [];
  const mode = owner.isLive ? "live" : "test";
  if (query.mode !== undefined && query.mode !== mode) {
    problems.push({
      field: "mode",
      message: `must be ${mode}: a ${mode}-mode key reads ${mode}-mode entries only; use the ${query.mode} secret key for ${query.mode} mode`,
    });
  }
  if (needsPeriod) {
    for (const field of ["from", "to"] as const) {
      if (query[field] === undefined) problems.push({ field, message: "is required: an export covers a stated period" });
    }
  }
  const from = query.from === undefined ? null : new Date(query.from);
  const to = query.to === undefined ? null : new Date(query.to);
  if (from !== null && to !== null && to.getTime() <= from.getTime()) {
    problems.push({ field: "to", message: `must be after from (${from.toISOString()}): the period is from (inclusive) to (exclusive)` });
  }
  if (query.coin !== undefined && query.network !== undefined && !COIN_NETWORKS.some((r) => r.coin === query.coin && r.network === query.network)) {
    const networks = COIN_NETWORKS.filter((r) => r.coin === query.coin).map((r) => r.network);
    problems.push({ field: "network", message: `${query.coin} is paid on ${networks.join(", ")}, not ${query.network}` });
  }
  if (problems.length > 0) throw errors.invalidListParameters(problems);
  return {
    merchantId: owner.merchantId,
    isLive: owner.isLive,
    from,
    to,
    coin: query.coin ?? null,
    network: query.network ?? null,
    kind: query.kind ?? null,
  };
}
